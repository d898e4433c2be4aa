package io.basalt.server;

import io.basalt.protocol.FrameLayout;
import io.basalt.protocol.OpCode;
import io.basalt.protocol.Status;
import io.basalt.protocol.Wire;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

/**
 * A stand-in server on a plain socket, for the client's failure paths: it accepts connections,
 * answers the handshake, and hands each connection to a script (the connection's number, its
 * streams) that decides what happens next. Records every request frame it reads.
 */
final class FakeServer implements AutoCloseable {

    /** One request as read: with its call id when its flags say it carries one. */
    record Request(int connection, long requestId, OpCode op, io.basalt.protocol.CallId call) {}

    /** What the fake does with one connection after the handshake. */
    interface Script {
        void run(Conn conn) throws IOException;
    }

    /** One accepted connection. */
    final class Conn {
        final int number;
        final Socket socket;
        final DataInputStream in;
        final OutputStream out;
        /** The batch number of the last {@code SCAN_NEXT} read. */
        long lastBatchNumber;

        Conn(int number, Socket socket) throws IOException {
            this.number = number;
            this.socket = socket;
            this.in = new DataInputStream(socket.getInputStream());
            this.out = socket.getOutputStream();
        }

        /** Reads one request frame and records it. */
        Request read() throws IOException {
            long length = in.readInt() & 0xFFFFFFFFL;
            byte[] rest = new byte[(int) length];
            in.readFully(rest);
            ByteBuf b = Unpooled.wrappedBuffer(rest);
            b.skipBytes(4);
            long id = b.readLong();
            OpCode op = OpCode.of(b.readUnsignedByte());
            b.skipBytes(1); // status
            int flags = b.readUnsignedShort();
            io.basalt.protocol.CallId call = (flags & FrameLayout.FLAG_CALL) != 0 ? io.basalt.protocol.CallId.read(b)
                    : null;
            Request r = new Request(number, id, op, call);
            if (r.op() == OpCode.SCAN_NEXT) {
                Wire.readVarlong(b, "scanner id");
                lastBatchNumber = Wire.readVarlong(b, "batch number");
            }
            requests.add(r);
            return r;
        }

        /** Sends an error response to {@code r}: {@code status} and a message. */
        void fail(Request r, Status status, String message) throws IOException {
            ByteBuf b = Unpooled.buffer();
            int start = FrameLayout.begin(b, r.requestId(), r.op(), status, true);
            io.basalt.client.net.Messages.writeError(b, message, List.of());
            FrameLayout.finish(b, start);
            out.write(ByteBufUtil.getBytes(b));
            out.flush();
        }

        /** Sends an OK response to {@code r} with the body {@code body} writes. */
        void respond(Request r, Consumer<ByteBuf> body) throws IOException {
            ByteBuf b = Unpooled.buffer();
            int start = FrameLayout.begin(b, r.requestId(), r.op(), Status.OK, true);
            body.accept(b);
            FrameLayout.finish(b, start);
            out.write(ByteBufUtil.getBytes(b));
            out.flush();
        }
    }

    private final ServerSocket listener;
    private final Thread acceptor;
    private final List<Socket> sockets = new CopyOnWriteArrayList<>();
    final List<Request> requests = new CopyOnWriteArrayList<>();
    final AtomicInteger accepted = new AtomicInteger();

    FakeServer(Script script) throws IOException {
        this(FrameLayout.HANDSHAKE_ACCEPTED, script);
    }

    /** A fake that accepts each handshake with {@code word} (a plain server's, or a cluster node's). */
    FakeServer(int word, Script script) throws IOException {
        listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        acceptor = Thread.ofPlatform().daemon().name("fake-server").start(() -> {
            while (!listener.isClosed()) {
                try {
                    Socket s = listener.accept();
                    sockets.add(s);
                    Conn conn = new Conn(accepted.incrementAndGet(), s);
                    Thread.ofVirtual().start(() -> {
                        try (s) {
                            conn.in.readFully(new byte[FrameLayout.HANDSHAKE_SIZE]);
                            ByteBuf hs = Unpooled.buffer();
                            FrameLayout.writeHandshake(hs, FrameLayout.VERSION, word);
                            conn.out.write(ByteBufUtil.getBytes(hs));
                            conn.out.flush();
                            script.run(conn);
                        } catch (IOException e) {
                            // the client went away; the script is over
                        }
                    });
                } catch (IOException e) {
                    return;
                }
            }
        });
    }

    int port() {
        return listener.getLocalPort();
    }

    String address() {
        return "127.0.0.1:" + port();
    }

    /** Stays connected, reading and recording requests, answering none. */
    static void silent(Conn conn) throws IOException {
        while (true) {
            conn.read();
        }
    }

    @Override
    public void close() throws IOException {
        listener.close();
        for (Socket s : sockets) {
            s.close();
        }
        try {
            acceptor.join(10_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
