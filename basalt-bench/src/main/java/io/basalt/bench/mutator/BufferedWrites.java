package io.basalt.bench.mutator;

import io.basalt.client.BufferedMutator;
import io.basalt.client.Put;
import java.lang.reflect.Proxy;
import java.nio.charset.StandardCharsets;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.AsyncBufferedMutator;
import org.apache.hadoop.hbase.client.AsyncTable;
import org.apache.hadoop.hbase.client.BasaltBenchMutators;

/**
 * One buffered mutator under test, with its stub table and the one put it sends over and over:
 * the adapter per {@code impl} of the {@code mutator} suite. Every implementation gets the same
 * options, a table whose batch costs the same ({@link BatchCost}), and a put of the same row,
 * column and estimated heap size, so each flushes after the same number of mutations.
 */
public interface BufferedWrites extends AutoCloseable {

    byte[] ROW = "row-0000000001".getBytes(StandardCharsets.US_ASCII);
    byte[] FAMILY = "f".getBytes(StandardCharsets.US_ASCII);
    byte[] QUALIFIER = "q".getBytes(StandardCharsets.US_ASCII);
    /** The value of HBase's put; Basalt's is padded so its heap estimate is the same. */
    int HBASE_VALUE_LENGTH = 16;
    /** HBase's default {@code hbase.client.keyvalue.maxsize}, and Basalt's. */
    int MAX_KEY_VALUE_SIZE = 10 * 1024 * 1024;

    /** Buffers the put; the future completes when its batch was applied. */
    CompletableFuture<Void> mutate();

    /** The stub table's counts. */
    BatchCost cost();

    /** The heap estimate the mutator adds to its buffer for one put. */
    long heapSizePerMutation();

    /** Sends what is buffered and refuses further mutations; returns once every future is done. */
    @Override
    void close();

    static BufferedWrites of(String impl, int maxMutations, long writeBufferSize) {
        return switch (impl) {
            case "basalt" -> OverSleepingTable.basalt(maxMutations, writeBufferSize);
            case "coarse-lock" -> OverSleepingTable.coarseLock(maxMutations, writeBufferSize);
            case "hbase-2.6.4" -> new HBase(maxMutations, writeBufferSize);
            default -> throw new IllegalArgumentException("unknown impl " + impl);
        };
    }

    /** HBase's put, whose heap estimate every implementation's put matches. */
    static org.apache.hadoop.hbase.client.Put hbasePut() {
        return new org.apache.hadoop.hbase.client.Put(ROW).addColumn(FAMILY, QUALIFIER, new byte[HBASE_VALUE_LENGTH]);
    }

    /** Basalt's put of the same row and column, its value padded to HBase's heap estimate. */
    static Put basaltPut() {
        long target = hbasePut().heapSize();
        long unpadded = new Put(ROW).addColumn(FAMILY, QUALIFIER, new byte[0]).heapSize();
        if (unpadded > target) {
            throw new IllegalStateException("Basalt's put (" + unpadded + " B) is larger than HBase's (" + target + " B)");
        }
        Put put = new Put(ROW).addColumn(FAMILY, QUALIFIER, new byte[(int) (target - unpadded)]);
        if (put.heapSize() != target) {
            throw new IllegalStateException("Basalt's heap estimate is not linear in the value length");
        }
        return put;
    }

    /**
     * A mutator over Basalt's types and a {@link SleepingTable}: Basalt's {@link BufferedMutator},
     * or {@link CoarseLockMutator}, our model of the pre-fix design.
     */
    final class OverSleepingTable implements BufferedWrites {
        private final SleepingTable table = new SleepingTable();
        private final Put put = basaltPut();
        private final Function<Put, CompletableFuture<Void>> mutate;
        private final Runnable close;

        static OverSleepingTable basalt(int maxMutations, long writeBufferSize) {
            return new OverSleepingTable(table -> {
                BufferedMutator mutator = BufferedMutator.builder(table).writeBufferSize(writeBufferSize)
                        .maxMutations(maxMutations).maxKeyValueSize(MAX_KEY_VALUE_SIZE).build();
                return new OverSleepingTable.Ops(mutator::mutate, mutator::close);
            });
        }

        static OverSleepingTable coarseLock(int maxMutations, long writeBufferSize) {
            return new OverSleepingTable(table -> {
                CoarseLockMutator mutator = new CoarseLockMutator(table, writeBufferSize, maxMutations, MAX_KEY_VALUE_SIZE);
                // the stub's futures are complete when batch() returns, so close() leaves none pending
                return new OverSleepingTable.Ops(mutator::mutate, mutator::close);
            });
        }

        private record Ops(Function<Put, CompletableFuture<Void>> mutate, Runnable close) {}

        private OverSleepingTable(Function<SleepingTable, Ops> build) {
            Ops ops = build.apply(table);
            this.mutate = ops.mutate();
            this.close = ops.close();
        }

        @Override
        public CompletableFuture<Void> mutate() {
            return mutate.apply(put);
        }

        @Override
        public BatchCost cost() {
            return table.cost();
        }

        @Override
        public long heapSizePerMutation() {
            return put.heapSize();
        }

        @Override
        public void close() {
            close.run();
        }
    }

    /**
     * HBase 2.6.4's {@code AsyncBufferedMutatorImpl} over a {@link Proxy} of HBase's
     * {@link AsyncTable} whose batch costs what {@link SleepingTable}'s does.
     */
    final class HBase implements BufferedWrites {
        private static final CompletableFuture<Object> DONE = CompletableFuture.completedFuture(null);

        private final BatchCost cost = new BatchCost();
        private final org.apache.hadoop.hbase.client.Put put = hbasePut();
        private final AsyncBufferedMutator mutator;

        HBase(int maxMutations, long writeBufferSize) {
            mutator = BasaltBenchMutators.hbase(sleepingTable(cost), writeBufferSize, maxMutations, MAX_KEY_VALUE_SIZE);
        }

        private static AsyncTable<?> sleepingTable(BatchCost cost) {
            TableName name = TableName.valueOf("bench");
            return (AsyncTable<?>) Proxy.newProxyInstance(AsyncTable.class.getClassLoader(),
                    new Class<?>[] {AsyncTable.class}, (proxy, method, args) -> switch (method.getName()) {
                        case "batch" -> {
                            int size = ((List<?>) args[0]).size();
                            cost.pay(size);
                            yield Collections.nCopies(size, DONE);
                        }
                        case "getName" -> name;
                        case "toString" -> "sleeping HBase table";
                        case "hashCode" -> System.identityHashCode(proxy);
                        case "equals" -> proxy == args[0];
                        default -> throw new UnsupportedOperationException(
                                "the mutator benchmark's HBase table only batches, not " + method.getName());
                    });
        }

        @Override
        public CompletableFuture<Void> mutate() {
            return mutator.mutate(put);
        }

        @Override
        public BatchCost cost() {
            return cost;
        }

        @Override
        public long heapSizePerMutation() {
            return put.heapSize();
        }

        @Override
        public void close() {
            mutator.close(); // the stub's futures are complete when batch() returns, so these are done
        }
    }
}
