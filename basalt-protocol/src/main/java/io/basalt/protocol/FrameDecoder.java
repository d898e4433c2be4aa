package io.basalt.protocol;

import io.netty.buffer.ByteBuf;
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
 */
public final class FrameDecoder extends ByteToMessageDecoder {

    /** A frame that was over the limit and was skipped. */
    public record TooLargeFrame(long requestId, int opCode, long length) {}

    private final int maxFrameSize;
    private boolean handshakeDone;
    private long discarding;

    public FrameDecoder(int maxFrameSize) {
        if (maxFrameSize < FrameLayout.HEADER_SIZE) {
            throw new IllegalArgumentException("maxFrameSize " + maxFrameSize + " is below the header size "
                    + FrameLayout.HEADER_SIZE);
        }
        this.maxFrameSize = maxFrameSize;
    }

    /** Largest frame whose room is made as soon as its header arrives (see {@link #reserve}). */
    static final int RESERVE_LIMIT = 8 << 20;

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
     * Makes room for the rest of a frame whose header has arrived, in one step. Without it the
     * accumulated bytes would be copied into a buffer twice the size each time they outgrow it,
     * several copies for each 2 MiB scan batch. Room is made for at most {@link #RESERVE_LIMIT}
     * bytes of a frame: a peer that announces a large frame and then sends little makes the
     * connection hold at most that much memory, not the frame's size.
     */
    private static void reserve(ByteBuf in, long frameBytes) {
        long missing = Math.min(frameBytes, RESERVE_LIMIT) - in.readableBytes();
        if (missing <= in.writableBytes() || in.refCnt() != 1) {
            // Room enough; or bodies of frames decoded from this buffer still view it, so its
            // bytes must stay where they are: the cumulator will copy what is left when it grows.
            return;
        }
        in.discardReadBytes(); // the frames before this one are done with: do not grow for them
        if (missing > in.writableBytes() && missing <= in.maxWritableBytes()) {
            in.ensureWritable((int) missing);
        }
    }

    @Override
    protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
        if (!handshakeDone) {
            if (in.readableBytes() < FrameLayout.HANDSHAKE_SIZE) {
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
        }
        while (true) {
            if (discarding > 0) {
                int skip = (int) Math.min(discarding, in.readableBytes());
                in.skipBytes(skip);
                discarding -= skip;
                if (discarding > 0) {
                    return;
                }
            }
            if (in.readableBytes() < 4) {
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
                    return; // wait for the request id, so the sender can be answered
                }
                long requestId = in.getLong(start + FrameLayout.REQUEST_ID_OFFSET);
                int op = in.getUnsignedByte(start + FrameLayout.OP_OFFSET);
                discarding = length + 4;
                out.add(new TooLargeFrame(requestId, op, length + 4));
                continue;
            }
            if (in.readableBytes() < length + 4) {
                reserve(in, length + 4);
                return;
            }
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
            if ((flags & ~FrameLayout.FLAG_RESPONSE) != 0) {
                throw new MalformedFrameException(String.format("frame flags 0x%04x set reserved bits", flags));
            }
            in.skipBytes(FrameLayout.HEADER_SIZE);
            ByteBuf body = in.readRetainedSlice(frameLength - FrameLayout.MIN_LENGTH);
            out.add(new Frame(requestId, op, status, (flags & FrameLayout.FLAG_RESPONSE) != 0, body));
        }
    }
}
