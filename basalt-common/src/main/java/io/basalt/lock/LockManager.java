package io.basalt.lock;

import java.lang.ref.WeakReference;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.ReentrantLock;
import org.HdrHistogram.Histogram;

/**
 * Hierarchical read/write locks on resources named by byte keys, striped per level (see
 * HDDS-8765).
 *
 * <h2>Use</h2>
 *
 * <pre>{@code
 * LockManager locks = LockManager.create();
 * try (LockHandle table = locks.lock(LockLevel.TABLE, tableName, LockMode.READ);
 *      LockHandle row = locks.lock(LockLevel.ROW, tableName, rowKey, LockMode.WRITE)) {
 *     ... mutate the row ...
 * }
 * }</pre>
 *
 * <h2>Rules</h2>
 *
 * <ul>
 *   <li><b>Levels.</b> Each level ({@link LockLevel}) has its own stripes; a key's lock is
 *       {@code stripe[hash(key) & (stripes - 1)]}. A thread takes levels in ascending rank; asking
 *       for a level while holding one of a higher rank throws {@link LockOrderException} at once
 *       (checked before reentrancy, so the answer does not depend on hash collisions).
 *   <li><b>Reentrancy is per stripe.</b> A thread holding a stripe (for any key that maps to it)
 *       may take it again: READ after READ, WRITE after WRITE and READ after WRITE are granted
 *       without touching the lock, so a re-read never waits behind a queued writer. WRITE after
 *       READ throws {@link LockUpgradeException} at once. Every acquisition returns a handle and
 *       is undone by closing it; the stripe is released when its last handle closes. Closing the
 *       last WRITE handle while READ handles remain downgrades the stripe to a read lock with no
 *       window for another writer.
 *   <li><b>Bulk.</b> {@link #lockAll} sorts the keys' stripes, takes each stripe once (two keys
 *       on one stripe never self-deadlock) in ascending order (two bulk requests never deadlock
 *       each other), and its handle releases them in reverse.
 *   <li><b>Bounded waits.</b> Every wait is limited: by the manager's default limit, or by the
 *       timeout given to the call. When it runs out the request fails with a
 *       {@link LockTimeoutException} naming the resource, the wait, who holds the stripe and what
 *       this thread holds. A waiting thread that is interrupted stops waiting with a
 *       {@link LockInterruptedException} and its interrupt status set; a request that needs no
 *       wait is granted even to an interrupted thread.
 *   <li><b>Fairness.</b> Readers never overtake queued threads, so a writer cannot be starved
 *       by readers; on a reader-biased level a writer waits only for the readers already inside
 *       when it revokes the bias (see {@code LevelLocks}). With {@link Builder#fair(boolean)
 *       fair(true)} a writer also never takes a free stripe ahead of queued threads; the default
 *       lets it, which is faster under write contention.
 *   <li><b>Threads.</b> A handle is closed by the thread that took it.
 * </ul>
 *
 * <h2>Default sizes</h2>
 *
 * <p>Two keys collide when they map to the same stripe; a collision only costs when one of them is
 * written (readers share). A request conflicts with an unrelated held resource with probability
 * {@code 1 - (1 - 1/S)^H ≈ H/S} for {@code S} stripes and {@code H} stripes held by other threads.
 * HDDS-8765 proposes {@code S} ≈ 10 × worker threads for "~0% collision".
 *
 * <ul>
 *   <li>{@link LockLevel#ROW}: {@value #DEFAULT_ROW_STRIPES} stripes, not reader-biased. With 100
 *       handler threads each write-locking a row, {@code H = 99} gives 0.6 % (4,096 stripes would
 *       give 2.4 %); ten concurrent 100-row batches ({@code H = 1000}) give 5.9 %. A stripe costs
 *       44 bytes (the lock and its array slot, JOL), about 700 KiB per manager.
 *   <li>{@link LockLevel#TABLE}: {@value #DEFAULT_TABLE_STRIPES} stripes, reader-biased. Tables are
 *       read-locked by every operation and write-locked only by schema-level changes, so a
 *       collision costs only when a table is altered while another on its stripe is read:
 *       {@code 1/256} per table being altered. A biased stripe adds {@code 4 × slots} bytes: on
 *       this 2-core machine 8 slots, about 20 KiB in all; on 64 cores 128 slots, about 140 KiB.
 *   <li>{@link LockLevel#NAMESPACE}: {@value #DEFAULT_NAMESPACE_STRIPES} stripes, reader-biased:
 *       namespaces are few and almost never written.
 * </ul>
 *
 * <p>Stripe counts are powers of two, per level, set with {@link Builder#level}. A level whose
 * {@link LockLevelMetrics#contended()} share grows is under-striped or really contended; its
 * {@link LockLevelMetrics#waitNanos()} tells which.
 *
 * <h2>Diagnostics</h2>
 *
 * <p>{@link #held()} lists what every thread holds in this manager right now; {@link #instances()}
 * lists the managers still reachable, so a thread dump tool (or the test suite's "no lock is held
 * after a test" invariant) can ask all of them.
 */
public final class LockManager {

    /** Default stripes of {@link LockLevel#NAMESPACE}. */
    public static final int DEFAULT_NAMESPACE_STRIPES = 64;
    /** Default stripes of {@link LockLevel#TABLE}. */
    public static final int DEFAULT_TABLE_STRIPES = 256;
    /** Default stripes of {@link LockLevel#ROW}. */
    public static final int DEFAULT_ROW_STRIPES = 16_384;
    /** Default limit of every wait. */
    public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(30);

    /**
     * Every manager made, weakly held, for diagnostics; guarded by itself, pruned of collected
     * managers whenever it doubles. Plain weak references in a list, none with a reference queue:
     * a {@code WeakHashMap} chains the entries the collector cleared through its queue until it
     * is next used, and Lincheck 2.39, which walks a test's object graph recursively (static
     * fields included), overflowed its stack on such a chain of thousands of entries.
     */
    private static final List<WeakReference<LockManager>> INSTANCES = new ArrayList<>();
    /** Size of {@link #INSTANCES} at which it is next pruned; guarded by it. */
    private static int pruneAt = 64;

    private final LevelLocks[] byRank = new LevelLocks[LockLevel.MAX_RANK + 1];
    private final List<LevelLocks> levels;
    private final long defaultTimeoutNanos;
    private final int slots;
    private final boolean fair;
    private final AtomicInteger nextSlot = new AtomicInteger();
    private final ThreadLocal<ThreadHolds> threads = new ThreadLocal<>() {
        @Override
        protected ThreadHolds initialValue() {
            return register(new ThreadHolds(Thread.currentThread(), nextSlot.getAndIncrement() & (slots - 1),
                    levels.size()));
        }
    };

    /** Every thread's bookkeeping, for metrics and diagnostics; ended threads are folded away. */
    private final ConcurrentLinkedQueue<ThreadHolds> registry = new ConcurrentLinkedQueue<>();
    private final AtomicInteger registered = new AtomicInteger();
    private final ReentrantLock registryLock = new ReentrantLock();
    /** Registrations after which ended threads are folded away; guarded by registryLock. */
    private volatile int foldAt = 64;
    /** Counts of folded threads, per level ordinal; guarded by registryLock. */
    private final long[] retiredAcquisitions;
    private final long[] retiredContended;

    private LockManager(Builder b) {
        this.defaultTimeoutNanos = nanos(b.timeout);
        this.slots = b.slots;
        this.fair = b.fair;
        List<LevelLocks> list = new ArrayList<>();
        for (Builder.LevelSpec spec : b.levels.values()) {
            LevelLocks level = new LevelLocks(spec.level, list.size(), spec.stripes, spec.biased, fair, slots);
            byRank[spec.level.rank()] = level;
            list.add(level);
        }
        this.levels = List.copyOf(list);
        this.retiredAcquisitions = new long[levels.size()];
        this.retiredContended = new long[levels.size()];
        register(this);
    }

    private static void register(LockManager manager) {
        synchronized (INSTANCES) {
            if (INSTANCES.size() >= pruneAt) {
                INSTANCES.removeIf(r -> r.get() == null);
                pruneAt = Math.max(64, 2 * INSTANCES.size());
            }
            INSTANCES.add(new WeakReference<>(manager));
        }
    }

    /** A manager with the default levels, sizes and wait limit (see the class comment). */
    public static LockManager create() {
        return builder().defaultLevels().build();
    }

    public static Builder builder() {
        return new Builder();
    }

    /** Every manager not yet garbage-collected, for diagnostics. */
    public static List<LockManager> instances() {
        List<LockManager> live = new ArrayList<>();
        synchronized (INSTANCES) {
            for (WeakReference<LockManager> r : INSTANCES) {
                LockManager m = r.get();
                if (m != null) {
                    live.add(m);
                }
            }
        }
        return live;
    }

    // ---- locking ----

    /** Locks {@code key} at {@code level}, waiting at most the default limit. */
    public LockHandle lock(LockLevel level, byte[] key, LockMode mode) {
        LevelLocks lv = levelOf(level);
        return lv.acquire(threads.get(), lv.stripeOf(key), key, null, isWrite(mode), defaultTimeoutNanos);
    }

    /** Locks {@code key} at {@code level}, waiting at most {@code timeout}. */
    public LockHandle lock(LockLevel level, byte[] key, LockMode mode, Duration timeout) {
        LevelLocks lv = levelOf(level);
        return lv.acquire(threads.get(), lv.stripeOf(key), key, null, isWrite(mode), nanos(timeout));
    }

    /**
     * Locks the resource named by two key components (a table's namespace and name, a row's table
     * and key), hashed without concatenating them, waiting at most the default limit.
     */
    public LockHandle lock(LockLevel level, byte[] first, byte[] second, LockMode mode) {
        LevelLocks lv = levelOf(level);
        return lv.acquire(threads.get(), lv.stripeOf(first, second), first, second, isWrite(mode), defaultTimeoutNanos);
    }

    /** {@link #lock(LockLevel, byte[], byte[], LockMode)} waiting at most {@code timeout}. */
    public LockHandle lock(LockLevel level, byte[] first, byte[] second, LockMode mode, Duration timeout) {
        LevelLocks lv = levelOf(level);
        return lv.acquire(threads.get(), lv.stripeOf(first, second), first, second, isWrite(mode), nanos(timeout));
    }

    /** Locks every key in one request, waiting at most the default limit for all of them. */
    public LockHandle lockAll(LockLevel level, Collection<byte[]> keys, LockMode mode) {
        return levelOf(level).acquireAll(threads.get(), null, keys, isWrite(mode), defaultTimeoutNanos);
    }

    /** Locks every key in one request, waiting at most {@code timeout} for all of them together. */
    public LockHandle lockAll(LockLevel level, Collection<byte[]> keys, LockMode mode, Duration timeout) {
        return levelOf(level).acquireAll(threads.get(), null, keys, isWrite(mode), nanos(timeout));
    }

    /**
     * Locks the resources {@code (first, key)} for every key (the rows of one table), waiting at
     * most {@code timeout} for all of them together.
     */
    public LockHandle lockAll(LockLevel level, byte[] first, Collection<byte[]> keys, LockMode mode,
                              Duration timeout) {
        Objects.requireNonNull(first, "first key component");
        return levelOf(level).acquireAll(threads.get(), first, keys, isWrite(mode), nanos(timeout));
    }

    // ---- introspection ----

    /** The configured levels, in ascending rank. */
    public List<LockLevel> levels() {
        return levels.stream().map(l -> l.level).toList();
    }

    /** The number of stripes of {@code level}. */
    public int stripes(LockLevel level) {
        return levelOf(level).stripeCount();
    }

    /** The stripe {@code key} maps to at {@code level}. */
    public int stripeOf(LockLevel level, byte[] key) {
        return levelOf(level).stripeOf(key);
    }

    /** The stripe the two-component key {@code (first, second)} maps to at {@code level}. */
    public int stripeOf(LockLevel level, byte[] first, byte[] second) {
        return levelOf(level).stripeOf(first, second);
    }

    /**
     * What every thread holds in this manager right now. Exact for the calling thread and for
     * threads that have ended or been joined; best effort for threads running meanwhile.
     */
    public List<HeldLock> held() {
        List<HeldLock> out = new ArrayList<>();
        for (ThreadHolds ts : registry) {
            ts.snapshot(out);
        }
        return out;
    }

    /** Per-level counters and latency histograms since this manager was created, in ascending rank. */
    public Map<LockLevel, LockLevelMetrics> metrics() {
        long[] acquisitions = new long[levels.size()];
        long[] contended = new long[levels.size()];
        registryLock.lock();
        try {
            for (int i = 0; i < levels.size(); i++) {
                acquisitions[i] = retiredAcquisitions[i];
                contended[i] = retiredContended[i];
            }
            for (ThreadHolds ts : registry) {
                for (int i = 0; i < levels.size(); i++) {
                    acquisitions[i] += ts.acquisitions(i);
                    contended[i] += ts.contended(i);
                }
            }
        } finally {
            registryLock.unlock();
        }
        Map<LockLevel, LockLevelMetrics> out = new LinkedHashMap<>();
        for (LevelLocks lv : levels) {
            Histogram[] h = lv.histograms();
            out.put(lv.level, new LockLevelMetrics(lv.level, lv.stripeCount(), lv.biased, acquisitions[lv.ordinal],
                    contended[lv.ordinal], lv.timeouts(), h[0], h[1]));
        }
        return out;
    }

    @Override
    public String toString() {
        StringBuilder out = new StringBuilder("LockManager[");
        for (LevelLocks lv : levels) {
            out.append(lv.level.name()).append('=').append(lv.stripeCount()).append(lv.biased ? " biased" : "")
                    .append(lv.ordinal == levels.size() - 1 ? "" : ", ");
        }
        return out.append(fair ? ", fair" : "").append(", ").append(slots).append(" slots]").toString();
    }

    // ---- internals ----

    private LevelLocks levelOf(LockLevel level) {
        LevelLocks lv = byRank[level.rank()];
        if (lv == null || (lv.level != level && !lv.level.equals(level))) {
            throw new IllegalArgumentException("lock level " + level + " (rank " + level.rank()
                    + ") is not configured in this manager; its levels are " + levels());
        }
        return lv;
    }

    private static boolean isWrite(LockMode mode) {
        return Objects.requireNonNull(mode, "mode") == LockMode.WRITE;
    }

    private static long nanos(Duration timeout) {
        if (timeout.isNegative()) {
            throw new IllegalArgumentException("negative lock timeout " + timeout);
        }
        return timeout.compareTo(Duration.ofNanos(Long.MAX_VALUE)) >= 0 ? Long.MAX_VALUE : timeout.toNanos();
    }

    private ThreadHolds register(ThreadHolds ts) {
        registry.add(ts);
        if (registered.incrementAndGet() >= foldAt && registryLock.tryLock()) {
            try {
                foldEndedThreads();
            } finally {
                registryLock.unlock();
            }
        }
        return ts;
    }

    /**
     * Folds the counters of ended threads that hold nothing into the retired totals and forgets
     * them, so that a server starting a thread per request does not grow the registry forever.
     * Ended threads still holding a lock stay listed: that is a bug {@link #held()} must show.
     */
    private void foldEndedThreads() {
        int live = 0;
        for (var it = registry.iterator(); it.hasNext(); ) {
            ThreadHolds ts = it.next();
            if (ts.threadEnded() && ts.heldCount() == 0) {
                for (int i = 0; i < levels.size(); i++) {
                    retiredAcquisitions[i] += ts.acquisitions(i);
                    retiredContended[i] += ts.contended(i);
                }
                it.remove();
            } else {
                live++;
            }
        }
        registered.set(live);
        foldAt = Math.max(64, live * 2);
    }

    /** Builds a {@link LockManager}; levels are listed in any order and kept in ascending rank. */
    public static final class Builder {

        private record LevelSpec(LockLevel level, int stripes, boolean biased) {}

        private final Map<Integer, LevelSpec> levels = new java.util.TreeMap<>();
        private Duration timeout = DEFAULT_TIMEOUT;
        private boolean fair;
        private int slots = defaultSlots();

        private Builder() {}

        /** Adds the three built-in levels with their default sizes (see {@link LockManager}). */
        public Builder defaultLevels() {
            return level(LockLevel.NAMESPACE, DEFAULT_NAMESPACE_STRIPES, true)
                    .level(LockLevel.TABLE, DEFAULT_TABLE_STRIPES, true)
                    .level(LockLevel.ROW, DEFAULT_ROW_STRIPES, false);
        }

        /**
         * Adds (or replaces) a level.
         *
         * @param stripes a power of two
         * @param readerBiased whether reads use per-slot reader indicators: for read-hot levels
         *     with few stripes (each biased stripe costs {@code 4 × slots} bytes more, and a
         *     write to a biased stripe scans one counter per slot)
         */
        public Builder level(LockLevel level, int stripes, boolean readerBiased) {
            Objects.requireNonNull(level, "level");
            if (stripes < 1 || Integer.bitCount(stripes) != 1) {
                throw new IllegalArgumentException("level " + level + ": stripes must be a power of two, got " + stripes);
            }
            LevelSpec existing = levels.get(level.rank());
            if (existing != null && !existing.level.equals(level)) {
                throw new IllegalArgumentException("levels " + existing.level + " and " + level + " share rank "
                        + level.rank());
            }
            levels.put(level.rank(), new LevelSpec(level, stripes, readerBiased));
            return this;
        }

        /** The limit of every wait that is not given its own timeout; default {@link #DEFAULT_TIMEOUT}. */
        public Builder defaultTimeout(Duration timeout) {
            nanos(Objects.requireNonNull(timeout, "timeout"));
            this.timeout = timeout;
            return this;
        }

        /** Whether writers queue behind waiting threads even when a stripe is free; default false. */
        public Builder fair(boolean fair) {
            this.fair = fair;
            return this;
        }

        /**
         * Thread slots of the reader indicators and metric recorders, a power of two; default
         * twice the processors rounded up to a power of two, within 8..128. Threads are given
         * slots round-robin; threads sharing a slot share its counters' cache lines.
         */
        public Builder readerSlots(int slots) {
            if (slots < 1 || Integer.bitCount(slots) != 1) {
                throw new IllegalArgumentException("reader slots must be a power of two, got " + slots);
            }
            this.slots = slots;
            return this;
        }

        public LockManager build() {
            if (levels.isEmpty()) {
                throw new IllegalStateException("a lock manager needs at least one level (defaultLevels() adds three)");
            }
            return new LockManager(this);
        }

        private static int defaultSlots() {
            int wanted = Integer.highestOneBit(Math.max(1, 2 * Runtime.getRuntime().availableProcessors() - 1)) << 1;
            return Math.clamp(wanted, 8, 128);
        }
    }
}
