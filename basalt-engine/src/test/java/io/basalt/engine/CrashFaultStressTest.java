package io.basalt.engine;

import io.basalt.client.AsyncTable;
import io.basalt.client.CheckAndMutate;
import io.basalt.client.Connection;
import io.basalt.client.Delete;
import io.basalt.client.Durability;
import io.basalt.client.Get;
import io.basalt.client.Increment;
import io.basalt.client.Mutation;
import io.basalt.client.Put;
import io.basalt.client.Result;
import io.basalt.client.StoreOptions;
import io.basalt.client.TableDescriptor;
import io.basalt.engine.FaultyDisk.Place;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The randomized crash-and-fault test of issue 17, in the manner of RocksDB's {@code db_stress}:
 * rounds of concurrent writers (puts, batches, whole-row deletes, increments, check-and-mutate)
 * on several tables, with flushes, compactions, region splits and merges, and creates and drops
 * of a scratch table running beside them, while a {@link FaultyDisk} injects I/O errors, full disks and short writes at every
 * place the engine writes (WAL append and force, flush, compaction, manifest, directory sync).
 * A round ends with a clean close or a simulated power loss; the store is then reopened and
 * checked against a model of what was acknowledged:
 *
 * <ul>
 *   <li>every acknowledged write is there, and counters are exact;</li>
 *   <li>no write that failed appears (a failed increment is never applied);</li>
 *   <li>a write still in flight when the power went may or may not be there, whole or not at all;</li>
 *   <li>the store opens, every time.</li>
 * </ul>
 *
 * Each writer owns its rows, so the model knows the exact order of their writes. The test counts
 * the faults that hit each place and fails if a place got none.
 *
 * <p>{@code ./basalt test} runs {@value #DEFAULT_ROUNDS} rounds. A long run:
 * {@code ./basalt stress --minutes 30}, or Maven with {@code -Dbasalt.stress.rounds=N} and/or
 * {@code -Dbasalt.stress.minutes=M}; {@code -Dbasalt.stress.seed=S} replays a failure (every
 * failure prints its seed and round).
 */
class CrashFaultStressTest {

    static final int DEFAULT_ROUNDS = 200;
    private static final int WRITERS = 3;
    private static final int ROWS_PER_WRITER = 12;
    private static final int OPS_PER_WRITER = 40;
    private static final List<String> TABLES = List.of("t0", "t1", "t2");
    private static final byte[] F = utf8("f");
    private static final byte[] COUNTER = utf8("n");
    private static final byte[][] COLUMNS = {utf8("q0"), utf8("q1"), utf8("q2")};

    @TempDir
    Path temp;

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    /** What a row holds: text columns and the counter. */
    record RowState(Map<String, String> columns, long counter) {
        static final RowState EMPTY = new RowState(Map.of(), 0);
    }

    /** The model: each (table, row) to its state; which rows an unknown write may have changed. */
    private final Map<String, RowState> model = new HashMap<>();
    private final Map<String, RowState> maybe = new HashMap<>();
    /** What each row's writes did in this round, for a failure's message. */
    private final Map<String, List<String>> history = new java.util.concurrent.ConcurrentHashMap<>();
    private final Map<Place, Long> injected = new EnumMap<>(Place.class);
    private long acknowledged;
    private long failed;
    private long unknown;
    /** Splits and merges that completed, to show the rounds did some. */
    private final java.util.concurrent.atomic.AtomicLong splits = new java.util.concurrent.atomic.AtomicLong();
    /** Log segments written over retired ones, all rounds together: the recycling path must be taken. */
    private final java.util.concurrent.atomic.AtomicLong recycled = new java.util.concurrent.atomic.AtomicLong();
    private final java.util.concurrent.atomic.AtomicLong merges = new java.util.concurrent.atomic.AtomicLong();

    @Test
    void acknowledgedWritesSurviveFaultsAndPowerLossAndFailedOnesNeverAppear() throws Exception {
        long seed = Long.getLong("basalt.stress.seed", System.nanoTime());
        int rounds = Integer.getInteger("basalt.stress.rounds", DEFAULT_ROUNDS);
        long minutes = Long.getLong("basalt.stress.minutes", 0);
        long until = minutes > 0 ? System.nanoTime() + TimeUnit.MINUTES.toNanos(minutes) : Long.MAX_VALUE;
        SplittableRandom random = new SplittableRandom(seed);
        for (Place place : Place.values()) {
            injected.put(place, 0L);
        }
        long started = System.nanoTime();
        int round = 0;
        Path dir = null;
        int crashes = 0;
        try {
            for (; round < rounds || System.nanoTime() < until && minutes > 0; round++) {
                if (minutes > 0 && System.nanoTime() >= until && round >= rounds) {
                    break;
                }
                if (round % 10 == 0) { // a fresh directory now and then keeps each round small
                    if (dir != null) {
                        deleteTree(dir);
                    }
                    dir = Files.createDirectory(temp.resolve("store-" + round));
                    model.clear();
                    maybe.clear();
                }
                crashes += runRound(dir, random.split(), round) ? 1 : 0;
            }
        } catch (AssertionError | Exception e) {
            throw new AssertionError("crash-and-fault round " + round + " failed; replay with -Dbasalt.stress.seed="
                    + seed + ": " + e.getMessage(), e);
        }
        long seconds = TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - started);
        System.out.printf("crash-and-fault: %d rounds (%d power losses) in %d s, seed %d; writes acknowledged %d,"
                + " failed %d, in flight at a power loss %d; %d splits and %d merges done; %d log segments"
                + " recycled; faults injected %s%n", round, crashes, seconds, seed, acknowledged, failed, unknown,
                splits.get(), merges.get(), recycled.get(), injected);
        if (round >= 50 && (splits.get() == 0 || merges.get() == 0)) {
            throw new AssertionError("no split or no merge completed in " + round + " rounds (seed " + seed + ")");
        }
        if (round >= 50 && recycled.get() == 0) {
            throw new AssertionError("no log segment was written over a retired one in " + round + " rounds (seed "
                    + seed + ")");
        }
        for (var e : injected.entrySet()) {
            if (e.getValue() == 0) {
                throw new AssertionError("no fault hit " + e.getKey() + " in " + round + " rounds (seed " + seed + ")");
            }
        }
    }

    /** One round; true when it ended in a power loss. */
    private boolean runRound(Path dir, SplittableRandom random, int round) throws Exception {
        FaultyDisk disk = new FaultyDisk();
        StoreOptions options = StoreOptions.defaults().withDurability(Durability.SYNC)
                .withMemtableFlushSize(64 * 1024).withWalSegmentSize(64 * 1024).withCompaction(2, 12)
                .withBackgroundRetries(2, Duration.ofMillis(2));
        Store store = Store.open(dir, options, System::currentTimeMillis, new StripedRegionLocks(), disk);
        Connection connection = new EmbeddedConnection(store);
        for (String table : TABLES) {
            if (store.tables().stream().noneMatch(t -> t.name().equals(table))) {
                connection.admin().createTable(TableDescriptor.of(table, "f")).get(30, TimeUnit.SECONDS);
            }
        }
        // Faults: a low background rate everywhere, and one place armed to fail soon for sure.
        Place target = Place.values()[round % Place.values().length];
        disk.random(random.split(), 0.004 + random.nextDouble() * 0.01, EnumSet.allOf(Place.class));
        boolean powerLoss = random.nextBoolean();
        AtomicBoolean stop = new AtomicBoolean();
        AtomicBoolean crashed = new AtomicBoolean();
        List<Writer> writers = new ArrayList<>();
        for (int w = 0; w < WRITERS; w++) {
            writers.add(new Writer(connection, w, random.split(), stop, crashed));
        }
        CountDownLatch done = new CountDownLatch(WRITERS);
        List<Thread> threads = new ArrayList<>();
        for (Writer writer : writers) {
            threads.add(Thread.ofPlatform().name("stress-writer-" + writer.id).start(() -> {
                try {
                    writer.run();
                } finally {
                    done.countDown();
                }
            }));
        }
        Thread admin = Thread.ofPlatform().name("stress-admin").start(() -> adminLoop(connection, random.split(), stop));
        // Arm the target once some writes are in; crash at a random moment if this round loses power.
        Thread.sleep(random.nextInt(5, 30));
        disk.failNext(target, FaultyDisk.Fault.values()[random.nextInt(3)]);
        if (powerLoss) {
            done.await(random.nextInt(20, 150), TimeUnit.MILLISECONDS);
            crashed.set(true); // writes answered from here on may have reached the disk or not
            disk.crash();
        }
        if (!done.await(60, TimeUnit.SECONDS)) {
            throw new AssertionError("writers did not finish within 60 s: a write was never answered");
        }
        stop.set(true);
        admin.join(TimeUnit.SECONDS.toMillis(60));
        if (admin.isAlive()) {
            throw new AssertionError("the admin thread is stuck in " + List.of(admin.getStackTrace()));
        }
        recycled.addAndGet(store.wal().recycled());
        try {
            connection.close();
        } catch (RuntimeException e) {
            // Closing flushes, and a fault may hit that flush too: the log keeps the data.
            if (!powerLoss && !String.valueOf(e.getMessage()).contains("injected")) {
                throw new AssertionError("a clean close failed, and not because of an injected fault", e);
            }
        }
        for (Place place : Place.values()) {
            injected.merge(place, disk.injected(place), Long::sum);
        }
        disk.loseUnsynced(random.split()); // without a crash everything was forced: this changes nothing
        for (Writer writer : writers) {
            writer.merge();
        }
        try {
            verify(dir, options, round);
        } catch (AssertionError e) {
            throw new AssertionError((powerLoss ? "after a power loss: " : "after a clean close: ") + e.getMessage(), e);
        }
        return powerLoss;
    }

    private void adminLoop(Connection connection, SplittableRandom random, AtomicBoolean stop) {
        int scratch = 0;
        while (!stop.get()) {
            String table = TABLES.get(random.nextInt(TABLES.size()));
            int kind = random.nextInt(6);
            CompletableFuture<Void> op = switch (kind) {
                case 0 -> connection.admin().flush(table);
                case 1 -> connection.admin().compact(table);
                case 2 -> connection.admin().createTable(TableDescriptor.of("scratch" + (scratch++ % 3), "f"));
                case 3 -> connection.admin().split(table, ("w" + random.nextInt(WRITERS) + "-"
                        + random.nextInt(ROWS_PER_WRITER)).getBytes(java.nio.charset.StandardCharsets.UTF_8));
                case 4 -> connection.admin().listRegions(table).thenCompose(regions -> {
                    if (regions.size() < 2) {
                        return CompletableFuture.completedFuture(null);
                    }
                    int i = random.nextInt(regions.size() - 1);
                    return connection.admin().mergeRegions(table, regions.get(i).name(), regions.get(i + 1).name());
                });
                default -> connection.admin().dropTable("scratch" + random.nextInt(3));
            };
            try {
                op.get(60, TimeUnit.SECONDS);
                if (kind == 3) {
                    splits.incrementAndGet();
                } else if (kind == 4) {
                    merges.incrementAndGet();
                }
            } catch (ExecutionException e) {
                // refused (read-only, gone, exists) or failed by a fault: the writers' checks cover data
            } catch (InterruptedException | TimeoutException e) {
                throw new AssertionError("an admin operation was never answered", e);
            }
            try {
                Thread.sleep(random.nextInt(1, 8));
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    /** One writer thread: sequential writes to rows only it writes, recorded for the model. */
    private final class Writer {
        final int id;
        private final Connection connection;
        private final SplittableRandom random;
        private final AtomicBoolean stop;
        private final AtomicBoolean crashed;
        /** The writer's own view of its rows: acknowledged state only. */
        private final Map<String, RowState> mine = new HashMap<>();
        /** Rows an unanswered-at-crash or failed-after-crash write may have changed, with that state. */
        private final Map<String, RowState> pending = new HashMap<>();
        private long acked;
        private long refused;
        private long inDoubt;
        /**
         * The op whose write is in doubt, or -1: the writer waits for each op, so only the one in
         * flight when the power went (all puts of it, for a batch) can have reached the disk; every
         * later one failed on a dead disk before writing anything.
         */
        private int doubtedOp = -1;

        Writer(Connection connection, int id, SplittableRandom random, AtomicBoolean stop, AtomicBoolean crashed) {
            this.connection = connection;
            this.id = id;
            this.random = random;
            this.stop = stop;
            this.crashed = crashed;
            synchronized (CrashFaultStressTest.this) {
                model.forEach((key, state) -> {
                    if (key.contains("/w" + id + "-")) {
                        mine.put(key, state);
                    }
                });
            }
        }

        String key(String table, String row) {
            return table + "/" + row;
        }

        void run() {
            for (int op = 0; op < OPS_PER_WRITER && !stop.get(); op++) {
                String table = TABLES.get(random.nextInt(TABLES.size()));
                AsyncTable t = connection.table(table);
                int kind = random.nextInt(10);
                Map<String, RowState> after = new HashMap<>();
                CompletableFuture<?> future;
                Object[] outcome = new Object[1];
                if (kind < 4) { // put of one to three columns
                    String row = row();
                    Put put = new Put(utf8(row));
                    Map<String, String> columns = new TreeMap<>(state(table, row).columns());
                    for (int c = 0; c <= random.nextInt(3); c++) {
                        String value = "v" + id + "-" + op + "-" + c + "-" + "x".repeat(random.nextInt(200));
                        int q = random.nextInt(COLUMNS.length);
                        put.addColumn(F, COLUMNS[q], utf8(value));
                        columns.put("q" + q, value);
                    }
                    after.put(key(table, row), new RowState(columns, state(table, row).counter()));
                    future = t.put(put);
                } else if (kind < 5) { // whole-row delete
                    String row = row();
                    after.put(key(table, row), RowState.EMPTY);
                    future = t.delete(new Delete(utf8(row)));
                } else if (kind < 7) { // increment
                    String row = row();
                    long by = random.nextInt(1, 6);
                    RowState s = state(table, row);
                    after.put(key(table, row), new RowState(s.columns(), s.counter() + by));
                    future = t.increment(Increment.of(row).addColumn(F, COUNTER, by));
                } else if (kind < 8) { // check-and-mutate: q0 as the writer knows it, then put q1
                    String row = row();
                    RowState s = state(table, row);
                    String expected = s.columns().get("q0");
                    String value = "c" + id + "-" + op;
                    CheckAndMutate.Builder check = CheckAndMutate.onRow(utf8(row));
                    check = expected == null ? check.ifAbsent(F, COLUMNS[0]) : check.ifEquals(F, COLUMNS[0], utf8(expected));
                    Map<String, String> columns = new TreeMap<>(s.columns());
                    columns.put("q1", value);
                    after.put(key(table, row), new RowState(columns, s.counter()));
                    future = t.checkAndMutate(check.then(new Put(utf8(row)).addColumn(F, COLUMNS[1], utf8(value))))
                            .thenApply(applied -> {
                                outcome[0] = applied;
                                return applied;
                            });
                } else { // a batch of puts to distinct rows, each with its own future
                    List<Mutation> puts = new ArrayList<>();
                    List<String> rows = new ArrayList<>();
                    for (int i = 0; i < 3; i++) {
                        String row = row();
                        if (rows.contains(row)) {
                            continue;
                        }
                        rows.add(row);
                        String value = "b" + id + "-" + op + "-" + i;
                        puts.add(new Put(utf8(row)).addColumn(F, COLUMNS[2], utf8(value)));
                        Map<String, String> columns = new TreeMap<>(state(table, row).columns());
                        columns.put("q2", value);
                        after.put(key(table, row), new RowState(columns, state(table, row).counter()));
                    }
                    // Each put has its own outcome: a batch whose rows lie in several regions is
                    // logged as one record per region, and one may fail while another succeeds.
                    List<CompletableFuture<Object>> futures = t.batch(puts);
                    for (int i = 0; i < futures.size(); i++) {
                        String k = key(table, rows.get(i));
                        settle(futures.get(i), Map.of(k, after.get(k)), null, op);
                    }
                    continue;
                }
                settle(future, after, outcome, op);
            }
        }

        private String row() {
            return "w" + id + "-" + random.nextInt(ROWS_PER_WRITER);
        }

        private RowState state(String table, String row) {
            return mine.getOrDefault(key(table, row), RowState.EMPTY);
        }

        /** Waits for one write and records what it means for the model. */
        private void settle(CompletableFuture<?> future, Map<String, RowState> after, Object[] outcome, int op) {
            boolean crashedBefore = crashed.get();
            String verdict = "?";
            try {
                verdict = settleOne(future, after, outcome, crashedBefore, op);
            } finally {
                for (var e : after.entrySet()) {
                    history.computeIfAbsent(e.getKey(), k -> java.util.Collections.synchronizedList(new ArrayList<>()))
                            .add(verdict + " -> " + e.getValue());
                }
            }
        }

        private String settleOne(CompletableFuture<?> future, Map<String, RowState> after, Object[] outcome,
                                 boolean crashedBefore, int op) {
            try {
                future.get(60, TimeUnit.SECONDS);
                if (outcome != null && outcome[0] instanceof Boolean applied && !applied) {
                    throw new AssertionError("a check-and-mutate on " + after.keySet() + " found its condition false,"
                            + " though only this writer writes the row");
                }
                acked++;
                mine.putAll(after);
                after.keySet().forEach(pending::remove);
                return "acknowledged";
            } catch (ExecutionException e) {
                if ((crashedBefore || crashed.get()) && (doubtedOp < 0 || doubtedOp == op)) {
                    doubtedOp = op; // the write in flight at the power loss: all puts of it, for a batch
                    inDoubt++;
                    pending.putAll(after); // may have reached the disk before the power went
                    return "in doubt (" + e.getCause() + ")";
                }
                refused++;
                return "failed (" + e.getCause() + ")";
            } catch (InterruptedException | TimeoutException e) {
                throw new AssertionError("a write was never answered", e);
            }
        }

        /** Adds this writer's rows to the model (after the round). */
        void merge() {
            synchronized (CrashFaultStressTest.this) {
                model.putAll(mine);
                maybe.putAll(pending);
                acknowledged += acked;
                failed += refused;
                unknown += inDoubt;
            }
        }
    }

    /** Reopens the store and checks every modelled row; settles in-doubt rows to what was found. */
    private void verify(Path dir, StoreOptions options, int round) throws Exception {
        try (Connection connection = new EmbeddedConnection(Store.open(dir, options, System::currentTimeMillis,
                new StripedRegionLocks()))) {
            for (String table : TABLES) {
                AsyncTable t = connection.table(table);
                for (int w = 0; w < WRITERS; w++) {
                    for (int r = 0; r < ROWS_PER_WRITER; r++) {
                        String row = "w" + w + "-" + r;
                        String key = table + "/" + row;
                        RowState found = read(t.get(new Get(utf8(row))).get(30, TimeUnit.SECONDS));
                        RowState expected = model.getOrDefault(key, RowState.EMPTY);
                        RowState alternative = maybe.remove(key);
                        if (found.equals(expected)) {
                            continue;
                        }
                        if (alternative != null && found.equals(alternative)) {
                            model.put(key, alternative); // the in-flight write made it
                            continue;
                        }
                        throw new AssertionError("round " + round + ": " + key + " holds " + found + "; expected "
                                + expected + (alternative == null ? "" : " or, with a write in flight at the power loss, "
                                + alternative) + "; this round's writes of it: " + history.get(key));
                    }
                }
            }
            connection.table(TABLES.getFirst()).put(Put.of("probe").addColumn("f", "q", "p")).get(30, TimeUnit.SECONDS);
        }
        maybe.clear();
        history.clear();
    }

    private static RowState read(Result result) {
        Map<String, String> columns = new TreeMap<>();
        long counter = 0;
        for (int q = 0; q < COLUMNS.length; q++) {
            byte[] v = result.value(F, COLUMNS[q]);
            if (v != null) {
                columns.put("q" + q, new String(v, StandardCharsets.UTF_8));
            }
        }
        byte[] n = result.value(F, COUNTER);
        if (n != null) {
            counter = Increment.decode(MemorySegment.ofArray(n));
        }
        return new RowState(Map.copyOf(columns), counter);
    }

    private static void deleteTree(Path dir) throws Exception {
        try (Stream<Path> walk = Files.walk(dir)) {
            for (Path p : walk.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        }
    }
}
