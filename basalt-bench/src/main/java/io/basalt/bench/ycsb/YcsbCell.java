package io.basalt.bench.ycsb;

import io.basalt.bench.load.ServerProcess;
import io.basalt.cluster.FreePorts;
import io.basalt.client.StoreOptions;
import io.basalt.ycsb.BasaltDB;
import io.basalt.ycsb.BindingOptions;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Properties;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;
import java.util.stream.Stream;
import org.HdrHistogram.Histogram;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import site.ycsb.DB;
import site.ycsb.measurements.Measurements;
import site.ycsb.workloads.CoreWorkload;

/**
 * One cell of the {@code ycsb} suite, in a JVM of its own: one implementation at one thread count
 * runs YCSB's load, then workloads A, B, C, F, D and E (YCSB's recommended order: D and E insert)
 * on the same data, through YCSB's {@link CoreWorkload} with the property files of
 * {@code basalt-ycsb}. Each phase is timed per second; the store's files and bytes on disk are
 * sampled every second too, so a compaction shows in the series.
 *
 * <p>Implementations: {@code basalt} (embedded, {@code ASYNC}: the log is forced every second),
 * {@code rocksdb} ({@link RocksYcsbDB}: WAL on, never forced) and {@code server} (a Basalt server
 * process on loopback with the embedded store's options, reached through the same binding). The
 * memory budget is the same for all: a 256 MiB block cache (Basalt's row cache taken out of it),
 * 64 MiB memtables, two of them at
 * most (RocksDB's {@code write_buffer_size} and {@code max_write_buffer_number} defaults).
 */
@Command(name = "ycsb-cell", mixinStandardHelpOptions = true)
public final class YcsbCell implements Callable<Integer> {

    /**
     * The heap and collector settings of every cell's JVM, the server's included, the same for
     * every engine: a 2 GiB heap, and G1 starting its concurrent marking at 30% of it rather than
     * where its adaptive guess puts it.
     *
     * <p>Why: Basalt's memtables live on the heap for seconds, so their cells reach the old
     * generation and die there at each flush. With G1's defaults no marking had started by the time
     * the old generation filled, and every load-then-A-then-D cell had 7-8 evacuation failures or
     * full collections (a quarter of a second each, the worst seconds of D). Marking from 30% on
     * reclaims that garbage in mixed collections: none in four cells, the load and A level, D's
     * worst second within 1.3x of its median (docs/benchmarks.md, "Twenty-first session"). The
     * launcher gives a server the same settings; RocksDB's cells, whose data is off the heap, are
     * not affected either way.
     */
    public static final List<String> JVM_ARGS = List.of("-Xms2g", "-Xmx2g", "-XX:+UseG1GC",
            "-XX:InitiatingHeapOccupancyPercent=30", "-XX:-G1UseAdaptiveIHOP");

    /** The phases in the order they run; the first loads. */
    public static final List<String> PHASES = List.of("load", "A", "B", "C", "F", "D", "E");
    static final long MEMTABLE_BYTES = 64L << 20;
    /**
     * Basalt's read caches share RocksDB's block cache budget: the row cache (the store's default
     * size, or {@code -Dbasalt.bench.rowCache=BYTES}) comes out of the block cache.
     */
    static final long ROW_CACHE_BYTES = Long.getLong("basalt.bench.rowCache", StoreOptions.DEFAULT_ROW_CACHE_SIZE);
    static final long BLOCK_CACHE_BYTES = RocksYcsbDB.CACHE_BYTES - ROW_CACHE_BYTES;

    @Option(names = "--impl", required = true)
    String impl;

    @Option(names = "--threads", required = true)
    int threads;

    @Option(names = "--records", required = true)
    long records;

    @Option(names = "--seconds", required = true, description = "Measured seconds per workload.")
    int seconds;

    @Option(names = "--warmup", required = true, description = "Unmeasured seconds before each workload's measurement.")
    int warmup;

    @Option(names = "--phases", split = ",", description = "The phases to run, a subset of load,A,B,C,F,D,E in that"
            + " order (default all); load always runs first.")
    List<String> phases = PHASES;

    @Option(names = "--set", paramLabel = "KEY=VALUE", description = "A binding property on top of the cell's"
            + " (repeatable), e.g. basalt.blocksize=16384, for experiments.")
    List<String> extra = new ArrayList<>();

    @Option(names = "--operations", description = "Run exactly this many operations in each workload after the"
            + " load, measured whole with no warm-up, instead of --warmup and --seconds: the store a workload leaves"
            + " then does not depend on how fast it ran, so two builds can be compared phase by phase.")
    long operations;

    @Option(names = "--dir", required = true)
    Path dir;

    @Option(names = "--out", required = true, description = "Where to write this cell's results (tab-separated).")
    Path out;

    public static void main(String[] args) {
        CommandLine cli = new CommandLine(new YcsbCell());
        cli.setExecutionExceptionHandler((e, line, parsed) -> {
            e.printStackTrace();
            return 1;
        });
        System.exit(cli.execute(args));
    }

    @Override
    public Integer call() throws Exception {
        Measurements.setProperties(new Properties()); // CoreWorkload's read-modify-write timer needs it
        Files.createDirectories(dir);
        Properties binding = new Properties();
        Process server = null;
        Path data;
        switch (impl) {
            case "basalt" -> {
                data = dir.resolve("store");
                binding.setProperty(BindingOptions.URI, data.toString());
                binding.setProperty(BindingOptions.DURABILITY, "ASYNC");
                binding.setProperty(BindingOptions.BLOCK_CACHE_SIZE, String.valueOf(BLOCK_CACHE_BYTES));
                binding.setProperty(BindingOptions.ROW_CACHE_SIZE, String.valueOf(ROW_CACHE_BYTES));
                binding.setProperty(BindingOptions.MEMTABLE_FLUSH_SIZE, String.valueOf(MEMTABLE_BYTES));
                binding.setProperty(BindingOptions.MEMTABLE_MEMORY_LIMIT, String.valueOf(2 * MEMTABLE_BYTES));
            }
            case "rocksdb" -> {
                data = dir.resolve("rocks");
                Files.createDirectories(data);
                binding.setProperty(RocksYcsbDB.DIR, data.toString());
            }
            case "server" -> {
                data = dir.resolve("data");
                int port = FreePorts.take();
                server = startServer(port, data);
                binding.setProperty(BindingOptions.URI, "basalt://127.0.0.1:" + port);
            }
            default -> throw new IllegalArgumentException("unknown impl '" + impl + "': basalt, rocksdb or server");
        }
        for (String kv : extra) {
            int eq = kv.indexOf('=');
            if (eq < 1) {
                throw new IllegalArgumentException("--set " + kv + ": expected KEY=VALUE");
            }
            binding.setProperty(kv.substring(0, eq), kv.substring(eq + 1));
        }
        long ioPid = server == null ? ProcessHandle.current().pid() : server.pid();
        List<String> lines = new ArrayList<>();
        try {
            // One instance held for the whole cell, so the shared store stays open between phases
            // (each phase's threads open and close their own, as YCSB's client does).
            DB keeper = newDb();
            keeper.setProperties(binding);
            keeper.init();
            try {
                long writeBefore = Io.written(ioPid);
                long logicalWritten = 0;
                long liveRecords = records;
                for (String phase : PHASES) {
                    if (!phase.equals("load") && !phases.contains(phase)) {
                        continue;
                    }
                    if (phase.equals(System.getProperty("basalt.bench.compactBefore"))) {
                        // An experiment: the phase reads a store compacted to one file per family.
                        long started = System.nanoTime();
                        boolean compacted = BasaltDB.compactEmbedded(binding.getProperty(BindingOptions.URI, ""), "usertable");
                        System.out.printf(Locale.ROOT, "ycsb: major compaction before %s: %s in %.1f s%n", phase,
                                compacted ? "done" : "no embedded store", (System.nanoTime() - started) / 1e9);
                    }
                    var cachesBefore = BasaltDB.embeddedMetrics(binding.getProperty(BindingOptions.URI, ""));
                    Phase result = run(phase, binding, data);
                    var cachesAfter = BasaltDB.embeddedMetrics(binding.getProperty(BindingOptions.URI, ""));
                    logicalWritten += result.bytesWritten;
                    if (phase.equals("D") || phase.equals("E")) {
                        // D and E insert from the same key (recordcount) on: E overwrites D's.
                        liveRecords = Math.max(liveRecords, records + result.inserts);
                    }
                    lines.addAll(result.lines(impl, threads));
                    System.out.printf(Locale.ROOT, "ycsb: %-7s %2d threads  %-4s %,12.0f ops/s%s%n", impl, threads,
                            phase, result.opsPerSecond(), result.failures == 0 ? ""
                                    : "  (" + result.failures + " failed, first " + result.firstFailure + ")");
                    if (cachesBefore.isPresent() && cachesAfter.isPresent()) {
                        printCaches(cachesBefore.get(), cachesAfter.get());
                    }
                }
                Disk disk = Disk.of(data);
                long writeAfter = Io.written(ioPid);
                long written = writeBefore < 0 || writeAfter < 0 ? -1 : writeAfter - writeBefore;
                lines.add(String.join("\t", "storage", impl, String.valueOf(threads), String.valueOf(disk.files()),
                        String.valueOf(disk.bytes()), String.valueOf(written), String.valueOf(logicalWritten),
                        String.format(Locale.ROOT, "%.0f", liveRecords * loadRowBytes)));
            } finally {
                keeper.cleanup();
            }
        } finally {
            if (server != null) {
                server.destroy();
                if (!server.waitFor(60, TimeUnit.SECONDS)) {
                    server.destroyForcibly();
                }
            }
        }
        Files.write(out, lines);
        return 0;
    }

    /** Bytes of keys and values per record, as the load wrote them. */
    private double loadRowBytes;

    private DB newDb() {
        return impl.equals("rocksdb") ? new RocksYcsbDB() : new BasaltDB();
    }

    private Process startServer(int port, Path data) throws IOException, InterruptedException {
        Files.createDirectories(data);
        Path config = dir.resolve("server.properties");
        // Extra server keys for experiments, e.g. -Dbasalt.bench.serverConfig=ioThreads=1,writeMode=FLUSH_EACH
        String extraConfig = String.join("\n", System.getProperty("basalt.bench.serverConfig", "").split(","));
        Files.writeString(config, String.join("\n", "durability=ASYNC",
                "blockCacheSize=" + BLOCK_CACHE_BYTES, "rowCacheSize=" + ROW_CACHE_BYTES,
                "memtableFlushSize=" + MEMTABLE_BYTES,
                "memtableMemoryLimit=" + 2 * MEMTABLE_BYTES, extraConfig, ""));
        Path log = dir.resolve("server.log");
        List<String> command = new ArrayList<>(List.of(ProcessHandle.current().info().command().orElse("java"),
                "--enable-native-access=ALL-UNNAMED", "--sun-misc-unsafe-memory-access=allow"));
        command.addAll(JVM_ARGS);
        // For profiling the server side, e.g. -Dbasalt.bench.serverJvmArgs=-XX:StartFlightRecording=filename=s.jfr
        String extra = System.getProperty("basalt.bench.serverJvmArgs", "").trim();
        if (!extra.isEmpty()) {
            command.addAll(List.of(extra.split("\\s+")));
        }
        command.addAll(List.of("-cp", System.getProperty("java.class.path"), ServerProcess.class.getName(),
                String.valueOf(port), data.toString(), config.toString()));
        Process server = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (!Files.readString(log).contains("server ready")) {
            if (!server.isAlive() || System.nanoTime() > deadline) {
                server.destroyForcibly();
                throw new IOException("the server did not start; its log: " + Files.readString(log));
            }
            Thread.sleep(50);
        }
        return server;
    }

    /** One phase's measurement. */
    private static final class Phase {
        final String name;
        final long ops;
        final double measuredSeconds;
        final long[] perSecond;
        final List<long[]> diskSeries;
        final Histogram[] latency;
        final long failures;
        final String firstFailure;
        final long bytesWritten;
        final long inserts;

        Phase(String name, long ops, double measuredSeconds, long[] perSecond, List<long[]> diskSeries,
              Histogram[] latency, long failures, String firstFailure, long bytesWritten, long inserts) {
            this.name = name;
            this.ops = ops;
            this.measuredSeconds = measuredSeconds;
            this.perSecond = perSecond;
            this.diskSeries = diskSeries;
            this.latency = latency;
            this.failures = failures;
            this.firstFailure = firstFailure;
            this.bytesWritten = bytesWritten;
            this.inserts = inserts;
        }

        double opsPerSecond() {
            return ops / measuredSeconds;
        }

        /**
         * Tab-separated lines: {@code result} (throughput, the per-second samples of the measured
         * window), {@code latency} per operation type, {@code series} per second of the phase.
         */
        List<String> lines(String impl, int threads) {
            List<String> lines = new ArrayList<>();
            StringBuilder samples = new StringBuilder();
            for (long s : perSecond) {
                samples.append(samples.isEmpty() ? "" : ",").append(s);
            }
            lines.add(String.join("\t", "result", impl, String.valueOf(threads), name,
                    String.format(Locale.ROOT, "%.1f", opsPerSecond()), String.valueOf(failures),
                    samples.isEmpty() ? "-" : samples.toString()));
            for (MeasuredDB.Op op : MeasuredDB.Op.values()) {
                Histogram h = latency[op.ordinal()];
                if (h.getTotalCount() > 0) {
                    lines.add(String.join("\t", "latency", impl, String.valueOf(threads), name, op.name(),
                            String.valueOf(h.getTotalCount()), String.valueOf(h.getValueAtPercentile(50)),
                            String.valueOf(h.getValueAtPercentile(99)), String.valueOf(h.getValueAtPercentile(99.9)),
                            String.valueOf(h.getMaxValue())));
                }
            }
            for (long[] point : diskSeries) {
                lines.add(String.join("\t", "series", impl, String.valueOf(threads), name,
                        String.valueOf(point[0]), String.valueOf(point[1]), String.valueOf(point[2]),
                        String.valueOf(point[3])));
            }
            return lines;
        }
    }

    /** What the embedded store's caches answered over a phase (its warm-up included). */
    private static void printCaches(io.basalt.engine.StoreMetrics before, io.basalt.engine.StoreMetrics after) {
        long rowHits = after.rowCacheHits() - before.rowCacheHits();
        long rowLookups = rowHits + after.rowCacheMisses() - before.rowCacheMisses();
        long blockHits = after.blockCacheHits() - before.blockCacheHits();
        long blockLookups = blockHits + after.blockCacheMisses() - before.blockCacheMisses();
        System.out.printf(Locale.ROOT, "ycsb:   caches over the phase: rows %.1f%% of %,d lookups, blocks %.1f%% of %,d%n",
                rowLookups == 0 ? 0.0 : 100.0 * rowHits / rowLookups, rowLookups,
                blockLookups == 0 ? 0.0 : 100.0 * blockHits / blockLookups, blockLookups);
        var b = before.background();
        var a = after.background();
        System.out.printf(Locale.ROOT, "ycsb:   background over the phase: %d flushes (%,d MB, %.1f s), %d compactions"
                        + " (%,d MB, %.1f s), %d splits, %d write stalls (%.1f s waited)%n",
                a.flushes() - b.flushes(), (a.flushedBytes() - b.flushedBytes()) >> 20,
                (a.flushNanos() - b.flushNanos()) / 1e9, a.compactions() - b.compactions(),
                (a.compactedBytes() - b.compactedBytes()) >> 20, (a.compactionNanos() - b.compactionNanos()) / 1e9,
                a.splits() - b.splits(), a.stalls() - b.stalls(), (a.stallNanos() - b.stallNanos()) / 1e9);
    }

    /** Runs one phase with {@link #threads} client threads, each with its own DB instance. */
    private Phase run(String phase, Properties binding, Path data) throws Exception {
        boolean load = phase.equals("load");
        Properties p = new Properties();
        String file = "workload" + (load ? "a" : phase.toLowerCase(Locale.ROOT));
        try (InputStream in = YcsbCell.class.getResourceAsStream("/workloads/" + file)) {
            if (in == null) {
                throw new IOException("no /workloads/" + file + " on the class path (basalt-ycsb's workload files)");
            }
            p.load(in);
        }
        p.putAll(binding);
        p.setProperty("recordcount", String.valueOf(records));
        p.setProperty("operationcount", String.valueOf(Integer.MAX_VALUE));
        if (load) {
            p.setProperty("insertstart", "0");
            p.setProperty("insertcount", String.valueOf(records));
        }
        CoreWorkload workload = new CoreWorkload();
        workload.init(p);
        MeasuredDB.Meters meters = new MeasuredDB.Meters();
        LongAdder done = new LongAdder();
        AtomicLong tickets = new AtomicLong();
        AtomicBoolean stop = new AtomicBoolean();
        AtomicReference<Throwable> crash = new AtomicReference<>();
        List<Thread> workers = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            int id = t;
            workers.add(Thread.ofPlatform().name("ycsb-" + phase + "-" + t).start(() -> {
                try {
                    DB db = new MeasuredDB(newDb(), meters);
                    db.setProperties(p);
                    db.init();
                    try {
                        Object state = workload.initThread(p, id, threads);
                        if (load) {
                            while (!stop.get() && tickets.getAndIncrement() < records) {
                                workload.doInsert(db, state);
                                done.increment();
                            }
                        } else {
                            while (!stop.get() && (operations <= 0 || tickets.getAndIncrement() < operations)) {
                                workload.doTransaction(db, state);
                                done.increment();
                            }
                        }
                    } finally {
                        db.cleanup();
                    }
                } catch (Throwable e) {
                    crash.compareAndSet(null, e);
                    stop.set(true);
                }
            }));
        }
        // The sampler: one point per second of the phase; measurement starts after the warm-up.
        List<long[]> series = new ArrayList<>();
        List<Long> measured = new ArrayList<>();
        long started = System.nanoTime();
        boolean whole = load || operations > 0; // measured from start to end, however long it takes
        long measureFrom = whole ? started : started + TimeUnit.SECONDS.toNanos(warmup);
        long measureUntil = whole ? Long.MAX_VALUE : measureFrom + TimeUnit.SECONDS.toNanos(seconds);
        long opsAtMeasureStart = 0;
        boolean measuring = whole || warmup == 0;
        // -Dbasalt.bench.jfr=PHASE records the measured part of that phase to PHASE.jfr in --dir.
        jdk.jfr.Recording recording = null;
        if (phase.equals(System.getProperty("basalt.bench.jfr")) && measuring) {
            recording = startRecording();
        }
        long last = 0;
        long second = 0;
        long nextTick = started + TimeUnit.SECONDS.toNanos(1);
        while (workers.stream().anyMatch(Thread::isAlive)) {
            long now = System.nanoTime();
            if (!measuring && now >= measureFrom) {
                for (var r : meters.latency) {
                    r.reset();
                }
                opsAtMeasureStart = done.sum();
                measureFrom = now;
                measureUntil = now + TimeUnit.SECONDS.toNanos(seconds);
                measuring = true;
                if (phase.equals(System.getProperty("basalt.bench.jfr"))) {
                    recording = startRecording();
                }
            }
            if (now >= measureUntil) {
                stop.set(true);
                break;
            }
            if (now >= nextTick) {
                long total = done.sum();
                Disk disk = Disk.of(data);
                series.add(new long[] {++second, total - last, disk.files(), disk.bytes()});
                if (measuring && now > measureFrom + TimeUnit.MILLISECONDS.toNanos(500)) {
                    measured.add(total - last);
                }
                last = total;
                nextTick += TimeUnit.SECONDS.toNanos(1);
            }
            Thread.sleep(Math.max(1, Math.min(50, TimeUnit.NANOSECONDS.toMillis(Math.min(nextTick, measureUntil) - now))));
        }
        long ended = System.nanoTime();
        long total = done.sum();
        if (recording != null) {
            recording.dump(dir.resolve(phase + ".jfr"));
            recording.close();
        }
        for (Thread w : workers) {
            w.join();
        }
        if (crash.get() != null) {
            throw new IllegalStateException("phase " + phase + " of " + impl + " failed: " + crash.get(), crash.get());
        }
        workload.cleanup();
        Histogram[] latency = new Histogram[meters.latency.length];
        for (int i = 0; i < latency.length; i++) {
            latency[i] = meters.latency[i].getIntervalHistogram();
        }
        long ops = total - opsAtMeasureStart;
        long[] perSecond = measured.stream().mapToLong(Long::longValue).toArray();
        if (load && total > 0) {
            loadRowBytes = (double) meters.bytesWritten.sum() / total;
        }
        long inserts = latency[MeasuredDB.Op.INSERT.ordinal()].getTotalCount();
        return new Phase(phase, ops, (ended - measureFrom) / 1e9, perSecond, series, latency,
                meters.failures.sum(), String.valueOf(meters.firstFailure), meters.bytesWritten.sum(),
                load ? 0 : inserts);
    }

    private static jdk.jfr.Recording startRecording() throws java.text.ParseException, IOException {
        jdk.jfr.Recording recording = new jdk.jfr.Recording(jdk.jfr.Configuration.getConfiguration("profile"));
        recording.start();
        return recording;
    }

    /** Files and bytes under a directory, now. */
    record Disk(long files, long bytes) {
        static Disk of(Path dir) {
            if (!Files.isDirectory(dir)) {
                return new Disk(0, 0);
            }
            long[] sums = new long[2];
            try (Stream<Path> walk = Files.walk(dir)) {
                walk.forEach(f -> {
                    try {
                        if (Files.isRegularFile(f)) {
                            sums[0]++;
                            sums[1] += Files.size(f);
                        }
                    } catch (IOException e) {
                        // deleted by a compaction while walking: not there any more
                    }
                });
            } catch (IOException | UncheckedIOException e) {
                // a directory vanished under the walk; the next second's sample sees the new state
            }
            return new Disk(sums[0], sums[1]);
        }
    }

    /** Bytes a process caused to be written to storage, net of what was deleted before writeback. */
    static final class Io {
        private Io() {}

        static long written(long pid) throws IOException {
            Path io = Path.of("/proc", String.valueOf(pid), "io");
            if (!Files.isReadable(io)) {
                return -1;
            }
            long write = 0;
            long cancelled = 0;
            for (String line : Files.readAllLines(io)) {
                if (line.startsWith("write_bytes:")) {
                    write = Long.parseLong(line.substring(12).trim());
                } else if (line.startsWith("cancelled_write_bytes:")) {
                    cancelled = Long.parseLong(line.substring(22).trim());
                }
            }
            return write - cancelled;
        }
    }
}
