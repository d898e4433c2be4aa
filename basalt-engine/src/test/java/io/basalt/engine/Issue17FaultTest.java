package io.basalt.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.basalt.client.BasaltException;
import io.basalt.client.Connection;
import io.basalt.client.Get;
import io.basalt.client.Increment;
import io.basalt.client.Put;
import io.basalt.client.Result;
import io.basalt.client.StoreOptions;
import io.basalt.client.StoreReadOnlyException;
import io.basalt.client.TableDescriptor;
import io.basalt.engine.FaultyDisk.Fault;
import io.basalt.engine.FaultyDisk.Place;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 17: what the engine does when something other than a clean crash goes wrong. Each test
 * pins one failure the issue names; each failed on the code before it.
 */
class Issue17FaultTest {

    @TempDir
    Path dir;

    private final AtomicLong clock = new AtomicLong(1_000_000);
    private final FaultyDisk disk = new FaultyDisk();

    /** Small, quick retries, so a test that lets them run out waits well under a second. */
    private static StoreOptions options() {
        return StoreOptions.defaults().withBackgroundRetries(2, Duration.ofMillis(10));
    }

    private Connection open(StoreOptions options) throws Exception {
        return new EmbeddedConnection(Store.open(dir, options, clock::get, new StripedRegionLocks(), disk));
    }

    private Connection open() throws Exception {
        return open(options());
    }

    static <T> T await(CompletableFuture<T> f) throws Exception {
        return f.get(30, TimeUnit.SECONDS);
    }

    private static Store store(Connection c) {
        return ((EmbeddedConnection) c).store();
    }

    private static void put(Connection c, String table, String row, String value) throws Exception {
        await(c.table(table).put(Put.of(row).addColumn("f", "q", value)));
    }

    static String value(Connection c, String table, String row) throws Exception {
        Result r = await(c.table(table).get(Get.of(row)));
        byte[] v = r.value("f", "q");
        return v == null ? null : new String(v, StandardCharsets.UTF_8);
    }

    static Throwable failureOf(CompletableFuture<?> f) throws Exception {
        try {
            f.get(30, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            return e.getCause();
        }
        throw new AssertionError("expected the operation to fail");
    }

    // ------------------------------------------------------------------ failed flushes

    @Test
    void anAdminFlushFromAnInterruptedThreadLosesNoAcknowledgedWrite() throws Exception {
        try (Connection c = open()) {
            await(c.admin().createTable(TableDescriptor.of("t", "f")));
            put(c, "t", "a", "1");
            AtomicReference<CompletableFuture<Void>> flush = new AtomicReference<>();
            Thread interrupted = Thread.ofPlatform().start(() -> {
                Thread.currentThread().interrupt();
                flush.set(c.admin().flush("t"));
            });
            interrupted.join();
            flush.get().handle((ok, e) -> null).get(30, TimeUnit.SECONDS);
            put(c, "t", "b", "2");
            await(c.admin().flush("t"));
        }
        try (Connection c = open()) {
            assertThat(value(c, "t", "a")).isEqualTo("1");
            assertThat(value(c, "t", "b")).isEqualTo("2");
        }
    }

    @Test
    void aFlushThatFailsKeepsItsMemtableAndNoLaterFlushPassesIt() throws Exception {
        try (Connection c = open()) {
            await(c.admin().createTable(TableDescriptor.of("t", "f")));
            put(c, "t", "a", "1");
            disk.failNext(Place.FLUSH, Fault.NO_SPACE);
            assertThat(failureOf(c.admin().flush("t"))).hasMessageContaining("No space left on device");
            assertThat(value(c, "t", "a")).as("the frozen memtable still serves reads").isEqualTo("1");
            put(c, "t", "b", "2");
            await(c.admin().flush("t"));
            assertThat(store(c).table("t").regions().getFirst().view().flushing()).as("flushed oldest first").isEmpty();
        }
        try (Connection c = open()) {
            assertThat(value(c, "t", "a")).isEqualTo("1");
            assertThat(value(c, "t", "b")).isEqualTo("2");
        }
    }

    @Test
    void aBackgroundFlushIsRetriedAndTheStoreGoesReadOnlyWhenItKeepsFailing() throws Exception {
        java.util.Set<String> acknowledged;
        try (Connection c = open(options().withMemtableFlushSize(64 * 1024))) {
            await(c.admin().createTable(TableDescriptor.of("t", "f")));
            disk.random(new java.util.SplittableRandom(1), 1.0, java.util.Set.of(Place.FLUSH));
            byte[] value = new byte[1024];
            List<CompletableFuture<Void>> writes = new ArrayList<>();
            for (int i = 0; i < 100; i++) { // past the flush size: a background flush starts, and fails
                writes.add(c.table("t").put(new Put(("r" + i).getBytes(StandardCharsets.UTF_8))
                        .addColumn("f".getBytes(StandardCharsets.UTF_8), "q".getBytes(StandardCharsets.UTF_8), value)));
            }
            // The retries (10 ms apart) may run out before the last puts arrive: those fail as
            // read-only and must never reappear; every acknowledged one must survive.
            acknowledged = new java.util.TreeSet<>();
            for (int i = 0; i < writes.size(); i++) {
                try {
                    await(writes.get(i));
                    acknowledged.add("r" + i);
                } catch (ExecutionException e) {
                    assertThat(e.getCause()).isInstanceOf(StoreReadOnlyException.class);
                }
            }
            assertThat(acknowledged).as("the puts before the flush size was reached").hasSizeGreaterThan(50);
            Store store = store(c);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (store.readOnly() == null && System.nanoTime() < deadline) {
                Thread.sleep(10);
            }
            assertThat(store.readOnly()).as("read-only after the retries ran out").isNotNull();
            assertThat(disk.injected(Place.FLUSH)).as("first attempt and two retries").isGreaterThanOrEqualTo(3);
            assertThat(store.readOnly().reason()).contains("flush of table t failed 3 times");
            assertThatThrownBy(() -> put(c, "t", "x", "1")).hasCauseInstanceOf(StoreReadOnlyException.class);
            assertThat(value(c, "t", "r7")).as("reads go on").isNotNull();
            assertThat(failureOf(c.admin().createTable(TableDescriptor.of("u", "f"))))
                    .isInstanceOf(StoreReadOnlyException.class);
            disk.random(new java.util.SplittableRandom(1), 0, java.util.Set.of()); // the operator fixed the disk
        }
        try (Connection c = open()) {
            java.util.Set<String> rows = new java.util.TreeSet<>();
            for (io.basalt.client.Result r : await(c.table("t").scanAll(new io.basalt.client.Scan()))) {
                rows.add(new String(r.row(), StandardCharsets.UTF_8));
            }
            assertThat(rows).as("exactly the acknowledged puts").isEqualTo(acknowledged);
            put(c, "t", "x", "1");
        }
    }

    // ------------------------------------------------------------------ the directory lock

    @Test
    void aRefusedSecondOpenKeepsTheFirstOpensLock() throws Exception {
        try (Connection _ = open()) {
            assertThatThrownBy(() -> open()).isInstanceOf(BasaltException.class)
                    .hasMessageContaining("already open in this process");
            assertThat(probeLock()).as("another process must still find the directory locked").isEqualTo(3);
        }
        assertThat(probeLock()).as("closed: the lock is free").isZero();
    }

    private int probeLock() throws Exception {
        Process p = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-cp",
                System.getProperty("java.class.path"), LockProbe.class.getName(), dir.toString())
                .redirectErrorStream(true).start();
        if (!p.waitFor(60, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new AssertionError("the lock probe did not finish");
        }
        return p.exitValue();
    }

    // ------------------------------------------------------------------ interrupts

    @Test
    void aGetOnAnInterruptedThreadDoesNotBreakTheFileForOtherReaders() throws Exception {
        try (Connection c = open(options().withBlockCacheSize(0))) { // every read goes to the file
            await(c.admin().createTable(TableDescriptor.of("t", "f")));
            put(c, "t", "a", "1");
            await(c.admin().flush("t"));
            AtomicReference<Object> seen = new AtomicReference<>();
            AtomicReference<Boolean> stillInterrupted = new AtomicReference<>();
            Thread reader = Thread.ofPlatform().start(() -> {
                Thread.currentThread().interrupt();
                try {
                    seen.set(value(c, "t", "a"));
                } catch (Exception e) {
                    seen.set(e);
                }
                stillInterrupted.set(Thread.currentThread().isInterrupted());
            });
            reader.join();
            assertThat(value(c, "t", "a")).as("another thread reads the file afterwards").isEqualTo("1");
            assertThat(seen.get()).isEqualTo("1");
            assertThat(stillInterrupted.get()).as("the reader still learns of its interrupt").isTrue();
            await(c.admin().compact("t"));
            assertThat(value(c, "t", "a")).isEqualTo("1");
        }
    }

    @Test
    void aCreateTableOnAnInterruptedThreadDoesNotBreakTheManifest() throws Exception {
        try (Connection c = open()) {
            Thread creator = Thread.ofPlatform().start(() -> {
                Thread.currentThread().interrupt();
                c.admin().createTable(TableDescriptor.of("t", "f")).handle((ok, e) -> null).join();
            });
            creator.join();
            await(c.admin().createTable(TableDescriptor.of("u", "f")));
            put(c, "u", "a", "1");
            await(c.admin().flush("u"));
        }
        try (Connection c = open()) {
            assertThat(await(c.admin().listTables())).extracting(TableDescriptor::name).contains("u");
            assertThat(value(c, "u", "a")).isEqualTo("1");
        }
    }

    // ------------------------------------------------------------------ 1. drops racing background work

    @Test
    void droppingATableWhileItsFlushRunsLeavesTheStoreWritable() throws Exception {
        try (Connection c = open()) {
            await(c.admin().createTable(TableDescriptor.of("t", "f")));
            await(c.admin().createTable(TableDescriptor.of("other", "f")));
            put(c, "t", "a", "1");
            FaultyDisk.Pause pause = disk.pauseNext(Place.FLUSH);
            CompletableFuture<Void> flush = c.admin().flush("t");
            pause.awaitReached();
            await(c.admin().dropTable("t"));
            pause.release();
            flush.handle((ok, e) -> null).get(30, TimeUnit.SECONDS);
            put(c, "other", "b", "2");
            assertThat(store(c).readOnly()).isNull();
        }
        try (Connection c = open()) {
            assertThat(await(c.admin().listTables())).extracting(TableDescriptor::name).containsExactly("other");
            assertThat(value(c, "other", "b")).isEqualTo("2");
            String other = Integer.toString(store(c).table("other").id());
            try (Stream<Path> files = Files.walk(dir.resolve("tables"))) {
                assertThat(files.filter(p -> p.toString().endsWith(".sst")).map(p -> dir.resolve("tables").relativize(p)
                        .getName(0).toString())).as("only other's files are left").containsOnly(other);
            }
        }
    }

    @Test
    void droppingATableWhileItsCompactionRunsLeavesTheStoreWritable() throws Exception {
        try (Connection c = open()) {
            await(c.admin().createTable(TableDescriptor.of("t", "f")));
            await(c.admin().createTable(TableDescriptor.of("other", "f")));
            for (int i = 0; i < 3; i++) {
                put(c, "t", "a" + i, "1");
                await(c.admin().flush("t"));
            }
            FaultyDisk.Pause pause = disk.pauseNext(Place.COMPACTION);
            CompletableFuture<Void> compact = c.admin().compact("t");
            pause.awaitReached();
            await(c.admin().dropTable("t"));
            pause.release();
            compact.handle((ok, e) -> null).get(30, TimeUnit.SECONDS);
            put(c, "other", "b", "2");
            assertThat(store(c).readOnly()).isNull();
        }
        try (Connection c = open()) {
            assertThat(value(c, "other", "b")).isEqualTo("2");
        }
    }

    // ------------------------------------------------------------------ 2. a rarely written table

    @Test
    void aRarelyWrittenTableDoesNotPinTheLog() throws Exception {
        StoreOptions small = options().withMemtableFlushSize(64 * 1024).withWalSegmentSize(64 * 1024)
                .withMaxWalSize(256 * 1024);
        try (Connection c = open(small)) {
            await(c.admin().createTable(TableDescriptor.of("rare", "f")));
            await(c.admin().createTable(TableDescriptor.of("busy", "f")));
            put(c, "rare", "once", "1");
            byte[] value = new byte[1000];
            for (int i = 0; i < 4000; i++) { // about 4 MB through the log
                await(c.table("busy").put(new Put(("r" + i).getBytes(StandardCharsets.UTF_8))
                        .addColumn("f".getBytes(StandardCharsets.UTF_8), "q".getBytes(StandardCharsets.UTF_8), value)));
            }
            Store store = store(c);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (store.wal().totalBytes() > 512 * 1024 && System.nanoTime() < deadline) {
                Thread.sleep(10); // the last flush and retirement may still be running
            }
            assertThat(store.wal().totalBytes()).as("the log stays near maxWalSize, not 4 MB")
                    .isLessThanOrEqualTo(512 * 1024);
        }
        try (Connection c = open(small)) {
            assertThat(value(c, "rare", "once")).isEqualTo("1");
        }
    }

    // ------------------------------------------------------------------ 3. a manifest edit that fails half way

    @Test
    void aManifestEditThatFailsHalfWayDoesNotBreakTheNextOpen() throws Exception {
        try (Connection c = open()) {
            disk.failNext(Place.MANIFEST, Fault.SHORT_WRITE);
            assertThat(failureOf(c.admin().createTable(TableDescriptor.of("lost", "f"))))
                    .hasMessageContaining("injected");
            await(c.admin().createTable(TableDescriptor.of("kept", "f")));
            put(c, "kept", "a", "1");
        }
        try (Connection c = open()) {
            assertThat(await(c.admin().listTables())).extracting(TableDescriptor::name).containsExactly("kept");
            assertThat(value(c, "kept", "a")).isEqualTo("1");
        }
    }

    // ------------------------------------------------------------------ 4. a failed log: nothing failed comes back

    @Test
    void anIncrementWhoseLogForceFailedIsNeverVisibleNorReplayed() throws Exception {
        byte[] f = "f".getBytes(StandardCharsets.UTF_8);
        byte[] q = "q".getBytes(StandardCharsets.UTF_8);
        try (Connection c = open()) {
            await(c.admin().createTable(TableDescriptor.of("t", "f")));
            await(c.table("t").increment(Increment.of("n").addColumn(f, q, 1)));
            disk.failNext(Place.WAL_FORCE, Fault.IO_ERROR);
            Throwable failed = failureOf(c.table("t").increment(Increment.of("n").addColumn(f, q, 1)));
            assertThat(failed).isInstanceOf(StoreReadOnlyException.class).hasMessageContaining("injected");
            assertThat(counter(c)).as("the failed increment is not visible").isEqualTo(1);
            Throwable next = failureOf(c.table("t").increment(Increment.of("n").addColumn(f, q, 1)));
            assertThat(next).isInstanceOf(StoreReadOnlyException.class);
        }
        try (Connection c = open()) {
            assertThat(counter(c)).as("nor replayed: a retried increment applies once").isEqualTo(1);
            await(c.table("t").increment(Increment.of("n").addColumn(f, q, 1)));
            assertThat(counter(c)).isEqualTo(2);
        }
    }

    @Test
    void aShortLogWriteMakesTheStoreReadOnlyAndKeepsEveryAcknowledgedWrite() throws Exception {
        try (Connection c = open()) {
            await(c.admin().createTable(TableDescriptor.of("t", "f")));
            put(c, "t", "a", "1");
            disk.failNext(Place.WAL_APPEND, Fault.SHORT_WRITE);
            assertThat(failureOf(c.table("t").put(Put.of("b").addColumn("f", "q", "2"))))
                    .isInstanceOf(StoreReadOnlyException.class);
            assertThat(value(c, "t", "b")).isNull();
            assertThat(failureOf(c.admin().flush("t"))).isInstanceOf(StoreReadOnlyException.class);
        }
        try (Connection c = open()) {
            assertThat(value(c, "t", "a")).isEqualTo("1");
            assertThat(value(c, "t", "b")).isNull();
        }
    }

    private static long counter(Connection c) throws Exception {
        Result r = await(c.table("t").get(Get.of("n")));
        return Increment.decode(java.lang.foreign.MemorySegment.ofArray(r.value("f", "q")));
    }

    // ------------------------------------------------------------------ 5. an Error on the syncer

    @Test
    void anErrorOnTheLogSyncerAnswersEveryWriteAndLaterWritesFailFast() throws Exception {
        try (Connection c = open()) {
            await(c.admin().createTable(TableDescriptor.of("t", "f")));
            put(c, "t", "a", "1");
            disk.failNext(Place.WAL_APPEND, Fault.ERROR);
            List<CompletableFuture<Void>> writes = new ArrayList<>();
            for (int i = 0; i < 20; i++) {
                writes.add(c.table("t").put(Put.of("b" + i).addColumn("f", "q", "2")));
            }
            for (CompletableFuture<Void> w : writes) {
                w.handle((ok, e) -> null).get(30, TimeUnit.SECONDS); // every write answered
            }
            assertThat(writes).anyMatch(CompletableFuture::isCompletedExceptionally);
            assertThat(failureOf(c.table("t").put(Put.of("later").addColumn("f", "q", "3"))))
                    .isInstanceOf(StoreReadOnlyException.class).hasMessageContaining("injected");
            assertThat(value(c, "t", "a")).isEqualTo("1");
        }
        try (Connection c = open()) {
            assertThat(value(c, "t", "a")).isEqualTo("1");
            put(c, "t", "after", "4");
        }
    }

    /**
     * An Error (not an I/O error) thrown by a flush or a compaction reaches whoever waits for it:
     * the admin call fails, and closing the store, which flushes first, finishes instead of
     * waiting for ever for a flush whose thread died. (It did hang, when a missing class failed a
     * flush.)
     */
    @Test
    void anErrorInAFlushOrCompactionIsAnsweredAndCloseFinishes() throws Exception {
        Connection c = open();
        try {
            await(c.admin().createTable(TableDescriptor.of("t", "f")));
            put(c, "t", "a", "1");
            disk.failNext(Place.FLUSH, Fault.ERROR);
            assertThat(failureOf(c.admin().flush("t"))).isInstanceOf(OutOfMemoryError.class)
                    .hasMessageContaining("injected at FLUSH");
            put(c, "t", "b", "2");
            disk.failNext(Place.COMPACTION, Fault.ERROR);
            assertThat(failureOf(c.admin().compact("t"))).isInstanceOf(OutOfMemoryError.class)
                    .hasMessageContaining("injected at COMPACTION");
            disk.failNext(Place.FLUSH, Fault.ERROR);
        } finally {
            CompletableFuture<Void> closing = CompletableFuture.runAsync(c::close);
            closing.handle((ok, e) -> null).get(30, TimeUnit.SECONDS); // finishes, with or without an error
        }
        try (Connection again = open()) {
            assertThat(value(again, "t", "a")).isEqualTo("1");
            assertThat(value(again, "t", "b")).isEqualTo("2");
        }
    }

    // ------------------------------------------------------------------ 6. a bound on all memtables

    @Test
    void writersWaitWhenAllMemtablesTogetherReachTheLimitAndTheLargestIsFlushed() throws Exception {
        StoreOptions limited = options().withMemtableFlushSize(1 << 20).withMemtableMemoryLimit(1 << 20);
        try (Connection c = open(limited)) {
            List<String> tables = createTables(c, "t0", "t1", "t2", "t3");
            FaultyDisk.Pause pause = disk.pauseNext(Place.FLUSH);
            byte[] value = new byte[1000];
            AtomicReference<Thread> writer = new AtomicReference<>();
            CompletableFuture<Void> wrote = CompletableFuture.runAsync(() -> {
                writer.set(Thread.currentThread());
                for (int i = 0; i < 1200; i++) { // 1.2 MB over four tables: none reaches its flush size alone
                    c.table(tables.get(i % 4)).put(new Put(("r" + i).getBytes(StandardCharsets.UTF_8))
                            .addColumn("f".getBytes(StandardCharsets.UTF_8), "q".getBytes(StandardCharsets.UTF_8),
                                    value)).join();
                }
            });
            pause.awaitReached(); // the limit asked for a flush of the largest table
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (!wrote.isDone() && !isWaiting(writer.get()) && System.nanoTime() < deadline) {
                Thread.sleep(5);
            }
            assertThat(wrote).as("writes wait while the flush is held").isNotDone();
            pause.release();
            wrote.get(60, TimeUnit.SECONDS);
            long total = 0;
            for (String t : tables) {
                total += store(c).table(t).regions().getFirst().memtableBytes();
            }
            assertThat(total).isLessThan(1 << 20);
        }
    }

    /**
     * A stall asks for a flush of the largest <em>active</em> memtable: asking for the region whose
     * memtable is already being written out queued a second flush of it, which froze and wrote the
     * few rows that came in meanwhile as a file of their own.
     */
    @Test
    void aStallFlushesTheLargestActiveMemtableNotTheOneBeingWritten() throws Exception {
        // Sizes far above a memtable's slabs (counted whole when made, up to 2 MiB each).
        StoreOptions limited = options().withMemtableFlushSize(8 << 20).withMemtableMemoryLimit(14 << 20);
        try (Connection c = open(limited)) {
            List<String> tables = createTables(c, "t0", "t1", "idle");
            byte[] value = new byte[1000];
            byte[] f = "f".getBytes(StandardCharsets.UTF_8);
            byte[] q = "q".getBytes(StandardCharsets.UTF_8);
            Region t0 = store(c).table("t0").regions().getFirst();
            FaultyDisk.Pause pause = disk.pauseNext(Place.FLUSH);
            for (int i = 0; t0.view().flushing().isEmpty() && i < 20_000; i++) { // t0 to its flush size: held while writing
                c.table("t0").put(new Put(("a" + i).getBytes(StandardCharsets.UTF_8)).addColumn(f, q, value)).join();
            }
            pause.awaitReached();
            for (int i = 0; i < 10; i++) { // a few rows into t0's new memtable
                c.table("t0").put(new Put(("b" + i).getBytes(StandardCharsets.UTF_8)).addColumn(f, q, value)).join();
            }
            AtomicBoolean stop = new AtomicBoolean();
            CompletableFuture<Void> wrote = CompletableFuture.runAsync(() -> {
                // t1 until all memtables pass the limit (before its own flush size): it stalls
                for (int i = 0; i < 20_000 && !stop.get(); i++) {
                    c.table("t1").put(new Put(("c" + i).getBytes(StandardCharsets.UTF_8)).addColumn(f, q, value)).join();
                }
            });
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (store(c).statistics().stalls() == 0 && System.nanoTime() < deadline) {
                Thread.sleep(5);
            }
            stop.set(true);
            assertThat(store(c).statistics().stalls()).as("the writer stalled").isPositive();
            pause.release();
            wrote.get(60, TimeUnit.SECONDS);
            await(store(c).flushAsync(store(c).table("idle").regions().getFirst())); // after every flush queued before it
            Map<String, Integer> files = new java.util.TreeMap<>();
            for (String t : tables) {
                files.put(t, store(c).table(t).regions().getFirst().view().files().getOrDefault("f", List.of()).size());
            }
            assertThat(files).as("SSTables per table").isEqualTo(Map.of("t0", 1, "t1", 1, "idle", 0));
            assertThat(value(c, "t0", "b9")).isNotNull();
        }
    }

    /**
     * When the active memtables together reach seven eighths of the memory limit, the largest is
     * flushed before any writer has to stop: without it, writers ran into the limit and all of
     * them waited for that flush (YCSB's workload A stalled every few seconds).
     */
    @Test
    void theLargestMemtableIsFlushedAheadOfTheMemoryLimitWithoutAStall() throws Exception {
        // A limit whose last eighth (4 MiB) is above the largest step a memtable's count takes (a
        // new 2 MiB slab), and above what writes add while the totals are a millisecond old.
        long limit = 32 << 20;
        StoreOptions limited = options().withMemtableFlushSize(limit).withMemtableMemoryLimit(limit);
        try (Connection c = open(limited)) {
            createTables(c, "t0", "t1");
            byte[] value = new byte[1000];
            byte[] f = "f".getBytes(StandardCharsets.UTF_8);
            byte[] q = "q".getBytes(StandardCharsets.UTF_8);
            Region t0 = store(c).table("t0").regions().getFirst();
            Region t1 = store(c).table("t1").regions().getFirst();
            for (int i = 0; t0.memtableBytes() < limit / 2; i++) {
                c.table("t0").put(new Put(("a" + i).getBytes(StandardCharsets.UTF_8)).addColumn(f, q, value)).join();
            }
            long flushedAt = -1;
            for (int i = 0; i < 40_000 && flushedAt < 0; i++) { // t1 grows towards the limit, staying below t0
                long before = t0.memtableBytes() + t1.memtableBytes();
                c.table("t1").put(new Put(("b" + i).getBytes(StandardCharsets.UTF_8)).addColumn(f, q, value)).join();
                if (t0.view().active().bytes() == 0) { // t0's memtable was frozen for a flush
                    flushedAt = before;
                }
            }
            assertThat(flushedAt).as("t0 was flushed while t1 was written").isPositive();
            assertThat(flushedAt).as("memtable bytes when it was asked for")
                    .isGreaterThanOrEqualTo(Store.flushAheadBytes(limit) - MemTable.SLAB_SIZE - 2 * 1100)
                    .isLessThan(limit);
            await(store(c).flushAsync(t1)); // after t0's, on the same flusher thread
            assertThat(store(c).statistics().stalls()).as("no writer stalled").isZero();
            assertThat(t0.view().files().getOrDefault("f", List.of())).hasSize(1);
            assertThat(value(c, "t0", "a0")).isNotNull();
        }
    }

    /** Four writers meeting one stall log one warning between them, not one each. */
    @Test
    void writersStalledTogetherLogOneWarning() throws Exception {
        ch.qos.logback.core.read.ListAppender<ch.qos.logback.classic.spi.ILoggingEvent> log =
                new ch.qos.logback.core.read.ListAppender<>();
        log.start();
        ch.qos.logback.classic.Logger storeLog = (ch.qos.logback.classic.Logger) org.slf4j.LoggerFactory.getLogger(Store.class);
        storeLog.addAppender(log);
        StoreOptions limited = options().withMemtableFlushSize(1 << 20).withMemtableMemoryLimit(1 << 20);
        try (Connection c = open(limited)) {
            List<String> tables = createTables(c, "t0", "t1", "t2", "t3");
            FaultyDisk.Pause pause = disk.pauseNext(Place.FLUSH);
            byte[] value = new byte[1000];
            List<CompletableFuture<Void>> writers = new ArrayList<>();
            for (String t : tables) {
                writers.add(CompletableFuture.runAsync(() -> {
                    for (int i = 0; i < 400; i++) { // 1.6 MB in all: past the limit while the flush is held
                        c.table(t).put(new Put(("r" + i).getBytes(StandardCharsets.UTF_8))
                                .addColumn("f".getBytes(StandardCharsets.UTF_8), "q".getBytes(StandardCharsets.UTF_8),
                                        value)).join();
                    }
                }, runnable -> Thread.ofPlatform().start(runnable)));
            }
            pause.awaitReached();
            long warnings;
            try {
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
                while (store(c).statistics().stalls() < tables.size() && System.nanoTime() < deadline) {
                    Thread.sleep(5);
                }
                warnings = log.list.stream().filter(e -> e.getLevel() == ch.qos.logback.classic.Level.WARN
                        && e.getFormattedMessage().contains(" stall: ")).count();
            } finally {
                pause.release();
            }
            assertThat(store(c).statistics().stalls()).as("every writer stalled").isGreaterThanOrEqualTo(tables.size());
            assertThat(warnings).isEqualTo(1);
            CompletableFuture.allOf(writers.toArray(CompletableFuture[]::new)).get(60, TimeUnit.SECONDS);
        } finally {
            storeLog.detachAppender(log);
        }
    }

    private static List<String> createTables(Connection c, String... names) throws Exception {
        for (String t : names) {
            await(c.admin().createTable(TableDescriptor.of(t, "f")));
        }
        return List.of(names);
    }

    private static boolean isWaiting(Thread t) {
        return t != null && (t.getState() == Thread.State.TIMED_WAITING || t.getState() == Thread.State.WAITING);
    }

    // ------------------------------------------------------------------ 8. no manifest

    @Test
    void aDirectoryWithDataButNoManifestIsRefusedAndKeepsItsFiles() throws Exception {
        try (Connection c = open()) {
            await(c.admin().createTable(TableDescriptor.of("t", "f")));
            put(c, "t", "a", "1");
            await(c.admin().flush("t"));
        }
        Files.delete(dir.resolve("MANIFEST"));
        long sstables;
        try (Stream<Path> files = Files.walk(dir)) {
            sstables = files.filter(p -> p.toString().endsWith(".sst")).count();
        }
        assertThat(sstables).isPositive();
        assertThatThrownBy(this::open).isInstanceOf(BasaltException.class).hasMessageContaining("no MANIFEST");
        try (Stream<Path> files = Files.walk(dir)) {
            assertThat(files.filter(p -> p.toString().endsWith(".sst")).count()).isEqualTo(sstables);
        }
    }

    // ------------------------------------------------------------------ 9. new directories survive a power loss

    @Test
    void newTableDirectoriesAndTheLogDirectorySurviveAPowerLoss() throws Exception {
        Connection c = open();
        await(c.admin().createTable(TableDescriptor.of("t", "f")));
        put(c, "t", "a", "1");
        await(c.admin().flush("t"));
        put(c, "t", "b", "2");
        disk.crash();
        try {
            c.close();
        } catch (RuntimeException expected) {
            // the disk is gone: the close cannot flush
        }
        disk.loseUnsynced(new java.util.SplittableRandom(7));
        try (Connection reopened = open()) {
            assertThat(value(reopened, "t", "a")).isEqualTo("1");
            assertThat(value(reopened, "t", "b")).isEqualTo("2");
        }
    }
}
