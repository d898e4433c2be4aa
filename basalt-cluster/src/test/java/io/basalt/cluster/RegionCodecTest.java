package io.basalt.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.basalt.client.CheckAndMutate;
import io.basalt.client.Delete;
import io.basalt.client.Increment;
import io.basalt.client.NoSuchFamilyException;
import io.basalt.client.Put;
import io.basalt.protocol.MalformedFrameException;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The bytes of a region's log entries and replies: round trips, and damaged bytes refused by name. */
class RegionCodecTest {

    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static byte[] bytesOf(ByteBuf buf) {
        byte[] out = new byte[buf.readableBytes()];
        buf.readBytes(out);
        return out;
    }

    @Test
    void aCallRoundTripsAndEveryTruncationIsRefused() {
        WriteCall call = new WriteCall(42, 9, 7, List.of(Put.of("a").addColumn("f", "q", "1"), new Delete(b("b")),
                Increment.of("c").addColumn(b("f"), b("n"), 3),
                CheckAndMutate.onRow(b("a")).ifEquals(b("f"), b("q"), b("1")).then(Put.of("a").addColumn("f", "q", "2"))),
                List.of(3, 0, 7, 1));
        ByteBuf buf = Unpooled.buffer();
        RegionCodec.writeCall(buf, call);
        byte[] bytes = bytesOf(buf);
        WriteCall read = RegionCodec.readCall(Unpooled.wrappedBuffer(bytes), true);
        assertThat(read.positions()).containsExactly(3, 0, 7, 1);
        assertThat(read.clientId()).isEqualTo(42);
        assertThat(read.callId()).isEqualTo(9);
        assertThat(read.completedBelow()).isEqualTo(7);
        assertThat(read.operations()).hasSize(4);
        assertThat(read.operations().get(3)).isInstanceOf(CheckAndMutate.class);
        for (int cut = 0; cut < bytes.length; cut++) {
            ByteBuf part = Unpooled.wrappedBuffer(Arrays.copyOf(bytes, cut));
            assertThatThrownBy(() -> RegionCodec.readCall(part, true)).as("cut at %s", cut)
                    .isInstanceOf(MalformedFrameException.class);
        }
        // an entry written before calls carried positions: its operations at 0, 1, ...
        ByteBuf old = Unpooled.wrappedBuffer(bytes, 0, bytes.length - 4);
        assertThat(RegionCodec.readCall(old, false).positions()).containsExactly(0, 1, 2, 3);
        byte[] twice = bytes.clone();
        twice[twice.length - 1] = 3; // positions 3, 0, 7, 3
        assertThatThrownBy(() -> RegionCodec.readCall(Unpooled.wrappedBuffer(twice), true))
                .isInstanceOf(MalformedFrameException.class).hasMessageContaining("distinct");
    }

    @Test
    void anUnknownVersionOrKindIsNamed() {
        ByteBuf v2 = Unpooled.buffer().writeByte(2).writeByte(RegionCodec.WRITE);
        assertThatThrownBy(() -> RegionCodec.readKind(v2, "log entry")).isInstanceOf(MalformedFrameException.class)
                .hasMessageContaining("version 2");
        ByteBuf op = Unpooled.buffer();
        op.writeLong(1).writeByte(1).writeByte(0).writeByte(1).writeByte(9); // one operation of kind 9
        assertThatThrownBy(() -> RegionCodec.readCall(op, true)).isInstanceOf(MalformedFrameException.class)
                .hasMessageContaining("operation kind 9");
    }

    @Test
    void outcomesRoundTripWithTheirTypedFailures() {
        List<Object> outcomes = new ArrayList<>();
        outcomes.add(null);
        outcomes.add(Boolean.TRUE);
        outcomes.add(Boolean.FALSE);
        outcomes.add(new NoSuchFamilyException("t", "x"));
        byte[] bytes = RegionCodec.outcomes(outcomes);
        List<Object> read = RegionCodec.readOutcomes(Unpooled.wrappedBuffer(bytes), "here");
        assertThat(read.subList(0, 3)).containsExactly(null, Boolean.TRUE, Boolean.FALSE);
        assertThat(read.get(3)).isInstanceOfSatisfying(NoSuchFamilyException.class, e -> {
            assertThat(e.table()).isEqualTo("t");
            assertThat(e.family()).isEqualTo("x");
        });
        for (int cut = 0; cut < bytes.length; cut++) {
            ByteBuf part = Unpooled.wrappedBuffer(Arrays.copyOf(bytes, cut));
            assertThatThrownBy(() -> RegionCodec.readOutcomes(part, "here")).as("cut at %s", cut)
                    .isInstanceOf(MalformedFrameException.class);
        }
    }
}
