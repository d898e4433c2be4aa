package io.basalt.bench.mutator;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/** The {@code mutator} suite's implementations do the same work, so their times compare. */
class BufferedWritesTest {

    private static final List<String> IMPLS = List.of("basalt", "coarse-lock", "hbase-2.6.4");

    @Test
    void everyImplementationBuffersTheSameHeapEstimatePerPut() {
        List<Long> sizes = new ArrayList<>();
        for (String impl : IMPLS) {
            try (BufferedWrites writes = BufferedWrites.of(impl, 100, MutatorBenchmark.WRITE_BUFFER_SIZE)) {
                sizes.add(writes.heapSizePerMutation());
            }
        }
        assertThat(sizes).containsOnly(BufferedWrites.hbasePut().heapSize());
    }

    @Test
    void everyImplementationFlushesAfterTheSameNumberOfMutationsAndCompletesEveryFuture() {
        int calls = 250_000;
        for (int maxMutations : new int[] {100, 100_000}) {
            List<Long> batchesBeforeClose = new ArrayList<>();
            for (String impl : IMPLS) {
                BufferedWrites writes = BufferedWrites.of(impl, maxMutations, MutatorBenchmark.WRITE_BUFFER_SIZE);
                List<CompletableFuture<Void>> futures = new ArrayList<>(calls);
                for (int i = 0; i < calls; i++) {
                    futures.add(writes.mutate());
                }
                batchesBeforeClose.add(writes.cost().batches());
                writes.close();
                assertThat(writes.cost().mutations()).as(impl).isEqualTo(calls);
                assertThat(futures).as(impl).allMatch(f -> f.isDone() && !f.isCompletedExceptionally());
            }
            long perFlush = Math.min(maxMutations,
                    -Math.floorDiv(-MutatorBenchmark.WRITE_BUFFER_SIZE, BufferedWrites.hbasePut().heapSize()));
            assertThat(batchesBeforeClose).as("maxMutations %d", maxMutations).containsOnly(calls / perFlush);
        }
    }
}
