package io.basalt.server;

import io.basalt.protocol.FrameLayout;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.OutputStream;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.util.function.Consumer;

/**
 * A plain-socket client that speaks the wire protocol byte by byte, so a test can send what the
 * real client never would. Reads block for at most {@link #TIMEOUT_MILLIS}.
 */
final class RawClient implements AutoCloseable {

    static final int TIMEOUT_MILLIS = 30_000;

    /** A response as received. */
    record Response(long requestId, int op, int status, int flags, byte[] body) {}

    private final Socket socket;
    private final DataInputStream in;
    private final OutputStream out;

    RawClient(int port) throws IOException {
        socket = new Socket("127.0.0.1", port);
        socket.setSoTimeout(TIMEOUT_MILLIS);
        socket.setTcpNoDelay(true);
        in = new DataInputStream(socket.getInputStream());
        out = socket.getOutputStream();
    }

    /** Sends the handshake and checks the server accepted it. */
    RawClient handshake() throws IOException {
        send(handshakeBytes(FrameLayout.VERSION));
        int[] reply = readHandshake();
        int magic = reply[0];
        int version = reply[1];
        int word = reply[2];
        if (magic != FrameLayout.MAGIC || version != FrameLayout.VERSION || word != FrameLayout.HANDSHAKE_ACCEPTED) {
            throw new IOException("handshake refused: " + Integer.toHexString(magic) + " v" + version + " w" + word);
        }
        return this;
    }

    /** The server's handshake: magic, version, word. */
    int[] readHandshake() throws IOException {
        return new int[] {in.readInt(), in.readUnsignedShort(), in.readUnsignedShort()};
    }

    static byte[] handshakeBytes(int version) {
        ByteBuf b = Unpooled.buffer();
        FrameLayout.writeHandshake(b, version, 0);
        return ByteBufUtil.getBytes(b);
    }

    /** A frame with a correct length and checksum and whatever header fields and body are given. */
    static byte[] frame(long requestId, int op, int status, int flags, Consumer<ByteBuf> body) {
        ByteBuf b = Unpooled.buffer();
        b.writeInt(0).writeInt(0).writeLong(requestId).writeByte(op).writeByte(status).writeShort(flags);
        body.accept(b);
        FrameLayout.finish(b, 0);
        return ByteBufUtil.getBytes(b);
    }

    static byte[] frame(long requestId, int op, byte[] body) {
        return frame(requestId, op, 0, 0, b -> b.writeBytes(body));
    }

    void send(byte[] bytes) throws IOException {
        out.write(bytes);
        out.flush();
    }

    /** The next response; an {@link EOFException} when the server closed the connection. */
    Response read() throws IOException {
        long length = in.readInt() & 0xFFFFFFFFL;
        byte[] rest = new byte[(int) length];
        in.readFully(rest);
        ByteBuf b = Unpooled.wrappedBuffer(rest);
        int crc = b.readInt();
        long id = b.readLong();
        int op = b.readUnsignedByte();
        int status = b.readUnsignedByte();
        int flags = b.readUnsignedShort();
        byte[] body = ByteBufUtil.getBytes(b);
        if (crc != FrameLayout.crc(Unpooled.wrappedBuffer(rest), 4, rest.length - 4)) {
            throw new IOException("response " + id + " has a bad checksum");
        }
        return new Response(id, op, status, flags, body);
    }

    /**
     * Waits (up to {@link #TIMEOUT_MILLIS}) for the server to close the connection, discarding
     * what it sends meanwhile; true when it closed, false when it was still open at the deadline.
     */
    boolean awaitClosedByServer() throws IOException {
        long deadline = System.nanoTime() + TIMEOUT_MILLIS * 1_000_000L;
        byte[] sink = new byte[8192];
        while (System.nanoTime() < deadline) {
            try {
                if (in.read(sink) < 0) {
                    return true;
                }
            } catch (SocketTimeoutException e) {
                return false;
            } catch (IOException e) {
                return true; // reset by the server
            }
        }
        return false;
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }
}
