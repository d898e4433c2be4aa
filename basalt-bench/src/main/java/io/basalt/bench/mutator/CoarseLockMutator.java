package io.basalt.bench.mutator;

import io.basalt.client.AsyncTable;
import io.basalt.client.Mutation;
import io.basalt.client.Put;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * Our model of the pre-fix design (HBASE-29645), for the {@code mutator} suite only: HBase 2.6.4's
 * {@code AsyncBufferedMutatorImpl} over Basalt's types. One monitor guards the buffer, and a
 * mutation that fills it sends the buffer with {@code table.batch()} while still holding the
 * monitor, so every other writer waits for that send. As in 2.6.4: validation and the size
 * estimate happen before the monitor; the triggers are buffered bytes reaching the write buffer
 * size, then the count reaching {@code maxMutations} when positive; {@code flush()} and
 * {@code close()} send under the same monitor; a mutation after close gets a failed future. Each
 * future is completed by a callback on the table's future for its mutation. Left out: the
 * periodic-flush timer (the suite runs with it off, as the seed's benchmark does).
 */
final class CoarseLockMutator {

    private final AsyncTable table;
    private final long writeBufferSize;
    private final int maxMutations;
    private final long maxKeyValueSize;

    // Guarded by this.
    private List<Mutation> mutations = new ArrayList<>();
    private List<CompletableFuture<Void>> futures = new ArrayList<>();
    private long bufferedSize;
    private boolean closed;

    CoarseLockMutator(AsyncTable table, long writeBufferSize, int maxMutations, long maxKeyValueSize) {
        this.table = table;
        this.writeBufferSize = writeBufferSize;
        this.maxMutations = maxMutations;
        this.maxKeyValueSize = maxKeyValueSize;
    }

    CompletableFuture<Void> mutate(Mutation mutation) {
        CompletableFuture<Void> future = new CompletableFuture<>();
        long heapSize = mutation.heapSize();
        if (mutation instanceof Put put && (put.isEmpty() || put.largestCellSize() > maxKeyValueSize)) {
            throw new IllegalArgumentException("invalid put");
        }
        synchronized (this) {
            if (closed) {
                future.completeExceptionally(new IllegalStateException("Already closed"));
                return future;
            }
            mutations.add(mutation);
            futures.add(future);
            bufferedSize += heapSize;
            if (bufferedSize >= writeBufferSize || (maxMutations > 0 && mutations.size() >= maxMutations)) {
                internalFlush();
            }
        }
        return future;
    }

    synchronized void flush() {
        internalFlush();
    }

    synchronized void close() {
        internalFlush();
        closed = true;
    }

    /** Sends the buffer; the caller holds the monitor, which is the point of this model. */
    private void internalFlush() {
        List<Mutation> toSend = mutations;
        if (toSend.isEmpty()) {
            return;
        }
        List<CompletableFuture<Void>> toComplete = futures;
        mutations = new ArrayList<>();
        futures = new ArrayList<>();
        bufferedSize = 0;
        List<CompletableFuture<Object>> results = table.batch(toSend);
        for (int i = 0; i < results.size(); i++) {
            CompletableFuture<Void> done = toComplete.get(i);
            results.get(i).whenComplete((ignored, failure) -> {
                if (failure != null) {
                    done.completeExceptionally(failure);
                } else {
                    done.complete(null);
                }
            });
        }
    }
}
