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

    // ------------------------------------------------------------------ the timed force beside writes

    /**
     * The log's once-a-second force runs without the write token: while the disk is held in it,
     * lone puts, a batch of several records and writers on several threads are all written and
     * answered (with the token held through the force, every one of them waited for it).
     */
    @Test
    void writersAreAnsweredWhileTheTimedForceIsHeld() throws Exception {
        ConcurrentLinkedQueue<String> problems = new ConcurrentLinkedQueue<>();
        try (Connection c = open()) {
            await(c.admin().createTable(TableDescriptor.of("t", "f")));
            WriteAheadLog wal = ((EmbeddedConnection) c).store().wal();
            FaultyDisk.Pause force = disk.pauseNext(Place.WAL_FORCE);
            await(c.table("t").put(Put.of("first").addColumn("f", "q", "1"))); // something for the timer to force
            force.awaitReached();
            long forces = wal.forces();
            for (int i = 0; i < 20; i++) {
                await(c.table("t").put(Put.of("lone" + i).addColumn("f", "q", "v" + i)));
            }
            // a batch that is not all puts logs one record per mutation and wakes the log once:
            // several records pending at once, which a writer leaves to the syncer unless it forces
            List<CompletableFuture<Object>> batch = c.table("t").batch(List.of(
                    Put.of("b1").addColumn("f", "q", "1"), io.basalt.client.Delete.of("lone0"),
                    Put.of("b2").addColumn("f", "q", "2")));
            for (CompletableFuture<Object> f : batch) {
                await(f);
            }
            List<Thread> writers = new ArrayList<>();
            for (int t = 0; t < 4; t++) {
                int id = t;
                writers.add(Thread.ofPlatform().start(() -> {
                    try {
                        for (int i = 0; i < 50; i++) {
                            await(c.table("t").put(Put.of("w" + id + "-" + i).addColumn("f", "q", "x")));
                        }
                    } catch (Exception e) {
                        problems.add(e.toString());
                    }
                }));
            }
            for (Thread w : writers) {
                w.join(TimeUnit.MINUTES.toMillis(2));
            }
            assertThat(problems).isEmpty();
            assertThat(wal.forces()).as("all of it answered while the force was held").isEqualTo(forces);
            force.release();
            assertThat(value(c, "lone0")).isNull();
            assertThat(value(c, "b2")).isEqualTo("2");
        }
        try (Connection c = open()) {
            assertThat(value(c, "w3-49")).isEqualTo("x");
            assertThat(value(c, "lone19")).isEqualTo("v19");
            assertThat(value(c, "lone0")).isNull();
        }
    }

    /**
     * What was written while a timed force ran is not counted as forced by it: the next interval
     * forces again, so that after a power loss every write acknowledged more than an interval
     * before it is there (ASYNC's promise), the ones written beside the force included.
     */
    @Test
    void writesBesideATimedForceAreForcedByTheNext() throws Exception {
        Connection c = open();
        await(c.admin().createTable(TableDescriptor.of("t", "f")));
        WriteAheadLog wal = ((EmbeddedConnection) c).store().wal();
        FaultyDisk.Pause force = disk.pauseNext(Place.WAL_FORCE);
        await(c.table("t").put(Put.of("before").addColumn("f", "q", "1")));
        force.awaitReached();
        long forces = wal.forces();
        for (int i = 0; i < 10; i++) {
            await(c.table("t").put(Put.of("beside" + i).addColumn("f", "q", "v" + i)));
        }
        force.release();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (wal.forces() < forces + 2 && System.nanoTime() < deadline) { // the held one, then the next
            Thread.sleep(20);
        }
        assertThat(wal.forces()).as("a second force, for the writes beside the first").isGreaterThanOrEqualTo(forces + 2);
        disk.crash();
        try {
            c.close();
        } catch (Exception e) {
            // the disk is gone
        }
        disk.loseUnsynced(new java.util.SplittableRandom(7));
        try (Connection again = open()) {
            assertThat(value(again, "before")).isEqualTo("1");
            for (int i = 0; i < 10; i++) {
                assertThat(value(again, "beside" + i)).isEqualTo("v" + i);
            }
        }
    }

    /**
     * A timed force that fails while writers write beside it fails the log: the store goes
     * read-only, later writes are refused, and what was acknowledged is there after a reopen.
     */
    @Test
    void aTimedForceThatFailsBesideWritersFailsTheLogAndKeepsTheAcknowledged() throws Exception {
        try (Connection c = open()) {
            await(c.admin().createTable(TableDescriptor.of("t", "f")));
            FaultyDisk.Pause force = disk.pauseNext(Place.WAL_FORCE);
            await(c.table("t").put(Put.of("a").addColumn("f", "q", "1")));
            force.awaitReached();
            await(c.table("t").put(Put.of("b").addColumn("f", "q", "2"))); // acknowledged beside the force
            disk.failNext(Place.WAL_FORCE, Fault.IO_ERROR);
            force.release();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            Throwable refused = null;
            while (refused == null && System.nanoTime() < deadline) {
                CompletableFuture<Void> put = c.table("t").put(Put.of("c").addColumn("f", "q", "3"));
                try {
                    put.get(30, TimeUnit.SECONDS);
                    Thread.sleep(20);
                } catch (java.util.concurrent.ExecutionException e) {
                    refused = e.getCause();
                }
            }
            assertThat(refused).isInstanceOf(StoreReadOnlyException.class);
        }
        try (Connection c = open()) {
            assertThat(value(c, "a")).isEqualTo("1");
            assertThat(value(c, "b")).isEqualTo("2");
        }
    }
}
