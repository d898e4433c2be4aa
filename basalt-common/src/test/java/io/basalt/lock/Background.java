package io.basalt.lock;

import java.time.Duration;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * A named thread that runs steps one at a time on request, so a test can make another thread take
 * a lock, hold it across the test's own steps, and release it, all on that one thread.
 */
final class Background implements AutoCloseable {

    /** A step run on the background thread. */
    interface Step<T> {
        T run() throws Exception;
    }

    /** Generous bound for steps that must finish; a deadlock would otherwise hang the build. */
    static final Duration PATIENCE = Duration.ofSeconds(30);

    private final BlockingQueue<Runnable> steps = new LinkedBlockingQueue<>();
    private final Thread thread;

    Background(String name) {
        thread = Thread.ofPlatform().name(name).daemon().start(() -> {
            try {
                while (true) {
                    Runnable step = steps.take();
                    step.run();
                }
            } catch (InterruptedException stop) {
                // close() ends the thread
            }
        });
    }

    Thread thread() {
        return thread;
    }

    /** Starts {@code step} on the background thread and returns its outcome. */
    <T> CompletableFuture<T> submit(Step<T> step) {
        CompletableFuture<T> result = new CompletableFuture<>();
        steps.add(() -> {
            try {
                result.complete(step.run());
            } catch (Throwable e) {
                result.completeExceptionally(e);
            }
        });
        return result;
    }

    /** Runs {@code step} on the background thread and waits for it. */
    <T> T call(Step<T> step) throws Exception {
        return submit(step).get(PATIENCE.toMillis(), TimeUnit.MILLISECONDS);
    }

    /** Waits until the background thread blocks (parks) inside a step. */
    void awaitBlocked() throws InterruptedException {
        awaitBlocked(thread);
    }

    static void awaitBlocked(Thread t) throws InterruptedException {
        long deadline = System.nanoTime() + PATIENCE.toNanos();
        while (true) {
            Thread.State s = t.getState();
            if (s == Thread.State.WAITING || s == Thread.State.TIMED_WAITING) {
                StackTraceElement[] stack = t.getStackTrace();
                for (StackTraceElement e : stack) {
                    if (e.getClassName().equals(LevelLocks.class.getName())
                            || e.getClassName().equals(StripeLock.class.getName())) {
                        return;
                    }
                }
            }
            if (System.nanoTime() > deadline) {
                throw new AssertionError(t.getName() + " never blocked in a lock; state " + s);
            }
            Thread.sleep(1);
        }
    }

    @Override
    public void close() {
        thread.interrupt();
        try {
            thread.join(PATIENCE.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
