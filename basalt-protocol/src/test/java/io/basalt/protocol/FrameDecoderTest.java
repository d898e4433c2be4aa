package io.basalt.protocol;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.basalt.cell.Cell;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.DecoderException;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.From;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** {@link FrameDecoder}: cutting, checking and size-limiting frames, fed through an {@link EmbeddedChannel}. */
class FrameDecoderTest {

    private static final int MAX = 1024;

    record Spec(long requestId, OpCode op, Status status, boolean response, byte[] body) {}

    private EmbeddedChannel channel;

    @AfterEach
    void finishChannel() {
        close();
    }

    /**
     * Closes the channel, releasing what it holds (a decoder that failed fails again on the bytes
     * it kept), and checks that every buffer the decoder allocated was released.
     */
    private void close() {
        if (channel != null) {
            try {
                channel.finishAndReleaseAll();
            } catch (DecoderException _) {
                // the same malformed bytes, decoded once more as the channel closes
            }
            channel = null;
            assertThat(allocator.unreleased()).as("buffers the decoder allocated").isEmpty();
        }
    }

    private TrackingAllocator allocator;

    private EmbeddedChannel open(int maxFrameSize) {
        channel = new EmbeddedChannel(new FrameDecoder(maxFrameSize));
        allocator = new TrackingAllocator();
        channel.config().setAllocator(allocator);
        return channel;
    }

    static ByteBuf handshake() {
        ByteBuf buf = Unpooled.buffer();
        FrameLayout.writeHandshake(buf, FrameLayout.VERSION, 0);
        return buf;
    }

    static ByteBuf encode(Spec spec) {
        ByteBuf buf = Unpooled.buffer();
        int start = FrameLayout.begin(buf, spec.requestId, spec.op, spec.status, spec.response);
        buf.writeBytes(spec.body);
        FrameLayout.finish(buf, start);
        return buf;
    }

    private static byte[] bytes(ByteBuf buf) {
        return ByteBufUtil.getBytes(buf);
    }

    /** Feeds {@code data} and returns what came out; a decoder failure is rethrown by the channel. */
    private List<Object> feed(ByteBuf data) {
        channel.writeInbound(data);
        List<Object> out = new ArrayList<>();
        Object o;
        while ((o = channel.readInbound()) != null) {
            out.add(o);
        }
        return out;
    }

    private void expectHandshake() {
        List<Object> out = feed(handshake());
        assertThat(out).containsExactly(new Handshake(FrameLayout.VERSION, 0));
    }

    @Provide
    Arbitrary<Spec> specs() {
        return Combinators.combine(
                Arbitraries.longs(),
                Arbitraries.of(OpCode.class),
                Arbitraries.of(Status.class),
                Arbitraries.of(true, false),
                Arbitraries.bytes().array(byte[].class).ofMaxSize(300))
                .as(Spec::new);
    }

    private static void assertDecodes(Frame frame, Spec spec) {
        assertThat(frame.requestId()).isEqualTo(spec.requestId);
        assertThat(frame.op()).isEqualTo(spec.op);
        assertThat(frame.status()).isEqualTo(spec.status);
        assertThat(frame.response()).isEqualTo(spec.response);
        assertThat(bytes(frame.body())).isEqualTo(spec.body);
        frame.release();
    }

    @Property(tries = 200)
    void framesWrittenWithTheLayoutDecodeToWhatWasWritten(@ForAll @Size(min = 1, max = 8) List<@From("specs") Spec> specs,
                                                           @ForAll @IntRange(min = 1, max = 64) int chunk) {
        open(64 * 1024);
        try {
            ByteBuf all = Unpooled.buffer();
            FrameLayout.writeHandshake(all, FrameLayout.VERSION, 0);
            for (Spec s : specs) {
                ByteBuf one = encode(s);
                all.writeBytes(one);
                one.release();
            }
            List<Object> out = new ArrayList<>();
            while (all.isReadable()) {
                out.addAll(feed(all.readRetainedSlice(Math.min(chunk, all.readableBytes()))));
            }
            all.release();
            assertThat(out).hasSize(specs.size() + 1);
            assertThat(out.getFirst()).isEqualTo(new Handshake(FrameLayout.VERSION, 0));
            for (int i = 0; i < specs.size(); i++) {
                assertDecodes((Frame) out.get(i + 1), specs.get(i));
            }
            assertThat(all.refCnt()).as("every input byte consumed, every body released").isZero();
            assertThat(channel.pipeline().get(FrameDecoder.class).partial()).isFalse();
        } finally {
            close();
        }
    }

    @Test
    void bytesArrivingOneAtATimeDecodeOnlyWhenTheFrameIsWhole() {
        open(MAX);
        FrameDecoder decoder = channel.pipeline().get(FrameDecoder.class);
        ByteBuf hs = handshake();
        for (int i = 0; i < FrameLayout.HANDSHAKE_SIZE - 1; i++) {
            assertThat(feed(hs.readRetainedSlice(1))).isEmpty();
            assertThat(decoder.partial()).isTrue();
        }
        assertThat(feed(hs.readRetainedSlice(1))).containsExactly(new Handshake(FrameLayout.VERSION, 0));
        hs.release();
        assertThat(decoder.partial()).isFalse();

        Spec spec = new Spec(42, OpCode.GET, Status.OK, false, new byte[] {1, 2, 3, 4, 5});
        ByteBuf frame = encode(spec);
        int size = frame.readableBytes();
        assertThat(decoder.partialSince()).isEqualTo(FrameDecoder.NOT_PARTIAL);
        long since = 0;
        for (int i = 0; i < size - 1; i++) {
            assertThat(feed(frame.readRetainedSlice(1))).as("after %d of %d bytes", i + 1, size).isEmpty();
            assertThat(decoder.partial()).isTrue();
            if (i == 0) {
                since = decoder.partialSince();
            }
            // Issue #17: the frame's clock runs from its first byte; later bytes do not restart it.
            assertThat(decoder.partialSince()).as("after %d of %d bytes", i + 1, size).isEqualTo(since);
        }
        List<Object> out = feed(frame.readRetainedSlice(1));
        frame.release();
        assertThat(out).hasSize(1);
        assertDecodes((Frame) out.getFirst(), spec);
        assertThat(decoder.partial()).isFalse();
        assertThat(decoder.partialSince()).isEqualTo(FrameDecoder.NOT_PARTIAL);
    }

    /**
     * A byte changed anywhere from the checksum on is a checksum mismatch; a changed length field
     * makes the decoder cut the stream at the wrong place, which it must also never deliver as a
     * frame. Zero padding after the frame lets a grown length be completed.
     */
    @Property(tries = 300)
    void aFlippedByteIsNeverADecodedFrame(@ForAll("specs") Spec spec, @ForAll @IntRange(min = 0, max = 10_000) int where,
                                          @ForAll @IntRange(min = 1, max = 255) int mask) {
        open(MAX);
        try {
            expectHandshake();
            ByteBuf frame = encode(spec);
            int at = where % frame.readableBytes();
            frame.setByte(at, frame.getByte(at) ^ mask);
            frame.writeZero(MAX + 64);
            List<Object> out = new ArrayList<>();
            Throwable failure = null;
            try {
                out.addAll(feed(frame));
            } catch (DecoderException e) {
                failure = e.getCause();
            }
            assertThat(out).noneMatch(o -> o instanceof Frame);
            if (at >= FrameLayout.CRC_OFFSET) {
                assertThat(failure).isInstanceOf(MalformedFrameException.class).hasMessageContaining("checksum")
                        .hasMessageContaining("crc32c");
            } else {
                assertThat(failure != null || out.stream().anyMatch(o -> o instanceof FrameDecoder.TooLargeFrame))
                        .as("a flipped length byte ends in an error or a too-large report, got %s", out).isTrue();
                if (failure != null) {
                    assertThat(failure).isInstanceOf(MalformedFrameException.class);
                }
            }
        } finally {
            close();
        }
    }

    @Test
    void aHandshakeWithTheWrongMagicIsRefused() {
        open(MAX);
        ByteBuf bad = Unpooled.buffer();
        bad.writeInt(0x47455420).writeShort(1).writeShort(0); // "GET " like an HTTP client
        assertThatThrownBy(() -> feed(bad)).isInstanceOf(DecoderException.class)
                .cause().isInstanceOf(MalformedFrameException.class).hasMessageContaining("magic")
                .hasMessageContaining("0x47455420");
    }

    @Test
    void aLengthBelowTheHeaderIsRefused() {
        open(MAX);
        expectHandshake();
        ByteBuf bad = Unpooled.buffer();
        bad.writeInt(FrameLayout.MIN_LENGTH - 1).writeZero(40);
        assertThatThrownBy(() -> feed(bad)).isInstanceOf(DecoderException.class)
                .cause().isInstanceOf(MalformedFrameException.class).hasMessageContaining("length 15")
                .hasMessageContaining("below");
    }

    @Test
    void reservedFlagBitsAreRefused() {
        for (int flag = 2; flag < 16; flag++) { // bit 1 is FLAG_CALL
            open(MAX);
            expectHandshake();
            ByteBuf frame = Unpooled.buffer();
            int start = FrameLayout.begin(frame, 7, OpCode.PING, Status.OK, false);
            frame.setShort(start + FrameLayout.FLAGS_OFFSET, 1 << flag);
            FrameLayout.finish(frame, start); // a valid checksum: only the flags are wrong
            assertThatThrownBy(() -> feed(frame)).as("flag bit %d", flag).isInstanceOf(DecoderException.class)
                    .cause().isInstanceOf(MalformedFrameException.class).hasMessageContaining("reserved");
            close();
        }
    }

    @Test
    void aCallIdIsAFlagOfRequestsOnly() {
        open(MAX);
        expectHandshake();
        ByteBuf request = Unpooled.buffer();
        int start = FrameLayout.begin(request, 7, OpCode.PUT, Status.OK, FrameLayout.FLAG_CALL);
        new CallId(5, 9, 3).write(request);
        request.writeByte(42);
        FrameLayout.finish(request, start);
        List<Object> out = feed(request);
        assertThat(out).hasSize(1);
        Frame f = (Frame) out.getFirst();
        assertThat(f.call()).isTrue();
        assertThat(CallId.read(f.body())).isEqualTo(new CallId(5, 9, 3));
        assertThat(f.body().readByte()).isEqualTo((byte) 42);
        f.release();
        close();

        open(MAX);
        expectHandshake();
        ByteBuf response = Unpooled.buffer();
        start = FrameLayout.begin(response, 7, OpCode.PUT, Status.OK, FrameLayout.FLAG_CALL | FrameLayout.FLAG_RESPONSE);
        FrameLayout.finish(response, start);
        assertThatThrownBy(() -> feed(response)).isInstanceOf(DecoderException.class)
                .cause().isInstanceOf(MalformedFrameException.class).hasMessageContaining("reserved");
        close();
    }

    /**
     * A 1 GiB length is reported as soon as the header is in, and the bytes of its body that
     * follow are skipped as they come, not kept: each input buffer is consumed and released.
     */
    @Test
    void anOversizedFrameIsReportedBeforeItsBodyArrivesAndItsBytesAreNotKept() {
        open(MAX);
        expectHandshake();
        long gib = 1L << 30;
        ByteBuf header = Unpooled.buffer();
        header.writeInt((int) (gib - 4)).writeInt(0xDEAD).writeLong(1234).writeByte(OpCode.PUT.code())
                .writeByte(0).writeShort(0);
        List<Object> out = feed(header);
        assertThat(out).containsExactly(new FrameDecoder.TooLargeFrame(1234, OpCode.PUT.code(), gib));
        assertThat(header.refCnt()).isZero();
        FrameDecoder decoder = channel.pipeline().get(FrameDecoder.class);
        assertThat(decoder.partial()).isTrue();
        for (int i = 0; i < 8; i++) {
            ByteBuf chunk = Unpooled.buffer(1 << 20).writeZero(1 << 20);
            assertThat(feed(chunk)).isEmpty();
            assertThat(chunk.refCnt()).as("a skipped chunk is not buffered").isZero();
        }
    }

    @Test
    void aFrameSplitBeforeItsRequestIdIsReportedOnceTheHeaderIsIn() {
        open(MAX);
        expectHandshake();
        ByteBuf header = Unpooled.buffer();
        header.writeInt(MAX * 4).writeInt(0).writeLong(-5).writeByte(OpCode.BATCH.code()).writeByte(0).writeShort(0);
        assertThat(feed(header.readRetainedSlice(10))).isEmpty();
        assertThat(feed(header.readRetainedSlice(10))).containsExactly(
                new FrameDecoder.TooLargeFrame(-5, OpCode.BATCH.code(), MAX * 4 + 4));
        header.release();
    }

    @Test
    void theFrameAfterADiscardedOneDecodes() {
        open(MAX);
        expectHandshake();
        Spec big = new Spec(1, OpCode.PUT, Status.OK, false, new byte[MAX * 3]);
        new Random(1).nextBytes(big.body);
        Spec small = new Spec(2, OpCode.GET, Status.OK, false, new byte[] {9, 8, 7});
        ByteBuf stream = encode(big);
        ByteBuf next = encode(small);
        stream.writeBytes(next);
        next.release();
        List<Object> out = new ArrayList<>();
        while (stream.isReadable()) {
            out.addAll(feed(stream.readRetainedSlice(Math.min(100, stream.readableBytes()))));
        }
        stream.release();
        assertThat(out).hasSize(2);
        assertThat(out.getFirst()).isEqualTo(new FrameDecoder.TooLargeFrame(1, OpCode.PUT.code(),
                FrameLayout.HEADER_SIZE + MAX * 3));
        assertDecodes((Frame) out.get(1), small);
    }

    /** A SCAN_NEXT response of {@code size} random bytes (from {@code seed}). */
    private static Spec scanBatch(long requestId, int size, long seed) {
        byte[] body = new byte[size];
        new java.util.Random(seed).nextBytes(body);
        return new Spec(requestId, OpCode.SCAN_NEXT, Status.OK, true, body);
    }

    /** Feeds {@code frame} in 64 KiB pieces, each its own buffer as the socket delivers them. */
    private List<Object> feedInPieces(ByteBuf frame, List<Integer> capacities) {
        List<Object> out = new ArrayList<>();
        FrameDecoder decoder = channel.pipeline().get(FrameDecoder.class);
        while (frame.isReadable()) {
            out.addAll(feed(Unpooled.copiedBuffer(frame.readSlice(Math.min(64 * 1024, frame.readableBytes())))));
            capacities.add(decoder.bufferCapacity());
        }
        frame.release();
        return out;
    }

    @Test
    void aLargeFrameIsGatheredInOneBufferMadeOnceForTheWholeFrame() {
        open(16 << 20);
        expectHandshake();
        Spec big = scanBatch(7, 3 << 20, 1);
        ByteBuf frame = encode(big);
        int total = frame.readableBytes();
        List<Integer> capacities = new ArrayList<>();
        List<Object> out = feedInPieces(frame, capacities);
        assertThat(out).hasSize(1);
        assertDecodes((Frame) out.getFirst(), big);
        // The first piece is kept as it came; the second makes room for the whole frame, once.
        List<Integer> whileGathering = capacities.subList(1, capacities.size() - 1);
        assertThat(whileGathering).as("one buffer from the second piece on").containsOnly(whileGathering.getFirst());
        assertThat(whileGathering.getFirst()).isGreaterThanOrEqualTo(total);
    }

    @Test
    void aFrameLargerThanTheReserveLimitGrowsByDoublingAndDecodes() {
        open(32 << 20);
        expectHandshake();
        Spec huge = scanBatch(8, 20 << 20, 3);
        List<Integer> capacities = new ArrayList<>();
        List<Object> out = feedInPieces(encode(huge), capacities);
        assertThat(out).hasSize(1);
        assertDecodes((Frame) out.getFirst(), huge);
        assertThat(capacities.subList(1, capacities.size() - 1)).as("room made up to the limit first")
                .allMatch(c -> c >= FrameDecoder.RESERVE_LIMIT);
        assertThat(capacities.stream().distinct().count()).as("a few buffers, not one per piece").isLessThanOrEqualTo(5);
    }

    @Test
    void roomIsMadeAtMostUpToTheReserveLimit() {
        open(64 << 20);
        expectHandshake();
        ByteBuf header = Unpooled.buffer();
        header.writeInt(32 << 20); // announces 32 MiB and sends only a little of it
        header.writeZero(FrameLayout.HEADER_SIZE - 4);
        assertThat(feed(header)).isEmpty();
        assertThat(feed(Unpooled.wrappedBuffer(new byte[1000]))).isEmpty(); // more than the first buffer holds
        assertThat(channel.pipeline().get(FrameDecoder.class).bufferCapacity())
                .isGreaterThanOrEqualTo(FrameDecoder.RESERVE_LIMIT).isLessThan(32 << 20);
    }

    @Test
    void aBodyDecodedBeforeALargeFrameKeepsItsBytesWhileTheLargeFrameArrives() {
        open(16 << 20);
        expectHandshake();
        Spec small = new Spec(1, OpCode.PING, Status.OK, true, "small body".getBytes());
        Spec big = scanBatch(2, 1 << 20, 2);
        ByteBuf both = Unpooled.buffer();
        ByteBuf a = encode(small);
        ByteBuf b = encode(big);
        both.writeBytes(a);
        both.writeBytes(b, b.readerIndex(), 1000); // the small frame, then the start of the large one
        b.skipBytes(1000);
        a.release();
        // The small frame comes out while the large one's header is in the same buffer; it is
        // held, unreleased, while the rest arrives.
        channel.writeInbound(both);
        Frame first = (Frame) channel.readInbound();
        assertThat(first.requestId()).isEqualTo(1);
        while (b.isReadable()) {
            channel.writeInbound(Unpooled.copiedBuffer(b.readSlice(Math.min(64 * 1024, b.readableBytes()))));
        }
        b.release();
        assertDecodes(first, small);
        assertDecodes((Frame) channel.readInbound(), big);
    }

    /** A row section of {@code rows} rows of 50 cells, its body as a scan batch's. */
    private static byte[] rowSection(int rows) {
        List<List<Cell>> all = new ArrayList<>();
        for (int r = 0; r < rows; r++) {
            List<Cell> cells = new ArrayList<>();
            for (int q = 0; q < 50; q++) {
                cells.add(Cell.put("row" + r, "f", "q" + q, 1, "value-" + q));
            }
            all.add(cells);
        }
        ByteBuf body = Unpooled.buffer();
        Wire.writeRows(body, Wire.Rows.of(all, r -> false));
        return bytes(body);
    }

    @Test
    void aLargeFramesRowsAreReadInPlaceAndKeepTheirBytesAfterTheFrameIsReleased() {
        open(16 << 20);
        expectHandshake();
        byte[] section = rowSection(200); // about 400 KB
        Spec big = new Spec(9, OpCode.SCAN_NEXT, Status.OK, true, section);
        List<Object> out = feedInPieces(encode(big), new ArrayList<>());
        Frame frame = (Frame) out.getFirst();
        Wire.RowSection rows = Wire.readRows(frame.body(), "rows");
        assertThat(rows.count()).isEqualTo(200);
        // Not a copy: a window of the array the frame was gathered in, after the frame's header.
        assertThat(rows.from()).isGreaterThanOrEqualTo(FrameLayout.HEADER_SIZE);
        frame.release();
        byte[] window = java.util.Arrays.copyOfRange(rows.bytes(), rows.from(), rows.to());
        // More traffic through the same decoder, then the decoder gone: the window stays as it was.
        for (int i = 0; i < 40; i++) {
            ByteBuf small = encode(new Spec(10 + i, OpCode.PING, Status.OK, true, new byte[i]));
            feed(small.readRetainedSlice(small.readableBytes() / 2));
            ((Frame) feed(small).getFirst()).release();
        }
        close();
        assertThat(java.util.Arrays.copyOfRange(rows.bytes(), rows.from(), rows.to())).isEqualTo(window);
        assertThat(window).isEqualTo(java.util.Arrays.copyOfRange(section, section.length - window.length,
                section.length));
    }

    @Test
    void aSmallFramesRowsAreCopiedOutOfThePooledBuffer() {
        open(16 << 20);
        expectHandshake();
        byte[] section = rowSection(2);
        List<Object> out = feed(encode(new Spec(9, OpCode.SCAN_NEXT, Status.OK, true, section)));
        Frame frame = (Frame) out.getFirst();
        Wire.RowSection rows = Wire.readRows(frame.body(), "rows");
        frame.release();
        assertThat(rows.from()).isZero();
        assertThat(rows.to()).isEqualTo(rows.bytes().length);
    }

    @Test
    void anOwnedHeapBufferNeverMovesBytesItHasRead() {
        OwnedHeapBuffer buf = new OwnedHeapBuffer(io.netty.buffer.UnpooledByteBufAllocator.DEFAULT, 64);
        buf.writeBytes(new byte[] {1, 2, 3, 4, 5, 6, 7, 8});
        buf.skipBytes(6);
        byte[] array = buf.array();
        buf.discardSomeReadBytes();
        buf.discardReadBytes();
        assertThat(buf.readerIndex()).isEqualTo(6);
        assertThat(array).startsWith(1, 2, 3, 4, 5, 6, 7, 8);
        assertThat(OwnedHeapBuffer.owns(buf.retainedSlice(6, 2))).isTrue();
        assertThat(OwnedHeapBuffer.owns(Unpooled.buffer(8))).isFalse();
        buf.release(2);
        assertThat(array).as("released, the array is left to the garbage collector untouched")
                .startsWith(1, 2, 3, 4, 5, 6, 7, 8);
    }

    @Test
    void aFrameOfExactlyTheLimitDecodes() {
        open(MAX);
        expectHandshake();
        Spec spec = new Spec(3, OpCode.PUT, Status.OK, false, new byte[MAX - FrameLayout.HEADER_SIZE]);
        List<Object> out = feed(encode(spec));
        assertThat(out).hasSize(1);
        assertDecodes((Frame) out.getFirst(), spec);
        Spec over = new Spec(4, OpCode.PUT, Status.OK, false, new byte[MAX - FrameLayout.HEADER_SIZE + 1]);
        assertThat(feed(encode(over))).containsExactly(new FrameDecoder.TooLargeFrame(4, OpCode.PUT.code(), MAX + 1));
    }

    @Test
    void anUnknownOpOrStatusStillDecodesForTheHandlerToAnswer() {
        open(MAX);
        expectHandshake();
        ByteBuf frame = Unpooled.buffer();
        int start = FrameLayout.begin(frame, 11, OpCode.PING, Status.OK, false);
        frame.setByte(start + FrameLayout.OP_OFFSET, 250);
        frame.setByte(start + FrameLayout.STATUS_OFFSET, 99);
        FrameLayout.finish(frame, start);
        List<Object> out = feed(frame);
        assertThat(out).hasSize(1);
        Frame f = (Frame) out.getFirst();
        assertThat(f.opCode()).isEqualTo(250);
        assertThat(f.op()).isNull();
        assertThat(f.status()).isNull();
        f.release();
    }

    @Test
    void aMaximumBelowTheHeaderIsRejected() {
        assertThatThrownBy(() -> new FrameDecoder(FrameLayout.HEADER_SIZE - 1))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("header");
    }
}
