package io.basalt.bench.mutator;

import io.basalt.client.AsyncTable;
import io.basalt.client.CheckAndMutate;
import io.basalt.client.Delete;
import io.basalt.client.Get;
import io.basalt.client.Increment;
import io.basalt.client.Mutation;
import io.basalt.client.Put;
import io.basalt.client.Result;
import io.basalt.client.ResultScanner;
import io.basalt.client.Scan;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * The {@code mutator} suite's Basalt table: {@link #batch} blocks its caller for
 * {@link BatchCost#SLEEP_MILLIS} ms, the seed's model of a send that stalls in its preparation
 * (region lookups), then returns futures that are already complete. Nothing else is supported.
 */
final class SleepingTable implements AsyncTable {

    private static final CompletableFuture<Object> DONE = CompletableFuture.completedFuture(null);

    private final BatchCost cost = new BatchCost();

    BatchCost cost() {
        return cost;
    }

    @Override
    public String name() {
        return "bench";
    }

    @Override
    public List<CompletableFuture<Object>> batch(List<? extends Mutation> mutations) {
        cost.pay(mutations.size());
        return Collections.nCopies(mutations.size(), DONE);
    }

    @Override
    public CompletableFuture<Void> put(Put put) {
        throw unsupported();
    }

    @Override
    public CompletableFuture<Result> get(Get get) {
        throw unsupported();
    }

    @Override
    public CompletableFuture<Void> delete(Delete delete) {
        throw unsupported();
    }

    @Override
    public CompletableFuture<Boolean> checkAndMutate(CheckAndMutate checkAndMutate) {
        throw unsupported();
    }

    @Override
    public CompletableFuture<Result> increment(Increment increment) {
        throw unsupported();
    }

    @Override
    public CompletableFuture<Result> append(io.basalt.client.Append append) {
        throw unsupported();
    }

    @Override
    public ResultScanner scanner(Scan scan) {
        throw unsupported();
    }

    @Override
    public CompletableFuture<List<Result>> scanAll(Scan scan) {
        throw unsupported();
    }

    private static UnsupportedOperationException unsupported() {
        return new UnsupportedOperationException("the mutator benchmark's table only batches");
    }
}
