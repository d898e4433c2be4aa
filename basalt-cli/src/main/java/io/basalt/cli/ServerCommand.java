package io.basalt.cli;

import io.basalt.cluster.BasaltNode;
import io.basalt.cluster.ClusterPeer;
import io.basalt.cluster.RaftTuning;
import io.basalt.server.BasaltServer;
import io.basalt.server.ServerConfig;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code basalt server}: serves a store over the network until SIGTERM or Ctrl-C, then stops as
 * {@link BasaltServer#close()} says (no new requests, in-flight ones finish, data flushed).
 */
@Command(name = "server", mixinStandardHelpOptions = true,
        description = {"Serve a store over the network (the Basalt protocol, on Netty).",
            "Prints one line with its address when ready; SIGTERM or Ctrl-C stops it cleanly."})
final class ServerCommand implements Callable<Integer> {

    @Option(names = "--port", paramLabel = "PORT", description = "The port to listen on (default 16020; 0 picks one).")
    private Integer port;

    @Option(names = "--host", paramLabel = "ADDRESS",
            description = "The address to listen on (default 127.0.0.1; 0.0.0.0 for every interface).")
    private String host;

    @Option(names = "--data", paramLabel = "DIR", description = "The store's directory (default basalt-data).")
    private Path data;

    @Option(names = "--cluster", description = "Run as a node of a cluster (with --node-id and --peers).")
    private boolean cluster;

    @Option(names = "--node-id", paramLabel = "N", description = "Cluster mode: this node's id, one of --peers.")
    private Integer nodeId;

    @Option(names = "--peers", paramLabel = "1=HOST:PORT:RAFTPORT,...",
            description = "Cluster mode: every node of the cluster (the same list on each), with its client and Raft"
                + " ports. This node listens on its own entry's host and ports.")
    private String peers;

    @Option(names = "--replication", paramLabel = "R",
            description = "Cluster mode: replicas of each new region (default 3, at most the nodes; 1 allowed).")
    private Integer replication;

    @Option(names = "--http-port", paramLabel = "PORT",
            description = "The port of /metrics and the status page (default 16030 with the default port, else a free"
                + " one; -1 for none).")
    private Integer httpPort;

    @Option(names = "--insecure",
            description = "Serve an address other than loopback without authenticating clients (docs/security.md).")
    private boolean insecure;

    @Option(names = "--config", paramLabel = "FILE",
            description = "A properties file of server options (see docs/protocol.md); flags override it.")
    private Path config;

    @Override
    public Integer call() throws Exception {
        PrintStream out = new PrintStream(System.out, true, StandardCharsets.UTF_8);
        ServerConfig c = ServerConfig.defaults();
        if (config != null) {
            c = c.withFile(config);
        }
        ServerConfig.Builder b = c.toBuilder();
        if (port != null) {
            b.port(port);
        }
        if (host != null) {
            b.host(host);
        }
        if (data != null) {
            b.dataDir(data);
        }
        if (httpPort != null) {
            b.httpPort(httpPort);
        }
        if (insecure) {
            b.insecure(true);
        }
        c = b.build();
        if (cluster || nodeId != null || peers != null) {
            return runNode(out, c);
        }
        if (config != null) {
            java.util.Properties file = new java.util.Properties();
            try (var in = java.nio.file.Files.newBufferedReader(config)) {
                file.load(in);
            }
            if (file.stringPropertyNames().stream().anyMatch(k -> k.startsWith(ServerConfig.CLUSTER_PREFIX))) {
                throw new CommandLine.ParameterException(new CommandLine(this), config + " has cluster.* keys, which"
                        + " only a cluster node (--cluster) reads");
            }
        }
        Path logFile = ServerLogging.configure(c);
        BasaltServer server = BasaltServer.start(c);
        CountDownLatch stopped = new CountDownLatch(1);
        Thread hook = Thread.ofPlatform().name("basalt-server-stop").unstarted(() -> {
            out.println("Basalt server stopping");
            server.close();
            out.println("Basalt server stopped");
            stopped.countDown();
        });
        Runtime.getRuntime().addShutdownHook(hook);
        out.println("Basalt server ready on " + server.address().getHostString() + ":" + server.address().getPort()
                + " (data " + c.dataDir().toAbsolutePath().normalize()
                + (server.httpAddress() == null ? "" : ", status http://" + server.httpAddress().getHostString() + ":"
                        + server.httpAddress().getPort() + "/")
                + (logFile == null ? "" : ", log " + logFile) + ")");
        stopped.await();
        return 0;
    }

    /** Cluster mode: one node of a cluster, until SIGTERM. */
    private int runNode(PrintStream out, ServerConfig c) throws Exception {
        if (!cluster || nodeId == null || peers == null) {
            throw new CommandLine.ParameterException(new CommandLine(this),
                    "cluster mode takes --cluster, --node-id and --peers together");
        }
        if (port != null || host != null) {
            throw new CommandLine.ParameterException(new CommandLine(this),
                    "in cluster mode the node listens on its own --peers entry; drop --host and --port");
        }
        List<ClusterPeer> nodes;
        try {
            nodes = ClusterPeer.parseList(peers);
        } catch (IllegalArgumentException e) {
            throw new CommandLine.ParameterException(new CommandLine(this), "--peers: " + e.getMessage());
        }
        java.util.Properties file = new java.util.Properties();
        if (config != null) {
            try (var in = java.nio.file.Files.newBufferedReader(config)) {
                file.load(in);
            }
        }
        RaftTuning tuning = RaftTuning.defaults().withFile(file, config);
        int r;
        try {
            r = replication != null ? replication
                    : Integer.parseInt(file.getProperty("cluster.replication", String.valueOf(Math.min(3, nodes.size())))
                            .trim());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(config + ": cluster.replication is not a number", e);
        }
        Path dir = data != null ? data : c.dataDir();
        Path logFile = ServerLogging.configure(c.toBuilder().dataDir(dir).build());
        BasaltNode node = BasaltNode.start(new BasaltNode.Config(nodeId, nodes, dir, r, tuning, c.store(), c));
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(Thread.ofPlatform().name("basalt-node-stop").unstarted(() -> {
            out.println("Basalt cluster node " + nodeId + " stopping");
            try {
                node.close();
            } catch (Exception e) {
                out.println("Basalt cluster node " + nodeId + " stopped with an error: " + e.getMessage());
            }
            out.println("Basalt cluster node " + nodeId + " stopped");
            stopped.countDown();
        }));
        ClusterPeer self = nodes.stream().filter(n -> n.id() == nodeId).findFirst().orElseThrow();
        out.println("Basalt cluster node " + nodeId + " ready on " + self.clientAddress() + " (raft "
                + self.raftAddress() + ", data " + dir.toAbsolutePath().normalize() + ", pid "
                + ProcessHandle.current().pid() + (logFile == null ? "" : ", log " + logFile) + ")");
        stopped.await();
        return 0;
    }
}
