package io.basalt.cluster;

import io.basalt.client.StoreOptions;
import io.basalt.server.ServerConfig;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;

/**
 * One cluster node as a process, for {@link NodeProcesses} (tests, load runs): {@code --node-id N
 * --peers SPEC --data DIR [--replication R] [--election-ms MIN:MAX]}. Prints {@code node N ready}
 * once serving; SIGTERM stops it cleanly. With {@code -Dbasalt.nemesis.links=FILE} it follows the link
 * cuts a nemesis writes there ({@link LinkFaults}). The command line's {@code basalt server --cluster} is the
 * same node with its configuration file.
 */
public final class NodeMain {

    private NodeMain() {}

    public static void main(String[] args) throws Exception {
        Map<String, String> a = new HashMap<>();
        for (int i = 0; i + 1 < args.length; i += 2) {
            a.put(args[i], args[i + 1]);
        }
        int id = Integer.parseInt(a.get("--node-id"));
        List<ClusterPeer> peers = ClusterPeer.parseList(a.get("--peers"));
        RaftTuning tuning = RaftTuning.defaults();
        if (a.containsKey("--election-ms")) {
            String[] ms = a.get("--election-ms").split(":");
            tuning = tuning.withElectionTimeout(Duration.ofMillis(Long.parseLong(ms[0])),
                    Duration.ofMillis(Long.parseLong(ms[1])));
        }
        String links = System.getProperty("basalt.nemesis.links");
        if (links != null) {
            LinkFaults.follow(Path.of(links), "n" + id);
        }
        int replication = Integer.parseInt(a.getOrDefault("--replication", String.valueOf(Math.min(3, peers.size()))));
        BasaltNode node = BasaltNode.start(new BasaltNode.Config(id, peers, Path.of(a.get("--data")), replication,
                tuning, StoreOptions.defaults(), ServerConfig.defaults()));
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            try {
                node.close();
            } catch (Exception e) {
                System.out.println("node " + id + " stopped with an error: " + e);
            }
            stopped.countDown();
        }));
        System.out.println("node " + id + " ready (pid " + ProcessHandle.current().pid() + ")");
        System.out.flush();
        stopped.await();
    }
}
