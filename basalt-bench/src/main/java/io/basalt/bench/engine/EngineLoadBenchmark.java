package io.basalt.bench.engine;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
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
 * Suite {@code engine}, method {@code load}: write {@code rows} rows (one 100-byte cell each) in
 * batches of 1,000 into an empty store, each batch durable (forced) before the next. Scored as
 * time per row. Every invocation starts from an empty directory.
 *
 * <p>Run: {@code ./basalt bench engine} (or {@code --quick}, which loads 20,000 rows).
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
public class EngineLoadBenchmark {

    static final int BATCH = 1000;

    @Param({"basalt", "rocksdb"})
    public String impl;

    @Param({"1000000"})
    public int rows;

    private Path dir;
    private KvEngine engine;

    @Setup(Level.Invocation)
    public void open() throws Exception {
        dir = Files.createTempDirectory("basalt-bench-load-");
        engine = KvEngine.open(impl, dir);
    }

    @TearDown(Level.Invocation)
    public void close() throws Exception {
        engine.close();
        delete(dir);
    }

    static void delete(Path dir) throws java.io.IOException {
        try (Stream<Path> walk = Files.walk(dir)) {
            for (Path p : walk.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(p);
            }
        }
    }

    /** Loads every row; the score is divided by {@code rows} in the report (see docs/benchmarks.md). */
    @Benchmark
    public void load() throws Exception {
        engine.load(0, rows, BATCH);
    }
}
