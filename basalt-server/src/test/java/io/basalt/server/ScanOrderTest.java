package io.basalt.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.basalt.client.Put;
import io.basalt.client.Result;
import io.basalt.client.Scan;
import io.basalt.client.TableDescriptor;
import io.basalt.client.net.ClientOptions;
import io.basalt.client.net.Messages;
import io.basalt.client.net.RemoteConnection;
import io.basalt.protocol.OpCode;
import io.basalt.protocol.Status;
import io.basalt.protocol.Wire;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A client reading ahead has several {@code SCAN_NEXT} requests for one scanner in flight; each
 * names the batch it wants, and gets that batch whatever order the server's threads reach the
 * scanner in.
 */
class ScanOrderTest {

    private static final Duration LEASE = Duration.ofMillis(800);

    @TempDir
    Path dir;

    private BasaltServer server;

    @BeforeEach
    void start() throws Exception {
        server = BasaltServer.start(ServerConfig.builder().port(0).dataDir(dir).scannerLease(LEASE).build());
        try (RemoteConnection c = new RemoteConnection("127.0.0.1", server.address().getPort(),
                ClientOptions.defaults())) {
            c.admin().createTable(TableDescriptor.of("t", "f")).get(30, TimeUnit.SECONDS);
            for (int i = 0; i < 10; i++) {
                c.table("t").put(new Put(row(i)).addColumn(bytes("f"), bytes("q"), bytes("v" + i)))
                        .get(30, TimeUnit.SECONDS);
            }
        }
    }

    @AfterEach
    void stop() {
        server.close();
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static byte[] row(int i) {
        return bytes(String.format("r%02d", i));
    }

    /** Opens a scanner of one row per batch; returns its id. Batch 0 (row 0) comes with it. */
    private static long open(RawClient c) throws IOException {
        ByteBuf body = Unpooled.buffer();
        Wire.writeString(body, "t");
        Messages.writeScan(body, new Scan().setCaching(1));
        c.send(RawClient.frame(1, OpCode.SCAN_OPEN.code(), ByteBufUtil.getBytes(body)));
        RawClient.Response r = c.read();
        assertThat(r.status()).isEqualTo(Status.OK.code());
        ByteBuf in = Unpooled.wrappedBuffer(r.body());
        long id = Wire.readVarlong(in, "scanner id");
        assertThat(Wire.readBoolean(in, "more")).isTrue();
        assertThat(Messages.readResults(in).getFirst().row()).isEqualTo(row(0));
        return id;
    }

    private static byte[] next(long requestId, long scanner, long number) {
        ByteBuf body = Unpooled.buffer();
        Wire.writeVarlong(body, scanner);
        Wire.writeVarlong(body, number);
        return RawClient.frame(requestId, OpCode.SCAN_NEXT.code(), ByteBufUtil.getBytes(body));
    }

    private static byte[] rowOf(RawClient.Response r) {
        ByteBuf in = Unpooled.wrappedBuffer(r.body());
        Wire.readBoolean(in, "more");
        List<Result> results = Messages.readResults(in);
        assertThat(results).hasSize(1);
        return results.getFirst().row();
    }

    @Test
    void eachRequestGetsTheBatchItNumberedWhateverOrderTheyAreServedIn() throws IOException {
        try (RawClient c = new RawClient(server.address().getPort()).handshake()) {
            long id = open(c);
            // Batches 4, 3, 2, 1 asked for in one write: four threads race for the scanner.
            ByteArrayOutputStream all = new ByteArrayOutputStream();
            for (int n = 4; n >= 1; n--) {
                all.writeBytes(next(100 + n, id, n));
            }
            c.send(all.toByteArray());
            Map<Long, byte[]> rows = new HashMap<>();
            for (int i = 0; i < 4; i++) {
                RawClient.Response r = c.read();
                assertThat(r.status()).isEqualTo(Status.OK.code());
                rows.put(r.requestId(), rowOf(r));
            }
            for (int n = 1; n <= 4; n++) {
                assertThat(rows.get(100L + n)).as("the response to the request for batch %d", n).isEqualTo(row(n));
            }
        }
    }

    @Test
    void aBatchAskedForTwiceIsRefusedAndTheScanGoesOn() throws IOException {
        try (RawClient c = new RawClient(server.address().getPort()).handshake()) {
            long id = open(c);
            c.send(next(2, id, 1));
            assertThat(rowOf(c.read())).isEqualTo(row(1));
            c.send(next(3, id, 1));
            RawClient.Response again = c.read();
            assertThat(again.status()).isEqualTo(Status.INVALID_ARGUMENT.code());
            assertThat(Messages.readError(Unpooled.wrappedBuffer(again.body())).getFirst())
                    .contains("batch 1 again").contains("the next is 2");
            c.send(next(4, id, 2));
            assertThat(rowOf(c.read())).isEqualTo(row(2));
        }
    }

    @Test
    void aBatchWhosePredecessorNeverComesFailsWithinTheLease() throws IOException {
        try (RawClient c = new RawClient(server.address().getPort()).handshake()) {
            long id = open(c);
            c.send(next(2, id, 3)); // batches 1 and 2 are never asked for
            RawClient.Response r = c.read(); // answered, not left waiting
            // Either the wait ran out, or the idle scanner expired first and closed.
            assertThat(r.status()).isIn(Status.INVALID_ARGUMENT.code(), Status.UNKNOWN_SCANNER.code());
            String message = Messages.readError(Unpooled.wrappedBuffer(r.body())).getFirst();
            assertThat(message).containsAnyOf("batch 1 was never asked for", "was closed", "is unknown");
        }
    }

    /**
     * With the default lease (a minute, longer than the raw client waits for a response), a
     * request whose earlier batches were never asked for is refused after a short grace, and one
     * asking far ahead at once: neither holds its response for a lease.
     */
    @Test
    void aBatchWhosePredecessorsWereNeverAskedForIsRefusedWithoutWaitingForTheLease() throws Exception {
        server.close();
        server = BasaltServer.start(ServerConfig.builder().port(0).dataDir(dir).build());
        try (RemoteConnection c = new RemoteConnection("127.0.0.1", server.address().getPort(),
                ClientOptions.defaults())) {
            c.table("t").put(new Put(row(1)).addColumn(bytes("f"), bytes("q"), bytes("v1"))).get(30, TimeUnit.SECONDS);
        }
        try (RawClient c = new RawClient(server.address().getPort()).handshake()) {
            long id = open(c);
            c.send(next(2, id, 100)); // far beyond anything asked for: refused on arrival
            RawClient.Response far = c.read();
            assertThat(far.status()).isEqualTo(Status.INVALID_ARGUMENT.code());
            assertThat(Messages.readError(Unpooled.wrappedBuffer(far.body())).getFirst())
                    .contains("batch 100").contains("batch 1 was never asked for");
            c.send(next(3, id, 3)); // within reach, but batches 1 and 2 never come
            RawClient.Response skipped = c.read();
            assertThat(skipped.status()).isEqualTo(Status.INVALID_ARGUMENT.code());
            assertThat(Messages.readError(Unpooled.wrappedBuffer(skipped.body())).getFirst())
                    .contains("batch 1 was never asked for");
            c.send(next(4, id, 1)); // the scan itself is still there
            assertThat(rowOf(c.read())).isEqualTo(row(1));
        }
    }
}
