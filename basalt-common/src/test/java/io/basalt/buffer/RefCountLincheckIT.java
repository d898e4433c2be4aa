package io.basalt.buffer;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.List;
import org.jetbrains.kotlinx.lincheck.Actor;
import org.jetbrains.kotlinx.lincheck.LinChecker;
import org.jetbrains.kotlinx.lincheck.annotations.Operation;
import org.jetbrains.kotlinx.lincheck.annotations.Validate;
import org.jetbrains.kotlinx.lincheck.execution.ExecutionScenario;
import org.jetbrains.kotlinx.lincheck.strategy.managed.modelchecking.ModelCheckingOptions;
import org.junit.jupiter.api.Test;

/**
 * Lincheck's model checker explores the thread interleavings of concurrent {@code retain} and
 * {@code release} (on every shared-memory access, not just at random) and checks that every
 * outcome is linearizable: explainable by running the same calls one at a time. On top of that,
 * after each run: the recycler ran at most once, exactly when the count is zero, and never while
 * the count was live. The chunk stack gets the same treatment, which is what catches an ABA bug
 * (a chunk handed out twice), a race too narrow for any stress test to hit.
 *
 * <p>Lincheck 2.39 runs on JDK 25 only with ASM 9.8 and ByteBuddy 1.17 (pinned in the parent POM).
 * It instruments classes with a Java agent, so it runs as an integration test, in Failsafe's own
 * JVM, away from the unit tests. Budgets are small (each explored interleaving costs milliseconds
 * under the agent); the scenarios are small too, which is where these bugs live.
 */
class RefCountLincheckIT {

    private static final int INVOCATIONS = 200;

    private static ModelCheckingOptions options(int iterations) {
        return new ModelCheckingOptions()
                .iterations(iterations)
                .invocationsPerIteration(INVOCATIONS)
                .threads(3)
                .actorsPerThread(2)
                .actorsBefore(1)
                .actorsAfter(1);
    }

    @Test
    void concurrentRetainAndReleaseAreLinearizableAndRecycleExactlyOnce() {
        LinChecker.check(SharedCount.class, options(10));
    }

    @Test
    void theChunkStackNeverHandsOutAChunkTwice() throws Exception {
        LinChecker.check(FreeChunks.class, options(4).addCustomScenario(FreeChunks.aba()));
    }

    /** A count that starts at 2, so a scenario reaches zero, and beyond, within a few releases. */
    public static final class SharedCount {

        private final AtomicInteger recycled = new AtomicInteger();
        private volatile boolean recycledWhileLive;
        private final RefCount count = new RefCount(rc -> {
            if (rc.count() != 0) {
                recycledWhileLive = true;
            }
            recycled.incrementAndGet();
        }, 0, null);

        public SharedCount() {
            count.retain();
        }

        @Operation
        public String retain() {
            try {
                count.retain();
                return "retained";
            } catch (IllegalStateException e) {
                return "refused: released";
            }
        }

        @Operation
        public String release() {
            try {
                return count.release() ? "recycled" : "released one";
            } catch (IllegalStateException e) {
                return "refused: released";
            }
        }

        @Validate
        public void recycledOnceExactlyWhenTheCountIsZero() {
            int runs = recycled.get();
            if (runs > 1 || (count.count() == 0) != (runs == 1) || recycledWhileLive
                    || (runs == 1) != (count.recycler == null)) {
                throw new IllegalStateException("recycled " + runs + " times, count " + count.count()
                        + ", recycled while live: " + recycledWhileLive);
            }
        }
    }

    /**
     * Four chunks on the free stack; threads take chunks and give back the lowest one that is out.
     * Results carry no chunk numbers (any order of hand-outs is fine); what must never happen is
     * {@code take} finding its chunk already out, which throws, and no sequential run throws.
     */
    public static final class FreeChunks {

        private final ChunkStack stack = new ChunkStack(4);
        /** 1 while a chunk is out of the stack: claimed by CAS, so a double hand-out shows. */
        private final AtomicIntegerArray out = new AtomicIntegerArray(4);

        public FreeChunks() {
            stack.pushRange(0, 4);
        }

        @Operation
        public void take() {
            int chunk = stack.pop();
            if (chunk != ChunkStack.EMPTY && !out.compareAndSet(chunk, 0, 1)) {
                throw new IllegalStateException("chunk " + chunk + " handed out twice");
            }
        }

        @Operation
        public void giveBackLowest() {
            for (int chunk = 0; chunk < 4; chunk++) {
                if (out.compareAndSet(chunk, 1, 0)) {
                    stack.push(chunk);
                    return;
                }
            }
        }

        /**
         * The ABA case spelled out: thread 1 starts to take the top chunk and stalls; thread 2
         * takes it and the next one, gives the first back; thread 1 resumes. The model checker
         * tries the stall at every point.
         */
        static ExecutionScenario aba() throws NoSuchMethodException {
            Actor take = actor("take");
            Actor giveBack = actor("giveBackLowest");
            return new ExecutionScenario(List.of(), List.of(List.of(take, take), List.of(take, take, giveBack)),
                    List.of(take, take), null);
        }

        private static Actor actor(String method) throws NoSuchMethodException {
            return new Actor(FreeChunks.class.getMethod(method), List.of(), false, false, false, false, false);
        }
    }
}
