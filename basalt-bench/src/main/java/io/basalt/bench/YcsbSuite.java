package io.basalt.bench;

import io.basalt.bench.ycsb.YcsbCell;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.apache.commons.math3.distribution.TDistribution;

/**
 * The {@code ycsb} suite (issue 20): YCSB's load and workloads A-F, Basalt embedded against RocksDB
 * and Basalt's server on loopback against Basalt embedded, at 1 and 8 client threads. Not JMH: each
 * implementation and thread count runs in a JVM of its own ({@link YcsbCell}), the way JMH forks,
 * and the results are written in JMH's JSON shape (one record per workload, threads and
 * {@code impl}) so they read like every other suite's.
 *
 * <p>Parameters ({@code -p NAME=VALUE}): {@code records} (default 1,000,000; quick 50,000),
 * {@code seconds} measured per workload (30; quick 2), {@code warmup} seconds before each (20;
 * quick 0), {@code impl} (basalt,rocksdb,server), {@code threads} (1,8) and {@code phases}
 * (load,A,B,C,F,D,E; load always runs).
 *
 * <p>Why 20 s of warm-up: the rules ask for enough warm-up for the JIT, and 5 s was not. Each
 * workload runs paths the ones before it did not (E is the only one that scans), and in E's cells
 * C2 was still compiling them 15-20 s in (JFR's compilation events: 10 s of C2 time inside a
 * 30 s window that began after 5 s), while Basalt's scans ran at a fifth to two thirds of their
 * later rate; RocksDB's native code has no such ramp. See docs/benchmarks.md, "Twenty-fifth
 * session".
 */
final class YcsbSuite {

    /** Unmeasured seconds before each workload of a full run (see the class comment for why). */
    static final int WARMUP_SECONDS = 20;

    /** Everything a run is set up with. */
    record Settings(long records, int seconds, int warmup, List<String> impls, int[] threads, List<String> phases) {

        static Settings of(boolean quick, List<String> params) {
            long records = quick ? 50_000 : 1_000_000;
            int seconds = quick ? 2 : 30;
            int warmup = quick ? 0 : WARMUP_SECONDS;
            List<String> impls = List.of("basalt", "rocksdb", "server");
            int[] threads = {1, 8};
            List<String> phases = YcsbCell.PHASES;
            for (String param : params) {
                int eq = param.indexOf('=');
                if (eq < 1 || eq == param.length() - 1) {
                    throw new IllegalArgumentException("--param " + param + ": expected NAME=VALUE[,VALUE...]");
                }
                String name = param.substring(0, eq);
                String value = param.substring(eq + 1);
                switch (name) {
                    case "records" -> records = Long.parseLong(value);
                    case "seconds" -> seconds = Integer.parseInt(value);
                    case "warmup" -> warmup = Integer.parseInt(value);
                    case "impl" -> impls = List.of(value.split(","));
                    case "threads" -> threads = Arrays.stream(value.split(",")).mapToInt(Integer::parseInt).toArray();
                    case "phases" -> phases = List.of(value.split(","));
                    default -> throw new IllegalArgumentException("the ycsb suite has no parameter '" + name
                            + "'; it takes records, seconds, warmup, impl, threads and phases");
                }
            }
            if (quick && records > 50_000) {
                throw new IllegalArgumentException("--quick runs at most 50,000 records");
            }
            for (String phase : phases) {
                if (!YcsbCell.PHASES.contains(phase)) {
                    throw new IllegalArgumentException("phases: no phase '" + phase + "'; the phases are "
                            + YcsbCell.PHASES);
                }
            }
            return new Settings(records, seconds, warmup, impls, threads, phases);
        }
    }

    private YcsbSuite() {}

    /** Runs every cell, writes the JSON and the per-second series, prints the tables; returns the rows. */
    static List<ResultRow> run(Settings settings, Path json, boolean quick, PrintWriter stdout)
            throws IOException, InterruptedException {
        List<String> lines = new ArrayList<>();
        Path work = Files.createTempDirectory("basalt-ycsb-");
        try {
            for (int threads : settings.threads()) {
                for (String impl : settings.impls()) {
                    Path cell = work.resolve(impl + "-" + threads);
                    Path out = work.resolve(impl + "-" + threads + ".tsv");
                    List<String> command = new ArrayList<>(List.of(
                            ProcessHandle.current().info().command().orElse("java"),
                            "--enable-native-access=ALL-UNNAMED", "--sun-misc-unsafe-memory-access=allow"));
                    command.addAll(YcsbCell.JVM_ARGS);
                    command.addAll(List.of("-cp", System.getProperty("java.class.path"),
                            YcsbCell.class.getName(), "--impl", impl, "--threads", String.valueOf(threads),
                            "--records", String.valueOf(settings.records()), "--seconds",
                            String.valueOf(settings.seconds()), "--warmup", String.valueOf(settings.warmup()),
                            "--phases", String.join(",", settings.phases()), "--dir", cell.toString(),
                            "--out", out.toString()));
                    Process child = new ProcessBuilder(command).inheritIO().start();
                    if (!child.waitFor(2, TimeUnit.HOURS)) {
                        child.destroyForcibly();
                        throw new IOException("the " + impl + " cell at " + threads + " threads ran over two hours");
                    }
                    if (child.exitValue() != 0) {
                        throw new IOException("the " + impl + " cell at " + threads + " threads failed (exit "
                                + child.exitValue() + "); its output is above");
                    }
                    lines.addAll(Files.readAllLines(out));
                    delete(cell);
                }
            }
        } finally {
            delete(work);
        }
        Results results = Results.parse(lines);
        Files.writeString(json, results.json(settings));
        Path series = json.resolveSibling(json.getFileName().toString().replaceFirst("\\.json$", "") + "-series.csv");
        Files.write(series, results.seriesCsv());
        stdout.println();
        stdout.println("Suite ycsb" + (quick ? " (quick run: numbers are not for quoting)" : "") + ", "
                + String.format(Locale.ROOT, "%,d", settings.records()) + " records of 10 x 100 bytes");
        stdout.print(results.latencyTable());
        stdout.print(results.steadinessTable(settings.warmup()));
        stdout.print(results.storageTable());
        stdout.println("Per-second throughput, files and bytes on disk: " + series.toAbsolutePath());
        return results.rows(settings);
    }

    private static void delete(Path dir) throws IOException {
        if (!Files.exists(dir)) {
            return;
        }
        try (Stream<Path> walk = Files.walk(dir)) {
            for (Path p : walk.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        }
    }

    /** The cells' tab-separated lines, grouped. */
    record Results(List<String[]> throughput, List<String[]> latency, List<String[]> series, List<String[]> storage) {

        static Results parse(List<String> lines) {
            Results r = new Results(new ArrayList<>(), new ArrayList<>(), new ArrayList<>(), new ArrayList<>());
            for (String line : lines) {
                String[] f = line.split("\t");
                switch (f[0]) {
                    case "result" -> r.throughput.add(f);
                    case "latency" -> r.latency.add(f);
                    case "series" -> r.series.add(f);
                    case "storage" -> r.storage.add(f);
                    default -> throw new IllegalArgumentException("unexpected line from a ycsb cell: " + line);
                }
            }
            return r;
        }

        List<ResultRow> rows(Settings settings) {
            List<ResultRow> rows = new ArrayList<>();
            for (String[] f : throughput) {
                double[] samples = samples(f[6]);
                rows.add(new ResultRow(f[3], f[1], Map.of("records", String.valueOf(settings.records())),
                        Integer.parseInt(f[2]), Double.parseDouble(f[4]), error(samples), "ops/s", true));
            }
            return rows;
        }

        /** JMH's JSON shape: one record per phase, threads and impl. */
        String json(Settings settings) {
            List<String> records = new ArrayList<>();
            String java = ProcessHandle.current().info().command().orElse("java");
            for (String[] f : throughput) {
                String impl = f[1];
                String threads = f[2];
                String phase = f[3];
                double score = Double.parseDouble(f[4]);
                double[] samples = samples(f[6]);
                double error = error(samples);
                Map<String, String> secondary = new LinkedHashMap<>();
                for (String[] l : latency) {
                    if (l[1].equals(impl) && l[2].equals(threads) && l[3].equals(phase)) {
                        secondary.put(l[4] + " p50", metric(Double.parseDouble(l[6]), "us"));
                        secondary.put(l[4] + " p99", metric(Double.parseDouble(l[7]), "us"));
                        secondary.put(l[4] + " p99.9", metric(Double.parseDouble(l[8]), "us"));
                    }
                }
                secondary.put("failed operations", metric(Double.parseDouble(f[5]), "ops"));
                if (phase.equals(YcsbCell.PHASES.getLast())) {
                    for (String[] s : storage) {
                        if (s[1].equals(impl) && s[2].equals(threads)) {
                            Storage st = Storage.of(s);
                            secondary.put("files after the run", metric(st.files, "files"));
                            secondary.put("disk after the run", metric(st.bytes / 1048576.0, "MiB"));
                            secondary.put("write amplification", metric(st.writeAmplification(), "x"));
                            secondary.put("space amplification", metric(st.spaceAmplification(), "x"));
                        }
                    }
                }
                StringBuilder raw = new StringBuilder();
                for (double s : samples) {
                    raw.append(raw.isEmpty() ? "" : ", ").append(number(s));
                }
                StringBuilder second = new StringBuilder();
                secondary.forEach((k, v) -> second.append(second.isEmpty() ? "" : ",\n").append("            \"")
                        .append(k).append("\" : ").append(v));
                records.add("""
                    {
                        "jmhVersion" : "none: measured by basalt's ycsb suite, written in JMH's shape",
                        "benchmark" : "io.basalt.bench.ycsb.Ycsb.%s",
                        "mode" : "thrpt",
                        "threads" : %s,
                        "forks" : 1,
                        "jvm" : "%s",
                        "jvmArgs" : [%s],
                        "jdkVersion" : "%s",
                        "vmName" : "%s",
                        "warmupIterations" : %d,
                        "warmupTime" : "1 s",
                        "measurementIterations" : %d,
                        "measurementTime" : "1 s",
                        "params" : {
                            "impl" : "%s",
                            "records" : "%d"
                        },
                        "primaryMetric" : {
                            "score" : %s,
                            "scoreError" : %s,
                            "scoreConfidence" : [%s, %s],
                            "scoreUnit" : "ops/s",
                            "rawData" : [[%s]]
                        },
                        "secondaryMetrics" : {
                %s
                        }
                    }""".formatted(phase.equals("load") ? "load" : "workload" + phase, threads, escape(java),
                        String.join(", ", YcsbCell.JVM_ARGS.stream().map(a -> "\"" + escape(a) + "\"").toList()),
                        escape(System.getProperty("java.version")), escape(System.getProperty("java.vm.name")),
                        phase.equals("load") ? 0 : settings.warmup(), samples.length, impl, settings.records(),
                        number(score), number(error), number(score - error), number(score + error), raw, second));
            }
            return "[\n" + String.join(",\n", records) + "\n]\n";
        }

        List<String> seriesCsv() {
            List<String> out = new ArrayList<>();
            out.add("impl,threads,phase,second,ops,files,disk_bytes");
            for (String[] s : series) {
                out.add(String.join(",", s[1], s[2], s[3], s[4], s[5], s[6], s[7]));
            }
            return out;
        }

        String latencyTable() {
            StringBuilder out = new StringBuilder(String.format(Locale.ROOT, "%n%-8s %7s %-5s %-7s %11s %9s %9s %9s %9s%n",
                    "impl", "threads", "phase", "op", "count", "p50 us", "p99 us", "p99.9 us", "max us"));
            for (String[] l : latency) {
                out.append(String.format(Locale.ROOT, "%-8s %7s %-5s %-7s %,11d %9s %9s %9s %9s%n", l[1], l[2], l[3],
                        l[4], Long.parseLong(l[5]), l[6], l[7], l[8], l[9]));
            }
            return out.toString();
        }

        /**
         * Seconds at the start of the load left out of its steadiness: the load is measured whole,
         * from a fresh JVM (and, for the server, fresh connections), and its first seconds are the
         * JIT's: the server's first second ran 410 ops against a median of 19,248, which read as
         * a 47x stall until the per-second series showed where it fell. The workloads after it
         * run on a warm JVM.
         */
        static final int LOAD_WARMUP_SECONDS = 5;

        /**
         * Per phase, the median and the worst of its measured whole seconds and how far the worst
         * fell below the median: the "no workload drops by more than 2x while a compaction
         * runs", with the most and fewest files seen (a compaction shows as their fall). Left out:
         * the last, partial second, the load's first {@link #LOAD_WARMUP_SECONDS}, and each
         * workload's {@code warmup} seconds, which its throughput leaves out too; their worst
         * second is shown in a column of its own. A workload's first second after the load runs
         * its read path's code for the first time and its caches cold: A's first second in the
         * 11-28 22:06 run made 33,444 ops, its next four 56-79k, while no file count fell.
         */
        String steadinessTable(int warmup) {
            Map<String, List<String[]>> byPhase = new LinkedHashMap<>();
            for (String[] s : series) {
                byPhase.computeIfAbsent(s[1] + "\t" + s[2] + "\t" + s[3], k -> new ArrayList<>()).add(s);
            }
            StringBuilder out = new StringBuilder(String.format(Locale.ROOT, "%n%-8s %7s %-5s %12s %12s %7s %14s %13s%n",
                    "impl", "threads", "phase", "median/s", "worst s", "drop", "warm-up worst", "files min-max"));
            for (Map.Entry<String, List<String[]>> e : byPhase.entrySet()) {
                List<String[]> points = e.getValue();
                if (points.size() < 3) {
                    continue;
                }
                List<String[]> whole = points.subList(0, points.size() - 1);
                String phase = points.getFirst()[3];
                int skip = phase.equals("load") ? LOAD_WARMUP_SECONDS : warmup;
                List<String[]> warming = List.of();
                if (skip > 0 && whole.size() >= skip + 3) {
                    warming = whole.subList(0, skip);
                    whole = whole.subList(skip, whole.size());
                }
                java.util.OptionalLong warmed = warming.stream().mapToLong(p -> Long.parseLong(p[5])).min();
                String warmingWorst = warmed.isPresent() ? String.format(Locale.ROOT, "%,d", warmed.getAsLong()) : "-";
                long[] ops = whole.stream().mapToLong(p -> Long.parseLong(p[5])).sorted().toArray();
                long median = ops[ops.length / 2];
                long worst = ops[0];
                long fewest = whole.stream().mapToLong(p -> Long.parseLong(p[6])).min().orElse(0);
                long most = whole.stream().mapToLong(p -> Long.parseLong(p[6])).max().orElse(0);
                String[] key = e.getKey().split("\t");
                out.append(String.format(Locale.ROOT, "%-8s %7s %-5s %,12d %,12d %6.1fx %14s %6d-%-6d%n", key[0], key[1],
                        key[2], median, worst, worst == 0 ? Double.POSITIVE_INFINITY : (double) median / worst, warmingWorst,
                        fewest, most));
            }
            out.append("drop = median second / worst whole second after the warm-up: the load's first ")
                    .append(LOAD_WARMUP_SECONDS).append(" s (a fresh JVM's) and each workload's ").append(warmup)
                    .append(" s (unmeasured) are left out; warm-up worst is their worst second.").append(System.lineSeparator());
            return out.toString();
        }

        String storageTable() {
            StringBuilder out = new StringBuilder(String.format(Locale.ROOT, "%n%-8s %7s %7s %10s %12s %12s%n",
                    "impl", "threads", "files", "disk MiB", "write amp.", "space amp."));
            for (String[] s : storage) {
                Storage st = Storage.of(s);
                out.append(String.format(Locale.ROOT, "%-8s %7s %7d %10.0f %12.2f %12.2f%n", s[1], s[2], st.files,
                        st.bytes / 1048576.0, st.writeAmplification(), st.spaceAmplification()));
            }
            out.append("write amp. = bytes the store's process wrote to disk (/proc/PID/io) / bytes of keys and values")
                    .append(" the client wrote;").append(System.lineSeparator())
                    .append("space amp. = bytes on disk after the run / bytes of the live records.")
                    .append(System.lineSeparator());
            return out.toString();
        }
    }

    /** A cell's storage line: files, bytes, bytes written by the process, bytes the client wrote, live bytes. */
    record Storage(long files, long bytes, long diskWritten, long logicalWritten, long liveBytes) {
        static Storage of(String[] s) {
            return new Storage(Long.parseLong(s[3]), Long.parseLong(s[4]), Long.parseLong(s[5]),
                    Long.parseLong(s[6]), Long.parseLong(s[7]));
        }

        double writeAmplification() {
            return diskWritten < 0 || logicalWritten == 0 ? Double.NaN : (double) diskWritten / logicalWritten;
        }

        double spaceAmplification() {
            return liveBytes == 0 ? Double.NaN : (double) bytes / liveBytes;
        }
    }

    private static double[] samples(String field) {
        return field.equals("-") ? new double[0] : Arrays.stream(field.split(",")).mapToDouble(Double::parseDouble)
                .toArray();
    }

    /** JMH's error: the half-width of the 99.9% confidence interval of the per-second samples. */
    static double error(double[] samples) {
        int n = samples.length;
        if (n < 2) {
            return Double.NaN;
        }
        double mean = Arrays.stream(samples).average().orElse(0);
        double variance = Arrays.stream(samples).map(s -> (s - mean) * (s - mean)).sum() / (n - 1);
        return new TDistribution(n - 1).inverseCumulativeProbability(0.9995) * Math.sqrt(variance / n);
    }

    private static String metric(double value, String unit) {
        return "{ \"score\" : " + number(value) + ", \"scoreError\" : \"NaN\", \"scoreConfidence\" : [" + number(value)
                + ", " + number(value) + "], \"scoreUnit\" : \"" + unit + "\" }";
    }

    /** A JSON number, or JMH's {@code "NaN"} string. */
    private static String number(double v) {
        return Double.isNaN(v) || Double.isInfinite(v) ? "\"NaN\"" : String.format(Locale.ROOT, "%.3f", v);
    }

    private static String escape(String s) {
        return s == null ? "" : s.replace("\\", "\\\\").replace("\"", "\\\"");
    }
}
