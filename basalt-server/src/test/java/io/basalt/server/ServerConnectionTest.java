package io.basalt.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.basalt.client.Basalt;
import io.basalt.client.Connection;
import io.basalt.client.Get;
import io.basalt.client.Put;
import io.basalt.client.TableDescriptor;
import io.basalt.client.net.Messages;
import io.basalt.protocol.FrameLayout;
import io.basalt.protocol.OpCode;
import io.basalt.protocol.Status;
import io.basalt.protocol.Wire;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What one connection gets for bad input: an error and carry on, or a close; the frame timeout,
 * measured from the handshake's or frame's first byte; and a refused handshake.
 */
class ServerConnectionTest {

    private static final int MAX_FRAME = 64 * 1024;

    @TempDir
    Path dir;

    private BasaltServer server;

    @BeforeEach
    void start() throws InterruptedException {
        server = BasaltServer.start(ServerConfig.builder().port(0).dataDir(dir).ioThreads(2).maxFrameSize(MAX_FRAME)
                .frameTimeout(Duration.ofMillis(300)).build());
    }

    @AfterEach
    void stop() {
        server.close();
    }

    private RawClient connect() throws IOException {
        return new RawClient(server.address().getPort()).handshake();
    }

    private static byte[] ping(long id) {
        return RawClient.frame(id, OpCode.PING.code(), new byte[0]);
    }

    private static String message(RawClient.Response r) {
        ByteBuf b = Unpooled.wrappedBuffer(r.body());
        return Messages.readError(b).getFirst();
    }

    private static void assertPong(RawClient c, long id) throws IOException {
        RawClient.Response r = c.read();
        assertThat(r.requestId()).isEqualTo(id);
        assertThat(r.op()).isEqualTo(OpCode.PING.code());
        assertThat(r.status()).isEqualTo(Status.OK.code());
        assertThat(r.flags()).isEqualTo(FrameLayout.FLAG_RESPONSE);
    }

    @Test
    void anOversizedFrameIsAnsweredBeforeItsBodyAndTheConnectionCarriesOn() throws IOException {
        try (RawClient c = connect()) {
            int claimed = 4 * MAX_FRAME;
            ByteBuf header = Unpooled.buffer();
            header.writeInt(claimed - 4).writeInt(0).writeLong(4242).writeByte(OpCode.PUT.code()).writeByte(0)
                    .writeShort(0);
            c.send(ByteBufUtil.getBytes(header));
            RawClient.Response r = c.read(); // answered with only the header sent
            assertThat(r.requestId()).isEqualTo(4242);
            assertThat(r.op()).isEqualTo(OpCode.PUT.code());
            assertThat(r.status()).isEqualTo(Status.FRAME_TOO_LARGE.code());
            assertThat(message(r)).contains(Integer.toString(claimed)).contains(Integer.toString(MAX_FRAME));
            c.send(new byte[claimed - FrameLayout.HEADER_SIZE]); // the body, discarded unread
            c.send(ping(4243));
            assertPong(c, 4243);
        }
    }

    @Test
    void aHugeLengthFieldIsAnsweredAtOnce() throws IOException {
        try (RawClient c = connect()) {
            ByteBuf header = Unpooled.buffer();
            header.writeInt(0xFFFF_FFF0).writeInt(0).writeLong(-1).writeByte(OpCode.BATCH.code()).writeByte(0)
                    .writeShort(0);
            c.send(ByteBufUtil.getBytes(header));
            RawClient.Response r = c.read();
            assertThat(r.requestId()).isEqualTo(-1);
            assertThat(r.status()).isEqualTo(Status.FRAME_TOO_LARGE.code());
        }
    }

    @Test
    void aConnectionWithHalfAFrameIsClosedAfterTheFrameTimeout() throws IOException {
        try (RawClient c = connect()) {
            byte[] frame = ping(1);
            byte[] half = new byte[frame.length / 2];
            System.arraycopy(frame, 0, half, 0, half.length);
            c.send(half);
            assertThat(c.awaitClosedByServer()).as("closed after the 300 ms frame timeout").isTrue();
        }
    }

    @Test
    void aConnectionWithHalfAHandshakeIsClosedAfterTheFrameTimeout() throws IOException {
        try (RawClient c = new RawClient(server.address().getPort())) {
            c.send(new byte[] {'B', 'S'});
            assertThat(c.awaitClosedByServer()).isTrue();
        }
    }

    /** Issue #17: a connection that never says anything is not held forever. */
    @Test
    void aConnectionThatSendsNoHandshakeIsClosedAfterTheFrameTimeout() throws IOException {
        try (RawClient c = new RawClient(server.address().getPort())) {
            assertThat(c.awaitClosedByServer()).isTrue();
        }
    }

    /**
     * Sends {@code bytes} one at a time, each well inside the frame timeout after the one before,
     * until the server closes the connection; returns how many were sent by then.
     */
    private static int trickleUntilClosed(RawClient c, byte[] bytes) throws Exception {
        AtomicInteger sent = new AtomicInteger();
        Thread trickler = Thread.ofVirtual().start(() -> {
            try {
                for (byte b : bytes) {
                    c.send(new byte[] {b});
                    sent.incrementAndGet();
                    Thread.sleep(40);
                }
            } catch (IOException | InterruptedException e) {
                // closed by the server: what the test waits for
            }
        });
        assertThat(c.awaitClosedByServer()).as("the server closed the trickling connection").isTrue();
        int when = sent.get();
        trickler.interrupt();
        trickler.join();
        return when;
    }

    /**
     * Issue #17: the frame timeout runs from a frame's first byte. A frame trickled a byte every
     * 40 ms (each byte resetting an idle timer of 300 ms) is closed long before it is whole.
     */
    @Test
    void aFrameTrickledAByteAtATimeIsClosedAFrameTimeoutAfterItsFirstByte() throws Exception {
        byte[] frame = RawClient.frame(1, OpCode.PING.code(), new byte[0]);
        byte[] longFrame = RawClient.frame(2, OpCode.GET.code(), new byte[200]); // 8 s at a byte per 40 ms
        try (RawClient c = connect()) {
            c.send(frame);
            assertPong(c, 1);
            assertThat(trickleUntilClosed(c, longFrame)).as("bytes of a %d-byte frame sent", longFrame.length)
                    .isLessThan(longFrame.length);
        }
        byte[] handshake = RawClient.handshakeBytes(FrameLayout.VERSION);
        byte[] slowHandshake = new byte[handshake.length + 200];
        System.arraycopy(handshake, 0, slowHandshake, 0, handshake.length);
        try (RawClient c = new RawClient(server.address().getPort())) {
            assertThat(trickleUntilClosed(c, slowHandshake)).isLessThan(slowHandshake.length);
        }
    }

    /**
     * Issue #17: a PUT sent in the same write as a handshake the server refuses is never run,
     * though the server had read it with the handshake.
     */
    @Test
    void aPutPipelinedAfterARefusedHandshakeIsNotApplied() throws Exception {
        int port = server.address().getPort();
        try (Connection good = Basalt.connect("basalt://127.0.0.1:" + port)) {
            good.admin().createTable(TableDescriptor.of("t", "f")).get(30, TimeUnit.SECONDS);
            ByteBuf body = Unpooled.buffer();
            Wire.writeString(body, "t");
            Messages.writeMutation(body, Put.of("sneaked").addColumn("f", "q", "v"));
            byte[] put = RawClient.frame(1, OpCode.PUT.code(), ByteBufUtil.getBytes(body));
            byte[] hello = RawClient.handshakeBytes(FrameLayout.VERSION + 1);
            byte[] both = new byte[hello.length + put.length];
            System.arraycopy(hello, 0, both, 0, hello.length);
            System.arraycopy(put, 0, both, hello.length, put.length);
            try (RawClient c = new RawClient(port)) {
                c.send(both);
                assertThat(c.readHandshake()).containsExactly(FrameLayout.MAGIC, FrameLayout.VERSION,
                        FrameLayout.HANDSHAKE_REFUSED);
                assertThat(c.awaitClosedByServer()).isTrue();
            }
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (server.inFlight() > 0 && System.nanoTime() - deadline < 0) {
                Thread.sleep(5); // a PUT that was started (the old code's) has finished by the check below
            }
            assertThat(good.table("t").get(Get.of("sneaked")).get(30, TimeUnit.SECONDS).isEmpty())
                    .as("the pipelined PUT was not applied").isTrue();
        }
    }

    /** An idle connection between frames is not "half a frame": it stays open across many timeouts. */
    @Test
    void anIdleConnectionBetweenFramesStaysOpen() throws Exception {
        try (RawClient c = connect()) {
            c.send(ping(1));
            assertPong(c, 1);
            Thread.sleep(1500); // five frame timeouts
            c.send(ping(2));
            assertPong(c, 2);
        }
    }

    @Test
    void badFramesThatKeepTheStreamInStepAreAnsweredAndTheConnectionCarriesOn() throws IOException {
        try (RawClient c = connect()) {
            c.send(RawClient.frame(10, 200, new byte[] {1, 2, 3}));
            RawClient.Response unknown = c.read();
            assertThat(unknown.requestId()).isEqualTo(10);
            assertThat(unknown.status()).isEqualTo(Status.UNKNOWN_OP.code());
            assertThat(message(unknown)).contains("200");

            c.send(RawClient.frame(11, OpCode.PING.code(), 0, FrameLayout.FLAG_RESPONSE, _ -> { }));
            assertThat(c.read()).extracting(RawClient.Response::requestId, RawClient.Response::status)
                    .containsExactly(11L, Status.MALFORMED_REQUEST.code());

            c.send(RawClient.frame(12, OpCode.PING.code(), 3, 0, _ -> { }));
            assertThat(c.read()).extracting(RawClient.Response::requestId, RawClient.Response::status)
                    .containsExactly(12L, Status.MALFORMED_REQUEST.code());

            c.send(RawClient.frame(13, OpCode.GET.code(), new byte[] {(byte) 0xFF, (byte) 0xFF, 1}));
            RawClient.Response garbage = c.read();
            assertThat(garbage.requestId()).isEqualTo(13);
            assertThat(garbage.status()).isEqualTo(Status.MALFORMED_REQUEST.code());

            c.send(RawClient.frame(14, OpCode.PING.code(), new byte[] {0}));
            RawClient.Response trailing = c.read();
            assertThat(trailing.status()).isEqualTo(Status.MALFORMED_REQUEST.code());
            assertThat(message(trailing)).contains("PING");

            ByteBuf table = Unpooled.buffer();
            Messages.writeTable(table, TableDescriptor.of("t", "f"));
            c.send(RawClient.frame(15, OpCode.CREATE_TABLE.code(), ByteBufUtil.getBytes(table)));
            assertThat(c.read().status()).isEqualTo(Status.OK.code());
            ByteBuf scanNext = Unpooled.buffer();
            Wire.writeVarlong(scanNext, 987654);
            Wire.writeVarlong(scanNext, 1);
            c.send(RawClient.frame(16, OpCode.SCAN_NEXT.code(), ByteBufUtil.getBytes(scanNext)));
            assertThat(c.read().status()).isEqualTo(Status.UNKNOWN_SCANNER.code());

            c.send(ping(17));
            assertPong(c, 17);
        }
    }

    @Test
    void aChecksumMismatchClosesTheConnection() throws IOException {
        try (RawClient c = connect()) {
            byte[] frame = ping(1);
            frame[frame.length - 1] ^= 1;
            frame[FrameLayout.REQUEST_ID_OFFSET] ^= 0x10;
            c.send(frame);
            assertThat(c.awaitClosedByServer()).isTrue();
        }
        try (RawClient other = connect()) {
            other.send(ping(2));
            assertPong(other, 2);
        }
    }

    @Test
    void aLengthBelowTheHeaderOrReservedFlagsCloseTheConnection() throws IOException {
        try (RawClient c = connect()) {
            c.send(new byte[] {0, 0, 0, 3, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0});
            assertThat(c.awaitClosedByServer()).isTrue();
        }
        try (RawClient c = connect()) {
            c.send(RawClient.frame(1, OpCode.PING.code(), 0, 0x8000, _ -> { }));
            assertThat(c.awaitClosedByServer()).isTrue();
        }
    }

    @Test
    void aWrongMagicClosesTheConnectionAndAnotherVersionIsRefused() throws IOException {
        try (RawClient c = new RawClient(server.address().getPort())) {
            c.send("GET / HTTP/1.1\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
            assertThat(c.awaitClosedByServer()).isTrue();
        }
        try (RawClient c = new RawClient(server.address().getPort())) {
            c.send(RawClient.handshakeBytes(FrameLayout.VERSION + 1));
            assertThat(c.readHandshake()).containsExactly(FrameLayout.MAGIC, FrameLayout.VERSION,
                    FrameLayout.HANDSHAKE_REFUSED);
            assertThat(c.awaitClosedByServer()).isTrue();
        }
    }
}
