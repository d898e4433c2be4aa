package io.basalt.client.net;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.basalt.client.Consistency;
import io.basalt.client.Get;
import io.basalt.client.Scan;
import io.basalt.protocol.MalformedFrameException;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.Test;

/**
 * A query's consistency travels as an optional last byte: a strong one is the request it was
 * before the option, a timeline one adds a byte, an unknown code is refused by name, and copies of
 * a query (a scan resumed, a get as a scan) keep it.
 */
class ConsistencyEncodingTest {

    @Test
    void strongAddsNothingAndTimelineOneByte() {
        Get strong = Get.of("r");
        ByteBuf plain = Unpooled.buffer();
        Messages.writeGet(plain, strong);
        ByteBuf withOption = Unpooled.buffer();
        Messages.writeGet(withOption, strong);
        Messages.writeConsistency(withOption, strong);
        assertThat(withOption.readableBytes()).isEqualTo(plain.readableBytes());

        Get timeline = Get.of("r").setConsistency(Consistency.TIMELINE);
        ByteBuf buf = Unpooled.buffer();
        Messages.writeGet(buf, timeline);
        Messages.writeConsistency(buf, timeline);
        assertThat(buf.readableBytes()).isEqualTo(plain.readableBytes() + 1);
        Get read = Messages.readGet(buf);
        Messages.readConsistency(buf, read);
        assertThat(read.consistency()).isEqualTo(Consistency.TIMELINE);
        assertThat(buf.isReadable()).isFalse();

        Get old = Messages.readGet(plain);
        Messages.readConsistency(plain, old);
        assertThat(old.consistency()).as("a request without the byte").isEqualTo(Consistency.STRONG);
    }

    @Test
    void anUnknownCodeIsRefusedAndCopiesKeepTheOption() {
        ByteBuf buf = Unpooled.buffer().writeByte(7);
        assertThatThrownBy(() -> Messages.readConsistency(buf, new Scan()))
                .isInstanceOf(MalformedFrameException.class).hasMessageContaining("consistency 7 is unknown");

        Scan scan = new Scan().setConsistency(Consistency.TIMELINE);
        assertThat(scan.copy().consistency()).isEqualTo(Consistency.TIMELINE);
        assertThat(Get.of("r").setConsistency(Consistency.TIMELINE).toScan().consistency())
                .isEqualTo(Consistency.TIMELINE);
        ByteBuf encoded = Unpooled.buffer();
        Messages.writeScan(encoded, scan);
        Messages.writeConsistency(encoded, scan);
        Scan back = Messages.readScan(encoded);
        Messages.readConsistency(encoded, back);
        assertThat(back.consistency()).isEqualTo(Consistency.TIMELINE);
    }
}
