package io.basalt.lock;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.locks.AbstractQueuedSynchronizer;

/**
 * One stripe's read/write lock: a non-reentrant read/write synchronizer plus the reader-bias flag
 * that lets readers bypass it.
 *
 * <p>The queue, timed waits, interruption and parking come from {@link AbstractQueuedSynchronizer};
 * reentrancy is not handled here but by the per-thread bookkeeping of {@link LockManager}, which
 * never asks a stripe for a lock its thread already holds. State: the sign bit is the writer, the
 * other bits count the readers that took the lock through the queue ("slow" readers; biased
 * readers are counted in their level's reader indicators instead, see {@link LevelLocks}).
 *
 * <p>Readers never overtake a queued writer, in fair and in non-fair mode alike: once a writer
 * queues, new readers queue behind it ({@link #hasQueuedPredecessors()} while {@link
 * #writersWaiting} is not zero), so a flood of readers cannot starve a writer. Fairness only
 * decides whether an arriving writer may take a free lock ahead of queued threads.
 *
 * <p>Readers do pass queued readers when no writer waits (as {@code ReentrantReadWriteLock}'s
 * readers do, which block only behind a queued writer). Queued readers are ones a writer held
 * off; once it releases, each is woken in turn and takes its hold when the scheduler runs it. With
 * more threads than cores that takes a while, and a reader that queued behind them because the
 * queue was not empty made a convoy: in the {@code locks} suite's {@code mixed} case (one write in
 * ten, 10 threads on 2 cores) this lock ran at 0.4 times Guava's striped locks, with bias or
 * without, and at 0.7 with readers passing queued readers (docs/benchmarks.md, "locks").
 *
 * <p>The bias fields are used only by reader-biased levels. {@code bias} is set by a reader that
 * holds the lock through the queue (so no writer can hold it at that moment) and cleared by a
 * writer that holds it exclusively; {@code rebiasCountdown} is how many more queued-path reads
 * must happen before bias comes back after a revocation.
 */
final class StripeLock extends AbstractQueuedSynchronizer {

    private static final long serialVersionUID = 1L;

    /** The writer bit. */
    private static final int WRITER = 0x8000_0000;
    /** Argument of {@link #tryAcquire}: fair mode (do not take a free lock ahead of the queue). */
    private static final int FAIR = 1;
    /** Argument of {@link #tryRelease}: keep a read hold instead of releasing (a downgrade). */
    private static final int DOWNGRADE = 1;

    /** Readers may take the fast path (reader-biased levels only). */
    volatile boolean bias;
    /** The writer draining the biased readers, woken by the last of them. */
    transient volatile Thread revoker;
    /**
     * Writers in {@link #write} (queued or about to be): while there are any, readers do not pass
     * the queue. Changed only by writers that found the lock taken.
     */
    private volatile int writersWaiting;
    private static final VarHandle WRITERS_WAITING;

    static {
        try {
            WRITERS_WAITING = MethodHandles.lookup()
                    .findVarHandle(StripeLock.class, "writersWaiting", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /**
     * Queued-path reads left before bias is turned back on. Decremented by concurrent readers
     * without atomics: a lost decrement only delays the re-bias by one read.
     */
    int rebiasCountdown;

    StripeLock(boolean biased) {
        this.bias = biased;
    }

    // ---- called by LevelLocks ----

    /** Takes a read hold without waiting, unless the lock is written or someone is queued. */
    boolean tryRead() {
        return tryAcquireShared(1) >= 0;
    }

    /** Takes a read hold, waiting up to {@code nanos}; false when the time ran out. */
    boolean read(long nanos) throws InterruptedException {
        return tryAcquireSharedNanos(1, nanos);
    }

    void unlockRead() {
        releaseShared(1);
    }

    /** Takes the write hold without waiting. */
    boolean tryWrite(boolean fair) {
        return tryAcquire(fair ? FAIR : 0);
    }

    /** Takes the write hold, waiting up to {@code nanos}; false when the time ran out. */
    boolean write(long nanos, boolean fair) throws InterruptedException {
        WRITERS_WAITING.getAndAdd(this, 1);
        try {
            return tryAcquireNanos(fair ? FAIR : 0, nanos);
        } finally {
            WRITERS_WAITING.getAndAdd(this, -1);
        }
    }

    void unlockWrite() {
        release(0);
    }

    /** Turns the write hold into one read hold without letting any writer in between. */
    void downgrade() {
        release(DOWNGRADE);
    }

    /** The thread holding the write lock, or null. */
    Thread writer() {
        return getExclusiveOwnerThread();
    }

    /** How many readers hold the lock through the queue. */
    int queuedPathReaders() {
        int s = getState();
        return s < 0 ? 0 : s;
    }

    boolean isWriteLocked() {
        return getState() < 0;
    }

    // ---- AbstractQueuedSynchronizer ----

    @Override
    protected int tryAcquireShared(int unused) {
        for (;;) {
            int s = getState();
            if (s < 0 || (writersWaiting != 0 && hasQueuedPredecessors())) {
                return -1;
            }
            if (s == Integer.MAX_VALUE) {
                throw new IllegalStateException("more than " + Integer.MAX_VALUE + " readers on one stripe");
            }
            if (compareAndSetState(s, s + 1)) {
                return 1;
            }
        }
    }

    @Override
    protected boolean tryReleaseShared(int unused) {
        for (;;) {
            int s = getState();
            if (s <= 0) {
                throw new IllegalMonitorStateException("read lock released but not held");
            }
            if (compareAndSetState(s, s - 1)) {
                return s == 1;
            }
        }
    }

    @Override
    protected boolean tryAcquire(int arg) {
        if (getState() != 0 || ((arg & FAIR) != 0 && hasQueuedPredecessors())) {
            return false;
        }
        if (compareAndSetState(0, WRITER)) {
            setExclusiveOwnerThread(Thread.currentThread());
            return true;
        }
        return false;
    }

    @Override
    protected boolean tryRelease(int arg) {
        if (getState() != WRITER) {
            throw new IllegalMonitorStateException("write lock released but not held");
        }
        setExclusiveOwnerThread(null);
        setState(arg == DOWNGRADE ? 1 : 0);
        return true;
    }

    @Override
    protected boolean isHeldExclusively() {
        return getState() == WRITER && getExclusiveOwnerThread() == Thread.currentThread();
    }
}
