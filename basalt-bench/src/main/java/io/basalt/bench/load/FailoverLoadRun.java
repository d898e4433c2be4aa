package io.basalt.bench.load;

import io.basalt.client.AsyncTable;
import io.basalt.client.Basalt;
import io.basalt.client.Connection;
import io.basalt.client.Get;
import io.basalt.client.Put;
import io.basalt.client.TableDescriptor;
import io.basalt.cluster.ClusterStatus;
import io.basalt.cluster.NodeProcesses;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * The failover run of issue 19: a local 3-node cluster of processes with the default Raft
 * timeouts, writers putting rows through {@code basalt://n1,n2,n3}, and the leader of the table's
 * region killed with SIGKILL again and again (then restarted, and waited for until it has caught
 * up). For each kill: the time from the SIGKILL to the acknowledgement of the first write begun
 * after it, which is what a client feels. At the end every acknowledged row is read back.
 * {@code ./basalt load failover [--kills 20] [--quick]}.
 */
@Command(name = "basalt load failover", mixinStandardHelpOptions = true,
        description = "Kill the leader of a 3-node cluster again and again; how long until writes resume.")
public final class FailoverLoadRun implements java.util.concurrent.Callable<Integer> {

    @Option(names = "--kills", description = "Leaders to kill (default 20).")
    private int kills = 20;

    @Option(names = "--writers", description = "Writer threads (default 4).")
    private int writers = 4;

    @Option(names = "--quick", description = "A smoke run: 3 kills. Its numbers are not for quoting.")
    private boolean quick;

    @Option(names = "--dir", description = "Where the nodes keep their data (default: a temporary directory).")
    private Path directory;

    public static void main(String[] args) {
        System.exit(new CommandLine(new FailoverLoadRun()).execute(args));
    }

    @Override
    public Integer call() throws Exception {
        if (quick) {
            kills = 3;
        }
        Path root = directory != null ? Files.createDirectories(directory) : Files.createTempDirectory("basalt-failover-");
        List<Long> resumed = new ArrayList<>();
        ConcurrentLinkedQueue<String> acked = new ConcurrentLinkedQueue<>();
        AtomicLong failed = new AtomicLong();
        try (NodeProcesses cluster = new NodeProcesses(root, 3, null)) {
            cluster.startAll();
            try (Connection c = Basalt.connect(cluster.uri())) {
                c.admin().createTable(TableDescriptor.of("t", "f")).get(120, TimeUnit.SECONDS);
                AsyncTable t = c.table("t");
                // The invocation and acknowledgement times of the latest acknowledged write begun last.
                AtomicReference<long[]> latest = new AtomicReference<>(new long[] {0, 0});
                AtomicBoolean stop = new AtomicBoolean();
                List<Thread> threads = new ArrayList<>();
                for (int w = 0; w < writers; w++) {
                    int writer = w;
                    threads.add(Thread.ofPlatform().name("writer-" + w).daemon().start(() -> {
                        for (long i = 0; !stop.get(); i++) {
                            String row = "w" + writer + "-" + i;
                            long invoked = System.nanoTime();
                            try {
                                t.put(Put.of(row).addColumn("f", "q", row)).get(60, TimeUnit.SECONDS);
                                acked.add(row);
                                long done = System.nanoTime();
                                latest.accumulateAndGet(new long[] {invoked, done}, (a, b) -> b[0] > a[0] ? b : a);
                            } catch (Exception e) {
                                if (failed.incrementAndGet() <= 3) {
                                    System.out.println("a write failed: " + e);
                                }
                            }
                        }
                    }));
                }
                for (int k = 0; k < kills; k++) {
                    Thread.sleep(2000);
                    int leader = cluster.awaitLeader("t", Duration.ofSeconds(60));
                    long killedAt = System.nanoTime();
                    cluster.kill(leader);
                    long deadline = killedAt + TimeUnit.SECONDS.toNanos(120);
                    while (latest.get()[0] < killedAt && System.nanoTime() < deadline) {
                        Thread.sleep(5);
                    }
                    if (latest.get()[0] < killedAt) {
                        System.out.println("kill " + (k + 1) + ": writes did not resume within 120 s");
                        stop.set(true);
                        return 1;
                    }
                    long ms = TimeUnit.NANOSECONDS.toMillis(latest.get()[1] - killedAt);
                    resumed.add(ms);
                    System.out.printf("kill %d of %d: node %d, writes resumed after %d ms%n", k + 1, kills, leader, ms);
                    cluster.start(leader);
                    awaitCaughtUp(cluster);
                }
                stop.set(true);
                for (Thread th : threads) {
                    th.join(TimeUnit.MINUTES.toMillis(2));
                }
                long lost = 0;
                for (String row : acked) {
                    if (t.get(Get.of(row)).get(60, TimeUnit.SECONDS).isEmpty()) {
                        lost++;
                    }
                }
                List<Long> sorted = resumed.stream().sorted().toList();
                System.out.println();
                System.out.printf("failover: %d kills of the leader (SIGKILL), default timeouts (election 1-2 s), %d"
                        + " writers%n", kills, writers);
                System.out.printf("writes resumed after (ms): min %d, p50 %d, p90 %d, p99 %d, max %d%n",
                        sorted.getFirst(), pct(sorted, 50), pct(sorted, 90), pct(sorted, 99), sorted.getLast());
                System.out.printf("all (ms): %s%n", resumed);
                System.out.printf("acknowledged writes: %d, of them lost: %d; writes that failed (not acknowledged):"
                        + " %d%n", acked.size(), lost, failed.get());
                return lost == 0 ? 0 : 1;
            }
        } finally {
            if (directory == null) {
                deleteTree(root);
            }
        }
    }

    private static long pct(List<Long> sorted, int p) {
        int i = (int) Math.ceil(p / 100.0 * sorted.size()) - 1;
        return sorted.get(Math.clamp(i, 0, sorted.size() - 1));
    }

    /** Waits (at most 60 s) until every replica of every region has applied what its leader has. */
    private static void awaitCaughtUp(NodeProcesses cluster) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (System.nanoTime() < deadline) {
            ClusterStatus.Report r = ClusterStatus.of(cluster.peers());
            if (r.problem() == null && !r.regions().isEmpty() && r.regions().stream().allMatch(s -> s.leader() != 0
                    && s.lag().values().stream().allMatch(l -> l >= 0 && l < 100))) {
                return;
            }
            Thread.sleep(200);
        }
    }

    private static void deleteTree(Path root) {
        try (var walk = Files.walk(root)) {
            walk.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (java.io.IOException e) {
            System.err.println("could not delete " + root + ": " + e.getMessage());
        }
    }
}
