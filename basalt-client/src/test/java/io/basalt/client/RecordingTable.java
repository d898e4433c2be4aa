package io.basalt.client;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Predicate;

/**
 * An {@link AsyncTable} for mutator tests: records every batch it receives, completes each
 * mutation at once (or fails those {@link #failWhen} picks, or holds them until {@link #release}).
 */
final class RecordingTable implements AsyncTable {

    final List<List<Mutation>> batches = Collections.synchronizedList(new ArrayList<>());
    /** The thread of each {@link #batch} call, in order. */
    final List<Thread> senders = Collections.synchronizedList(new ArrayList<>());
    private final List<CompletableFuture<Object>> held = Collections.synchronizedList(new ArrayList<>());
    private volatile Predicate<Mutation> failWhen = m -> false;
    private volatile boolean hold;
    private final AtomicReference<CountDownLatch[]> stallNext = new AtomicReference<>();

    void failWhen(Predicate<Mutation> predicate) {
        this.failWhen = predicate;
    }

    void hold(boolean on) {
        this.hold = on;
    }

    /**
     * Makes the next {@link #batch} call, once it recorded its batch, open {@code stalled} and block
     * its caller until {@code release} opens: a send stuck in its preparation.
     */
    void stallNextBatch(CountDownLatch stalled, CountDownLatch release) {
        stallNext.set(new CountDownLatch[] {stalled, release});
    }

    /** Completes every held mutation successfully. */
    void release() {
        List<CompletableFuture<Object>> copy;
        synchronized (held) {
            copy = new ArrayList<>(held);
            held.clear();
        }
        copy.forEach(f -> f.complete(null));
    }

    List<Mutation> applied() {
        List<Mutation> all = new ArrayList<>();
        synchronized (batches) {
            batches.forEach(all::addAll);
        }
        return all;
    }

    @Override
    public String name() {
        return "recording";
    }

    @Override
    public List<CompletableFuture<Object>> batch(List<? extends Mutation> mutations) {
        senders.add(Thread.currentThread());
        batches.add(List.copyOf(mutations));
        CountDownLatch[] stall = stallNext.getAndSet(null);
        if (stall != null) {
            stall[0].countDown();
            try {
                stall[1].await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        List<CompletableFuture<Object>> out = new ArrayList<>();
        for (Mutation m : mutations) {
            if (failWhen.test(m)) {
                out.add(CompletableFuture.failedFuture(new BasaltException("rejected " + m)));
            } else if (hold) {
                CompletableFuture<Object> f = new CompletableFuture<>();
                held.add(f);
                out.add(f);
            } else {
                out.add(CompletableFuture.completedFuture(null));
            }
        }
        return out;
    }

    @Override
    public CompletableFuture<Void> put(Put put) {
        throw new UnsupportedOperationException("the mutator only batches");
    }

    @Override
    public CompletableFuture<Result> get(Get get) {
        throw new UnsupportedOperationException("the mutator only batches");
    }

    @Override
    public CompletableFuture<Void> delete(Delete delete) {
        throw new UnsupportedOperationException("the mutator only batches");
    }

    @Override
    public CompletableFuture<Boolean> checkAndMutate(CheckAndMutate checkAndMutate) {
        throw new UnsupportedOperationException("the mutator only batches");
    }

    @Override
    public CompletableFuture<Result> increment(Increment increment) {
        throw new UnsupportedOperationException("the mutator only batches");
    }

    @Override
    public CompletableFuture<Result> append(Append append) {
        throw new UnsupportedOperationException("the mutator only batches");
    }

    @Override
    public ResultScanner scanner(Scan scan) {
        throw new UnsupportedOperationException("the mutator only batches");
    }

    @Override
    public CompletableFuture<List<Result>> scanAll(Scan scan) {
        throw new UnsupportedOperationException("the mutator only batches");
    }
}
