package io.basalt.bench;

import io.basalt.bench.cells.CellCompareBenchmark;
import io.basalt.bench.cells.RowCheckBenchmark;
import io.basalt.bench.engine.EngineLoadBenchmark;
import io.basalt.bench.engine.EngineReadBenchmark;
import io.basalt.bench.engine.WideScanBenchmark;
import io.basalt.bench.grouping.GroupingBenchmark;
import io.basalt.bench.locks.LockBenchmark;
import io.basalt.bench.metrics.MetricsOverheadBenchmark;
import io.basalt.bench.mutator.MutatorBenchmark;
import io.basalt.bench.refcount.RefcountBenchmark;
import io.basalt.bench.scan.LoopbackScanBenchmark;
import io.basalt.bench.scan.ResultPathBenchmark;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * The benchmark suites {@code ./basalt bench NAME} knows: one per seed experiment (see
 * {@code shared/BENCHMARKING.md}), each a set of JMH classes whose {@code impl} parameter names the
 * competitors, measured side by side in one run. Suites {@code metrics} and {@code auth} compare
 * one implementation with a feature on and off instead: their parameter ({@code metrics},
 * {@code auth}) takes {@code impl}'s place ({@link #comparedParam()}, {@link #baseline()}).
 */
public enum Suite {

    CELLS("cells", "-", "cell key comparison: in place on the encoding vs decoding to objects first; a decoded"
            + " put's row check on its cells: on the array vs comparing memory segments",
            List.of(CellCompareBenchmark.class, RowCheckBenchmark.class), new int[] {1}),

    REFCOUNT("refcount", "HBASE-27730", "pooled off-heap buffers: scan and retain/release cost vs raw"
            + " MemorySegment, HBase 2.6.4's SingleByteBuff and Netty's pooled ByteBuf",
            List.of(RefcountBenchmark.class), new int[] {1}),

    ENGINE("engine", "-", "embedded engine: batched durable load, random get and full scan vs RocksDB (JNI);"
            + " short scans of YCSB-shaped rows, with and without updated fields in a second file",
            List.of(EngineLoadBenchmark.class, EngineReadBenchmark.class, WideScanBenchmark.class), new int[] {1},
            Map.of("rows", new String[] {"20000"})),

    LOCKS("locks", "HDDS-8765", "lock + unlock throughput: striped hierarchical locks vs a dynamic lock table"
            + " (model of the pre-fix design) and Guava Striped<ReadWriteLock>",
            List.of(LockBenchmark.class), new int[] {1, 2, 10, 100}),

    MUTATOR("mutator", "HBASE-29645", "buffered mutator: mutate() while batches stall 1 ms, vs a coarse-lock model"
            + " of the pre-fix design and HBase 2.6.4's AsyncBufferedMutatorImpl",
            List.of(MutatorBenchmark.class), new int[] {1, 10, 100}),

    GROUPING("grouping", "BookKeeper #3886", "60-byte puts over loopback from 1-500 in-flight streams: grouped"
            + " channel writes vs a flush per request and Netty's FlushConsolidationHandler(1024, true)",
            List.of(GroupingBenchmark.class), new int[] {1}),

    METRICS("metrics", "issue 22", "puts and gets over loopback to a server with the store behind it, 1 and 50"
            + " in-flight streams: recording each request in the metrics (on) vs not (off)",
            List.of(MetricsOverheadBenchmark.class), new int[] {1}),

    AUTH("auth", "issue 23", "puts and gets over loopback to a server with the store behind it, 1 and 50 in-flight"
            + " streams: a user authenticated by password whose every request is checked against its grants"
            + " (password) vs no authentication (none)",
            List.of(io.basalt.bench.metrics.AuthOverheadBenchmark.class), new int[] {1}),

    SCAN("scan", "HBASE-20866", "scan results: serving a decoded batch vs copying it into a list and a cache"
            + " (pre-fix model); an end-to-end loopback scan of 50-column rows vs raw loopback bandwidth",
            List.of(ResultPathBenchmark.class, LoopbackScanBenchmark.class), new int[] {1},
            Map.of("scanRows", new String[] {"20000"})),

    FILTERS("filters", "HBASE-14397", "a scan of 1M rows keeping 1% by row prefix, by a column's value and by a"
            + " fuzzy row mask: filtered in the server vs fetched and filtered in the client, with block and wire bytes",
            List.of(io.basalt.bench.filters.FilterBenchmark.class), new int[] {1},
            Map.of("rows", new String[] {"20000"})),

    /** Not JMH: {@link YcsbSuite} runs it, one JVM per implementation and thread count. */
    YCSB("ycsb", "-", "YCSB load and workloads A-F, 1M records of 10 x 100 bytes: Basalt embedded vs RocksDB (JNI),"
            + " Basalt's server on loopback vs embedded, at 1 and 8 client threads", List.of(), new int[] {1, 8});

    /** The implementation every ratio is taken against (in suites that compare implementations). */
    public static final String BASELINE = "basalt";

    private final String suiteName;
    private final String seed;
    private final String description;
    private final List<Class<?>> benchmarks;
    private final int[] threads;
    private final Map<String, String[]> quickParams;

    Suite(String suiteName, String seed, String description, List<Class<?>> benchmarks, int[] threads) {
        this(suiteName, seed, description, benchmarks, threads, Map.of());
    }

    /**
     * A suite whose {@code --quick} run overrides some parameters (smaller data sets), so the smoke
     * run stays short; the JSON records the values actually used.
     */
    Suite(String suiteName, String seed, String description, List<Class<?>> benchmarks, int[] threads,
          Map<String, String[]> quickParams) {
        this.suiteName = suiteName;
        this.seed = seed;
        this.description = description;
        this.benchmarks = benchmarks;
        this.threads = threads;
        this.quickParams = quickParams;
    }

    /** Parameter values a quick run uses instead of the benchmarks' own. */
    public Map<String, String[]> quickParams() {
        return quickParams;
    }

    /** The name on the command line and of the result file. */
    public String suiteName() {
        return suiteName;
    }

    /** The seed document the suite reproduces, or "-". */
    public String seed() {
        return seed;
    }

    public String description() {
        return description;
    }

    public List<Class<?>> benchmarks() {
        return benchmarks;
    }

    /**
     * The thread counts the suite runs at (the seed's grid); JMH takes one count per run, so the
     * suite runs once per count and the results are merged.
     */
    public int[] threads() {
        return threads.clone();
    }

    /**
     * The parameter whose values the ratios compare: {@code impl} (implementations), except in
     * {@code metrics}, which compares its parameter {@code metrics}.
     */
    public String comparedParam() {
        return this == METRICS ? "metrics" : this == AUTH ? "auth" : "impl";
    }

    /** The value of {@link #comparedParam()} every ratio is taken against. */
    public String baseline() {
        return this == METRICS ? "on" : this == AUTH ? "none" : BASELINE;
    }

    /** The JMH include pattern that selects exactly this suite's benchmarks. */
    public String includePattern() {
        return benchmarks.stream()
                .map(c -> "^" + Pattern.quote(c.getName()) + "\\.")
                .collect(Collectors.joining("|"));
    }

    /** The suite called {@code name}, or an error that lists the known ones. */
    public static Suite named(String name) {
        return Arrays.stream(values())
                .filter(s -> s.suiteName.equals(name))
                .findFirst()
                .orElseThrow(() -> new IllegalArgumentException("no benchmark suite '" + name + "'; known suites: "
                        + Arrays.stream(values()).map(Suite::suiteName).collect(Collectors.joining(", "))));
    }
}
