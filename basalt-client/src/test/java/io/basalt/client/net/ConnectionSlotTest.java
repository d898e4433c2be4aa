package io.basalt.client.net;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.basalt.protocol.OpCode;
import org.junit.jupiter.api.Test;

/** The connection slots a scanner's requests are pinned to ({@link RpcClient#nextSlot}, {@link RpcClient#callOn}). */
class ConnectionSlotTest {

    @Test
    void slotsTakenInTurnAreNeverNegativeAndANegativeOneIsRefusedBeforeAnythingIsSent() {
        // Nothing listens on port 1 and nothing is sent: a refused slot fails before a connection is made.
        try (RpcClient client = new RpcClient("127.0.0.1", 1, ClientOptions.builder().connections(3).build())) {
            for (int i = 0; i < 10; i++) {
                assertThat(client.nextSlot()).isBetween(0, 2);
            }
            assertThatThrownBy(() -> client.callOn(-1, OpCode.SCAN_CLOSE, "SCAN_CLOSE of scanner 7", buf -> { }, buf -> null))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("connection slot -1 is negative");
        }
    }
}
