package io.basalt.bench.load;

import io.basalt.client.AsyncTable;
import io.basalt.client.Basalt;
import io.basalt.client.CheckAndMutate;
import io.basalt.client.Connection;
import io.basalt.client.Get;
import io.basalt.client.Increment;
import io.basalt.client.NoSuchFamilyException;
import io.basalt.client.Put;
import io.basalt.client.Result;
import io.basalt.client.TableDescriptor;
import io.basalt.client.TableNotFoundException;
import io.basalt.client.net.ClientOptions;
import io.basalt.cluster.ClusterPeer;
import io.basalt.cluster.NodeProcesses;
import io.basalt.testkit.history.History;
import io.basalt.testkit.history.Linearizability;
import io.basalt.testkit.history.Op;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * The nemesis test of issue 19: a 3-node cluster of processes on loopback, clients running reads,
 * writes, compare-and-sets and increments on a few keys, each connected to a different node first,
 * while a nemesis kills the leader with SIGKILL (restarting it), pauses a node with SIGSTOP for
 * longer than an election (a GC pause), cuts a node's links to the others for longer than an
 * election (a partition, {@link io.basalt.cluster.LinkFaults}), and restarts nodes. Every operation's invocation and
 * completion goes into a {@link History}; the history must be linearizable for a key-value
 * register with compare-and-set and counters. An operation that failed in a way that says it was
 * not applied is recorded failed; any other failure (a timeout, a lost connection) is recorded
 * indeterminate, and the checker lets it have happened or not.
 *
 * <p>Half the clients route each row to its leader, half send everything to their first node
 * (which forwards, and serves reads as a follower). A partition cuts Raft traffic and forwarding
 * between the nodes; clients keep their
 * connections to every node, the isolated one included. The election timeouts are the defaults
 * (1-2 s). {@code ./basalt load nemesis [--runs N] [--seconds S]};
 * {@code --plant-stale-reads} starts the nodes with a planted bug (reads served from a replica
 * without lease or ReadIndex), which the checker must catch.
 */
@Command(name = "basalt load nemesis", mixinStandardHelpOptions = true,
        description = "Clients on a 3-node cluster under faults; the history checked for linearizability.")
public final class NemesisRun implements java.util.concurrent.Callable<Integer> {

    @Option(names = "--runs", description = "Runs, each on a fresh cluster (default 1).")
    private int runs = 1;

    @Option(names = "--seconds", description = "Seconds of operations per run (default 30).")
    private int seconds = 30;

    @Option(names = "--clients", description = "Client threads, each with its own connection (default 5).")
    private int clients = 5;

    @Option(names = "--seed", description = "Seed of the first run (default: from the clock).")
    private Long seed;

    @Option(names = "--plant-stale-reads", description = "Start the nodes with the planted stale-read bug.")
    private boolean plantStaleReads;

    @Option(names = "--dir", description = "Where runs keep their data and failing histories (default: temporary).")
    private Path directory;

    static final String[] REGISTERS = {"r0", "r1", "r2", "r3", "r4"};
    static final String[] COUNTERS = {"c0", "c1"};
    private static final byte[] F = {'f'};
    private static final byte[] Q = {'q'};

    public static void main(String[] args) {
        System.exit(new CommandLine(new NemesisRun()).execute(args));
    }

    /** What one run did and what the checker said. */
    public record Outcome(long seed, int operations, int indeterminate, int faults, List<String> faultLog,
                          Linearizability.Result check, Path history, java.util.Map<String, Integer> unknownCauses) {}

    @Override
    public Integer call() throws Exception {
        Path root = directory != null ? Files.createDirectories(directory) : Files.createTempDirectory("basalt-nemesis-");
        long first = seed != null ? seed : System.currentTimeMillis();
        int clean = 0;
        for (int run = 0; run < runs; run++) {
            Outcome o = runOnce(root.resolve("run" + run), first + run, seconds, clients, plantStaleReads);
            System.out.printf("run %d of %d (seed %d): %d operations (%d indeterminate%s), %d faults [%s]: %s%n", run + 1,
                    runs, o.seed(), o.operations(), o.indeterminate(),
                    o.unknownCauses().isEmpty() ? "" : " " + o.unknownCauses(), o.faults(), String.join(", ", o.faultLog()),
                    o.check().linearizable() ? "linearizable" : o.check().unknown() ? "UNKNOWN (search bound)"
                            : "NOT LINEARIZABLE on " + o.check().key() + ": " + o.check().explanation()
                            + " (history: " + o.history() + ")");
            if (o.check().linearizable()) {
                clean++;
            } else if (!plantStaleReads) {
                return 1;
            }
        }
        System.out.printf("%d of %d runs linearizable%n", clean, runs);
        return plantStaleReads ? (clean < runs ? 0 : 1) : 0;
    }

    /** One run on a fresh cluster in {@code dir}; the history is written there. */
    public static Outcome runOnce(Path dir, long seed, int seconds, int clients, boolean plantStaleReads)
            throws Exception {
        Files.createDirectories(dir);
        History history = new History();
        List<String> faultLog = new ArrayList<>();
        AtomicInteger indeterminate = new AtomicInteger();
        java.util.Map<String, Integer> causes = new java.util.concurrent.ConcurrentSkipListMap<>();
        List<String> jvm = plantStaleReads ? List.of("-Dbasalt.cluster.unsafeStaleReads=true") : List.of();
        try (NodeProcesses cluster = new NodeProcesses(dir, 3, null, jvm)) {
            cluster.startAll();
            createTable(cluster.uri());
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
            List<Thread> threads = new ArrayList<>();
            for (int c = 0; c < clients; c++) {
                int client = c;
                String uri = rotated(cluster.peers(), c);
                threads.add(Thread.ofPlatform().name("client-" + c).daemon().start(() ->
                        client(client, uri, seed * 31 + client, deadline, history, indeterminate, causes)));
            }
            Thread nemesis = Thread.ofPlatform().name("nemesis").daemon().start(() ->
                    nemesis(cluster, new SplittableRandom(seed), deadline, faultLog));
            nemesis.join();
            for (Thread t : threads) {
                t.join(TimeUnit.MINUTES.toMillis(3));
            }
        }
        Path file = dir.resolve("history.txt");
        history.writeTo(file);
        Linearizability.Result check = Linearizability.check(history);
        int operations = (int) history.entries().stream().filter(io.basalt.testkit.history.Entry::invocation).count();
        return new Outcome(seed, operations, indeterminate.get(), faultLog.size(), faultLog, check, file, causes);
    }

    /**
     * Creates the table, again while the metadata group is still electing its first leader (the
     * answer is UNAVAILABLE, nothing applied); a TableExists on a second try means the first one
     * took effect after all.
     */
    private static void createTable(String uri) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
        try (Connection admin = Basalt.connect(uri)) {
            while (true) {
                try {
                    admin.admin().createTable(TableDescriptor.of("t", "f")).get(120, TimeUnit.SECONDS);
                    return;
                } catch (ExecutionException e) {
                    if (e.getCause() instanceof io.basalt.client.TableExistsException) {
                        return;
                    }
                    if (!(e.getCause() instanceof io.basalt.client.UnavailableException) || System.nanoTime() > deadline) {
                        throw e;
                    }
                    Thread.sleep(500);
                }
            }
        }
    }

    /** The cluster's addresses starting at node {@code first % n}: clients spread over the nodes. */
    private static String rotated(List<ClusterPeer> peers, int first) {
        List<ClusterPeer> order = new ArrayList<>();
        for (int i = 0; i < peers.size(); i++) {
            order.add(peers.get((first + i) % peers.size()));
        }
        return "basalt://" + order.stream().map(ClusterPeer::clientAddress).collect(Collectors.joining(","));
    }

    private static void client(int client, String uri, long seed, long deadline, History history,
                               AtomicInteger indeterminate, java.util.Map<String, Integer> causes) {
        SplittableRandom random = new SplittableRandom(seed);
        // Even clients send each row to its leader; odd ones talk to their first node, which
        // forwards writes and serves reads as a follower (ReadIndex): both paths under the faults.
        ClientOptions options = ClientOptions.builder().routeToLeaders(client % 2 == 0).build();
        try (Connection c = Basalt.connect(uri, options, io.basalt.client.StoreOptions.defaults())) {
            AsyncTable t = c.table("t");
            int written = 0;
            while (System.nanoTime() < deadline) {
                Op op;
                int kind = random.nextInt(10);
                if (kind < 2) {
                    op = new Op.Add(COUNTERS[random.nextInt(COUNTERS.length)], 1);
                } else if (kind < 3) {
                    op = new Op.ReadCounter(COUNTERS[random.nextInt(COUNTERS.length)]);
                } else {
                    String key = REGISTERS[random.nextInt(REGISTERS.length)];
                    String value = client + "-" + (++written);
                    op = switch (kind) {
                        case 3, 4, 5 -> new Op.Read(key);
                        case 6, 7 -> new Op.Write(key, value);
                        default -> new Op.Cas(key, random.nextInt(3) == 0 ? null
                                : client + "-" + Math.max(1, written - 1 - random.nextInt(2)), value);
                    };
                }
                long id = history.invoke(client, op);
                try {
                    history.ok(id, perform(t, op));
                } catch (ExecutionException e) {
                    Throwable cause = e.getCause();
                    if (cause instanceof TableNotFoundException || cause instanceof NoSuchFamilyException) {
                        history.fail(id); // refused before anything was applied
                    } else {
                        history.info(id); // may or may not have been applied
                        indeterminate.incrementAndGet();
                        causes.merge(cause(cause), 1, Integer::sum);
                    }
                } catch (InterruptedException e) {
                    throw e;
                } catch (Exception e) { // a timeout, a refused connection: the outcome is unknown
                    history.info(id);
                    indeterminate.incrementAndGet();
                    causes.merge(cause(e), 1, Integer::sum);
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** An unknown outcome's cause, for the report: its kind and the start of its message. */
    private static String cause(Throwable t) {
        String m = String.valueOf(t.getMessage());
        return t.getClass().getSimpleName() + ": " + (m.length() > 90 ? m.substring(0, 90) + "..." : m);
    }

    private static Object perform(AsyncTable t, Op op) throws Exception {
        long timeout = 30;
        return switch (op) {
            case Op.Read r -> {
                Result res = t.get(Get.of(r.key())).get(timeout, TimeUnit.SECONDS);
                yield res.isEmpty() ? null : new String(res.value(F, Q), StandardCharsets.UTF_8);
            }
            case Op.Write w -> {
                t.put(Put.of(w.key()).addColumn("f", "q", w.value())).get(timeout, TimeUnit.SECONDS);
                yield null;
            }
            case Op.Cas cas -> {
                CheckAndMutate.Builder b = CheckAndMutate.onRow(cas.key().getBytes(StandardCharsets.UTF_8));
                b = cas.expected() == null ? b.ifAbsent(F, Q)
                        : b.ifEquals(F, Q, cas.expected().getBytes(StandardCharsets.UTF_8));
                yield t.checkAndMutate(b.then(Put.of(cas.key()).addColumn("f", "q", cas.newValue())))
                        .get(timeout, TimeUnit.SECONDS);
            }
            case Op.Add a -> {
                Result res = t.increment(Increment.of(a.key()).addColumn(F, Q, a.delta())).get(timeout, TimeUnit.SECONDS);
                yield Increment.decode(MemorySegment.ofArray(res.value(F, Q)));
            }
            case Op.ReadCounter rc -> {
                Result res = t.get(Get.of(rc.key())).get(timeout, TimeUnit.SECONDS);
                yield res.isEmpty() ? 0L : Increment.decode(MemorySegment.ofArray(res.value(F, Q)));
            }
        };
    }

    /**
     * Merges two neighbouring regions of {@code t} picked at random, trying again for up to 20 s
     * while one is still starting or has no leader; returns what happened, for the fault log.
     */
    private static String mergeNeighbours(NodeProcesses cluster, SplittableRandom random) throws Exception {
        try (Connection admin = Basalt.connect(cluster.uri())) {
            List<io.basalt.client.RegionInfo> regions = admin.admin().listRegions("t").get(60, TimeUnit.SECONDS);
            if (regions.size() < 2) {
                return "merge: only one region";
            }
            int i = random.nextInt(regions.size() - 1);
            String what = "merge of regions " + regions.get(i).id() + " and " + regions.get(i + 1).id();
            long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
            while (true) {
                try {
                    admin.admin().mergeRegions("t", regions.get(i).name(), regions.get(i + 1).name())
                            .get(60, TimeUnit.SECONDS);
                    return what;
                } catch (ExecutionException e) {
                    if (!(e.getCause() instanceof io.basalt.client.UnavailableException)
                            || System.nanoTime() > until) {
                        return what + " refused: " + e.getCause().getMessage();
                    }
                    Thread.sleep(500);
                }
            }
        }
    }

    /**
     * Kill, split, partition, merge, pause, restart: the cases of {@link #nemesis}'s switch, in
     * turn. The faults NemesisIT requires (a partition, a split, a merge) come within the first
     * four, so a slow machine that fits only four faults into a run still makes them all.
     */
    private static final int[] FAULT_ORDER = {0, 3, 2, 4, 1, 5};

    /**
     * Faults until the deadline, one every 3-5 s, in the turn {@link #FAULT_ORDER} gives: kill the
     * leader, split the region holding a key at that key (clients' rows move to new groups
     * mid-run), cut a node (the leader half the time) off from the others, merge two neighbouring
     * regions (their rows move to one new group), pause a node, restart a node. A 60 s run makes
     * each at least once.
     */
    private static void nemesis(NodeProcesses cluster, SplittableRandom random, long deadline, List<String> log) {
        try {
            Thread.sleep(2000);
            int round = 0;
            while (System.nanoTime() + TimeUnit.SECONDS.toNanos(6) < deadline) {
                // case numbers name the faults; FAULT_ORDER says which comes when
                switch (FAULT_ORDER[round++ % FAULT_ORDER.length]) {
                    case 0 -> {
                        int leader = cluster.awaitLeader("t", Duration.ofSeconds(30));
                        cluster.kill(leader);
                        log.add("kill -9 leader " + leader);
                        Thread.sleep(1500);
                        cluster.start(leader);
                    }
                    case 1 -> {
                        int node = 1 + random.nextInt(3);
                        cluster.pause(node);
                        log.add("SIGSTOP " + node + " 4 s");
                        Thread.sleep(4000);
                        cluster.resume(node);
                    }
                    case 2 -> {
                        // half the time the leader itself: the old leader with clients still talking to it
                        int node = random.nextBoolean() ? cluster.awaitLeader("t", Duration.ofSeconds(30))
                                : 1 + random.nextInt(3);
                        cluster.isolate(node);
                        log.add("partition " + node + " 4 s");
                        Thread.sleep(4000);
                        cluster.heal();
                    }
                    case 3 -> {
                        List<String> keys = new ArrayList<>(List.of(REGISTERS));
                        keys.addAll(List.of(COUNTERS));
                        String key = keys.get(random.nextInt(keys.size()));
                        try (Connection admin = Basalt.connect(cluster.uri())) {
                            admin.admin().split("t", key.getBytes(StandardCharsets.UTF_8)).get(60, TimeUnit.SECONDS);
                            log.add("split at " + key);
                        } catch (ExecutionException e) {
                            // a key that starts a region already, or a split the keepers will finish
                            log.add("split at " + key + " refused: " + e.getCause().getMessage());
                        }
                    }
                    case 4 -> log.add(mergeNeighbours(cluster, random));
                    default -> {
                        int node = 1 + random.nextInt(3);
                        cluster.kill(node);
                        log.add("restart " + node);
                        cluster.start(node);
                    }
                }
                Thread.sleep(3000 + random.nextInt(2000));
            }
        } catch (Exception e) {
            log.add("nemesis stopped: " + e);
        }
    }
}
