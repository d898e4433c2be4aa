package io.basalt.bench.mutator;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * Suite {@code mutator} (HBASE-29645): time per {@code mutate} call on one buffered mutator shared
 * by all threads (1, 10 and 100: the seed's grid), in µs per call and thread.
 *
 * <p>The seed's setup: a 10 MiB write buffer, {@code maxMutations} 100 (a flush every 100 calls)
 * or 100,000 (flushes rare), and a table whose {@code batch()} sleeps 1 ms in the calling thread,
 * standing for a send that blocks in its preparation, then returns complete futures. The
 * benchmark returns each call's future (JMH consumes it) and waits for none, as the seed's did.
 * Every implementation sends the same put and flushes after the same number of mutations (see
 * {@link BufferedWrites}). Each iteration gets a fresh mutator, closed (flushed and awaited) when
 * the iteration ends, so nothing carries over. Run: {@code ./basalt bench mutator} (or
 * {@code --quick}).
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
public class MutatorBenchmark {

    /** The seed's write buffer: 10 MiB. */
    public static final long WRITE_BUFFER_SIZE = 10L * 1024 * 1024;

    @Param({"basalt", "coarse-lock", "hbase-2.6.4"})
    public String impl;

    @Param({"100", "100000"})
    public int maxMutations;

    private BufferedWrites writes;

    @Setup(Level.Iteration)
    public void open() {
        writes = BufferedWrites.of(impl, maxMutations, WRITE_BUFFER_SIZE);
    }

    @TearDown(Level.Iteration)
    public void close() {
        writes.close();
    }

    @Benchmark
    public CompletableFuture<Void> mutate() {
        return writes.mutate();
    }
}
