package io.basalt.lock;

import io.basalt.bytes.Bytes;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.time.Duration;
import java.util.Arrays;
import java.util.Collection;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.Recorder;

/**
 * The stripes of one lock level: a preallocated power-of-two array of read/write locks, the
 * reader indicators of a reader-biased level, and the level's latency recorders.
 *
 * <h2>Design</h2>
 *
 * <p><b>Stripes, never a lock table.</b> HDDS-8765 measured Ozone's dynamic lock table (a
 * {@code ConcurrentHashMap} entry per active resource, created, use-counted and removed under the
 * map's bin lock on every acquire and release): 100 threads reading one bucket spent ~40 µs per
 * lock and release, and removing that bookkeeping took it to 4-5 µs. Ozone replaced it with Guava
 * {@code Striped<ReadWriteLock>}. Here too a key's lock is {@code stripes[hash(key) & mask]}; the
 * array is allocated once and never changes, so finding a lock is an array load.
 *
 * <p><b>Reader bias.</b> Guava's stripes are {@code ReentrantReadWriteLock}s, whose read lock
 * CASes one state word per acquire and release: every reader of a hot table bounces that cache
 * line between cores, which is the same wall HDDS-8765 hit one layer down. A reader-biased level
 * adds BRAVO-style reader indicators (Dice and Kogan, "BRAVO: Biased Locking for Reader-Writer
 * Locks", USENIX ATC 2019): an {@code int} counter per (thread slot, stripe), laid out slot-major
 * ({@code indicators[slot * stride + stripe]}) with a 128-byte gap between slots, so that threads
 * in different slots never write the same cache line. While a stripe's {@code bias} flag is up,
 * a reader increments its own counter, re-reads the flag, and is done; release decrements it.
 * Both are uncontended atomic adds on a line the thread owns. A writer first takes the stripe's
 * {@link StripeLock} exclusively (which excludes queued readers and other writers), then lowers
 * the flag and waits for every slot's counter of that stripe to drain. Readers that incremented
 * after the flag went down see it on their re-check and back out to the queue; so the writer waits
 * only for readers already inside, a bound on its wait that no flood of readers can extend. The
 * flag is raised again by the {@value #REBIAS_AFTER_QUEUED_READS}th read that goes through the
 * queue after a revocation (BRAVO uses a time window; a count needs no clock read on the read path
 * and keeps write-heavy stripes unbiased, where revocations would only cost).
 *
 * <p><b>Memory.</b> A stripe is one {@link StripeLock} (an {@code AbstractQueuedSynchronizer}
 * with the bias fields: 40 bytes with compressed oops, 44 with its array slot, against 124 for a
 * Guava stripe, measured with JOL and quoted in
 * {@code docs/benchmarks.md}); a biased level adds {@code 4 × slots} bytes of indicators per stripe
 * plus the gaps. Slots default to twice the processor count rounded to a power of two, clamped to
 * 8..128: on 2 cores 8 slots (32 bytes per stripe), on 64 cores 128 slots (512 bytes per stripe).
 * That is why only the small, read-hot levels (namespace, table) are biased by default; the row
 * level, written on every mutation and sized in the tens of thousands, is not.
 *
 * <p><b>Metrics without a shared lock.</b> Ozone's first striped version funnelled its lock
 * metrics through synchronized methods, which became the next global bottleneck (HDDS-9377).
 * Here acquisition and contention counts are per-thread plain counters ({@link ThreadHolds}),
 * summed only when someone asks; wait times of every acquisition that had to wait, and held times
 * of one acquisition in {@value #HELD_TIME_SAMPLE_EVERY} per thread, go to HdrHistogram
 * {@link Recorder}s striped by thread slot (a recorder's writer path is wait-free but bumps two
 * atomics, so one recorder per level would be one more shared line). An uncontended acquisition
 * reads no clock: {@code System.nanoTime()} costs about as much as the whole lock and release.
 */
final class LevelLocks {

    /** Queued-path reads after a revocation before the stripe is biased again. */
    static final int REBIAS_AFTER_QUEUED_READS = 64;
    /** One acquisition in this many (per thread) has its held time measured; a power of two. */
    static final int HELD_TIME_SAMPLE_EVERY = 64;

    private static final VarHandle INDICATORS = MethodHandles.arrayElementVarHandle(int[].class);
    /** Spaces between two slots' rows of indicators: 32 ints, 128 bytes (two cache lines). */
    private static final int SLOT_GAP = 32;
    private static final int DRAIN_SPINS = 128;
    private static final long DRAIN_FIRST_PARK_NANOS = 1_000;
    private static final long DRAIN_MAX_PARK_NANOS = 1_000_000;

    final LockLevel level;
    /** Position of this level in its manager (index of per-level per-thread counters). */
    final int ordinal;
    final long rankBit;
    /** The ranks above this level's: holding any of them forbids taking this level. */
    final long higherRanks;
    final boolean biased;
    final boolean fair;

    private final StripeLock[] stripes;
    private final int mask;
    private final int[] indicators;
    private final int stride;
    private final int slots;

    private final Recorder[] waitRecorders;
    private final Recorder[] heldRecorders;
    private final int recorderMask;
    private final Histogram waitTotal = new Histogram(2);
    private final Histogram heldTotal = new Histogram(2);

    LevelLocks(LockLevel level, int ordinal, int stripeCount, boolean biased, boolean fair, int slots) {
        if (stripeCount < 1 || Integer.bitCount(stripeCount) != 1) {
            throw new IllegalArgumentException("level " + level + ": stripes must be a power of two, got " + stripeCount);
        }
        this.level = level;
        this.ordinal = ordinal;
        this.rankBit = 1L << level.rank();
        this.higherRanks = -1L << (level.rank() + 1);
        this.biased = biased;
        this.fair = fair;
        this.stripes = new StripeLock[stripeCount];
        for (int i = 0; i < stripeCount; i++) {
            stripes[i] = new StripeLock(biased);
        }
        this.mask = stripeCount - 1;
        this.slots = slots;
        this.stride = stripeCount + SLOT_GAP;
        this.indicators = biased ? new int[slots * stride] : null;
        int recorders = Math.min(slots, 16);
        this.recorderMask = recorders - 1;
        this.waitRecorders = new Recorder[recorders];
        this.heldRecorders = new Recorder[recorders];
        for (int i = 0; i < recorders; i++) {
            waitRecorders[i] = new Recorder(2);
            heldRecorders[i] = new Recorder(2);
        }
    }

    int stripeCount() {
        return stripes.length;
    }

    int stripeOf(byte[] key) {
        return KeyHash.of(key) & mask;
    }

    int stripeOf(byte[] first, byte[] second) {
        return KeyHash.of(first, second) & mask;
    }

    // ---- acquisition ----

    /**
     * Takes stripe {@code s} for the calling thread (whose bookkeeping is {@code ts}): checks the
     * level order, then reentrancy, then takes the stripe lock, waiting at most
     * {@code timeoutNanos}.
     */
    Hold.Handle acquire(ThreadHolds ts, int s, byte[] key, byte[] key2, boolean write, long timeoutNanos) {
        if ((ts.heldRanks & higherRanks) != 0 && (ts.exactRanks() & higherRanks) != 0) {
            throw orderViolation(ts, key, key2, s, write);
        }
        if (ts.size != 0) {
            Hold held = ts.find(this, s, ts.size);
            if (held != null) {
                return reenter(held, key, key2, s, write);
            }
        }
        int how = write ? acquireWrite(ts, s, key, key2, timeoutNanos) : acquireRead(ts, s, key, key2, timeoutNanos);
        return ts.push(this, s, how, key, key2);
    }

    /**
     * Takes every key's stripe once, in ascending stripe order (the order every thread uses, so
     * bulk acquisitions cannot deadlock each other), within one time limit for the whole set. On
     * any failure releases what it took, in reverse, and rethrows.
     */
    LockHandle acquireAll(ThreadHolds ts, byte[] prefix, Collection<byte[]> keys, boolean write, long timeoutNanos) {
        byte[][] ks = keys.toArray(new byte[0][]);
        long[] order = new long[ks.length];
        for (int i = 0; i < ks.length; i++) {
            if (ks[i] == null) {
                throw new NullPointerException("key " + i + " of a bulk lock request is null");
            }
            int s = prefix == null ? stripeOf(ks[i]) : stripeOf(prefix, ks[i]);
            order[i] = ((long) s << 32) | i;
        }
        Arrays.sort(order);
        Hold.Handle[] taken = new Hold.Handle[ks.length];
        int count = 0;
        long start = System.nanoTime();
        int previous = -1;
        try {
            for (long o : order) {
                int s = (int) (o >>> 32);
                if (s == previous) {
                    continue;
                }
                previous = s;
                byte[] key = ks[(int) o];
                long remaining = timeoutNanos == Long.MAX_VALUE ? Long.MAX_VALUE
                        : Math.max(0, timeoutNanos - (System.nanoTime() - start));
                taken[count] = prefix == null ? acquire(ts, s, key, null, write, remaining)
                        : acquire(ts, s, prefix, key, write, remaining);
                count++;
            }
        } catch (RuntimeException | Error e) {
            for (int i = count - 1; i >= 0; i--) {
                taken[i].close();
            }
            throw e;
        }
        return new BulkHandle(taken, count);
    }

    private Hold.Handle reenter(Hold held, byte[] key, byte[] key2, int s, boolean write) {
        if (write) {
            if (held.how != Hold.WRITE) {
                throw new LockUpgradeException("cannot take a WRITE lock on " + describe(key, key2, s)
                        + ": this thread holds that stripe for READ (taken for " + describeKey(held.key, held.key2)
                        + "); a read lock is never upgraded, release it first or take WRITE from the start");
            }
            held.writes++;
            return held.write;
        }
        held.reads++;
        return held.read;
    }

    private int acquireRead(ThreadHolds ts, int s, byte[] key, byte[] key2, long timeoutNanos) {
        StripeLock lock = stripes[s];
        if (biased && lock.bias) {
            int i = ts.slot * stride + s;
            add(indicators, i, 1);
            if (lock.bias) {
                return Hold.BIASED_READ;
            }
            add(indicators, i, -1);
            wakeRevoker(lock);
        }
        if (!lock.tryRead()) {
            waitForRead(ts, lock, s, key, key2, timeoutNanos);
        }
        if (biased && !lock.bias && --lock.rebiasCountdown <= 0) {
            lock.bias = true;
        }
        return Hold.QUEUED_READ;
    }

    private void waitForRead(ThreadHolds ts, StripeLock lock, int s, byte[] key, byte[] key2, long timeoutNanos) {
        ts.countContended(ordinal);
        long start = System.nanoTime();
        boolean granted;
        try {
            granted = lock.read(timeoutNanos);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw interrupted(ts, key, key2, s, false, System.nanoTime() - start, e);
        }
        long waited = System.nanoTime() - start;
        if (!granted) {
            throw timeout(ts, key, key2, s, false, waited);
        }
        waitRecorders[ts.slot & recorderMask].recordValue(waited);
    }

    private int acquireWrite(ThreadHolds ts, int s, byte[] key, byte[] key2, long timeoutNanos) {
        StripeLock lock = stripes[s];
        long start = 0;
        if (!lock.tryWrite(fair)) {
            ts.countContended(ordinal);
            start = System.nanoTime();
            boolean granted;
            try {
                granted = lock.write(timeoutNanos, fair);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw interrupted(ts, key, key2, s, true, System.nanoTime() - start, e);
            }
            if (!granted) {
                throw timeout(ts, key, key2, s, true, System.nanoTime() - start);
            }
        }
        if (biased && lock.bias) {
            start = revokeBias(ts, lock, s, key, key2, start, timeoutNanos);
        }
        if (start != 0) {
            waitRecorders[ts.slot & recorderMask].recordValue(System.nanoTime() - start);
        }
        return Hold.WRITE;
    }

    /**
     * Lowers the stripe's bias flag and waits until no biased reader is inside. Called holding
     * the stripe's write lock; on timeout or interruption releases it and throws. Returns the
     * start of the wait (0 when the acquisition has not waited at all).
     */
    private long revokeBias(ThreadHolds ts, StripeLock lock, int s, byte[] key, byte[] key2, long start,
                            long timeoutNanos) {
        lock.revoker = Thread.currentThread();
        lock.bias = false;
        lock.rebiasCountdown = REBIAS_AFTER_QUEUED_READS;
        try {
            for (int slot = 0, i = s; slot < slots; slot++, i += stride) {
                if ((int) INDICATORS.getVolatile(indicators, i) == 0) {
                    continue;
                }
                if (start == 0) {
                    ts.countContended(ordinal);
                    start = System.nanoTime();
                }
                drain(ts, lock, i, s, key, key2, start, timeoutNanos);
            }
        } finally {
            lock.revoker = null;
        }
        return start;
    }

    private void drain(ThreadHolds ts, StripeLock lock, int i, int s, byte[] key, byte[] key2, long start,
                       long timeoutNanos) {
        int spins = 0;
        long park = DRAIN_FIRST_PARK_NANOS;
        while ((int) INDICATORS.getVolatile(indicators, i) != 0) {
            if (spins < DRAIN_SPINS) {
                spins++;
                Thread.onSpinWait();
                continue;
            }
            long waited = System.nanoTime() - start;
            if (waited >= timeoutNanos) {
                lock.unlockWrite();
                throw timeout(ts, key, key2, s, true, waited);
            }
            LockSupport.parkNanos(this, Math.min(park, timeoutNanos - waited));
            park = Math.min(park * 2, DRAIN_MAX_PARK_NANOS);
            if (Thread.interrupted()) {
                lock.unlockWrite();
                Thread.currentThread().interrupt();
                throw interrupted(ts, key, key2, s, true, System.nanoTime() - start, new InterruptedException());
            }
        }
    }

    /** An atomic add whose call site matches the access mode's type exactly (no adaptation). */
    private static void add(int[] counters, int i, int delta) {
        int previous = (int) INDICATORS.getAndAdd(counters, i, delta);
        assert previous + delta >= 0 : "reader indicator went negative";
    }

    private static void wakeRevoker(StripeLock lock) {
        Thread revoker = lock.revoker;
        if (revoker != null) {
            LockSupport.unpark(revoker);
        }
    }

    // ---- release ----

    /** Releases the stripe lock under {@code h}, which its owner holds no more. */
    void unlock(ThreadHolds ts, Hold h) {
        StripeLock lock = stripes[h.stripe];
        switch (h.how) {
            case Hold.BIASED_READ -> {
                add(indicators, ts.slot * stride + h.stripe, -1);
                if (!lock.bias) {
                    wakeRevoker(lock);
                }
            }
            case Hold.QUEUED_READ -> lock.unlockRead();
            default -> lock.unlockWrite();
        }
        if (h.sampledAt != 0) {
            heldRecorders[ts.slot & recorderMask].recordValue(Math.max(0, System.nanoTime() - h.sampledAt));
        }
    }

    /** The owner of {@code h} released its last write hold but still holds reads: keep a read lock. */
    void downgrade(Hold h) {
        stripes[h.stripe].downgrade();
        h.how = Hold.QUEUED_READ;
    }

    // ---- diagnostics ----

    /** Adds the histograms recorded since the last call to the running totals and returns copies. */
    synchronized Histogram[] histograms() {
        for (Recorder r : waitRecorders) {
            waitTotal.add(r.getIntervalHistogram());
        }
        for (Recorder r : heldRecorders) {
            heldTotal.add(r.getIntervalHistogram());
        }
        return new Histogram[] {waitTotal.copy(), heldTotal.copy()};
    }

    String describe(byte[] key, byte[] key2, int s) {
        return level.name() + " " + describeKey(key, key2) + " (stripe " + s + " of " + stripes.length + ")";
    }

    static String describeKey(byte[] key, byte[] key2) {
        String first = key == null ? "?" : Bytes.toStringBinary(key);
        return key2 == null ? "'" + first + "'" : "'" + first + "' / '" + Bytes.toStringBinary(key2) + "'";
    }

    /** Who holds stripe {@code s} right now, as far as the lock itself can tell. */
    String holders(int s) {
        StripeLock lock = stripes[s];
        StringBuilder out = new StringBuilder();
        Thread writer = lock.writer();
        if (lock.isWriteLocked()) {
            out.append("held for WRITE by '").append(writer == null ? "?" : writer.getName()).append('\'');
        } else {
            int readers = lock.queuedPathReaders();
            if (biased) {
                for (int slot = 0, i = s; slot < slots; slot++, i += stride) {
                    readers += (int) INDICATORS.getVolatile(indicators, i);
                }
            }
            out.append(readers == 0 ? "free" : "held for READ by " + readers + " reader(s)");
        }
        int queued = lock.getQueueLength();
        if (queued > 0) {
            out.append(", ").append(queued).append(" thread(s) queued");
        }
        return out.toString();
    }

    private LockOrderException orderViolation(ThreadHolds ts, byte[] key, byte[] key2, int s, boolean write) {
        return new LockOrderException("cannot take a " + (write ? "WRITE" : "READ") + " lock on " + describe(key, key2, s)
                + " while holding locks of a later level: " + ts.describeHigherThan(level.rank())
                + "; levels are taken in ascending rank (" + level.name() + " is rank " + level.rank()
                + "), release the later-level locks first");
    }

    /** Waits that ran out (rare: counted where the failure is built). */
    private final java.util.concurrent.atomic.LongAdder timeouts = new java.util.concurrent.atomic.LongAdder();

    long timeouts() {
        return timeouts.sum();
    }

    private LockTimeoutException timeout(ThreadHolds ts, byte[] key, byte[] key2, int s, boolean write, long waited) {
        timeouts.increment();
        Duration d = Duration.ofNanos(waited);
        return new LockTimeoutException("timed out after " + millis(waited) + " waiting for a "
                + (write ? "WRITE" : "READ") + " lock on " + describe(key, key2, s) + "; the stripe is " + holders(s)
                + "; this thread holds " + ts.describeAll(), d);
    }

    private LockInterruptedException interrupted(ThreadHolds ts, byte[] key, byte[] key2, int s, boolean write,
                                                 long waited, InterruptedException cause) {
        return new LockInterruptedException("interrupted after " + millis(waited) + " waiting for a "
                + (write ? "WRITE" : "READ") + " lock on " + describe(key, key2, s) + "; the stripe is " + holders(s)
                + "; this thread holds " + ts.describeAll(), cause);
    }

    private static String millis(long nanos) {
        return TimeUnit.NANOSECONDS.toMillis(nanos) + " ms";
    }

    /** The handle of a bulk acquisition: closes its stripes in the reverse order of taking them. */
    private static final class BulkHandle implements LockHandle {

        private final Hold.Handle[] handles;
        private int open;

        BulkHandle(Hold.Handle[] handles, int count) {
            this.handles = handles;
            this.open = count;
        }

        @Override
        public void close() {
            if (open < 0) {
                throw new IllegalStateException("bulk lock handle closed twice");
            }
            while (open > 0) {
                handles[open - 1].close();
                handles[--open] = null;
            }
            open = -1;
        }
    }
}
