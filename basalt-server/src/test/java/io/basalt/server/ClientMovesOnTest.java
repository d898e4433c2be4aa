package io.basalt.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.basalt.client.net.ClientOptions;
import io.basalt.client.net.RpcClient;
import io.basalt.protocol.FrameLayout;
import io.basalt.protocol.OpCode;
import io.basalt.protocol.Status;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * A client of several cluster addresses when the node it talks to answers {@code UNAVAILABLE}:
 * once is an election (retry there), twice in a row is a node cut off from its cluster (go to
 * another), and going leaves the requests still in flight on the old node to finish. Fake nodes
 * on plain sockets script the answers.
 */
class ClientMovesOnTest {

    private static final String CUT_OFF = "node 1 cannot reach the others";

    private static ClientOptions options() {
        return ClientOptions.builder().retryBackoff(Duration.ofMillis(10)).connectTimeout(Duration.ofSeconds(10))
                .operationTimeout(Duration.ofSeconds(2)).build();
    }

    private static RpcClient client(FakeServer... nodes) {
        return new RpcClient(java.util.Arrays.stream(nodes).map(n -> new RpcClient.Address("127.0.0.1", n.port()))
                .toList(), options());
    }

    private static CompletableFuture<Object> call(RpcClient client, OpCode op) {
        return client.call(op, op.name(), _ -> { }, _ -> "answered");
    }

    /** Answers every request {@code UNAVAILABLE}, as a node cut off from its cluster does. */
    private static FakeServer cutOff() throws Exception {
        return new FakeServer(FrameLayout.HANDSHAKE_CLUSTER_NODE, conn -> {
            while (true) {
                conn.fail(conn.read(), Status.UNAVAILABLE, CUT_OFF);
            }
        });
    }

    /** Answers every request OK with an empty body. */
    private static FakeServer healthy() throws Exception {
        return new FakeServer(FrameLayout.HANDSHAKE_CLUSTER_NODE, conn -> {
            while (true) {
                conn.respond(conn.read(), _ -> { });
            }
        });
    }

    @Test
    void aNodeThatKeepsAnsweringUnavailableIsLeftForOneThatServes() throws Exception {
        try (FakeServer a = cutOff(); FakeServer b = healthy(); RpcClient client = client(a, b)) {
            assertThat(call(client, OpCode.PING).get(30, TimeUnit.SECONDS)).isEqualTo("answered");
            assertThat(a.requests).as("asked twice, then left").hasSize(2);
            assertThat(b.requests).hasSize(1);
            assertThat(client.server()).isEqualTo(b.address());
        }
    }

    @Test
    void oneUnavailableAnswerIsAnElectionAndTheSameNodeIsAskedAgain() throws Exception {
        try (FakeServer a = new FakeServer(FrameLayout.HANDSHAKE_CLUSTER_NODE, conn -> {
                conn.fail(conn.read(), Status.UNAVAILABLE, "electing a leader");
                while (true) {
                    conn.respond(conn.read(), _ -> { });
                }
            });
             FakeServer b = healthy(); RpcClient client = client(a, b)) {
            for (int i = 0; i < 3; i++) {
                assertThat(call(client, OpCode.PING).get(30, TimeUnit.SECONDS)).isEqualTo("answered");
            }
            assertThat(a.requests).hasSize(4);
            assertThat(b.accepted.get()).as("no connection to the other node").isZero();
        }
    }

    /**
     * A FLUSH (never sent twice) is in flight on node A when a PING's second UNAVAILABLE moves the
     * client to node B: A's connection is retired, not closed, so the FLUSH gets A's answer, and the
     * connection closes once nothing is pending on it.
     */
    @Test
    void movingOnLetsARequestInFlightOnTheOldNodeFinishAndThenClosesItsConnection() throws Exception {
        CompletableFuture<Boolean> closedByClient = new CompletableFuture<>();
        try (FakeServer a = new FakeServer(FrameLayout.HANDSHAKE_CLUSTER_NODE, conn -> {
                FakeServer.Request flush = conn.read();
                conn.fail(conn.read(), Status.UNAVAILABLE, CUT_OFF);
                conn.fail(conn.read(), Status.UNAVAILABLE, CUT_OFF);
                conn.respond(flush, _ -> { });
                closedByClient.complete(conn.in.read() == -1);
            });
             FakeServer b = healthy(); RpcClient client = client(a, b)) {
            CompletableFuture<Object> flush = call(client, OpCode.FLUSH);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (a.requests.isEmpty() && System.nanoTime() < deadline) {
                Thread.sleep(5);
            }
            assertThat(a.requests).extracting(FakeServer.Request::op).containsExactly(OpCode.FLUSH);
            assertThat(call(client, OpCode.PING).get(30, TimeUnit.SECONDS)).isEqualTo("answered");
            assertThat(flush.get(30, TimeUnit.SECONDS)).as("the FLUSH answered on the retired connection")
                    .isEqualTo("answered");
            assertThat(closedByClient.get(30, TimeUnit.SECONDS)).as("the retired connection closed once drained")
                    .isTrue();
            assertThat(b.requests).extracting(FakeServer.Request::op).containsExactly(OpCode.PING);
        }
    }

    /** Many requests answered UNAVAILABLE at once move the client one node on, not one node each. */
    @Test
    void requestsFailingTogetherMoveTheClientOneNodeOnly() throws Exception {
        try (FakeServer a = cutOff(); FakeServer b = healthy(); FakeServer c = healthy();
             RpcClient client = client(a, b, c)) {
            List<CompletableFuture<Object>> pings = java.util.stream.IntStream.range(0, 50)
                    .mapToObj(_ -> call(client, OpCode.PING)).toList();
            for (CompletableFuture<Object> p : pings) {
                assertThat(p.get(30, TimeUnit.SECONDS)).isEqualTo("answered");
            }
            assertThat(c.accepted.get()).as("the third node was never needed").isZero();
            assertThat(b.requests).hasSize(50);
        }
    }
}
