package io.basalt.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.basalt.cell.Cell;
import io.basalt.cell.MalformedCellException;
import io.basalt.client.AsyncTable;
import io.basalt.client.BasaltException;
import io.basalt.client.Basalt;
import io.basalt.client.Connection;
import io.basalt.client.ConnectionClosedException;
import io.basalt.client.Get;
import io.basalt.client.OperationTimeoutException;
import io.basalt.client.Put;
import io.basalt.client.Result;
import io.basalt.client.ResultScanner;
import io.basalt.client.Scan;
import io.basalt.client.StoreOptions;
import io.basalt.client.TableDescriptor;
import io.basalt.client.net.ClientOptions;
import io.basalt.client.net.Messages;
import io.basalt.protocol.OpCode;
import io.basalt.protocol.Wire;
import io.netty.buffer.ByteBuf;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The network client when the server misbehaves: dies with requests in flight, never answers,
 * drops a connection, or comes back. Fake servers on plain sockets script each failure.
 */
class NetworkClientFailureTest {

    @TempDir
    Path dir;

    private static Connection connect(int port, ClientOptions options) {
        return Basalt.connect("basalt://127.0.0.1:" + port, options, StoreOptions.defaults());
    }

    private static ClientOptions.Builder options() {
        return ClientOptions.builder().retryBackoff(Duration.ofMillis(10)).connectTimeout(Duration.ofSeconds(10));
    }

    /** Waits (generously) for a future that must fail, and returns its cause. */
    private static Throwable failure(CompletableFuture<?> f) throws InterruptedException {
        try {
            f.get(30, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            return e.getCause();
        } catch (java.util.concurrent.TimeoutException e) {
            throw new AssertionError("the request hung", e);
        }
        throw new AssertionError("the request succeeded");
    }

    private static List<CompletableFuture<?>> getsAndPuts(AsyncTable t, int n) {
        List<CompletableFuture<?>> futures = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            futures.add(i % 2 == 0 ? t.get(Get.of("r" + i)) : t.put(Put.of("r" + i).addColumn("f", "q", "v")));
        }
        return futures;
    }

    @Test
    void whenTheServerDiesEveryPendingRequestFailsNamingIt() throws Exception {
        int requests = 200;
        // reads every request, answers none, then closes the connection
        try (FakeServer fake = new FakeServer(conn -> {
            for (int i = 0; i < requests; i++) {
                conn.read();
            }
        }); Connection c = connect(fake.port(), options().retries(0).build())) {
            List<CompletableFuture<?>> futures = getsAndPuts(c.table("t"), requests);
            for (CompletableFuture<?> f : futures) {
                assertThat(failure(f)).isInstanceOf(ConnectionClosedException.class)
                        .hasMessageContaining(fake.address()).hasMessageContaining("in flight");
            }
            assertThat(fake.requests).hasSize(requests);
        }
    }

    @Test
    void whenTheServerGoesAwayRetriesEndInAnErrorNamingIt() throws Exception {
        FakeServer fake = new FakeServer(conn -> conn.read());
        try (Connection c = connect(fake.port(), options().retries(2).build())) {
            CompletableFuture<Result> first = c.table("t").get(Get.of("a"));
            assertThat(failure(first)).isInstanceOf(ConnectionClosedException.class)
                    .hasMessageContaining(fake.address());
            fake.close(); // now nothing listens: connecting fails, and the error still names the server
            assertThat(failure(c.table("t").get(Get.of("b")))).isInstanceOf(ConnectionClosedException.class)
                    .hasMessageContaining(fake.address());
        }
    }

    @Test
    void aRequestToAServerThatNeverAnswersTimesOutNamingTheOpAndServer() throws Exception {
        try (FakeServer fake = new FakeServer(FakeServer::silent);
             Connection c = connect(fake.port(), options().operationTimeout(Duration.ofMillis(300)).retries(0).build())) {
            Throwable t = failure(c.table("t").get(Get.of("r")));
            assertThat(t).isInstanceOf(OperationTimeoutException.class).hasMessageContaining("GET on table 't'")
                    .hasMessageContaining(fake.address()).hasMessageContaining("300 ms");
            Throwable p = failure(c.table("t").put(Put.of("r").addColumn("f", "q", "v")));
            assertThat(p).isInstanceOf(OperationTimeoutException.class).hasMessageContaining("PUT on table 't'")
                    .hasMessageContaining(fake.address());
        }
    }

    @Test
    void aTimedOutGetIsRetriedAndATimedOutPutIsNot() throws Exception {
        try (FakeServer fake = new FakeServer(FakeServer::silent);
             Connection c = connect(fake.port(), options().operationTimeout(Duration.ofMillis(200)).retries(2).build())) {
            assertThat(failure(c.table("t").get(Get.of("r")))).isInstanceOf(OperationTimeoutException.class);
            assertThat(fake.requests).extracting(FakeServer.Request::op)
                    .containsExactly(OpCode.GET, OpCode.GET, OpCode.GET);
            fake.requests.clear();
            assertThat(failure(c.table("t").put(Put.of("r").addColumn("f", "q", "v"))))
                    .isInstanceOf(OperationTimeoutException.class);
            Thread.sleep(500); // time for a wrong retry (backoff 10 ms) to arrive
            assertThat(fake.requests).extracting(FakeServer.Request::op).containsExactly(OpCode.PUT);
        }
    }

    /**
     * Issue #17: a timed-out FLUSH or COMPACT is most likely still running, and a timed-out
     * SCAN_OPEN may have opened a scanner that holds its snapshot until its lease expires; sending
     * either again piles work on a server that is already slow. Each is sent once. A call fails
     * only after its retries were sent, so when the future has failed, every attempt is recorded.
     */
    @Test
    void aTimedOutFlushCompactOrScanOpenIsSentOnce() throws Exception {
        try (FakeServer fake = new FakeServer(FakeServer::silent);
             Connection c = connect(fake.port(), options().operationTimeout(Duration.ofMillis(300)).retries(2).build())) {
            assertThat(failure(c.admin().flush("t"))).isInstanceOf(OperationTimeoutException.class);
            assertThat(failure(c.admin().compact("t"))).isInstanceOf(OperationTimeoutException.class);
            assertThat(failure(CompletableFuture.runAsync(() -> c.table("t").scanner(new Scan()).next())))
                    .isInstanceOf(OperationTimeoutException.class);
            assertThat(fake.requests).extracting(FakeServer.Request::op)
                    .containsExactly(OpCode.FLUSH, OpCode.COMPACT, OpCode.SCAN_OPEN);
        }
    }

    @Test
    void anIdempotentGetIsRetriedAfterTheConnectionDiesAndSucceeds() throws Exception {
        // the first connection dies after reading one request; later ones answer
        try (FakeServer fake = new FakeServer(conn -> {
            if (conn.number == 1) {
                conn.read();
                return;
            }
            while (true) {
                conn.respond(conn.read(), b -> Messages.writeResult(b, Result.empty()));
            }
        }); Connection c = connect(fake.port(), options().retries(3).build())) {
            Result r = c.table("t").get(Get.of("r")).get(30, TimeUnit.SECONDS);
            assertThat(r.isEmpty()).isTrue();
            assertThat(fake.requests).extracting(FakeServer.Request::connection, FakeServer.Request::op)
                    .containsExactly(org.assertj.core.groups.Tuple.tuple(1, OpCode.GET),
                            org.assertj.core.groups.Tuple.tuple(2, OpCode.GET));
        }
    }

    @Test
    void aPutThatMayHaveReachedTheServerIsNotRetriedAndTheNextRequestReconnects() throws Exception {
        try (FakeServer fake = new FakeServer(conn -> {
            if (conn.number == 1) {
                conn.read();
                return;
            }
            while (true) {
                conn.respond(conn.read(), _ -> { });
            }
        }); Connection c = connect(fake.port(), options().retries(3).build())) {
            Throwable t = failure(c.table("t").put(Put.of("r").addColumn("f", "q", "v")));
            assertThat(t).isInstanceOf(ConnectionClosedException.class).hasMessageContaining(fake.address())
                    .hasMessageContaining("PUT on table 't'");
            Thread.sleep(500); // time for a wrong retry (backoff 10 ms) to arrive
            assertThat(fake.requests).hasSize(1);
            assertThat(fake.accepted.get()).isEqualTo(1);

            c.table("t").put(Put.of("r").addColumn("f", "q", "v")).get(30, TimeUnit.SECONDS);
            assertThat(fake.accepted.get()).as("a new connection").isEqualTo(2);
            assertThat(fake.requests).extracting(FakeServer.Request::connection).containsExactly(1, 2);
        }
    }

    @Test
    void aGetWaitingOnADownServerSucceedsWhenItComesBackOnTheSamePort() throws Exception {
        ServerConfig config = ServerConfig.defaults().withPort(0).withDataDir(dir).withIoThreads(1);
        BasaltServer server = BasaltServer.start(config);
        int port = server.address().getPort();
        try (Connection c = connect(port, options().retries(12).build())) {
            c.admin().createTable(TableDescriptor.of("t", "f")).get(30, TimeUnit.SECONDS);
            c.table("t").put(Put.of("r").addColumn("f", "q", "v")).get(30, TimeUnit.SECONDS);
            server.close();
            CompletableFuture<Result> get = c.table("t").get(Get.of("r")); // retried while nothing listens
            server = BasaltServer.start(config.withPort(port));
            Result r = get.get(60, TimeUnit.SECONDS);
            assertThat(r.value("f", "q")).asString().isEqualTo("v");
            // and the connection it made serves the next request
            assertThat(c.table("t").get(Get.of("r")).get(30, TimeUnit.SECONDS).value("f", "q")).asString()
                    .isEqualTo("v");
        } finally {
            server.close();
        }
    }

    @Test
    void aClosedClientFailsNewRequestsAtOnce() throws Exception {
        try (FakeServer fake = new FakeServer(FakeServer::silent)) {
            Connection c = connect(fake.port(), options().build());
            CompletableFuture<Result> pending = c.table("t").get(Get.of("r"));
            c.close();
            assertThat(failure(pending)).isInstanceOf(ConnectionClosedException.class)
                    .hasMessageContaining(fake.address());
            assertThatThrownBy(() -> c.table("t").get(Get.of("r")).join())
                    .hasCauseInstanceOf(ConnectionClosedException.class);
        }
    }

    @Test
    void aResponseWithBytesLeftOverFailsItsRequestNamingTheOperationAndTable() throws Exception {
        try (FakeServer fake = new FakeServer(conn -> {
            while (true) {
                FakeServer.Request r = conn.read();
                conn.respond(r, b -> b.writeByte(7)); // a PUT's response has an empty body
            }
        });
             Connection c = connect(fake.port(), options().build())) {
            assertThat(failure(c.table("t").put(Put.of("r").addColumn("f", "q", "v"))))
                    .isInstanceOf(BasaltException.class)
                    .hasMessageContaining("malformed response to PUT on table 't' from " + fake.address())
                    .hasMessageContaining("1 unexpected bytes after the body");
        }
    }

    /** One result of one cell in {@code row}, as a batch body (after the scanner id, for an open). */
    private static void batch(ByteBuf b, String row) {
        Wire.writeBoolean(b, true); // more
        Messages.writeResults(b, List.of(Result.of(List.of(Cell.put(row, "f", "q", 1, "v")))));
    }

    @Test
    void aScanWhoseBatchIsMalformedFailsAndStaysFailedInsteadOfSkippingTheBatch() throws Exception {
        // Batch 1 is garbage; the batches after it, read ahead, are fine: none may be handed out.
        try (FakeServer fake = new FakeServer(conn -> {
            while (true) {
                FakeServer.Request r = conn.read();
                switch (r.op()) {
                    case SCAN_OPEN -> conn.respond(r, b -> {
                        Wire.writeVarlong(b, 5);
                        batch(b, "r0");
                    });
                    case SCAN_NEXT -> conn.respond(r, b -> {
                        if (conn.lastBatchNumber == 1) {
                            batch(b, "r1");
                            b.setByte(b.writerIndex() - 2, 42); // the type code, before the one-byte value
                        } else {
                            batch(b, "r" + conn.lastBatchNumber);
                        }
                    });
                    default -> conn.respond(r, _ -> { });
                }
            }
        });
             Connection c = connect(fake.port(), options().build());
             ResultScanner scanner = c.table("t").scanner(new Scan())) {
            assertThat(scanner.next().row()).isEqualTo("r0".getBytes());
            assertThatThrownBy(scanner::next).isInstanceOf(BasaltException.class)
                    .hasMessageContaining("malformed scan batch from " + fake.address())
                    .hasMessageContaining("unknown cell type code 42");
            assertThatThrownBy(scanner::next).as("the lost batch is not skipped over").isInstanceOf(BasaltException.class)
                    .hasMessageContaining("unknown cell type code 42");
        }
    }

    @Test
    void aMalformedCellAfterARowsFirstFailsTheReadOfThatRowNamingTheServer() throws Exception {
        // The second cell of row r1 has an unknown type: the row is handed out (its first cell,
        // its key, is sound), and reading its cells fails; rows before and after read normally.
        try (FakeServer fake = new FakeServer(conn -> {
            while (true) {
                FakeServer.Request r = conn.read();
                switch (r.op()) {
                    case SCAN_OPEN -> conn.respond(r, b -> {
                        Wire.writeVarlong(b, 5);
                        Wire.writeBoolean(b, false); // no more
                        Messages.writeResults(b, List.of(
                                Result.of(List.of(Cell.put("r0", "f", "q", 1, "v"))),
                                Result.of(List.of(Cell.put("r1", "f", "a", 1, "v"), Cell.put("r1", "f", "b", 1, "v"))),
                                Result.of(List.of(Cell.put("r2", "f", "q", 1, "v")))));
                        // r2's cell is the last 19 bytes (two one-byte lengths, a 16-byte key,
                        // a 1-byte value), after its 7-byte header (cell count, partial flag,
                        // padded length); r1's second cell ends before that header, and its type
                        // code is the byte before its 1-byte value.
                        b.setByte(b.writerIndex() - 19 - 7 - 2, 42);
                    });
                    default -> conn.respond(r, _ -> { });
                }
            }
        });
             Connection c = connect(fake.port(), options().build());
             ResultScanner scanner = c.table("t").scanner(new Scan())) {
            assertThat(scanner.next().cells()).hasSize(1);
            Result r1 = scanner.next();
            assertThat(r1.row()).isEqualTo("r1".getBytes());
            assertThatThrownBy(() -> r1.cells().get(0)).isInstanceOf(MalformedCellException.class)
                    .hasMessageContaining("a scan batch from " + fake.address() + " for table 't'")
                    .hasMessageContaining("cell 1 of 2")
                    .hasMessageContaining("unknown cell type code 42");
            assertThat(scanner.next().row()).isEqualTo("r2".getBytes());
        }
    }

    /**
     * A client given one address learns from the handshake whether it talks to a cluster node:
     * then its put carries a call id and is sent again, under the same id, after an UNAVAILABLE
     * answer (an election); to a plain server the put carries none and the answer is final.
     */
    @Test
    void aClientOfOneAddressResendsWritesOnlyToAClusterNode() throws Exception {
        java.util.function.Function<Integer, FakeServer> fake = word -> {
            try {
                return new FakeServer(word, conn -> {
                    FakeServer.Request first = conn.read();
                    conn.fail(first, io.basalt.protocol.Status.UNAVAILABLE, "no leader yet");
                    FakeServer.Request again = conn.read();
                    conn.respond(again, _ -> { });
                    FakeServer.silent(conn);
                });
            } catch (java.io.IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        };
        try (FakeServer node = fake.apply(io.basalt.protocol.FrameLayout.HANDSHAKE_CLUSTER_NODE);
             Connection c = connect(node.port(), options().build())) {
            c.table("t").put(Put.of("r").addColumn("f", "q", "v")).get(30, TimeUnit.SECONDS);
            assertThat(node.requests).hasSize(2);
            assertThat(node.requests.get(0).call()).as("a call id, to a cluster node").isNotNull();
            assertThat(node.requests.get(1).call()).as("the same call id when sent again")
                    .isEqualTo(node.requests.get(0).call());
        }
        try (FakeServer plain = fake.apply(io.basalt.protocol.FrameLayout.HANDSHAKE_ACCEPTED);
             Connection c = connect(plain.port(), options().build())) {
            assertThat(failure(c.table("t").put(Put.of("r").addColumn("f", "q", "v"))))
                    .isInstanceOf(io.basalt.client.UnavailableException.class).hasMessageContaining("no leader yet");
            assertThat(plain.requests).hasSize(1);
            assertThat(plain.requests.getFirst().call()).as("no call id to a plain server").isNull();
        }
    }
}
