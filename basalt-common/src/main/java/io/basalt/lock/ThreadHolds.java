package io.basalt.lock;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.lang.ref.WeakReference;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * What one thread holds in one {@link LockManager}, and that thread's share of the manager's
 * counters. Written only by its thread; other threads read the counters and the held count
 * (opaque reads of opaque writes) for metrics and diagnostics.
 *
 * <p>This is the per-thread bookkeeping behind the safety checks, kept cheap because it runs on
 * every acquisition: a bit set of the ranks held (the level-order check is one AND), a short
 * array of {@link Hold}s searched linearly for reentrancy (a thread rarely holds more than a
 * handful of stripes outside a bulk acquisition), and a free list so that no acquisition
 * allocates once the thread has warmed up.
 */
final class ThreadHolds {

    private static final VarHandle LONGS = MethodHandles.arrayElementVarHandle(long[].class);
    private static final VarHandle HELD_COUNT;

    static {
        try {
            HELD_COUNT = MethodHandles.lookup().findVarHandle(ThreadHolds.class, "heldCount", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    final long threadId;
    final WeakReference<Thread> thread;
    /** This thread's slot in reader indicators and recorder stripes. */
    final int slot;

    /** Bit {@code r} is set while this thread holds a lock of rank {@code r}. */
    long heldRanks;
    Hold[] held = new Hold[4];
    int size;

    private final int[] perLevel;
    private final long[] acquisitions;
    private final long[] contended;
    private Hold[] free = new Hold[4];
    private int freeCount;
    private int sampleTick;
    /** Total holds, for other threads' diagnostics; written with opaque stores. */
    @SuppressWarnings("unused")
    private int heldCount;

    ThreadHolds(Thread thread, int slot, int levels) {
        this.threadId = thread.threadId();
        this.thread = new WeakReference<>(thread);
        this.slot = slot;
        this.perLevel = new int[levels];
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
        Hold h = freeCount > 0 ? free[--freeCount] : new Hold(this);
        h.level = level;
        h.stripe = s;
        h.how = how;
        h.key = key;
        h.key2 = key2;
        boolean write = how == Hold.WRITE;
        h.writes = write ? 1 : 0;
        h.reads = write ? 0 : 1;
        h.sampledAt = (++sampleTick & (LevelLocks.HELD_TIME_SAMPLE_EVERY - 1)) == 0 ? System.nanoTime() : 0;
        if (size == held.length) {
            held = Arrays.copyOf(held, size * 2);
        }
        h.index = size;
        held[size++] = h;
        HELD_COUNT.setOpaque(this, size);
        int ordinal = level.ordinal;
        perLevel[ordinal]++;
        heldRanks |= level.rankBit;
        LONGS.setOpaque(acquisitions, ordinal, acquisitions[ordinal] + 1);
        return write ? h.write : h.read;
    }

    /** Undoes one acquisition of {@code h} in the given mode; called through the hold's handle. */
    void release(Hold h, boolean write) {
        if (Thread.currentThread().threadId() != threadId) {
            throw new IllegalStateException("a lock handle is closed by the thread that took it; thread '"
                    + Thread.currentThread().getName() + "' closed one of thread " + threadId + "'s");
        }
        LevelLocks level = h.level;
        if (level == null || (write ? h.writes : h.reads) == 0) {
            throw new IllegalStateException("lock handle closed more often than taken: " + h.read);
        }
        if (write) {
            h.writes--;
        } else {
            h.reads--;
        }
        if (h.writes == 0) {
            if (h.reads == 0) {
                level.unlock(this, h);
                remove(h);
            } else if (h.how == Hold.WRITE) {
                level.downgrade(h);
            }
        }
    }

    private void remove(Hold h) {
        int i = h.index;
        Hold last = held[--size];
        held[i] = last;
        last.index = i;
        held[size] = null;
        HELD_COUNT.setOpaque(this, size);
        LevelLocks level = h.level;
        if (--perLevel[level.ordinal] == 0) {
            heldRanks &= ~level.rankBit;
        }
        h.level = null;
        h.key = null;
        h.key2 = null;
        if (freeCount == free.length) {
            if (freeCount >= 64) {
                return;
            }
            free = Arrays.copyOf(free, freeCount * 2);
        }
        free[freeCount++] = h;
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

    int heldCount() {
        return (int) HELD_COUNT.getOpaque(this);
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
