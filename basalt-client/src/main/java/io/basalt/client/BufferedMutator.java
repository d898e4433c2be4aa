package io.basalt.client;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Supplier;

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
 * trigger fires, swaps it for an empty one. Everything slow happens outside: sending, and every
 * user callback (futures are completed by the table's threads, never while the lock is held, so a
 * callback may call {@link #mutate} again). Rules the tests pin:
 * <ul>
 *   <li>Triggers: buffered bytes reach {@code writeBufferSize}; the count reaches
 *       {@code maxMutations} (only when it is positive); the periodic timer, measured from the
 *       first mutation of the batch; {@link #flush()}; {@link #close()}.</li>
 *   <li>The timer belongs to one batch: it is armed by the batch's first mutation, cancelled when
 *       the batch is swapped for any other reason, and a timer that fires late for a batch already
 *       sent finds a different batch generation and does nothing. All timer state is guarded by
 *       {@link #lock}, the same lock as the buffer.</li>
 *   <li>The thread that swaps a batch out sends it (the timer's thread for a periodic flush), and
 *       only that batch: a writer never waits for a send it did not trigger, and a send that
 *       stalls in {@code table.batch()} holds back no other batch. An earlier version had one
 *       drainer send every queued batch in order; with a {@code batch()} that blocks 1 ms, 100
 *       writers queued batches faster than one drainer sent them, the drainer's own
 *       {@code mutate} never returned and the queue filled a 2 GiB heap within a second (the
 *       {@code mutator} benchmark).</li>
 *   <li>Ordering: a batch reaches the table in the order its mutations were buffered, and a
 *       thread that is the only writer (with no periodic flush) sees all its mutations reach the
 *       table in call order. Batches swapped by different threads may be in {@code batch()} at the same time and reach the table in
 *       either order (as in HBase): a caller that needs two mutations of one row applied in order
 *       across writers waits for the first one's future (or {@link #flush()}) before the second.</li>
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
    private final Supplier<ScheduledExecutorService> timer;

    private final ReentrantLock lock = new ReentrantLock();
    // Guarded by lock.
    private Batch current = new Batch(0);
    private final List<CompletableFuture<Void>> unfinished = new ArrayList<>();
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
        Batch full = null;
        lock.lock();
        try {
            if (closed) {
                throw new IllegalStateException("the buffered mutator for table '" + table.name()
                        + "' is closed; it accepts no more mutations");
            }
            Batch batch = current;
            if (batch.mutations.isEmpty() && periodicFlush.isPositive()) {
                // Armed before the mutation is buffered: when the timer cannot run (its connection
                // closed), the call fails and buffers nothing.
                long generation = batch.generation;
                batch.timer = timer.get().schedule(() -> timerFired(generation), periodicFlush.toNanos(),
                        TimeUnit.NANOSECONDS);
            }
            batch.mutations.add(mutation);
            batch.futures.add(future);
            batch.bytes += size;
            if (batch.bytes >= writeBufferSize || (maxMutations > 0 && batch.mutations.size() >= maxMutations)) {
                full = swap();
            }
        } finally {
            lock.unlock();
        }
        if (full != null) {
            send(full);
        }
        return future;
    }

    private void validate(Mutation mutation) {
        if (mutation instanceof Put put && put.isEmpty()) {
            throw new IllegalArgumentException("put of row " + io.basalt.bytes.Bytes.toStringBinary(put.row())
                    + " has no cells");
        }
        if ((mutation instanceof Increment || mutation instanceof Append) && mutation.cells().isEmpty()) {
            throw new IllegalArgumentException((mutation instanceof Append ? "append" : "increment") + " has no columns");
        }
        long largest = mutation.largestCellSize();
        if (maxKeyValueSize > 0 && largest > maxKeyValueSize) {
            throw new IllegalArgumentException("a cell of " + largest + " bytes exceeds maxKeyValueSize "
                    + maxKeyValueSize);
        }
    }

    /**
     * Starts a new batch and returns the full one for the caller to send once it released the
     * lock, or {@code null} when there was nothing buffered. Caller holds the lock.
     */
    private Batch swap() {
        Batch full = current;
        current = new Batch(full.generation + 1);
        if (full.timer != null) {
            full.timer.cancel(false);
        }
        if (full.mutations.isEmpty()) {
            return null;
        }
        CompletableFuture<Void> done = CompletableFuture.allOf(full.futures.toArray(CompletableFuture[]::new))
                .exceptionally(failure -> null);
        unfinished.add(done);
        done.whenComplete((ignored, failure) -> forget(done));
        return full;
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
        Batch full;
        lock.lock();
        try {
            if (current.generation != generation || current.mutations.isEmpty()) {
                return; // a stale timer: its batch was already sent
            }
            full = swap();
        } finally {
            lock.unlock();
        }
        send(full);
    }

    /** Hands a swapped-out batch to the table; never called with the lock held. */
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
        Batch full;
        lock.lock();
        try {
            full = swap();
            all = CompletableFuture.allOf(unfinished.toArray(CompletableFuture[]::new));
        } finally {
            lock.unlock();
        }
        if (full != null) {
            send(full);
        }
        return all;
    }

    /**
     * Flushes and refuses further mutations. Returns a future that completes when every buffered
     * mutation is done; calling it again returns the same future.
     */
    public CompletableFuture<Void> closeAsync() {
        CompletableFuture<Void> result;
        Batch full;
        lock.lock();
        try {
            if (closing != null) {
                return closing;
            }
            closed = true;
            full = swap();
            closing = CompletableFuture.allOf(unfinished.toArray(CompletableFuture[]::new));
            result = closing;
        } finally {
            lock.unlock();
        }
        if (full != null) {
            send(full);
        }
        return result;
    }

    /** {@link #closeAsync()} and wait for it. */
    @Override
    public void close() {
        closeAsync().join();
    }

    /** Mutations in the current batch, not yet swapped out for sending. */
    public int buffered() {
        lock.lock();
        try {
            return current.mutations.size();
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
        private Supplier<ScheduledExecutorService> timer = () -> SHARED_TIMER;

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
         * The scheduler for periodic flushes. Mutators built by {@link Connection#bufferedMutator}
         * share their connection's {@link ConnectionTimer}; for a mutator built with
         * {@link BufferedMutator#builder} the default is one daemon thread shared by every such
         * mutator of the process, never a thread per mutator.
         */
        public Builder timer(ScheduledExecutorService scheduler) {
            Objects.requireNonNull(scheduler, "scheduler");
            this.timer = () -> scheduler;
            return this;
        }

        /** A connection's timer, its thread started when a periodic flush is first armed. */
        Builder timer(ConnectionTimer connectionTimer) {
            this.timer = connectionTimer::scheduler;
            return this;
        }

        public BufferedMutator build() {
            return new BufferedMutator(this);
        }
    }
}
