package io.basalt.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.basalt.bytes.Bytes;
import io.basalt.client.AsyncTable;
import io.basalt.client.Basalt;
import io.basalt.client.ConnectionClosedException;
import io.basalt.client.Connection;
import io.basalt.client.Durability;
import io.basalt.client.Get;
import io.basalt.client.Increment;
import io.basalt.client.Put;
import io.basalt.client.Result;
import io.basalt.client.ServerException;
import io.basalt.client.StoreOptions;
import io.basalt.client.TableDescriptor;
import io.basalt.client.net.ClientOptions;
import io.basalt.protocol.OpCode;
import io.netty.buffer.ByteBuf;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Stopping a server under load ({@link BasaltServer#close()}): every request completes or fails
 * with a clear error, none hangs; a write that was acknowledged is in the store when it is
 * opened again; requests that arrive while the server drains are answered "shutting down", and
 * requests in flight get to finish. (The SIGTERM path of {@code ./basalt server} is covered by
 * basalt-cli's {@code ServerCommandIT}.)
 */
class GracefulStopTest {

    /** Bounds every wait; far beyond anything a healthy run needs. */
    private static final long WAIT_SECONDS = 60;
    private static final byte[] F = Bytes.utf8("f");
    private static final byte[] N = Bytes.utf8("n");
    private static final byte[] COUNTER = Bytes.utf8("counter");

    @TempDir
    Path dir;

    private ServerConfig config() {
        return ServerConfig.builder().port(0).dataDir(dir).ioThreads(2)
                .store(StoreOptions.defaults().withDurability(Durability.SYNC)).build();
    }

    private static Connection connect(BasaltServer server) {
        return Basalt.connect("basalt://127.0.0.1:" + server.address().getPort(), ClientOptions.builder()
                .operationTimeout(Duration.ofSeconds(WAIT_SECONDS)).retries(1).retryBackoff(Duration.ofMillis(10))
                .build(), StoreOptions.defaults());
    }

    private static Put put(String row) {
        return Put.of(row).addColumn("f", "q", "v-" + row);
    }

    /** Null when {@code f} completed normally, else its failure; fails the test when it hangs. */
    private static Throwable outcome(CompletableFuture<?> f, String what) throws InterruptedException {
        try {
            f.get(WAIT_SECONDS, TimeUnit.SECONDS);
            return null;
        } catch (ExecutionException e) {
            return e.getCause();
        } catch (TimeoutException e) {
            throw new AssertionError(what + " neither completed nor failed in " + WAIT_SECONDS + " s", e);
        }
    }

    private static boolean shuttingDown(Throwable t) {
        return t instanceof ServerException && t.getMessage().contains("SHUTTING_DOWN");
    }

    /** A failure the caller can act on: the server said it is stopping, or the connection is gone. */
    private static void assertClear(Throwable t, String what) {
        if (!shuttingDown(t) && !(t instanceof ConnectionClosedException)) {
            throw new AssertionError(what + " failed with neither SHUTTING_DOWN nor a closed connection", t);
        }
    }

    @Test
    void everyPutInFlightWhenTheServerStopsEndsClearlyAndNoAcknowledgedPutIsLost() throws Exception {
        BasaltServer server = BasaltServer.start(config());
        List<String> rows = new ArrayList<>();
        List<CompletableFuture<Void>> puts = new ArrayList<>();
        int afterStop;
        try (Connection client = connect(server)) {
            client.admin().createTable(TableDescriptor.of("t", "f")).get(WAIT_SECONDS, TimeUnit.SECONDS);
            AsyncTable table = client.table("t");
            for (int i = 0; i < 500; i++) {
                rows.add("a" + i);
                puts.add(table.put(put(rows.getLast())));
            }
            puts.getFirst().get(WAIT_SECONDS, TimeUnit.SECONDS); // the rest are on their way or in flight
            Thread closer = Thread.ofPlatform().name("closer").start(server::close);
            // More puts while the server stops: before, during and after the drain.
            for (int i = 0; closer.isAlive() && i < 5_000; i++) {
                rows.add("b" + i);
                puts.add(table.put(put(rows.getLast())));
                Thread.sleep(0, 200_000);
            }
            closer.join(TimeUnit.SECONDS.toMillis(WAIT_SECONDS));
            assertThat(closer.isAlive()).as("close() returned").isFalse();
            afterStop = puts.size();
            for (int i = 0; i < 50; i++) {
                rows.add("c" + i);
                puts.add(table.put(put(rows.getLast())));
            }

            List<String> acknowledged = new ArrayList<>();
            for (int i = 0; i < puts.size(); i++) {
                String what = "PUT of " + rows.get(i);
                Throwable failure = outcome(puts.get(i), what);
                if (failure == null) {
                    assertThat(i).as("%s was acknowledged by a stopped server", what).isLessThan(afterStop);
                    acknowledged.add(rows.get(i));
                } else {
                    assertClear(failure, what);
                }
            }
            assertThat(acknowledged).as("puts acknowledged before the stop").isNotEmpty();

            try (Connection store = Basalt.open(dir)) {
                for (String row : acknowledged) {
                    Result r = store.table("t").get(Get.of(row)).get(WAIT_SECONDS, TimeUnit.SECONDS);
                    assertThat(r.value("f", "q")).as("acknowledged put of %s", row).asString().isEqualTo("v-" + row);
                }
            }
        } finally {
            server.close();
        }
    }

    /** The store, except that the first INCREMENT waits for {@code release} before it runs. */
    private static final class HoldFirstIncrement extends DeferringHandler {
        final CountDownLatch release;
        final CountDownLatch arrived = new CountDownLatch(1);
        private boolean held; // one connection, one event loop: no race

        HoldFirstIncrement(EngineHandler engine, CountDownLatch release) {
            super(engine);
            this.release = release;
        }

        @Override
        boolean hold(OpCode op, ByteBuf body) {
            if (op != OpCode.INCREMENT || held) {
                return false;
            }
            held = true;
            arrived.countDown();
            return true;
        }

        @Override
        void awaitRelease() throws InterruptedException {
            release.await();
        }
    }

    @Test
    void requestsArrivingWhileTheServerDrainsAreAnsweredShuttingDownAndTheOneInFlightFinishes() throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        HoldFirstIncrement[] handler = new HoldFirstIncrement[1];
        BasaltServer server = BasaltServer.start(config(),
                c -> handler[0] = new HoldFirstIncrement(EngineHandler.open(c), release));
        Thread closer = null;
        try (Connection client = connect(server)) {
            client.admin().createTable(TableDescriptor.of("t", "f")).get(WAIT_SECONDS, TimeUnit.SECONDS);
            AsyncTable table = client.table("t");
            for (int i = 0; i < 10; i++) {
                table.put(put("before" + i)).get(WAIT_SECONDS, TimeUnit.SECONDS);
            }
            CompletableFuture<Result> increment = table.increment(new Increment(COUNTER).addColumn(F, N, 1));
            assertThat(handler[0].arrived.await(WAIT_SECONDS, TimeUnit.SECONDS)).as("the increment arrived").isTrue();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(WAIT_SECONDS);

            closer = Thread.ofPlatform().name("closer").start(server::close);
            // Until the stop begins, requests are served; from then on, answered SHUTTING_DOWN.
            Throwable probe;
            do {
                probe = outcome(table.get(Get.of("before0")), "GET while stopping");
                assertThat(System.nanoTime() - deadline).as("a GET was refused in time").isNegative();
            } while (probe == null);
            assertThat(probe).as("the first refused GET").matches(GracefulStopTest::shuttingDown, "SHUTTING_DOWN");

            for (int i = 0; i < 50; i++) {
                Throwable refused = outcome(table.put(put("refused" + i)), "PUT while stopping");
                assertThat(refused).as("PUT while the server drains").isNotNull()
                        .matches(GracefulStopTest::shuttingDown, "SHUTTING_DOWN");
            }
            assertThat(increment).as("the held increment is still in flight").isNotDone();
            assertThat(closer.isAlive()).as("close() waits for it").isTrue();

            release.countDown();
            Result counted = increment.get(WAIT_SECONDS, TimeUnit.SECONDS);
            assertThat(counted.latest(F, N)).isNotNull();
            closer.join(TimeUnit.SECONDS.toMillis(WAIT_SECONDS));
            assertThat(closer.isAlive()).as("close() returned").isFalse();

            Throwable after = outcome(table.put(put("after")), "PUT after the stop");
            assertThat(after).as("PUT after the stop").isInstanceOf(ConnectionClosedException.class);
        } finally {
            release.countDown();
            server.close();
            if (closer != null) {
                closer.join(TimeUnit.SECONDS.toMillis(WAIT_SECONDS));
            }
        }

        try (Connection store = Basalt.open(dir)) {
            AsyncTable t = store.table("t");
            for (int i = 0; i < 10; i++) {
                assertThat(t.get(Get.of("before" + i)).get(WAIT_SECONDS, TimeUnit.SECONDS).isEmpty()).isFalse();
            }
            assertThat(Increment.amount(t.get(Get.of("counter")).get(WAIT_SECONDS, TimeUnit.SECONDS)
                    .latest(F, N))).isEqualTo(1);
            for (int i = 0; i < 50; i++) {
                assertThat(t.get(Get.of("refused" + i)).get(WAIT_SECONDS, TimeUnit.SECONDS).isEmpty())
                        .as("refused put %d was not applied", i).isTrue();
            }
            assertThat(t.get(Get.of("after")).get(WAIT_SECONDS, TimeUnit.SECONDS).isEmpty()).isTrue();
        }
    }
}
