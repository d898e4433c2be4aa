package io.basalt.bench.filters;

import io.basalt.bytes.Bytes;
import io.basalt.cell.Cell;
import io.basalt.cell.CellLayout;
import io.basalt.client.AsyncTable;
import io.basalt.client.Basalt;
import io.basalt.client.BufferedMutator;
import io.basalt.client.Connection;
import io.basalt.client.Put;
import io.basalt.client.Result;
import io.basalt.client.ResultScanner;
import io.basalt.client.Scan;
import io.basalt.client.TableDescriptor;
import io.basalt.client.filter.BinaryComparator;
import io.basalt.client.filter.CompareOperator;
import io.basalt.client.filter.Filter;
import io.basalt.client.filter.FuzzyRowFilter;
import io.basalt.client.filter.PrefixFilter;
import io.basalt.client.filter.SingleColumnValueFilter;
import io.basalt.engine.EngineCounters;
import io.basalt.server.BasaltServer;
import io.basalt.server.ServerConfig;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.openjdk.jmh.annotations.AuxCounters;
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
 * Suite {@code filters}: a scan of {@code rows} rows (a server on 127.0.0.1, one file after a major
 * compaction, a warm block cache) that keeps 1% of them, three ways, time per scan:
 *
 * <ul>
 *   <li>{@code prefix}: rows whose key starts with {@code 42-} (one contiguous 1%), with no start row;</li>
 *   <li>{@code value}: rows whose {@code f:kind} is {@code k07} ({@code SingleColumnValueFilter}, 1%
 *       spread over the whole table);</li>
 *   <li>{@code fuzzy}: rows {@code ??-07-??????} ({@code FuzzyRowFilter}: the same rows as
 *       {@code value}, a run of {@code rows / 10,000} rows in each of the 100 key prefixes).</li>
 * </ul>
 *
 * Two implementations: {@code basalt} sends the filter and the server evaluates it in its region
 * reader (seeking where it can); {@code client} fetches every row and keeps the same 1% in the
 * client, as an application without server-side filters has to. Next to the time, two counters
 * per scan: {@code blockBytes}, the bytes of SSTable blocks the server's readers touched (cache
 * hits included; {@link EngineCounters}), and {@code resultBytes}, the encoded cells that crossed
 * the network to the client.
 *
 * <p>{@code ./basalt bench filters} (full), {@code --quick} (20,000 rows). The data set is loaded
 * once per size into the temporary directory and reused by later forks and runs.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
public class FilterBenchmark {

    @Param({"basalt", "client"})
    public String impl;

    @Param({"prefix", "value", "fuzzy"})
    public String filter;

    @Param({"1000000"})
    public int rows;

    private static final byte[] F = Bytes.utf8("f");
    private static final byte[] KIND = Bytes.utf8("kind");
    private static final byte[] DATA = Bytes.utf8("data");
    private static final byte[] FUZZY_MASK = {1, 1, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1};

    private BasaltServer server;
    private Connection client;
    private AsyncTable table;
    private int expected;

    /** Per-scan counters, reported beside the time (each scan overwrites them: every scan reads the same). */
    @State(Scope.Thread)
    @AuxCounters(AuxCounters.Type.EVENTS)
    public static class Counters {
        public long blockBytes;
        public long resultBytes;
    }

    /**
     * The row key of record {@code i}: {@code PP-BB-SSSSSS}, prefix {@code i % 100}, bucket
     * {@code i / 100 % 100}, then {@code i / 10,000}; record {@code i}'s {@code f:kind} is {@code k}
     * and its bucket.
     */
    static byte[] key(int i) {
        return Bytes.utf8(String.format("%02d-%02d-%06d", i % 100, i / 100 % 100, i / 10_000));
    }

    @Setup(Level.Trial)
    public void start() throws Exception {
        Path dir = Path.of(System.getProperty("java.io.tmpdir"), "basalt-bench-filters-" + rows);
        boolean loaded = Files.exists(dir.resolve("LOADED"));
        if (!loaded && Files.exists(dir)) {
            try (Stream<Path> walk = Files.walk(dir)) {
                for (Path p : walk.sorted(Comparator.reverseOrder()).toList()) {
                    Files.delete(p);
                }
            }
        }
        server = BasaltServer.start(ServerConfig.defaults().withPort(0).withDataDir(dir).withIoThreads(1));
        client = Basalt.connect("basalt://127.0.0.1:" + server.address().getPort());
        if (!loaded) {
            load();
            Files.writeString(dir.resolve("LOADED"), "rows=" + rows + "\n");
        }
        table = client.table("t");
        expected = rows / 100;
        long kept = scan(new Counters());
        if (kept != expected) {
            throw new IllegalStateException(impl + " " + filter + " kept " + kept + " rows, not " + expected);
        }
    }

    private void load() throws Exception {
        client.admin().createTable(TableDescriptor.of("t", "f")).get(60, TimeUnit.SECONDS);
        byte[] data = new byte[100];
        Arrays.fill(data, (byte) 'x');
        try (BufferedMutator mutator = client.bufferedMutator("t").build()) {
            for (int i = 0; i < rows; i++) {
                mutator.mutate(new Put(key(i)).addColumn(F, KIND, Bytes.utf8(String.format("k%02d", i / 100 % 100)))
                        .addColumn(F, DATA, data));
            }
        }
        client.admin().flush("t").get(600, TimeUnit.SECONDS);
        client.admin().compact("t").get(1800, TimeUnit.SECONDS);
    }

    @TearDown(Level.Trial)
    public void stop() {
        client.close();
        server.close();
    }

    @Benchmark
    public long scan(Counters counters) throws Exception {
        long blocks = EngineCounters.blockBytesRead();
        long bytes = 0;
        long kept = 0;
        Scan scan = new Scan().setCaching(1000);
        boolean serverSide = impl.equals("basalt");
        if (serverSide) {
            scan.setFilter(filter());
        }
        try (ResultScanner scanner = table.scanner(scan)) {
            for (Result r = scanner.next(); r != null; r = scanner.next()) {
                for (Cell c : r.cells()) {
                    bytes += CellLayout.encodedLength(c);
                }
                if (serverSide || keep(r)) {
                    kept++;
                }
            }
        }
        counters.blockBytes = EngineCounters.blockBytesRead() - blocks;
        counters.resultBytes = bytes;
        return kept;
    }

    private Filter filter() {
        return switch (filter) {
            case "prefix" -> new PrefixFilter(Bytes.utf8("42-"));
            case "value" -> new SingleColumnValueFilter(F, KIND, CompareOperator.EQUAL,
                    new BinaryComparator(Bytes.utf8("k07")), true, true);
            case "fuzzy" -> new FuzzyRowFilter(List.of(new FuzzyRowFilter.Rule(Bytes.utf8("??-07-??????"), FUZZY_MASK)));
            default -> throw new IllegalArgumentException("unknown filter " + filter);
        };
    }

    /** The client-side equivalent of {@link #filter()}. */
    private boolean keep(Result r) {
        String row = new String(r.row(), java.nio.charset.StandardCharsets.UTF_8);
        return switch (filter) {
            case "prefix" -> row.startsWith("42-");
            case "value" -> Arrays.equals(r.value(F, KIND), Bytes.utf8("k07"));
            case "fuzzy" -> row.length() >= 12 && row.substring(2, 6).equals("-07-");
            default -> throw new IllegalArgumentException("unknown filter " + filter);
        };
    }
}
