package io.basalt.protocol;

import io.netty.buffer.ByteBuf;
import java.nio.ByteBuffer;
import java.util.zip.CRC32C;

/**
 * The byte layout of the wire protocol: the handshake that opens a connection and the frames that
 * follow it in both directions. Nothing else in Basalt knows these offsets.
 *
 * <h2>Handshake</h2>
 * Each side sends eight bytes once, the client first, before any frame:
 * <pre>
 *   0     4          6          8
 *   +-----+----------+----------+
 *   |BSLT | version  | word     |     client: word = 0 (reserved)
 *   |magic| u16      | u16      |     server: version it speaks, word = 0 accepted, 1 refused,
 *   +-----+----------+----------+             2 busy, 3 accepted by a cluster node
 * </pre>
 * A cluster node accepts with word 3: the client then sends its writes with call ids and sends
 * them again after an {@code UNAVAILABLE} answer, as it does when given several addresses.
 * A server that does not speak the client's version answers with the version it does speak and
 * word 1, then closes the connection; the client reports both versions. A server that has as many
 * connections as it accepts answers word 2 and closes. A server reads no frame sent on a
 * connection it refused, even one sent with the handshake.
 *
 * <h2>Frame</h2>
 * Every request and every response is one frame. All integers are big-endian.
 * <pre>
 *   0          4          8                   16      17       18        20
 *   +----------+----------+-------------------+-------+--------+---------+------------------
 *   | length   | crc32c   | request id        | op    | status | flags   | body
 *   | u32      | u32      | i64               | u8    | u8     | u16     | length - 16 bytes
 *   +----------+----------+-------------------+-------+--------+---------+------------------
 *              |&lt;-------------------- length bytes, covered by crc32c (from byte 8) -------&gt;|
 * </pre>
 * <ul>
 *   <li>{@code length} counts the bytes after itself: 16 header bytes plus the body. A receiver
 *       checks it against its maximum frame size before it allocates anything for the frame.</li>
 *   <li>{@code crc32c} covers everything from byte 8 to the end of the frame. A mismatch means the
 *       stream can no longer be trusted: the receiver closes the connection.</li>
 *   <li>{@code request id} is chosen by the client, unique among its requests in flight on the
 *       connection; a response carries the id of its request.</li>
 *   <li>{@code op} is an {@link OpCode}; a response repeats its request's op.</li>
 *   <li>{@code status} is 0 in requests; in responses a {@link Status} (0 = OK). An error
 *       response's body is a message (varint length and UTF-8 bytes).</li>
 *   <li>{@code flags}: bit 0 set on responses; bit 1 ({@link #FLAG_CALL}, requests only) when a
 *       {@link CallId} precedes the body (client id i64, call id and completed-below mark as
 *       varlongs): a cluster node applies the write once however often it is sent. The other
 *       bits are reserved and must be 0.</li>
 * </ul>
 * The body's encoding depends on the op; {@link Wire} holds the primitives (varints,
 * length-prefixed bytes, cells in {@link io.basalt.cell.CellLayout}'s encoding).
 */
public final class FrameLayout {

    private FrameLayout() {}

    /**
     * The protocol version this code speaks. 5: a get's or scan's selection ends with an optional
     * filter tree (server-side filters). 4: a cluster node accepts a handshake with word 3
     * ({@link #HANDSHAKE_CLUSTER_NODE}), which a client of version 3 would take for a refusal. 3: results are a row section, each result's cells
     * after a header with their byte length ({@code Wire.writeRows}); 2 had one cell block for
     * all. 2: {@code SCAN_NEXT} carries the batch number, and a cell block's length varint may be
     * padded to 5 bytes (1 had neither).
     */
    public static final int VERSION = 5;
    /** "BSLT". */
    public static final int MAGIC = 0x42534C54;
    public static final int HANDSHAKE_SIZE = 8;
    public static final int HANDSHAKE_ACCEPTED = 0;
    public static final int HANDSHAKE_REFUSED = 1;
    /** The server has as many connections as it accepts; a client may try again later. */
    public static final int HANDSHAKE_BUSY = 2;
    /** Accepted, by a node of a cluster: writes with call ids apply once here, and are worth resending. */
    public static final int HANDSHAKE_CLUSTER_NODE = 3;

    public static final int LENGTH_OFFSET = 0;
    public static final int CRC_OFFSET = 4;
    public static final int REQUEST_ID_OFFSET = 8;
    public static final int OP_OFFSET = 16;
    public static final int STATUS_OFFSET = 17;
    public static final int FLAGS_OFFSET = 18;
    /** Bytes before the body. */
    public static final int HEADER_SIZE = 20;
    /** The smallest legal value of the length field: the header after it, no body. */
    public static final int MIN_LENGTH = HEADER_SIZE - 4;

    public static final int FLAG_RESPONSE = 1;
    /** On a request: a {@link CallId} precedes the body. */
    public static final int FLAG_CALL = 2;

    /** Default largest frame a receiver accepts: 64 MiB. */
    public static final int DEFAULT_MAX_FRAME_SIZE = 64 * 1024 * 1024;

    /**
     * Writes a frame header at the buffer's writer index, leaving length and checksum to
     * {@link #finish}. Returns the frame's start index.
     */
    public static int begin(ByteBuf buf, long requestId, OpCode op, Status status, boolean response) {
        return begin(buf, requestId, op, status, response ? FLAG_RESPONSE : 0);
    }

    /** {@link #begin(ByteBuf, long, OpCode, Status, boolean)} with the flags given. */
    public static int begin(ByteBuf buf, long requestId, OpCode op, Status status, int flags) {
        int start = buf.writerIndex();
        buf.writeInt(0);
        buf.writeInt(0);
        buf.writeLong(requestId);
        buf.writeByte(op.code());
        buf.writeByte(status.code());
        buf.writeShort(flags);
        return start;
    }

    /** Fills in the length and checksum of the frame that starts at {@code start}. */
    public static void finish(ByteBuf buf, int start) {
        int length = buf.writerIndex() - start - 4;
        buf.setInt(start + LENGTH_OFFSET, length);
        buf.setInt(start + CRC_OFFSET, crc(buf, start + REQUEST_ID_OFFSET, length - 4));
    }

    /** The crc32c of {@code length} bytes from {@code index}, without moving any index. */
    public static int crc(ByteBuf buf, int index, int length) {
        CRC32C crc = new CRC32C();
        if (buf.nioBufferCount() == 1) {
            crc.update(buf.nioBuffer(index, length));
        } else {
            for (ByteBuffer part : buf.nioBuffers(index, length)) {
                crc.update(part);
            }
        }
        return (int) crc.getValue();
    }

    /** Writes a handshake. */
    public static void writeHandshake(ByteBuf buf, int version, int word) {
        buf.writeInt(MAGIC);
        buf.writeShort(version);
        buf.writeShort(word);
    }
}
