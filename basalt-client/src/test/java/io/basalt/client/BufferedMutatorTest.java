package io.basalt.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class BufferedMutatorTest {

    private final RecordingTable table = new RecordingTable();
    private final ManualScheduler timer = new ManualScheduler();

    private static Put put(String row) {
        return Put.of(row).addColumn("f", "q", "v");
    }

    private BufferedMutator.Builder builder() {
        return BufferedMutator.builder(table).timer(timer);
    }

    @Test
    void flushesWhenTheBufferIsFull() {
        long one = put("r0").heapSize();
        BufferedMutator mutator = builder().writeBufferSize(3 * one).build();
        mutator.mutate(put("r0"));
        mutator.mutate(put("r1"));
        assertThat(table.batches).isEmpty();
        mutator.mutate(put("r2"));
        assertThat(table.batches).hasSize(1);
        assertThat(table.batches.getFirst()).hasSize(3);
    }

    @Test
    void flushesWhenTheCountIsReached() {
        BufferedMutator mutator = builder().maxMutations(2).build();
        mutator.mutate(put("a"));
        assertThat(table.batches).isEmpty();
        mutator.mutate(put("b"));
        assertThat(table.batches).hasSize(1);
    }

    @Test
    void countTriggerOffNeverFlushesOnCount() {
        for (int off : new int[] {0, -1}) {
            RecordingTable t = new RecordingTable();
            BufferedMutator mutator = BufferedMutator.builder(t).timer(timer).maxMutations(off).build();
            for (int i = 0; i < 1000; i++) {
                mutator.mutate(put("r" + i));
            }
            assertThat(t.batches).as("maxMutations %d", off).isEmpty();
            assertThat(mutator.buffered()).isEqualTo(1000);
        }
    }

    @Test
    void periodicFlushFiresOnceForItsBatch() {
        BufferedMutator mutator = builder().periodicFlush(Duration.ofMillis(100)).build();
        CompletableFuture<Void> first = mutator.mutate(put("a"));
        mutator.mutate(put("b"));
        assertThat(timer.tasks).as("armed by the batch's first mutation only").hasSize(1);

        timer.last().fire();

        assertThat(table.batches).hasSize(1);
        assertThat(table.batches.getFirst()).hasSize(2);
        assertThat(first).isCompleted();
        timer.last().fire();
        assertThat(table.batches).as("firing again sends nothing").hasSize(1);
    }

    @Test
    void sizeFlushManualFlushAndCloseEachCancelThePendingTimer() {
        long one = put("x").heapSize();
        BufferedMutator mutator = builder().periodicFlush(Duration.ofSeconds(1)).writeBufferSize(2 * one).build();
        mutator.mutate(put("a"));
        ManualScheduler.Task bySize = timer.last();
        mutator.mutate(put("b"));
        assertThat(bySize.isCancelled()).as("size flush").isTrue();

        mutator.mutate(put("c"));
        ManualScheduler.Task byFlush = timer.last();
        mutator.flush();
        assertThat(byFlush.isCancelled()).as("manual flush").isTrue();

        mutator.mutate(put("d"));
        ManualScheduler.Task byClose = timer.last();
        mutator.close();
        assertThat(byClose.isCancelled()).as("close").isTrue();
        assertThat(table.applied()).hasSize(4);
    }

    @Test
    void staleTimerNeverFlushesTwice() {
        BufferedMutator mutator = builder().periodicFlush(Duration.ofSeconds(1)).build();
        mutator.mutate(put("a"));
        ManualScheduler.Task stale = timer.last();
        mutator.flush();
        mutator.mutate(put("b"));
        assertThat(table.batches).hasSize(1);

        stale.fire(); // fires although cancelled, as a timer already running would

        assertThat(table.batches).as("the second batch waits for its own timer").hasSize(1);
        assertThat(mutator.buffered()).isEqualTo(1);
        timer.last().fire();
        assertThat(table.batches).hasSize(2);
    }

    @Test
    void mutateAfterCloseFailsClearly() {
        BufferedMutator mutator = builder().build();
        mutator.close();
        assertThatThrownBy(() -> mutator.mutate(put("a")))
                .isInstanceOf(IllegalStateException.class)
                .hasMessage("the buffered mutator for table 'recording' is closed; it accepts no more mutations");
        assertThat(mutator.closeAsync()).isCompleted();
    }

    @Test
    void invalidMutationsFailSynchronouslyAndBufferNothing() {
        BufferedMutator mutator = builder().maxKeyValueSize(100).build();
        assertThatThrownBy(() -> mutator.mutate(Put.of("r")))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("put of row r has no cells");
        assertThatThrownBy(() -> mutator.mutate(Put.of("r").addColumn("f", "q", "x".repeat(200))))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("exceeds maxKeyValueSize 100");
        assertThat(mutator.buffered()).isZero();
        mutator.flush();
        assertThat(table.batches).isEmpty();
    }

    @Test
    void aFailureReachesOnlyItsOwnFutureAndTheListener() throws Exception {
        List<Mutation> reported = new ArrayList<>();
        table.failWhen(m -> Arrays.equals(m.row(), "bad".getBytes()));
        BufferedMutator mutator = builder().listener((m, e) -> reported.add(m)).build();
        CompletableFuture<Void> good1 = mutator.mutate(put("good1"));
        Put badPut = put("bad");
        CompletableFuture<Void> bad = mutator.mutate(badPut);
        CompletableFuture<Void> good2 = mutator.mutate(put("good2"));

        mutator.flush().get(10, TimeUnit.SECONDS);

        assertThat(good1).isCompleted();
        assertThat(good2).isCompleted();
        assertThat(bad).isCompletedExceptionally();
        assertThatThrownBy(bad::join).hasRootCauseInstanceOf(BasaltException.class).hasRootCauseMessage("rejected " + badPut);
        assertThat(reported).containsExactly(badPut);
    }

    @Test
    void flushWaitsForEverythingBufferedBeforeIt() throws Exception {
        table.hold(true);
        BufferedMutator mutator = builder().maxMutations(2).build();
        mutator.mutate(put("a"));
        mutator.mutate(put("b"));   // sent, held by the table
        mutator.mutate(put("c"));   // buffered
        CompletableFuture<Void> flushed = mutator.flush();
        assertThat(flushed).isNotDone();
        table.release();
        flushed.get(10, TimeUnit.SECONDS);
        assertThat(table.applied()).hasSize(3);
    }

    @Test
    void aCallbackThatMutatesDoesNotDeadlock() throws Exception {
        BufferedMutator mutator = builder().maxMutations(1).build();
        CountDownLatch nested = new CountDownLatch(1);
        mutator.mutate(put("outer")).thenRun(() -> mutator.mutate(put("inner")).thenRun(nested::countDown));
        assertThat(nested.await(10, TimeUnit.SECONDS)).isTrue();
        assertThat(table.applied()).extracting(m -> new String(m.row())).containsExactly("outer", "inner");
    }

    @Test
    void aSingleWritersMutationsOfOneRowReachTheTableInCallOrder() {
        BufferedMutator mutator = builder().maxMutations(3).build();
        for (int i = 0; i < 2000; i++) {
            mutator.mutate(Put.of("row").addColumn("f", "seq", Integer.toString(i)));
        }
        mutator.close();
        List<Mutation> applied = table.applied();
        assertThat(applied).hasSize(2000);
        for (int i = 0; i < applied.size(); i++) {
            assertThat(new String(applied.get(i).cells().getFirst().valueBytes())).isEqualTo(Integer.toString(i));
        }
    }

    @Test
    void aSendStalledInTheTableHoldsBackNoOtherWritersBatch() throws Exception {
        BufferedMutator mutator = builder().maxMutations(1).build();
        CountDownLatch stalled = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        table.stallNextBatch(stalled, release);
        ExecutorService pool = Executors.newSingleThreadExecutor();
        try {
            Future<CompletableFuture<Void>> first = pool.submit(() -> mutator.mutate(put("first")));
            assertThat(stalled.await(10, TimeUnit.SECONDS)).isTrue();

            CompletableFuture<Void> second = mutator.mutate(put("second"));

            assertThat(second).as("sent by its own writer while the first send is stalled").isCompleted();
            assertThat(first).as("the first writer is still in its own send").isNotDone();
            release.countDown();
            assertThat(first.get(10, TimeUnit.SECONDS)).isCompleted();
            assertThat(table.applied()).extracting(m -> new String(m.row())).containsExactly("first", "second");
        } finally {
            release.countDown();
            pool.shutdownNow();
        }
    }

    @Test
    void mutateRacingCloseLeavesNoFutureUncompleted() throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(2);
        try {
            for (int round = 0; round < 10_000; round++) {
                RecordingTable t = new RecordingTable();
                BufferedMutator mutator = BufferedMutator.builder(t).timer(timer).build();
                CyclicBarrier start = new CyclicBarrier(2);
                Future<CompletableFuture<Void>> writer = pool.submit(() -> {
                    start.await();
                    try {
                        return mutator.mutate(put("r"));
                    } catch (IllegalStateException closed) {
                        return null;
                    }
                });
                Future<CompletableFuture<Void>> closer = pool.submit(() -> {
                    start.await();
                    return mutator.closeAsync();
                });
                CompletableFuture<Void> written = writer.get(10, TimeUnit.SECONDS);
                closer.get(10, TimeUnit.SECONDS).get(10, TimeUnit.SECONDS);
                if (written != null) {
                    assertThat(written).as("round %d", round).isCompleted();
                    assertThat(t.applied()).hasSize(1);
                } else {
                    assertThat(t.applied()).isEmpty();
                }
            }
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void manyThreadsEveryFutureCompletesOnceAndEveryMutationIsAppliedOnce() throws Exception {
        int threads = 16;
        int each = 5_000;
        BufferedMutator mutator = BufferedMutator.builder(table).maxMutations(64).build();
        Set<String> completed = ConcurrentHashMap.newKeySet();
        AtomicInteger duplicates = new AtomicInteger();
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            List<Future<?>> done = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                int thread = t;
                done.add(pool.submit(() -> {
                    for (int i = 0; i < each; i++) {
                        String row = thread + "-" + i;
                        mutator.mutate(put(row)).thenRun(() -> {
                            if (!completed.add(row)) {
                                duplicates.incrementAndGet();
                            }
                        });
                    }
                }));
            }
            for (Future<?> f : done) {
                f.get(60, TimeUnit.SECONDS);
            }
            mutator.closeAsync().get(60, TimeUnit.SECONDS);
        } finally {
            pool.shutdownNow();
        }
        assertThat(duplicates).hasValue(0);
        assertThat(completed).hasSize(threads * each);
        List<Mutation> applied = table.applied();
        assertThat(applied).hasSize(threads * each);
        assertThat(applied.stream().map(m -> new String(m.row())).distinct().count()).isEqualTo(threads * each);
    }
}
