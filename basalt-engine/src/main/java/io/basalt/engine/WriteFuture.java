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
 * {@code enable_write_thread_adaptive_yield}).
 */
final class WriteFuture<T> extends CompletableFuture<T> {

    /** How many times a waiting caller yields before it parks (measured: see docs/benchmarks.md, "ycsb"). */
    static final int YIELDS = 5;

    @Override
    public <U> CompletableFuture<U> newIncompleteFuture() {
        return new WriteFuture<>();
    }

    /** Yields while the future is not done, at most {@link #YIELDS} times. */
    private void yieldWhileRunning() {
        for (int i = 0; i < YIELDS && !isDone(); i++) {
            Thread.yield();
        }
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
