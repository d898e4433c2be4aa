package io.basalt.client;

import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * Reads and writes one table without blocking the caller: every operation returns a future.
 * The embedded store and the network client implement it alike, and one contract test suite
 * checks both.
 *
 * <p>A write's future completes once the write is durable as the store is configured
 * ({@link Durability}) and visible to every read that starts afterwards. A failure completes the
 * future exceptionally with a {@link BasaltException} that says what went wrong. Callbacks attached
 * to these futures never run while the store holds one of its locks.
 */
public interface AsyncTable {

    /** The table's name. */
    String name();

    CompletableFuture<Void> put(Put put);

    CompletableFuture<Result> get(Get get);

    CompletableFuture<Void> delete(Delete delete);

    /**
     * Applies each mutation atomically on its own row; mutations of different rows are independent.
     * The list of futures matches {@code mutations} one to one: each completes with its own
     * outcome ({@code null} for puts and deletes, the new values for increments).
     */
    List<CompletableFuture<Object>> batch(List<? extends Mutation> mutations);

    /**
     * Applies the mutations when the condition holds, all under the row's lock. Completes with
     * {@code true} when they were applied.
     */
    CompletableFuture<Boolean> checkAndMutate(CheckAndMutate checkAndMutate);

    /** Adds to counters atomically; completes with their new values. */
    CompletableFuture<Result> increment(Increment increment);

    /**
     * Applies the puts and deletes of one row together, atomically: a reader sees all of them or
     * none.
     */
    default CompletableFuture<Void> mutateRow(RowMutations mutations) {
        return checkAndMutate(CheckAndMutate.onRow(mutations.row()).always().then(mutations)).thenApply(held -> null);
    }

    /** Appends to columns of one row, atomically; completes with their new values. */
    CompletableFuture<Result> append(Append append);

    /**
     * Iterates over a scan's rows. The scanner reads one snapshot of the table: writes that
     * complete after it opened are not seen. Close it when done.
     */
    ResultScanner scanner(Scan scan);

    /** Every row of a scan, gathered into one list; use {@link #scanner} for large scans. */
    CompletableFuture<List<Result>> scanAll(Scan scan);

    /**
     * Streams a scan's rows to {@code consumer} without blocking the caller, with backpressure:
     * the consumer can suspend the flow and resume it later, or terminate it. Rows come one at a
     * time in scan order from one thread (a virtual thread that owns the scanner).
     */
    default void scan(Scan scan, ScanConsumer consumer) {
        ResultScanner scanner;
        try {
            scanner = scanner(scan);
        } catch (RuntimeException e) {
            consumer.onError(e);
            return;
        }
        ScanDriver.start(scanner, consumer);
    }
}
