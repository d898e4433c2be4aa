package io.basalt.engine;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The future of a write: a {@link CompletableFuture} whose blocking waits ({@link #get()},
 * {@link #get(long, TimeUnit)}, {@link #join()}) first give the processor away a few times
 * ({@link Thread#yield}) while the answer is not there, and only then park. Futures made from
 * it ({@code thenApply} and the like) are of this kind too, so the future a table's {@code put}
 * returns waits this way.
 *
 * <p>Why: an acknowledgement usually comes within microseconds (the log write of the writer
 * ahead, or the syncer's batch), and a writer that parks at once costs a futex wait, a wake-up
 * from whoever completes it and two context switches. With YCSB's eight loading threads on two
 * cores that was most of a million context switches per million rows, and a fifth of the load's
 * time. A yield lets whoever is to complete the write run, and costs little when nobody else
 * wants the processor (RocksDB's writers yield the same way before they block,
 * {@code enable_write_thread_adaptive_yield}). Like theirs, the yields stop while they do not pay
 * ({@link #credit}): when answers take longer than a few yields (a {@code SYNC} write waits for
 * its force), yielding first would only add context switches to the park.
 */
class WriteFuture<T> extends CompletableFuture<T> {

    /** How many times a waiting caller yields before it parks (measured: see docs/benchmarks.md, "ycsb"). */
    static final int YIELDS = 5;

    /** Bounds of {@link #credit}, and what a wait that yielded in vain costs it. */
    static final int CREDIT_MAX = 16;
    static final int CREDIT_MIN = -32;
    static final int PENALTY = 4;

    /**
     * Whether yielding has been paying off lately, for all writes' futures together: up one for
     * every wait whose answer came while it yielded, down {@link #PENALTY} for every wait that
     * yielded and parked all the same; waits do not yield while it is negative, and each wait
     * that skips the yields brings it up by one, so yielding is tried again later. Read and written
     * without synchronization: lost updates only make it less exact.
     */
    static int credit;

    @Override
    public <U> CompletableFuture<U> newIncompleteFuture() {
        return new WriteFuture<>();
    }

    /** Yields while the future is not done, at most {@link #YIELDS} times, while yielding pays. */
    private void yieldWhileRunning() {
        if (isDone()) {
            return;
        }
        int c = credit;
        if (c < 0) {
            credit = c + 1;
            return;
        }
        for (int i = 0; i < YIELDS; i++) {
            Thread.yield();
            if (isDone()) {
                credit = Math.min(CREDIT_MAX, credit + 1);
                return;
            }
        }
        credit = Math.max(CREDIT_MIN, credit - PENALTY);
    }

    @Override
    public T get() throws InterruptedException, ExecutionException {
        yieldWhileRunning();
        return super.get();
    }

    @Override
    public T get(long timeout, TimeUnit unit) throws InterruptedException, ExecutionException, TimeoutException {
        yieldWhileRunning();
        return super.get(timeout, unit);
    }

    @Override
    public T join() {
        yieldWhileRunning();
        return super.join();
    }
}
