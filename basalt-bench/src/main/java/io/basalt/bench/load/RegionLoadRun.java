package io.basalt.bench.load;

import io.basalt.client.AsyncTable;
import io.basalt.client.Basalt;
import io.basalt.client.Connection;
import io.basalt.client.Get;
import io.basalt.client.Mutation;
import io.basalt.client.Put;
import io.basalt.client.RegionInfo;
import io.basalt.client.Result;
import io.basalt.client.StoreOptions;
import io.basalt.client.TableDescriptor;
import io.basalt.engine.EngineStatistics;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.stream.Stream;
import org.HdrHistogram.Histogram;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * The regions load run of issue 18: the same data loaded twice into an embedded store, once as one
 * region (automatic splits off) and once with a region split size that ends in several regions,
 * while one reader does random gets. Reports per configuration: the load time, the regions at the
 * end, the compactions (count, the longest, all together), and the get latency while a compaction
 * ran and while none did; then a major compaction of the whole table, timed (its longest single
 * compaction is what a user waits for). {@code ./basalt load regions [--quick]}.
 *
 * <p>What it measures is the engine alone, in one JVM, on whatever disk {@code java.io.tmpdir} is
 * on; the two configurations run back to back in one process, so their ratio is what to read.
 */
@Command(name = "basalt load regions", mixinStandardHelpOptions = true,
        description = "Load a table as one region and as many; compare compactions and read latency.")
public final class RegionLoadRun implements java.util.concurrent.Callable<Integer> {

    @Option(names = "--mb", description = "Megabytes of values to load (default 1024).")
    private long megabytes = 1024;

    @Option(names = "--threads", description = "Loader threads (default 8).")
    private int threads = 8;

    @Option(names = "--split-mb", description = "Region split size of the many-regions run, MiB (default 96).")
    private long splitMegabytes = 96;

    @Option(names = "--value", description = "Bytes per value (default 1000, as YCSB's ten 100-byte fields).")
    private int valueBytes = 1000;

    @Option(names = "--quick", description = "A smoke run: 32 MB, split at 4 MiB. Its numbers are not for quoting.")
    private boolean quick;

    @Option(names = "--dir", description = "Where to put the stores (default: a temporary directory, deleted after).")
    private Path directory;

    public static void main(String[] args) {
        System.exit(new CommandLine(new RegionLoadRun()).execute(args));
    }

    /** What one configuration measured. */
    record Outcome(String name, double loadSeconds, int regions, EngineStatistics afterLoad, double majorSeconds,
                   EngineStatistics afterMajor, Histogram duringCompaction, Histogram quiet) {}

    @Override
    public Integer call() throws Exception {
        if (quick) {
            megabytes = 32;
            splitMegabytes = 4;
        }
        Path root = directory != null ? Files.createDirectories(directory) : Files.createTempDirectory("basalt-load-");
        List<Outcome> outcomes = new ArrayList<>();
        try {
            outcomes.add(run("one-region", root.resolve("one"), 0));
            outcomes.add(run("regions", root.resolve("many"), splitMegabytes << 20));
        } finally {
            if (directory == null) {
                deleteTree(root);
            }
        }
        print(outcomes);
        return 0;
    }

    private Outcome run(String name, Path dir, long splitSize) throws Exception {
        StoreOptions options = StoreOptions.defaults().withRegionSplitSize(splitSize);
        long rowsPerThread = (megabytes << 20) / valueBytes / threads;
        AtomicLongArray written = new AtomicLongArray(threads);
        Histogram during = new Histogram(TimeUnit.SECONDS.toNanos(60), 3);
        Histogram quiet = new Histogram(TimeUnit.SECONDS.toNanos(60), 3);
        try (Connection c = Basalt.open(dir, options)) {
            c.admin().createTable(TableDescriptor.of("usertable", "f")).get();
            AsyncTable table = c.table("usertable");
            AtomicBoolean stop = new AtomicBoolean();
            Thread reader = Thread.ofPlatform().name("load-reader").start(() -> read(c, table, written, rowsPerThread,
                    stop, during, quiet));
            long started = System.nanoTime();
            List<Thread> loaders = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                int id = t;
                loaders.add(Thread.ofPlatform().name("loader-" + t).start(() -> load(table, id, rowsPerThread,
                        written)));
            }
            for (Thread t : loaders) {
                t.join();
            }
            c.admin().flush("usertable").get();
            awaitQuiet(c, TimeUnit.MINUTES.toNanos(20));
            double loadSeconds = (System.nanoTime() - started) / 1e9;
            EngineStatistics afterLoad = EngineStatistics.of(c);
            int regions = c.admin().listRegions("usertable").get().size();
            long majorStarted = System.nanoTime();
            c.admin().compact("usertable").get();
            double majorSeconds = (System.nanoTime() - majorStarted) / 1e9;
            EngineStatistics afterMajor = EngineStatistics.of(c);
            stop.set(true);
            reader.join(TimeUnit.SECONDS.toMillis(30));
            List<RegionInfo> info = c.admin().listRegions("usertable").get();
            System.out.printf(Locale.ROOT, "%s: %d regions, %,d bytes in SSTables%n", name, info.size(),
                    info.stream().mapToLong(RegionInfo::sizeBytes).sum());
            return new Outcome(name, loadSeconds, regions, afterLoad, majorSeconds, afterMajor, during, quiet);
        }
    }

    /** Key {@code i} of loader {@code t}: a scrambled 20-digit number, as YCSB hashes its keys. */
    static byte[] key(int t, long i) {
        long h = (t * 0x9E3779B97F4A7C15L) ^ (i * 0xC2B2AE3D27D4EB4FL);
        h ^= h >>> 33;
        h *= 0xFF51AFD7ED558CCDL;
        h ^= h >>> 33;
        return String.format(Locale.ROOT, "user%020d", h & Long.MAX_VALUE).getBytes(StandardCharsets.US_ASCII);
    }

    private void load(AsyncTable table, int t, long rows, AtomicLongArray written) {
        SplittableRandom random = new SplittableRandom(t);
        byte[] family = {'f'};
        byte[] qualifier = {'v'};
        int batch = 100;
        try {
            for (long i = 0; i < rows; i += batch) {
                List<Mutation> puts = new ArrayList<>(batch);
                for (long k = i; k < Math.min(rows, i + batch); k++) {
                    byte[] value = new byte[valueBytes];
                    random.nextBytes(value);
                    puts.add(new Put(key(t, k)).addColumn(family, qualifier, value));
                }
                CompletableFuture.allOf(table.batch(puts).toArray(CompletableFuture[]::new)).get(120, TimeUnit.SECONDS);
                written.set(t, Math.min(rows, i + batch));
            }
        } catch (Exception e) {
            throw new IllegalStateException("loader " + t + " failed: " + e, e);
        }
    }

    /** Random gets of written rows until {@code stop}; each latency goes to one of two histograms. */
    private void read(Connection c, AsyncTable table, AtomicLongArray written, long rows, AtomicBoolean stop,
                      Histogram during, Histogram quiet) {
        SplittableRandom random = new SplittableRandom(42);
        while (!stop.get()) {
            int t = random.nextInt(threads);
            long upTo = written.get(t);
            if (upTo == 0) {
                Thread.onSpinWait();
                continue;
            }
            byte[] key = key(t, random.nextLong(upTo));
            boolean compacting = EngineStatistics.of(c).compactionsRunning() > 0;
            long start = System.nanoTime();
            Result r;
            try {
                r = table.get(new Get(key)).get(60, TimeUnit.SECONDS);
            } catch (Exception e) {
                throw new IllegalStateException("get failed: " + e, e);
            }
            long took = System.nanoTime() - start;
            if (r.isEmpty()) {
                throw new IllegalStateException("row " + new String(key, StandardCharsets.US_ASCII) + " was written"
                        + " but not found");
            }
            compacting |= EngineStatistics.of(c).compactionsRunning() > 0;
            (compacting ? during : quiet).recordValue(Math.min(took, during.getHighestTrackableValue()));
        }
    }

    /** Waits until no compaction has run for two seconds, or the limit. */
    private static void awaitQuiet(Connection c, long limitNanos) throws InterruptedException {
        long deadline = System.nanoTime() + limitNanos;
        long quietSince = System.nanoTime();
        long seen = EngineStatistics.of(c).compactions();
        while (System.nanoTime() < deadline) {
            EngineStatistics s = EngineStatistics.of(c);
            if (s.compactionsRunning() > 0 || s.compactions() != seen) {
                seen = s.compactions();
                quietSince = System.nanoTime();
            } else if (System.nanoTime() - quietSince > TimeUnit.SECONDS.toNanos(2)) {
                return;
            }
            Thread.sleep(50);
        }
    }

    private void print(List<Outcome> outcomes) {
        System.out.println();
        System.out.printf(Locale.ROOT, "regions load run: %d MB of %d-byte values by %d threads%s%n", megabytes,
                valueBytes, threads, quick ? " (quick run: numbers are not for quoting)" : "");
        System.out.println("config      regions  load s  compactions  longest s  all s   major s  longest after"
                + " major s  get p50 ms (compacting/quiet)  get p99 ms (compacting/quiet)  gets (compacting/quiet)");
        for (Outcome o : outcomes) {
            System.out.printf(Locale.ROOT, "%-11s %7d  %6.1f  %11d  %9.2f  %6.1f  %7.1f  %20.2f  %13.3f / %-13.3f  %13.3f / %-13.3f"
                            + "  %,d / %,d%n",
                    o.name, o.regions, o.loadSeconds, o.afterLoad.compactions(), o.afterLoad.longestCompactionNanos() / 1e9,
                    o.afterLoad.compactionNanos() / 1e9, o.majorSeconds, o.afterMajor.longestCompactionNanos() / 1e9,
                    ms(o.duringCompaction, 50), ms(o.quiet, 50), ms(o.duringCompaction, 99), ms(o.quiet, 99),
                    o.duringCompaction.getTotalCount(), o.quiet.getTotalCount());
        }
    }

    private static double ms(Histogram h, double percentile) {
        return h.getTotalCount() == 0 ? Double.NaN : h.getValueAtPercentile(percentile) / 1e6;
    }

    private static void deleteTree(Path root) throws IOException {
        if (!Files.exists(root)) {
            return;
        }
        try (Stream<Path> walk = Files.walk(root)) {
            for (Path p : walk.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        }
    }
}
