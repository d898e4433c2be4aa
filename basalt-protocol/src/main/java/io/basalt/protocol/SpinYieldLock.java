package io.basalt.protocol;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * A non-reentrant mutual-exclusion lock for critical sections far shorter than a context switch,
 * whose release is one store: a waiter spins, then yields its core, then parks for short timed
 * intervals, and nobody ever has to be woken.
 *
 * <h2>Why not {@code ReentrantLock}</h2>
 * {@link GroupedWriter} holds its lock only to encode one small frame (a few hundred
 * nanoseconds) or to swap out a buffer. Under contention {@code ReentrantLock} parks a waiter
 * almost at once, and then every release that finds a parked waiter pays a futex wake-up
 * ({@code pthread_cond_signal}) and the waiter a sleep and a reschedule, each several times the
 * critical section. Profiled in the {@code grouping} suite at 50 streams (two application threads
 * and the event loop sharing one connection's lock), taking and releasing it was about a quarter
 * of the application threads' CPU and a sixth of the client event loop's, most of it in those
 * wake-ups, and the event loop's drain parked behind application threads.
 *
 * <p>Here a release never looks for waiters. A waiter first spins {@value #SPINS} times (long
 * enough for a holder that is running to finish), then yields {@value #YIELDS} times (on a
 * machine with fewer cores than busy threads the holder may be waiting for this very core), and
 * only then parks for {@value #PARK_MICROS} µs at a time, which bounds the CPU a waiter burns
 * while a holder is descheduled for long. The lock is not fair; for sections this short no
 * waiter waits long.
 *
 * <p>{@link #lock()} ignores interruption (it keeps the thread's interrupt status): the section
 * it guards is never a wait. The lock is not reentrant: a thread that asks for it while holding
 * it gets an {@link IllegalStateException} rather than waiting for itself.
 */
final class SpinYieldLock {

    private static final int SPINS = 64;
    private static final int YIELDS = 32;
    private static final int PARK_MICROS = 20;

    private static final VarHandle STATE;

    static {
        try {
            STATE = MethodHandles.lookup().findVarHandle(SpinYieldLock.class, "state", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /** 1 while held; changed through {@link #STATE}. */
    private volatile int state;
    /**
     * The holder, written after taking and cleared before releasing. Only read by a waiter to
     * see whether it is the holder itself (a plain read sees its own writes), so that a
     * re-entrant call fails instead of waiting for itself forever.
     */
    private Thread owner;

    /** Takes the lock if it is free, without waiting. */
    boolean tryLock() {
        if (state == 0 && STATE.compareAndSet(this, 0, 1)) {
            owner = Thread.currentThread();
            return true;
        }
        return false;
    }

    /**
     * Takes the lock, waiting as long as it takes.
     *
     * @throws IllegalStateException when the calling thread holds the lock already
     */
    void lock() {
        if (!STATE.compareAndSet(this, 0, 1)) {
            lockContended();
        }
        owner = Thread.currentThread();
    }

    private void lockContended() {
        Thread self = Thread.currentThread();
        if (owner == self) {
            throw new IllegalStateException("thread '" + self.getName() + "' already holds this lock; it is not reentrant");
        }
        boolean interrupted = false;
        for (int tries = 0;; tries++) {
            if (state == 0 && STATE.compareAndSet(this, 0, 1)) {
                break;
            }
            if (tries < SPINS) {
                Thread.onSpinWait();
            } else if (tries < SPINS + YIELDS) {
                Thread.yield();
            } else {
                LockSupport.parkNanos(this, TimeUnit.MICROSECONDS.toNanos(PARK_MICROS));
                // A set interrupt status makes every park return at once: clear it while waiting
                // (so the wait does not turn into a busy loop) and restore it once the lock is ours.
                interrupted |= Thread.interrupted();
            }
        }
        if (interrupted) {
            self.interrupt();
        }
    }

    /** Releases the lock; only its holder may call this. */
    void unlock() {
        owner = null;
        STATE.setRelease(this, 0);
    }
}
