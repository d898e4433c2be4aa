package io.basalt.client;

import java.util.Objects;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The periodic-flush timer of one {@link Connection}: every {@link BufferedMutator} built through
 * {@link #mutator} shares it. At most one daemon thread, started by the first mutation that arms a
 * periodic flush (a connection whose mutators never use one starts none), and stopped by
 * {@link #close()}, which the owning connection calls when it closes. Thread-safe.
 *
 * <p>A connection implementation owns one instance, returns {@code timer.mutator(table(name))} from
 * {@link Connection#bufferedMutator} and closes the timer in its own {@code close()}. Timed flushes
 * run on this one thread, so a {@code table.batch()} that blocks delays the other mutators' timed
 * flushes by as long; size, count and explicit flushes run on the writers' threads.
 */
public final class ConnectionTimer implements AutoCloseable {

    private final String connection;
    private final ReentrantLock lock = new ReentrantLock();
    // Guarded by lock.
    private ScheduledThreadPoolExecutor executor;
    private boolean closed;

    /** A timer for the connection described by {@code connection} (a directory or host:port), for messages. */
    public ConnectionTimer(String connection) {
        this.connection = Objects.requireNonNull(connection, "connection");
    }

    /**
     * Starts configuring a mutator over {@code table} whose periodic flushes run on this timer.
     *
     * @throws IllegalStateException when the connection is closed
     */
    public BufferedMutator.Builder mutator(AsyncTable table) {
        lock.lock();
        try {
            if (closed) {
                throw closedError();
            }
        } finally {
            lock.unlock();
        }
        return BufferedMutator.builder(table).timer(this);
    }

    /** The scheduler, its thread created on first use. */
    ScheduledExecutorService scheduler() {
        lock.lock();
        try {
            if (closed) {
                throw closedError();
            }
            if (executor == null) {
                ScheduledThreadPoolExecutor created = new ScheduledThreadPoolExecutor(1, r -> Thread.ofPlatform()
                        .name("basalt-mutator-timer " + connection).daemon().unstarted(r));
                created.setRemoveOnCancelPolicy(true); // a cancelled timer (the usual fate) frees its slot at once
                executor = created;
            }
            return executor;
        } finally {
            lock.unlock();
        }
    }

    private IllegalStateException closedError() {
        return new IllegalStateException("the connection to " + connection
                + " is closed; its buffered mutators can no longer flush periodically");
    }

    /**
     * Stops the timer thread, dropping timed flushes not yet run (a mutator's {@code flush()} and
     * {@code close()} still send what it buffered). Idempotent.
     */
    @Override
    public void close() {
        ScheduledThreadPoolExecutor toStop;
        lock.lock();
        try {
            closed = true;
            toStop = executor;
            executor = null;
        } finally {
            lock.unlock();
        }
        if (toStop != null) {
            toStop.shutdownNow();
        }
    }
}
