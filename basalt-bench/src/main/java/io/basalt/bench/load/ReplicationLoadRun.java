package io.basalt.bench.load;

import io.basalt.client.AsyncTable;
import io.basalt.client.Basalt;
import io.basalt.client.Connection;
import io.basalt.client.Get;
import io.basalt.client.Put;
import io.basalt.client.TableDescriptor;
import io.basalt.cluster.FreePorts;
import io.basalt.cluster.NodeProcesses;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.Recorder;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * What replication costs (issue 19): the same YCSB-shaped workloads against one single-node server
 * process and against a 3-node cluster of processes on this machine, the client in this JVM.
 * Workload A is 50% reads and 50% updates, C is reads only, keys Zipfian (theta 0.99, as YCSB's
 * default) over the loaded records; each record is one row of ten 100-byte columns, an update
 * writes one column. Reported per target and workload: operations per second, read and update
 * latency, and the server processes' CPU time per operation (from {@code /proc}), from which a
 * 3-machine deployment is estimated. {@code ./basalt load replication [--quick]}.
 *
 * <p>This is not the YCSB binding (issue 20): the operation mix and key choice follow YCSB's core
 * workloads, the client is Basalt's own.
 */
@Command(name = "basalt load replication", mixinStandardHelpOptions = true,
        description = "YCSB A and C shapes against one server and a 3-node cluster on this machine.")
public final class ReplicationLoadRun implements java.util.concurrent.Callable<Integer> {

    @Option(names = "--records", description = "Records loaded (default 100000).")
    private int records = 100_000;

    @Option(names = "--threads", description = "Client threads (default 8).")
    private int threads = 8;

    @Option(names = "--seconds", description = "Seconds per workload and target (default 30).")
    private int seconds = 30;

    @Option(names = "--warmup", description = "Seconds of workload A, unmeasured, before measuring (default 30):"
            + " the servers' JIT compilers need it (Ratis and gRPC are large).")
    private int warmup = 30;

    @Option(names = "--quick", description = "A smoke run: 5,000 records, 5 s per workload. Not for quoting.")
    private boolean quick;

    @Option(names = "--uri", description = "Run only against this running server or cluster (its PIDs in --pids).")
    private String uri;

    @Option(names = "--pids", split = ",", description = "The server processes of --uri, for CPU per operation.")
    private List<Long> pids = new ArrayList<>();

    @Option(names = "--only-updates", description = "Add a workload of updates only (for finding where writes cost).")
    private boolean onlyUpdates;

    public static void main(String[] args) {
        System.exit(new CommandLine(new ReplicationLoadRun()).execute(args));
    }

    /** What one workload measured on one target. */
    record Outcome(String target, String workload, long ops, double seconds, Histogram reads, Histogram updates,
                   double cpuSeconds) {
        double opsPerSecond() {
            return ops / seconds;
        }

        double cpuMicrosPerOp() {
            return cpuSeconds * 1e6 / ops;
        }
    }

    @Override
    public Integer call() throws Exception {
        if (quick) {
            records = 5_000;
            seconds = 5;
            warmup = 3;
        }
        List<Outcome> outcomes = new ArrayList<>();
        if (uri != null) {
            outcomes.addAll(run(uri, uri, pids));
            print(outcomes);
            return 0;
        }
        Path root = Files.createTempDirectory("basalt-replication-");
        try {
            int port = FreePorts.take();
            Path log = root.resolve("server.log");
            Process server = new ProcessBuilder(ProcessHandle.current().info().command().orElse("java"),
                    "--enable-native-access=ALL-UNNAMED", "--sun-misc-unsafe-memory-access=allow", "-Xmx2g", "-cp",
                    System.getProperty("java.class.path"), ServerProcess.class.getName(), String.valueOf(port),
                    root.resolve("single").toString())
                    .redirectErrorStream(true).redirectOutput(log.toFile()).start();
            try {
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
                while (!Files.readString(log).contains("server ready")) {
                    if (!server.isAlive() || System.nanoTime() > deadline) {
                        throw new IOException("the single server did not start; see " + log);
                    }
                    Thread.sleep(50);
                }
                outcomes.addAll(run("one server", "basalt://127.0.0.1:" + port, List.of(server.pid())));
            } finally {
                server.destroy();
                server.waitFor(30, TimeUnit.SECONDS);
            }
            try (NodeProcesses cluster = new NodeProcesses(root.resolve("cluster"), 3, null)) {
                cluster.startAll();
                outcomes.addAll(run("3-node cluster", cluster.uri(), List.of(cluster.pid(1), cluster.pid(2),
                        cluster.pid(3))));
            }
        } finally {
            try (var walk = Files.walk(root)) {
                walk.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
        print(outcomes);
        return 0;
    }

    private List<Outcome> run(String target, String uri, List<Long> pids) throws Exception {
        try (Connection c = Basalt.connect(uri)) {
            // Three regions, so that in the cluster the leaders can spread over the nodes.
            c.admin().createTable(TableDescriptor.of("usertable", "f"), List.of(key(records / 3).getBytes(),
                    key(2 * records / 3).getBytes())).get(120, TimeUnit.SECONDS);
            AsyncTable t = c.table("usertable");
            load(t);
            workload(target, "warm-up", t, 0.5, pids, warmup);
            List<Outcome> out = new ArrayList<>();
            out.add(workload(target, "A (50% read, 50% update)", t, 0.5, pids));
            out.add(workload(target, "C (100% read)", t, 0.0, pids));
            if (onlyUpdates) {
                out.add(workload(target, "updates only", t, 1.0, pids));
            }
            return out;
        }
    }

    private static String key(long i) {
        return String.format("user%010d", i);
    }

    private void load(AsyncTable t) throws Exception {
        byte[] field = new byte[100];
        new SplittableRandom(1).nextBytes(field);
        List<CompletableFuture<Void>> inFlight = new ArrayList<>();
        for (int i = 0; i < records; i++) {
            Put p = Put.of(key(i));
            for (int f = 0; f < 10; f++) {
                p.addColumn("f".getBytes(), ("field" + f).getBytes(), field);
            }
            inFlight.add(t.put(p));
            if (inFlight.size() == 256) {
                CompletableFuture.allOf(inFlight.toArray(CompletableFuture[]::new)).get(120, TimeUnit.SECONDS);
                inFlight.clear();
            }
        }
        CompletableFuture.allOf(inFlight.toArray(CompletableFuture[]::new)).get(120, TimeUnit.SECONDS);
    }

    private Outcome workload(String target, String name, AsyncTable t, double updateShare, List<Long> pids)
            throws Exception {
        return workload(target, name, t, updateShare, pids, seconds);
    }

    private Outcome workload(String target, String name, AsyncTable t, double updateShare, List<Long> pids,
                             int seconds) throws Exception {
        Recorder reads = new Recorder(3);
        Recorder updates = new Recorder(3);
        AtomicBoolean stop = new AtomicBoolean();
        long[] counts = new long[threads];
        Zipfian zipf = new Zipfian(records, 0.99);
        double cpuBefore = cpuSeconds(pids);
        long started = System.nanoTime();
        List<Thread> workers = new ArrayList<>();
        for (int w = 0; w < threads; w++) {
            int id = w;
            workers.add(Thread.ofPlatform().name("client-" + w).daemon().start(() -> {
                SplittableRandom random = new SplittableRandom(42 + id);
                byte[] field = new byte[100];
                while (!stop.get()) {
                    String k = key(zipf.next(random));
                    long t0 = System.nanoTime();
                    try {
                        if (random.nextDouble() < updateShare) {
                            random.nextBytes(field);
                            t.put(Put.of(k).addColumn("f".getBytes(), ("field" + random.nextInt(10)).getBytes(), field))
                                    .get(60, TimeUnit.SECONDS);
                            updates.recordValue((System.nanoTime() - t0) / 1000);
                        } else {
                            t.get(Get.of(k)).get(60, TimeUnit.SECONDS);
                            reads.recordValue((System.nanoTime() - t0) / 1000);
                        }
                        counts[id]++;
                    } catch (Exception e) {
                        throw new IllegalStateException(name + " on " + target + ": " + e.getMessage(), e);
                    }
                }
            }));
        }
        Thread.sleep(TimeUnit.SECONDS.toMillis(seconds));
        stop.set(true);
        for (Thread w : workers) {
            w.join();
        }
        double elapsed = (System.nanoTime() - started) / 1e9;
        double cpu = cpuSeconds(pids) - cpuBefore;
        long ops = 0;
        for (long n : counts) {
            ops += n;
        }
        Outcome o = new Outcome(target, name, ops, elapsed, reads.getIntervalHistogram(), updates.getIntervalHistogram(),
                cpu);
        System.out.printf("%s, %s: %.0f ops/s, %.0f us CPU per op%n", target, name, o.opsPerSecond(), o.cpuMicrosPerOp());
        return o;
    }

    /** User plus system CPU seconds of the processes so far, from /proc (clock ticks of 1/100 s). */
    static double cpuSeconds(List<Long> pids) throws IOException {
        double total = 0;
        for (long pid : pids) {
            String stat = Files.readString(Path.of("/proc", String.valueOf(pid), "stat"));
            String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
            total += (Long.parseLong(f[11]) + Long.parseLong(f[12])) / 100.0; // utime, stime
        }
        return total;
    }

    private void print(List<Outcome> outcomes) {
        int cores = Runtime.getRuntime().availableProcessors();
        System.out.println();
        System.out.printf("replication: %d records of ten 100-byte columns, %d client threads, %d s per workload,"
                + " %d cores, everything on this machine%n", records, threads, seconds, cores);
        System.out.println("| target | workload | ops/s | read p50 / p99 (ms) | update p50 / p99 (ms) | server CPU per op"
                + " (us) |");
        System.out.println("|---|---|---:|---:|---:|---:|");
        for (Outcome o : outcomes) {
            System.out.printf("| %s | %s | %.0f | %s | %s | %.0f |%n", o.target(), o.workload(), o.opsPerSecond(),
                    latency(o.reads()), latency(o.updates()), o.cpuMicrosPerOp());
        }
        System.out.println();
        for (Outcome o : outcomes) {
            if (o.target().startsWith("3-node")) {
                // Three machines of this machine's cores each, every node's CPU its own, the network
                // not the bound: what the measured CPU per operation allows.
                System.out.printf("3 machines of %d cores, %s: about %.0f ops/s if CPU-bound (%.0f us of server CPU"
                        + " per op across the 3 nodes)%n", cores, o.workload(), 3 * cores * 1e6 / o.cpuMicrosPerOp(),
                        o.cpuMicrosPerOp());
            }
        }
    }

    private static String latency(Histogram h) {
        if (h.getTotalCount() == 0) {
            return "-";
        }
        return String.format("%.2f / %.2f", h.getValueAtPercentile(50) / 1000.0, h.getValueAtPercentile(99) / 1000.0);
    }

    /** Zipfian ranks over {@code [0, n)}, as YCSB draws them (Gray et al.'s method), rank 0 the hottest. */
    static final class Zipfian {
        private final long n;
        private final double theta;
        private final double alpha;
        private final double zetan;
        private final double eta;

        Zipfian(long n, double theta) {
            this.n = n;
            this.theta = theta;
            double z = 0;
            for (long i = 1; i <= n; i++) {
                z += 1 / Math.pow(i, theta);
            }
            this.zetan = z;
            double zeta2 = 1 + 1 / Math.pow(2, theta);
            this.alpha = 1 / (1 - theta);
            this.eta = (1 - Math.pow(2.0 / n, 1 - theta)) / (1 - zeta2 / zetan);
        }

        long next(SplittableRandom random) {
            double u = random.nextDouble();
            double uz = u * zetan;
            if (uz < 1) {
                return 0;
            }
            if (uz < 1 + Math.pow(0.5, theta)) {
                return 1;
            }
            return Math.min(n - 1, (long) (n * Math.pow(eta * u - eta + 1, alpha)));
        }
    }
}
