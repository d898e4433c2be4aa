package io.basalt.protocol;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.ByteToMessageDecoder;
import java.util.List;

/**
 * Cuts the byte stream into a {@link Handshake} followed by {@link Frame}s.
 *
 * <p>The length field is checked before anything is allocated for a frame: a frame over
 * {@code maxFrameSize} is discarded as its bytes arrive and reported as a {@link TooLargeFrame}
 * (with its request id, so the sender can be told), and the stream carries on with the next
 * frame. A checksum mismatch, a handshake with the wrong magic, or a length under the header
 * size means the stream cannot be trusted any more: the decoder raises a
 * {@link MalformedFrameException} and the handler closes the connection.
 *
 * <p>Frame bodies are retained slices of the receive buffer: nothing is copied here.
 *
 * <p>{@link #partialSince()} says since when the frame (or handshake) now partly received has
 * been arriving: the time its first bytes were read, not the time of the latest ones, so a peer
 * that trickles a frame a byte at a time cannot keep a connection (and the buffer reserved for
 * its frame) by staying just inside a timeout measured from its last byte.
 */
public final class FrameDecoder extends ByteToMessageDecoder {

    /** A frame that was over the limit and was skipped. */
    public record TooLargeFrame(long requestId, int opCode, long length) {}

    private final int maxFrameSize;
    private boolean handshakeDone;
    private long discarding;
    /** Bytes of the frame whose header has arrived and whose rest has not; 0 when none. */
    private long pendingFrame;
    /** {@link System#nanoTime()} when the frame (or handshake) partly received began; valid while {@link #partial}. */
    private long partialSince;
    private boolean partial;

    public FrameDecoder(int maxFrameSize) {
        if (maxFrameSize < FrameLayout.HEADER_SIZE) {
            throw new IllegalArgumentException("maxFrameSize " + maxFrameSize + " is below the header size "
                    + FrameLayout.HEADER_SIZE);
        }
        this.maxFrameSize = maxFrameSize;
        setCumulator(this::cumulate);
    }

    /** Largest frame whose room is made as soon as its buffer must grow (see {@link #cumulate}). */
    static final int RESERVE_LIMIT = 8 << 20;

    /** Smallest buffer made as an {@link OwnedHeapBuffer}; smaller ones come from the pool. */
    static final int OWNED_HEAP_MIN = 64 * 1024;

    /** Capacity of the buffer holding what has arrived of the next frame (0 when none): for tests. */
    int bufferCapacity() {
        ByteBuf b = internalBuffer();
        return b.isReadable() ? b.capacity() : 0;
    }

    /** True when part of a handshake or frame has arrived and the rest has not. */
    public boolean partial() {
        return actualReadableBytes() > 0 || discarding > 0;
    }

    /**
     * The {@link System#nanoTime()} at which the first bytes of the handshake or frame now partly
     * received were read, or {@link #NOT_PARTIAL} when no frame is partly received. Event loop only.
     */
    public long partialSince() {
        return partial ? partialSince : NOT_PARTIAL;
    }

    /** What {@link #partialSince()} returns when no frame is partly received. */
    public static final long NOT_PARTIAL = Long.MIN_VALUE;

    /**
     * Counts the frame partly received as begun now: for a reader that stopped reading (its peer's
     * bytes waited in the socket by the reader's choice, not the peer's).
     */
    public void restartPartialClock() {
        partialSince = System.nanoTime();
    }

    /** Bytes of the next frame are waiting: it began now unless it had begun already. */
    private void waiting() {
        if (!partial) {
            partial = true;
            partialSince = System.nanoTime();
        }
    }

    /**
     * Adds what the socket delivered to what is waiting to be decoded. Netty's own cumulator
     * grows the waiting buffer by doubling, copying what it holds each time: for a 2 MiB scan
     * batch that arrives 64 KiB at a time, several copies, each into a new buffer. This one makes
     * a buffer for the whole frame the first time it must grow, once the frame's header has said
     * how long the frame is (at most {@link #RESERVE_LIMIT} bytes of it, so a peer that announces
     * a large frame and then sends little makes the connection hold at most that much memory;
     * beyond it, twice what has arrived). It copies only the bytes not yet decoded, and never
     * moves bytes in place: bodies of frames decoded earlier may still view them. The
     * {@code scan} suite's loopback scan took 3.8 s with Netty's cumulator and 2.8 s with this
     * one (quick runs, one fork each).
     */
    private ByteBuf cumulate(ByteBufAllocator alloc, ByteBuf cumulation, ByteBuf in) {
        if (!cumulation.isReadable() && in.isContiguous()) {
            cumulation.release();
            return in;
        }
        try {
            int required = in.readableBytes();
            if (required <= cumulation.writableBytes() && cumulation.refCnt() == 1 && !cumulation.isReadOnly()) {
                cumulation.writeBytes(in);
                return cumulation;
            }
            long waiting = (long) cumulation.readableBytes() + required;
            // The whole frame, up to the limit; past it, twice what is waiting (so a frame larger
            // than the limit is copied a logarithmic number of times, not once per read).
            long room = Math.max(waiting, Math.min(pendingFrame, Math.max(RESERVE_LIMIT, 2 * waiting)));
            if (room > Integer.MAX_VALUE - 8) {
                throw new MalformedFrameException("a frame of over " + room + " bytes cannot be held");
            }
            // A frame this large is a scan batch, say: held on the heap in an array of its own,
            // its body can be handed to the reader without a copy (OwnedHeapBuffer).
            ByteBuf grown = room >= OWNED_HEAP_MIN ? new OwnedHeapBuffer(alloc, (int) room) : alloc.directBuffer((int) room);
            grown.writeBytes(cumulation, cumulation.readerIndex(), cumulation.readableBytes());
            grown.writeBytes(in);
            cumulation.release();
            return grown;
        } finally {
            in.release();
        }
    }

    @Override
    protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
        if (!handshakeDone) {
            if (in.readableBytes() < FrameLayout.HANDSHAKE_SIZE) {
                waiting();
                return;
            }
            int magic = in.readInt();
            if (magic != FrameLayout.MAGIC) {
                throw new MalformedFrameException(String.format(
                        "connection does not start with the Basalt handshake (magic 0x%08x, expected 0x%08x)",
                        magic, FrameLayout.MAGIC));
            }
            out.add(new Handshake(in.readUnsignedShort(), in.readUnsignedShort()));
            handshakeDone = true;
            partial = false;
        }
        while (true) {
            if (discarding > 0) {
                int skip = (int) Math.min(discarding, in.readableBytes());
                in.skipBytes(skip);
                discarding -= skip;
                if (discarding > 0) {
                    waiting();
                    return;
                }
                partial = false;
            }
            if (in.readableBytes() < 4) {
                if (in.isReadable()) {
                    waiting();
                } else {
                    partial = false;
                }
                return;
            }
            int start = in.readerIndex();
            long length = in.getUnsignedInt(start);
            if (length < FrameLayout.MIN_LENGTH) {
                throw new MalformedFrameException("frame length " + length + " is below the header's "
                        + FrameLayout.MIN_LENGTH + " bytes");
            }
            if (length + 4 > maxFrameSize) {
                if (in.readableBytes() < FrameLayout.HEADER_SIZE) {
                    waiting();
                    return; // wait for the request id, so the sender can be answered
                }
                long requestId = in.getLong(start + FrameLayout.REQUEST_ID_OFFSET);
                int op = in.getUnsignedByte(start + FrameLayout.OP_OFFSET);
                discarding = length + 4;
                out.add(new TooLargeFrame(requestId, op, length + 4));
                continue;
            }
            if (in.readableBytes() < length + 4) {
                pendingFrame = length + 4;
                waiting();
                return;
            }
            pendingFrame = 0;
            partial = false;
            int frameLength = (int) length;
            int expected = in.getInt(start + FrameLayout.CRC_OFFSET);
            int actual = FrameLayout.crc(in, start + FrameLayout.REQUEST_ID_OFFSET, frameLength - 4);
            if (expected != actual) {
                throw new MalformedFrameException(String.format(
                        "frame checksum mismatch: crc32c 0x%08x in the frame, 0x%08x computed over its %d bytes",
                        expected, actual, frameLength - 4));
            }
            long requestId = in.getLong(start + FrameLayout.REQUEST_ID_OFFSET);
            int op = in.getUnsignedByte(start + FrameLayout.OP_OFFSET);
            int status = in.getUnsignedByte(start + FrameLayout.STATUS_OFFSET);
            int flags = in.getUnsignedShort(start + FrameLayout.FLAGS_OFFSET);
            if ((flags & ~(FrameLayout.FLAG_RESPONSE | FrameLayout.FLAG_CALL)) != 0
                    || (flags & (FrameLayout.FLAG_RESPONSE | FrameLayout.FLAG_CALL))
                        == (FrameLayout.FLAG_RESPONSE | FrameLayout.FLAG_CALL)) {
                throw new MalformedFrameException(String.format("frame flags 0x%04x set reserved bits", flags));
            }
            in.skipBytes(FrameLayout.HEADER_SIZE);
            ByteBuf body = in.readRetainedSlice(frameLength - FrameLayout.MIN_LENGTH);
            out.add(new Frame(requestId, op, status, (flags & FrameLayout.FLAG_RESPONSE) != 0,
                    (flags & FrameLayout.FLAG_CALL) != 0, body));
        }
    }
}
