package io.basalt.bench.mutator;

import java.util.concurrent.atomic.LongAdder;

/**
 * What every stub table of the {@code mutator} suite does on a batch, the same for each
 * implementation: sleep {@value #SLEEP_MILLIS} ms in the caller's thread (the seed's synthetic
 * stall), and count the batch and its mutations so a test can check that every implementation
 * flushed as often as the others.
 */
public final class BatchCost {

    /** The seed's stall per {@code batch()} call. */
    public static final long SLEEP_MILLIS = 1;

    private final LongAdder batches = new LongAdder();
    private final LongAdder mutations = new LongAdder();

    /** Counts one batch of {@code size} mutations, then sleeps. */
    public void pay(int size) {
        batches.increment();
        mutations.add(size);
        try {
            Thread.sleep(SLEEP_MILLIS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted in a benchmark batch", e);
        }
    }

    public long batches() {
        return batches.sum();
    }

    public long mutations() {
        return mutations.sum();
    }
}
