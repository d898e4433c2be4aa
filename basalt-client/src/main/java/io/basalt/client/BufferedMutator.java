package io.basalt.client;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Buffers mutations for one table and sends them in batches, so many small writes cost a few
 * round trips; each mutation still gets its own future with its own outcome.
 *
 * <h2>Design (see HBASE-29645)</h2>
 *
 * HBase 2.6's {@code AsyncBufferedMutatorImpl} sends a full buffer with {@code table.batch()}
 * inside a {@code synchronized} method, so every writer waits behind whichever thread happens to
 * flush. The seed's fix (apache/hbase#7363, closed unmerged) moved the send out of the lock and
 * measured up to 114x at 100 threads on 10 cores, but on a careful reading it also had faults:
 * with {@code maxMutations} disabled every call flushed; the periodic-flush timer field was read
 * and written under two different monitors; and a {@code mutate} racing {@code close} could leave
 * a future that never completed.
 *
 * <p>Here the critical section ({@link #lock}) only appends to the current batch and, when a
 * trigger fires, swaps it for an empty one and queues it. Everything slow happens outside:
 * sending, and every user callback (futures are completed by the table's threads, never while
 * the lock is held, so a callback may call {@link #mutate} again). Rules the tests pin:
 * <ul>
 *   <li>Triggers: buffered bytes reach {@code writeBufferSize}; the count reaches
 *       {@code maxMutations} (only when it is positive); the periodic timer, measured from the
 *       first mutation of the batch; {@link #flush()}; {@link #close()}.</li>
 *   <li>The timer belongs to one batch: it is armed by the batch's first mutation, cancelled when
 *       the batch is swapped for any other reason, and a timer that fires late for a batch already
 *       sent finds a different batch generation and does nothing. All timer state is guarded by
 *       {@link #lock}, the same lock as the buffer.</li>
 *   <li>Queued batches are sent in the order they were swapped, by whichever thread finds the
 *       send queue idle (one drainer at a time, guarded by a flag), so one thread's mutations
 *       reach the table in the order it called {@link #mutate}; the table applies mutations of one
 *       row in the order it receives them.</li>
 *   <li>{@link #close()} marks the mutator closed and swaps the last batch in one critical section;
 *       a {@code mutate} either got in before (its mutation is sent) or sees it closed and fails at
 *       once. No future is left uncompleted.</li>
 *   <li>Validation (a put without cells, a cell larger than {@code maxKeyValueSize}) fails the call
 *       synchronously and buffers nothing from it.</li>
 * </ul>
 */
public final class BufferedMutator implements AutoCloseable {

    /** Default bytes buffered before a send: 2 MiB. */
    public static final long DEFAULT_WRITE_BUFFER_SIZE = 2L * 1024 * 1024;
    /** Default largest cell: 10 MiB. */
    public static final long DEFAULT_MAX_KEY_VALUE_SIZE = 10L * 1024 * 1024;

    /** Sees the failure of each mutation that failed, after its own future did. */
    @FunctionalInterface
    public interface FailureListener {
        void onFailure(Mutation mutation, Throwable failure);
    }

    private static final ScheduledExecutorService SHARED_TIMER = Executors.newSingleThreadScheduledExecutor(
            r -> Thread.ofPlatform().name("basalt-mutator-timer").daemon().unstarted(r));

    /** The mutations buffered since the last swap, with their futures. */
    private static final class Batch {
        final long generation;
        final List<Mutation> mutations = new ArrayList<>();
        final List<CompletableFuture<Void>> futures = new ArrayList<>();
        long bytes;
        ScheduledFuture<?> timer;

        Batch(long generation) {
            this.generation = generation;
        }
    }

    private final AsyncTable table;
    private final long writeBufferSize;
    private final int maxMutations;
    private final Duration periodicFlush;
    private final long maxKeyValueSize;
    private final FailureListener listener;
    private final ScheduledExecutorService timer;

    private final ReentrantLock lock = new ReentrantLock();
    // Guarded by lock.
    private Batch current = new Batch(0);
    private final ArrayDeque<Batch> toSend = new ArrayDeque<>();
    private final List<CompletableFuture<Void>> unfinished = new ArrayList<>();
    private boolean draining;
    private boolean closed;
    private CompletableFuture<Void> closing;

    private BufferedMutator(Builder b) {
        this.table = b.table;
        this.writeBufferSize = b.writeBufferSize;
        this.maxMutations = b.maxMutations;
        this.periodicFlush = b.periodicFlush;
        this.maxKeyValueSize = b.maxKeyValueSize;
        this.listener = b.listener;
        this.timer = b.timer;
    }

    /** Starts configuring a mutator over {@code table}. */
    public static Builder builder(AsyncTable table) {
        return new Builder(table);
    }

    /** The table this mutator writes to. */
    public AsyncTable table() {
        return table;
    }

    /**
     * Buffers one mutation; the future completes with its outcome once the batch holding it was
     * applied.
     *
     * @throws IllegalArgumentException when the mutation is invalid (nothing is buffered)
     * @throws IllegalStateException when the mutator is closed
     */
    public CompletableFuture<Void> mutate(Mutation mutation) {
        Objects.requireNonNull(mutation, "mutation");
        validate(mutation);
        CompletableFuture<Void> future = new CompletableFuture<>();
        long size = mutation.heapSize();
        boolean send = false;
        lock.lock();
        try {
            if (closed) {
                throw new IllegalStateException("the buffered mutator for table '" + table.name()
                        + "' is closed; it accepts no more mutations");
            }
            Batch batch = current;
            batch.mutations.add(mutation);
            batch.futures.add(future);
            batch.bytes += size;
            if (batch.mutations.size() == 1 && periodicFlush.isPositive()) {
                long generation = batch.generation;
                batch.timer = timer.schedule(() -> timerFired(generation), periodicFlush.toNanos(), TimeUnit.NANOSECONDS);
            }
            if (batch.bytes >= writeBufferSize || (maxMutations > 0 && batch.mutations.size() >= maxMutations)) {
                swap();
                send = true;
            }
        } finally {
            lock.unlock();
        }
        if (send) {
            drain();
        }
        return future;
    }

    private void validate(Mutation mutation) {
        if (mutation instanceof Put put && put.isEmpty()) {
            throw new IllegalArgumentException("put of row " + io.basalt.bytes.Bytes.toStringBinary(put.row())
                    + " has no cells");
        }
        if (mutation instanceof Increment && mutation.cells().isEmpty()) {
            throw new IllegalArgumentException("increment has no columns");
        }
        long largest = mutation.largestCellSize();
        if (maxKeyValueSize > 0 && largest > maxKeyValueSize) {
            throw new IllegalArgumentException("a cell of " + largest + " bytes exceeds maxKeyValueSize "
                    + maxKeyValueSize);
        }
    }

    /** Queues the current batch for sending and starts a new one. Caller holds the lock. */
    private void swap() {
        Batch full = current;
        current = new Batch(full.generation + 1);
        if (full.timer != null) {
            full.timer.cancel(false);
        }
        if (!full.mutations.isEmpty()) {
            toSend.add(full);
            CompletableFuture<Void> done = CompletableFuture.allOf(full.futures.toArray(CompletableFuture[]::new))
                    .exceptionally(failure -> null);
            unfinished.add(done);
            done.whenComplete((ignored, failure) -> forget(done));
        }
    }

    private void forget(CompletableFuture<Void> done) {
        lock.lock();
        try {
            unfinished.remove(done);
        } finally {
            lock.unlock();
        }
    }

    private void timerFired(long generation) {
        lock.lock();
        try {
            if (current.generation != generation || current.mutations.isEmpty()) {
                return; // a stale timer: its batch was already sent
            }
            swap();
        } finally {
            lock.unlock();
        }
        drain();
    }

    /** Sends queued batches in order; one thread at a time does it. */
    private void drain() {
        while (true) {
            Batch batch;
            lock.lock();
            try {
                if (draining || toSend.isEmpty()) {
                    return; // the drainer at work sends what was queued, in order
                }
                draining = true;
                batch = toSend.poll();
            } finally {
                lock.unlock();
            }
            try {
                send(batch);
            } finally {
                lock.lock();
                try {
                    draining = false;
                } finally {
                    lock.unlock();
                }
            }
        }
    }

    private void send(Batch batch) {
        List<CompletableFuture<Object>> results;
        try {
            results = table.batch(batch.mutations);
        } catch (RuntimeException e) {
            for (int i = 0; i < batch.mutations.size(); i++) {
                fail(batch.mutations.get(i), batch.futures.get(i), e);
            }
            return;
        }
        for (int i = 0; i < batch.mutations.size(); i++) {
            Mutation mutation = batch.mutations.get(i);
            CompletableFuture<Void> future = batch.futures.get(i);
            CompletableFuture<Object> result = i < results.size() ? results.get(i)
                    : CompletableFuture.failedFuture(new BasaltException("the table returned no outcome for a mutation"));
            result.whenComplete((ignored, failure) -> {
                if (failure == null) {
                    future.complete(null);
                } else {
                    fail(mutation, future, failure);
                }
            });
        }
    }

    private void fail(Mutation mutation, CompletableFuture<Void> future, Throwable failure) {
        Throwable cause = failure instanceof java.util.concurrent.CompletionException && failure.getCause() != null
                ? failure.getCause() : failure;
        future.completeExceptionally(cause);
        if (listener != null) {
            listener.onFailure(mutation, cause);
        }
    }

    /**
     * Sends what is buffered; the future completes when every mutation buffered before this call
     * is done (failed mutations fail their own futures, not this one).
     */
    public CompletableFuture<Void> flush() {
        CompletableFuture<Void> all;
        lock.lock();
        try {
            swap();
            all = CompletableFuture.allOf(unfinished.toArray(CompletableFuture[]::new));
        } finally {
            lock.unlock();
        }
        drain();
        return all;
    }

    /**
     * Flushes and refuses further mutations. Returns a future that completes when every buffered
     * mutation is done; calling it again returns the same future.
     */
    public CompletableFuture<Void> closeAsync() {
        CompletableFuture<Void> result;
        lock.lock();
        try {
            if (closing != null) {
                return closing;
            }
            closed = true;
            swap();
            closing = CompletableFuture.allOf(unfinished.toArray(CompletableFuture[]::new));
            result = closing;
        } finally {
            lock.unlock();
        }
        drain();
        return result;
    }

    /** {@link #closeAsync()} and wait for it. */
    @Override
    public void close() {
        closeAsync().join();
    }

    /** Mutations buffered and not yet handed to the table. */
    public int buffered() {
        lock.lock();
        try {
            int n = current.mutations.size();
            for (Batch batch : toSend) {
                n += batch.mutations.size();
            }
            return n;
        } finally {
            lock.unlock();
        }
    }

    /** Configures a {@link BufferedMutator}; every option has its documented default. */
    public static final class Builder {
        private final AsyncTable table;
        private long writeBufferSize = DEFAULT_WRITE_BUFFER_SIZE;
        private int maxMutations;
        private Duration periodicFlush = Duration.ZERO;
        private long maxKeyValueSize = DEFAULT_MAX_KEY_VALUE_SIZE;
        private FailureListener listener;
        private ScheduledExecutorService timer = SHARED_TIMER;

        private Builder(AsyncTable table) {
            this.table = Objects.requireNonNull(table, "table");
        }

        /** Bytes (heap estimate) buffered before a send; default 2 MiB. */
        public Builder writeBufferSize(long bytes) {
            if (bytes < 1) {
                throw new IllegalArgumentException("writeBufferSize must be positive, not " + bytes);
            }
            this.writeBufferSize = bytes;
            return this;
        }

        /** Mutations buffered before a send; 0 or less (the default) turns the trigger off. */
        public Builder maxMutations(int count) {
            this.maxMutations = count;
            return this;
        }

        /** Sends a batch this long after its first mutation; zero (the default) turns it off. */
        public Builder periodicFlush(Duration after) {
            if (after.isNegative()) {
                throw new IllegalArgumentException("periodicFlush must not be negative: " + after);
            }
            this.periodicFlush = after;
            return this;
        }

        /** Largest encoded cell accepted; default 10 MiB, 0 turns the check off. */
        public Builder maxKeyValueSize(long bytes) {
            this.maxKeyValueSize = bytes;
            return this;
        }

        /** Called for each failed mutation, after its future failed. */
        public Builder listener(FailureListener failures) {
            this.listener = failures;
            return this;
        }

        /**
         * The scheduler for periodic flushes; mutators of one connection share one. The default is
         * one daemon thread shared by every mutator of the process, never a thread per mutator.
         */
        public Builder timer(ScheduledExecutorService scheduler) {
            this.timer = Objects.requireNonNull(scheduler, "scheduler");
            return this;
        }

        public BufferedMutator build() {
            return new BufferedMutator(this);
        }
    }
}
