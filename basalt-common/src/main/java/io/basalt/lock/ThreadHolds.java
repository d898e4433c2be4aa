package io.basalt.lock;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.lang.ref.WeakReference;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * What one thread holds in one {@link LockManager}, and that thread's share of the manager's
 * counters. Written only by its thread; other threads read the counters (opaque reads of opaque
 * writes) for metrics, and the holds (racy reads) for diagnostics.
 *
 * <p>This is the per-thread bookkeeping behind the safety checks, kept cheap because it runs on
 * every acquisition: a bit set of the ranks held (the level-order check is one AND), a short
 * array of {@link Hold}s searched linearly for reentrancy (a thread rarely holds more than a
 * handful of stripes outside a bulk acquisition) whose released entries stay in place for reuse,
 * so that no acquisition allocates once the thread has warmed up.
 */
final class ThreadHolds {

    private static final VarHandle LONGS = MethodHandles.arrayElementVarHandle(long[].class);

    final long threadId;
    final WeakReference<Thread> thread;
    /** This thread's slot in reader indicators and recorder stripes. */
    final int slot;

    /** Holds kept for reuse after a bulk acquisition emptied them; more are dropped. */
    private static final int MAX_KEPT_HOLDS = 64;

    /** Bit {@code r} is set while this thread holds a lock of rank {@code r} (and maybe after; see {@link #exactRanks()}). */
    long heldRanks;
    /** The holds: the first {@code size} are held, the rest are kept for reuse. */
    Hold[] held = new Hold[4];
    int size;

    private final long[] acquisitions;
    private final long[] contended;
    private int sampleTick;

    ThreadHolds(Thread thread, int slot, int levels) {
        this.threadId = thread.threadId();
        this.thread = new WeakReference<>(thread);
        this.slot = slot;
        this.acquisitions = new long[levels];
        this.contended = new long[levels];
    }

    /** The hold of this thread on stripe {@code s} of {@code level} among the first {@code limit}, or null. */
    Hold find(LevelLocks level, int s, int limit) {
        Hold[] h = held;
        for (int i = 0; i < limit; i++) {
            if (h[i].stripe == s && h[i].level == level) {
                return h[i];
            }
        }
        return null;
    }

    /** Records a newly taken stripe lock and returns the handle of this first acquisition. */
    Hold.Handle push(LevelLocks level, int s, int how, byte[] key, byte[] key2) {
        int n = size;
        Hold[] slots = held;
        if (n == slots.length) {
            slots = held = Arrays.copyOf(slots, n * 2);
        }
        Hold h = slots[n];
        if (h == null) {
            slots[n] = h = new Hold(this);
        }
        h.index = n;
        h.level = level;
        h.stripe = s;
        h.how = how;
        h.key = key;
        h.key2 = key2;
        boolean write = how == Hold.WRITE;
        h.writes = write ? 1 : 0;
        h.reads = write ? 0 : 1;
        h.sampledAt = (++sampleTick & (LevelLocks.HELD_TIME_SAMPLE_EVERY - 1)) == 0 ? System.nanoTime() : 0;
        size = n + 1;
        heldRanks |= level.rankBit;
        int ordinal = level.ordinal;
        LONGS.setOpaque(acquisitions, ordinal, acquisitions[ordinal] + 1);
        return write ? h.write : h.read;
    }

    /** Undoes one acquisition of {@code h} in the given mode; called through the hold's handle. */
    void release(Hold h, boolean write) {
        if (Thread.currentThread().threadId() != threadId) {
            throw new IllegalStateException("a lock handle is closed by the thread that took it; thread '"
                    + Thread.currentThread().getName() + "' closed one of thread " + threadId + "'s");
        }
        if (write) {
            if (h.writes <= 0) {
                throw closedTooOften(h);
            }
            if (--h.writes != 0) {
                return;
            }
            if (h.reads != 0) {
                h.level.downgrade(h);
                return;
            }
        } else {
            if (h.reads <= 0) {
                throw closedTooOften(h);
            }
            if (--h.reads != 0 || h.writes != 0) {
                return;
            }
        }
        h.level.unlock(this, h);
        remove(h);
    }

    /**
     * Forgets a released hold: swaps it with the last one so that the first {@code size} slots
     * stay the held ones (the hold objects stay in the array for reuse).
     */
    private void remove(Hold h) {
        int last = --size;
        int i = h.index;
        if (i != last) {
            Hold moved = held[last];
            held[i] = moved;
            moved.index = i;
            held[last] = h;
            h.index = last;
        }
        h.level = null;
        h.key = null;
        h.key2 = null;
        if (last == 0) {
            heldRanks = 0;
            if (held.length > MAX_KEPT_HOLDS) {
                held = new Hold[MAX_KEPT_HOLDS];
            }
        }
    }

    /**
     * The exact set of ranks held. {@link #heldRanks} only gains bits while anything is held
     * (clearing a bit on release would need a count per level on the hot path) and is exact again
     * when nothing is; a level-order check that fails on it asks for the exact set before
     * throwing.
     */
    long exactRanks() {
        long ranks = 0;
        for (int i = 0; i < size; i++) {
            ranks |= held[i].level.rankBit;
        }
        heldRanks = ranks;
        return ranks;
    }

    private static IllegalStateException closedTooOften(Hold h) {
        return new IllegalStateException("lock handle closed more often than taken: " + h.read);
    }

    void countContended(int ordinal) {
        LONGS.setOpaque(contended, ordinal, contended[ordinal] + 1);
    }

    long acquisitions(int ordinal) {
        return (long) LONGS.getOpaque(acquisitions, ordinal);
    }

    long contended(int ordinal) {
        return (long) LONGS.getOpaque(contended, ordinal);
    }

    /**
     * How many stripes the thread holds: exact for the owner and after the thread ended; a racy
     * read otherwise, good enough for diagnostics.
     */
    int heldCount() {
        return size;
    }

    /** True when the thread has ended (or been collected). */
    boolean threadEnded() {
        Thread t = thread.get();
        return t == null || !t.isAlive();
    }

    String threadName() {
        Thread t = thread.get();
        return t == null ? "#" + threadId + " (collected)" : "'" + t.getName() + "'" + (t.isAlive() ? "" : " (ended)");
    }

    /**
     * A snapshot of the holds, for diagnostics. Exact when called by the owner or after it ended
     * (or was joined); best effort while it runs, since its bookkeeping is not synchronized.
     */
    void snapshot(List<HeldLock> out) {
        if (heldCount() == 0) {
            return;
        }
        Hold[] h = held;
        int n = Math.min(size, h.length);
        boolean alive = !threadEnded();
        String name = threadName();
        for (int i = 0; i < n; i++) {
            Hold x = h[i];
            LevelLocks level = x == null ? null : x.level;
            if (level == null) {
                continue;
            }
            out.add(new HeldLock(level.level, LevelLocks.describeKey(x.key, x.key2), x.stripe, x.mode(), x.count(),
                    name, alive));
        }
    }

    String describeAll() {
        return describe(-1);
    }

    String describeHigherThan(int rank) {
        return describe(rank);
    }

    private String describe(int aboveRank) {
        List<String> parts = new ArrayList<>();
        for (int i = 0; i < size; i++) {
            Hold h = held[i];
            if (h.level.level.rank() > aboveRank) {
                parts.add(h.level.describe(h.key, h.key2, h.stripe) + " " + h.mode() + "×" + h.count());
            }
        }
        return parts.isEmpty() ? "nothing" : parts.toString();
    }
}
