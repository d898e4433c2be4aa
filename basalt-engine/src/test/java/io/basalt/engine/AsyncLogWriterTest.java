package io.basalt.engine;

import static org.assertj.core.api.Assertions.assertThat;

import io.basalt.client.Connection;
import io.basalt.client.Durability;
import io.basalt.client.Put;
import io.basalt.client.Result;
import io.basalt.client.StoreOptions;
import io.basalt.client.StoreReadOnlyException;
import io.basalt.client.TableDescriptor;
import io.basalt.engine.FaultyDisk.Fault;
import io.basalt.engine.FaultyDisk.Place;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Under {@link Durability#ASYNC} a writer that finds the log idle writes its record itself and is
 * answered on its own thread (WriteAheadLog's "writers that write"); everything the log promised
 * before still holds when that writer meets a failure, and when many writers overlap.
 */
class AsyncLogWriterTest {

    @TempDir
    Path dir;

    private final AtomicLong clock = new AtomicLong(1_000_000);
    private final FaultyDisk disk = new FaultyDisk();

    private Connection open() throws Exception {
        return open(Durability.ASYNC);
    }

    private Connection open(Durability durability) throws Exception {
        StoreOptions options = StoreOptions.defaults().withDurability(durability)
                .withBackgroundRetries(2, Duration.ofMillis(10));
        return new EmbeddedConnection(Store.open(dir, options, clock::get, new StripedRegionLocks(), disk));
    }

    // the fault tests' helpers
    private static <T> T await(CompletableFuture<T> f) throws Exception {
        return Issue17FaultTest.await(f);
    }

    private static String value(Connection c, String row) throws Exception {
        return Issue17FaultTest.value(c, "t", row);
    }

    private static Throwable failureOf(CompletableFuture<?> f) throws Exception {
        return Issue17FaultTest.failureOf(f);
    }

    @Test
    void aLoneWriterIsWrittenAndAnsweredOnItsOwnThread() throws Exception {
        try (Connection c = open()) {
            await(c.admin().createTable(TableDescriptor.of("t", "f")));
            WriteAheadLog wal = ((EmbeddedConnection) c).store().wal();
            long batchesBefore = wal.batches();
            int inline = 0;
            for (int i = 0; i < 200; i++) {
                CompletableFuture<Void> put = c.table("t").put(Put.of("r" + i).addColumn("f", "q", "v" + i));
                if (put.isDone()) { // answered before put() returned: written on this thread
                    inline++;
                    Thread[] answeredOn = new Thread[1];
                    put.thenRun(() -> answeredOn[0] = Thread.currentThread()).join();
                    assertThat(answeredOn[0]).isSameAs(Thread.currentThread());
                }
                await(put);
                assertThat(value(c, "r" + i)).as("visible to its writer's next read").isEqualTo("v" + i);
            }
            // the syncer's timed force holds the log now and then (once a second); a put arriving
            // then is written by the syncer, as before
            assertThat(inline).as("puts written and answered on their own thread").isGreaterThanOrEqualTo(180);
            assertThat(wal.batches() - batchesBefore).as("one write per put").isEqualTo(200);
        }
        try (Connection c = open()) {
            for (int i = 0; i < 200; i += 37) {
                assertThat(value(c, "r" + i)).isEqualTo("v" + i);
            }
        }
    }

    @Test
    void aShortWriteOnTheWritersThreadFailsItNeverToReturnAndKeepsTheAcknowledged() throws Exception {
        try (Connection c = open()) {
            await(c.admin().createTable(TableDescriptor.of("t", "f")));
            await(c.table("t").put(Put.of("a").addColumn("f", "q", "1")));
            disk.failNext(Place.WAL_APPEND, Fault.SHORT_WRITE);
            assertThat(failureOf(c.table("t").put(Put.of("b").addColumn("f", "q", "2"))))
                    .isInstanceOf(StoreReadOnlyException.class).hasMessageContaining("injected");
            assertThat(value(c, "b")).isNull();
            assertThat(failureOf(c.table("t").put(Put.of("c").addColumn("f", "q", "3"))))
                    .isInstanceOf(StoreReadOnlyException.class);
        }
        try (Connection c = open()) {
            assertThat(value(c, "a")).isEqualTo("1");
            assertThat(value(c, "b")).as("cut back on the writer's thread: never replayed").isNull();
            await(c.table("t").put(Put.of("d").addColumn("f", "q", "4")));
        }
    }

    @Test
    void anErrorOnTheWritersThreadAnswersEveryWriteAndTheStoreReopens() throws Exception {
        try (Connection c = open()) {
            await(c.admin().createTable(TableDescriptor.of("t", "f")));
            await(c.table("t").put(Put.of("a").addColumn("f", "q", "1")));
            disk.failNext(Place.WAL_APPEND, Fault.ERROR);
            List<CompletableFuture<Void>> writes = new ArrayList<>();
            for (int i = 0; i < 20; i++) {
                writes.add(c.table("t").put(Put.of("b" + i).addColumn("f", "q", "2")));
            }
            for (CompletableFuture<Void> w : writes) {
                w.handle((ok, e) -> null).get(30, TimeUnit.SECONDS); // every write answered
            }
            assertThat(writes).anyMatch(CompletableFuture::isCompletedExceptionally);
        }
        try (Connection c = open()) {
            assertThat(value(c, "a")).isEqualTo("1");
            await(c.table("t").put(Put.of("after").addColumn("f", "q", "4")));
        }
    }

    /**
     * A write that fails after some of its bytes went out, without the file's size saying so (as
     * a {@code java.io} write, which the log now uses, cannot): a batch of a small record written
     * whole and a large one torn. Neither was acknowledged, so neither may come back: the log cuts
     * the segment back whatever the sizes say. Under both durabilities.
     */
    @Test
    void aWriteThatFailsPartWayUncountedIsCutBackAndNothingOfItReturns() throws Exception {
        for (Durability durability : Durability.values()) {
            Path store = dir.resolve(durability.name());
            java.nio.file.Files.createDirectories(store);
            Path saved = dir;
            dir = store;
            try {
                try (Connection c = open(durability)) {
                    await(c.admin().createTable(TableDescriptor.of("t", "f")));
                    await(c.table("t").put(Put.of("kept").addColumn("f", "q", "1")));
                    disk.failNext(Place.WAL_APPEND, Fault.SILENT_PARTIAL_WRITE);
                    // two records in one batch: a small delete (whole in the first half) and a 4 KiB put
                    List<CompletableFuture<Object>> both = c.table("t").batch(List.of(
                            io.basalt.client.Delete.of("kept"),
                            Put.of("torn").addColumn("f", "q", "x".repeat(4096))));
                    for (CompletableFuture<Object> f : both) {
                        assertThat(failureOf(f)).as(durability.name()).isInstanceOf(StoreReadOnlyException.class);
                    }
                }
                try (Connection c = open(durability)) {
                    assertThat(value(c, "kept")).as(durability + ": the failed delete is not replayed").isEqualTo("1");
                    assertThat(value(c, "torn")).isNull();
                }
            } finally {
                dir = saved;
            }
        }
    }

    /**
     * The writer's thread writes the log, so an interrupt of it must not break the log (a
     * {@code FileChannel} would close for everyone, making the store read-only): an interrupted
     * writer's put succeeds and keeps its interrupt, on a platform thread and a virtual one.
     */
    @Test
    void anInterruptedWriterWritesTheLogWithoutBreakingIt() throws Exception {
        try (Connection c = open()) {
            await(c.admin().createTable(TableDescriptor.of("t", "f")));
            for (boolean virtual : new boolean[] {false, true}) {
                java.util.concurrent.atomic.AtomicReference<Object> outcome = new java.util.concurrent.atomic.AtomicReference<>();
                Runnable interrupted = () -> {
                    try {
                        for (int i = 0; i < 50; i++) {
                            Thread.currentThread().interrupt();
                            CompletableFuture<Void> put = c.table("t").put(Put.of("i" + virtual + i).addColumn("f", "q", "v"));
                            boolean stillInterrupted = Thread.interrupted();
                            put.get(30, TimeUnit.SECONDS);
                            if (!stillInterrupted) {
                                outcome.set("the writer's interrupt was lost");
                                return;
                            }
                        }
                        outcome.set("ok");
                    } catch (Exception e) {
                        outcome.set(e);
                    }
                };
                Thread t = virtual ? Thread.ofVirtual().start(interrupted) : Thread.ofPlatform().start(interrupted);
                t.join(TimeUnit.MINUTES.toMillis(1));
                assertThat(outcome.get()).as(virtual ? "virtual thread" : "platform thread").isEqualTo("ok");
            }
            await(c.table("t").put(Put.of("after").addColumn("f", "q", "v")));
            assertThat(((EmbeddedConnection) c).store().wal().failure()).as("the log is unbroken").isNull();
        }
        try (Connection c = open()) {
            assertThat(value(c, "itrue49")).isEqualTo("v");
            assertThat(value(c, "after")).isEqualTo("v");
        }
    }

    /**
     * A segment that fills is rolled by the syncer, never by a writer writing inline: a roll
     * syncs the directory through a channel, which an interrupt of the writer's thread would close
     * (and the store would go read-only). Interrupted writers filling many small segments.
     */
    @Test
    void interruptedWritersFillingSegmentsLeaveTheRollsToTheSyncer() throws Exception {
        StoreOptions options = StoreOptions.defaults().withDurability(Durability.ASYNC).withWalSegmentSize(64 * 1024);
        try (Connection c = new EmbeddedConnection(Store.open(dir, options, clock::get, new StripedRegionLocks(), disk))) {
            await(c.admin().createTable(TableDescriptor.of("t", "f")));
            WriteAheadLog wal = ((EmbeddedConnection) c).store().wal();
            int segmentsBefore = wal.segmentFiles().size();
            for (int i = 0; i < 300; i++) {
                Thread.currentThread().interrupt();
                CompletableFuture<Void> put = c.table("t").put(Put.of("r" + i).addColumn("f", "q", "x".repeat(1024)));
                assertThat(Thread.interrupted()).isTrue();
                await(put);
            }
            assertThat(wal.failure()).as("no roll on an interrupted writer's thread").isNull();
            assertThat(wal.segmentFiles().size() - segmentsBefore).as("segments rolled").isGreaterThan(3);
        }
    }

    /**
     * Eight writers at once: some write the log themselves, others find it taken and leave their
     * records to the next batch. Every acknowledged write is visible at once to its writer (the log's
     * futures may complete out of order; MVCC answers writers in order) and is there after a reopen.
     */
    @Test
    void overlappingWritersLoseNothingAndSeeTheirOwnWrites() throws Exception {
        int threads = 8;
        int each = 400;
        ConcurrentLinkedQueue<String> problems = new ConcurrentLinkedQueue<>();
        try (Connection c = open()) {
            await(c.admin().createTable(TableDescriptor.of("t", "f")));
            List<Thread> writers = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                int id = t;
                writers.add(Thread.ofPlatform().start(() -> {
                    try {
                        for (int i = 0; i < each; i++) {
                            String row = "w" + id + "-" + i;
                            await(c.table("t").put(Put.of(row).addColumn("f", "q", row)));
                            if (!row.equals(value(c, row))) {
                                problems.add(row + " not visible to its writer after its acknowledgement");
                            }
                        }
                    } catch (Exception e) {
                        problems.add(e.toString());
                    }
                }));
            }
            for (Thread w : writers) {
                w.join(TimeUnit.MINUTES.toMillis(2));
                assertThat(w.isAlive()).isFalse();
            }
            assertThat(problems).isEmpty();
        }
        try (Connection c = open()) {
            List<Result> rows = await(c.table("t").scanAll(new io.basalt.client.Scan()));
            assertThat(rows).hasSize(threads * each);
        }
    }
}
