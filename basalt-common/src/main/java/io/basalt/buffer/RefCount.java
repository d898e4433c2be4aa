package io.basalt.buffer;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.lang.ref.Reference;

/**
 * The reference count shared by one allocation and every slice and duplicate of it, and what
 * that allocation gives back when the count reaches zero.
 *
 * <h2>Design (HBASE-27730)</h2>
 * HBase checks {@code refCnt() > 0} before every access to an off-heap {@code ByteBuff}: a
 * volatile read behind three calls, which the JIT can neither hoist out of a loop nor fold, and
 * which halved the speed of a block scan (40 s instead of 20 s for a 20 GB file, HBASE-27730).
 * Netty hit the same wall (netty#8895) and answered with a flag checked by a plain read. The seed's
 * refinement, used here, needs no extra field: the release that takes the count to zero nulls
 * {@link #recycler}, and every access checks {@code recycler != null}. A plain read of a field
 * nobody writes in the loop is hoisted by C2, so a scan costs what a raw {@code MemorySegment}
 * scan costs (see the {@code refcount} suite in {@code docs/benchmarks.md}); making this one
 * field volatile, all else equal, made the same 256 MiB scan about 4× slower.
 *
 * <p>The count itself is exact and atomic. It is stored doubled, {@code raw = 2 × count}, while
 * the allocation lives, and the final release moves it from 2 to the odd value 1. Adding or
 * subtracting 2 keeps the parity, so {@link #retain} can be a single {@code getAndAdd} (no CAS
 * loop, whatever the contention) and still never resurrects a released count: a retain that
 * races the final release finds an odd value and fails (the trick Netty's
 * {@code ReferenceCountUpdater} uses). A non-final {@link #release} must CAS, so that it never
 * takes the count from 1 to 0 behind the final release's back; only the thread whose CAS reaches
 * the odd state runs the recycler, hence exactly once. A CAS that loses a race yields before it
 * retries, which more than halves the cost of a contended count (the {@code refcount} suite's
 * {@code retainReleaseShared}).
 *
 * <p>What the plain read guarantees across threads is in {@link Buffer}'s class comment.
 */
final class RefCount {

    private static final VarHandle RAW;

    static {
        try {
            RAW = MethodHandles.lookup().findVarHandle(RefCount.class, "raw", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /** Twice the count while live; odd once released. Written only through {@link #RAW}. */
    @SuppressWarnings("unused")
    private volatile int raw = 2;

    /**
     * Gives the memory back; {@code null} once the count has reached zero. Plain on purpose: it is
     * read on every access and written once, by the final release.
     */
    Recycler recycler;

    /** The pool's chunk index for a one-chunk allocation; -1 for heap memory or several chunks. */
    final int chunk;

    /** The pool's chunk indexes for a several-chunk allocation, else {@code null}. */
    final int[] chunks;

    /** The leak detector's record of this allocation, or {@code null} when it is not followed. */
    LeakDetector.Tracker tracker;

    RefCount(Recycler recycler, int chunk, int[] chunks) {
        this.recycler = recycler;
        this.chunk = chunk;
        this.chunks = chunks;
    }

    /** The current count, 0 once released. */
    int count() {
        int r = (int) RAW.getVolatile(this);
        return (r & 1) != 0 ? 0 : r >>> 1;
    }

    /** Adds one reference. */
    void retain() {
        int old = (int) RAW.getAndAdd(this, 2);
        if ((old & 1) != 0) {
            // The value stays odd: the failed retain cannot revive the count.
            throw released("retain");
        }
        if (old > Integer.MAX_VALUE - 2) {
            RAW.getAndAdd(this, -2);
            throw new IllegalStateException("reference count overflow: a buffer cannot hold more than "
                    + (Integer.MAX_VALUE >>> 1) + " references");
        }
    }

    /**
     * Drops one reference; the call that drops the last one recycles the memory.
     *
     * @return true when this call recycled the memory
     */
    boolean release() {
        for (;;) {
            int r = (int) RAW.getVolatile(this);
            if ((r & 1) != 0 || r <= 0) {
                throw released("release");
            }
            if (RAW.compareAndSet(this, r, r == 2 ? 1 : r - 2)) {
                if (r == 2) {
                    recycle();
                    return true;
                }
                return false;
            }
            // Lost a race for the count's cache line: step aside before retrying. Two threads
            // hammering one count ran 73 ns per retain+release pair without this and 14-17 ns
            // with it (Netty, whose release loop backs off the same way: 11-18 ns; spinning with
            // onSpinWait instead: 44 ns).
            Thread.yield();
        }
    }

    private void recycle() {
        Recycler owner = recycler;
        recycler = null;
        LeakDetector.Tracker t = tracker;
        if (t != null) {
            t.released();
        }
        owner.recycle(this);
        // The tracker must see the release before the collector may see this object unreachable.
        Reference.reachabilityFence(this);
    }

    static IllegalStateException released(String operation) {
        return new IllegalStateException(operation + " on a released buffer: its reference count already reached 0"
                + " and its memory went back to the pool");
    }
}
