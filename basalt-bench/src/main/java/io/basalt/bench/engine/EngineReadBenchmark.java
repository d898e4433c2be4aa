package io.basalt.bench.engine;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.SplittableRandom;
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
 * Suite {@code engine}, methods {@code get} (one random row, throughput) and {@code scan} (every
 * row in key order, time per full scan) over {@code rows} rows loaded once per fork and compacted
 * into one sorted run in both engines.
 *
 * <p>Run: {@code ./basalt bench engine} (or {@code --quick}, over 20,000 rows).
 */
@State(Scope.Benchmark)
public class EngineReadBenchmark {

    @Param({"basalt", "rocksdb"})
    public String impl;

    @Param({"1000000"})
    public int rows;

    private Path dir;
    private KvEngine engine;
    private final SplittableRandom random = new SplittableRandom(7);

    @Setup(Level.Trial)
    public void load() throws Exception {
        dir = Files.createTempDirectory("basalt-bench-read-");
        engine = KvEngine.open(impl, dir);
        engine.load(0, rows, EngineLoadBenchmark.BATCH);
        engine.settle();
    }

    @TearDown(Level.Trial)
    public void close() throws Exception {
        engine.close();
        EngineLoadBenchmark.delete(dir);
    }

    @Benchmark
    @BenchmarkMode(Mode.Throughput)
    @OutputTimeUnit(TimeUnit.SECONDS)
    public byte[] get() throws Exception {
        return engine.get(random.nextInt(rows));
    }

    @Benchmark
    @BenchmarkMode(Mode.AverageTime)
    @OutputTimeUnit(TimeUnit.MILLISECONDS)
    public long scan() throws Exception {
        return engine.scan();
    }
}
