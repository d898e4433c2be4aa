package io.basalt.cli;

import io.basalt.cluster.ClusterPeer;
import io.basalt.cluster.FreePorts;
import io.basalt.cluster.ClusterStatus;
import io.basalt.cluster.RaftTls;
import io.basalt.server.ServerConfig;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code basalt cluster start|status|stop}: a local cluster of node processes on loopback, for
 * trying cluster mode on one machine. Its directory holds {@code cluster.conf} (the peers, and the
 * nodes' configuration file if they were started with one), and per node its data
 * ({@code nodeN/}), its log ({@code nodeN.log}) and its pid ({@code nodeN.pid}).
 */
@Command(name = "cluster", mixinStandardHelpOptions = true,
        description = "Start, inspect and stop a local cluster of node processes on loopback.",
        subcommands = {ClusterCommand.Start.class, ClusterCommand.Status.class, ClusterCommand.Stop.class})
final class ClusterCommand implements Runnable {

    static final String CONF = "cluster.conf";

    @CommandLine.Spec
    private CommandLine.Model.CommandSpec spec;

    @Override
    public void run() {
        spec.commandLine().usage(spec.commandLine().getOut());
    }

    /** The {@code --data} option every subcommand takes. */
    static final class DataDir {
        @Option(names = "--data", paramLabel = "DIR", description = "The cluster's directory (default basalt-cluster).")
        Path data = Path.of("basalt-cluster");
    }

    static PrintStream out() {
        return new PrintStream(System.out, true, StandardCharsets.UTF_8);
    }

    /** The peers of the cluster in {@code dir}, from its {@code cluster.conf}. */
    static List<ClusterPeer> peers(Path dir) throws IOException {
        Path conf = dir.resolve(CONF);
        if (!Files.isRegularFile(conf)) {
            throw new CommandLine.ParameterException(new CommandLine(new ClusterCommand()),
                    "no cluster in " + dir.toAbsolutePath().normalize() + " (no " + CONF + "); start one with"
                            + " `basalt cluster start --data " + dir + "`");
        }
        Properties p = new Properties();
        try (var in = Files.newBufferedReader(conf)) {
            p.load(in);
        }
        return ClusterPeer.parseList(p.getProperty("peers"));
    }

    /** The {@code --config} option of start and status: the nodes' configuration file. */
    static final class NodeConfig {
        @Option(names = "--config", paramLabel = "FILE",
                description = {"The nodes' configuration file (server options and cluster.* keys, see docs/cluster.md),"
                        + " remembered in cluster.conf by start, so status reads it too.",
                    "With tlsCert, tlsKey and tlsCa the links between the nodes are mutual TLS, and status asks them"
                        + " with that certificate."})
        Path config;
    }

    /** The nodes' configuration file: {@code given}, else the one {@code cluster.conf} remembers, else none. */
    static Optional<Path> nodeConfig(Path dir, Path given) throws IOException {
        if (given != null) {
            if (!Files.isRegularFile(given)) {
                throw new CommandLine.ParameterException(new CommandLine(new ClusterCommand()),
                        "--config " + given + " is not a file");
            }
            return Optional.of(given.toAbsolutePath().normalize());
        }
        Properties p = new Properties();
        Path conf = dir.resolve(CONF);
        if (Files.isRegularFile(conf)) {
            try (var in = Files.newBufferedReader(conf)) {
                p.load(in);
            }
        }
        return Optional.ofNullable(p.getProperty("config")).map(Path::of);
    }

    /** The nodes' server settings from their configuration file, the defaults without one. */
    static ServerConfig serverConfig(Optional<Path> file) throws IOException {
        return file.isPresent() ? ServerConfig.defaults().withFile(file.get()) : ServerConfig.defaults();
    }

    static Optional<ProcessHandle> process(Path dir, int node) throws IOException {
        Path pid = dir.resolve("node" + node + ".pid");
        if (!Files.isRegularFile(pid)) {
            return Optional.empty();
        }
        return ProcessHandle.of(Long.parseLong(Files.readString(pid).trim())).filter(ProcessHandle::isAlive);
    }

    static String addresses(List<ClusterPeer> peers) {
        return peers.stream().map(ClusterPeer::clientAddress).collect(Collectors.joining(","));
    }

    @Command(name = "start", mixinStandardHelpOptions = true,
            description = {"Start a local cluster (or the stopped nodes of one) as node processes on loopback.",
                "Prints each node's address once the cluster answers."})
    static final class Start implements Callable<Integer> {
        @Option(names = "--nodes", paramLabel = "N", description = "Nodes of a new cluster (default 3).")
        int nodes = 3;

        @CommandLine.Mixin
        DataDir dir;

        @Option(names = "--replication", paramLabel = "R", description = "Replicas per region (default min(3, nodes)).")
        Integer replication;

        @CommandLine.Mixin
        NodeConfig nodeConfig;

        @Override
        public Integer call() throws Exception {
            PrintStream out = out();
            Files.createDirectories(dir.data);
            List<ClusterPeer> peers;
            if (Files.isRegularFile(dir.data.resolve(CONF))) {
                peers = peers(dir.data);
            } else {
                if (nodes < 1 || nodes > 9) {
                    throw new CommandLine.ParameterException(new CommandLine(this), "--nodes must be 1 to 9");
                }
                peers = new ArrayList<>();
                for (int i = 1; i <= nodes; i++) {
                    peers.add(new ClusterPeer(i, "127.0.0.1", FreePorts.take(), FreePorts.take()));
                }
                Properties p = new Properties();
                p.setProperty("peers", peers.stream().map(ClusterPeer::toString).collect(Collectors.joining(",")));
                p.setProperty("replication", String.valueOf(replication != null ? replication
                        : Math.min(3, nodes)));
                try (var w = Files.newBufferedWriter(dir.data.resolve(CONF))) {
                    p.store(w, "a local Basalt cluster: basalt cluster start|status|stop --data " + dir.data);
                }
            }
            Properties conf = new Properties();
            try (var in = Files.newBufferedReader(dir.data.resolve(CONF))) {
                conf.load(in);
            }
            Optional<Path> configFile = nodeConfig(dir.data, nodeConfig.config);
            ServerConfig server = serverConfig(configFile); // read first: a bad file is reported before any node starts
            RaftTls tls = RaftTls.of(server.tls());
            if (configFile.isPresent() && !configFile.get().toString().equals(conf.getProperty("config"))) {
                conf.setProperty("config", configFile.get().toString());
                try (var w = Files.newBufferedWriter(dir.data.resolve(CONF))) {
                    conf.store(w, "a local Basalt cluster: basalt cluster start|status|stop --data " + dir.data);
                }
            }
            String spec = conf.getProperty("peers");
            List<Process> started = new ArrayList<>();
            for (ClusterPeer p : peers) {
                if (process(dir.data, p.id()).isPresent()) {
                    continue;
                }
                Path log = dir.data.resolve("node" + p.id() + ".log");
                List<String> command = new ArrayList<>(List.of(ProcessHandle.current().info().command().orElse("java"),
                        "--enable-native-access=ALL-UNNAMED", "-cp", System.getProperty("java.class.path"),
                        "--sun-misc-unsafe-memory-access=allow", "io.basalt.cli.BasaltCli", "server", "--cluster", "--node-id", String.valueOf(p.id()),
                        "--peers", spec, "--replication", conf.getProperty("replication"),
                        "--data", dir.data.resolve("node" + p.id()).toString()));
                configFile.ifPresent(file -> command.addAll(List.of("--config", file.toString())));
                Process proc = new ProcessBuilder(command).redirectErrorStream(true)
                        .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile())).start();
                Files.writeString(dir.data.resolve("node" + p.id() + ".pid"), proc.pid() + "\n");
                started.add(proc);
            }
            long deadline = System.currentTimeMillis() + 90_000;
            for (ClusterPeer p : peers) {
                Path log = dir.data.resolve("node" + p.id() + ".log");
                while (!Files.readString(log).contains("node " + p.id() + " ready on")) {
                    if (process(dir.data, p.id()).isEmpty() || System.currentTimeMillis() > deadline) {
                        out.println("node " + p.id() + " did not start; its log (" + log + ") ends:");
                        List<String> lines = Files.readAllLines(log);
                        lines.subList(Math.max(0, lines.size() - 20), lines.size()).forEach(out::println);
                        return 1;
                    }
                    Thread.sleep(100);
                }
            }
            ClusterStatus.Report report = ClusterStatus.of(peers, tls);
            while (report.problem() != null && System.currentTimeMillis() < deadline) {
                Thread.sleep(500);
                report = ClusterStatus.of(peers, tls);
            }
            for (ClusterPeer p : peers) {
                out.println("node " + p.id() + ": " + p.clientAddress() + " (raft " + p.raftAddress() + ", pid "
                        + process(dir.data, p.id()).map(ProcessHandle::pid).map(String::valueOf).orElse("?") + ")");
            }
            if (report.problem() != null) {
                out.println("the cluster does not answer yet: " + report.problem());
                return 1;
            }
            out.println((started.isEmpty() ? "already running" : "started " + started.size() + " node(s)")
                    + "; connect with: ./basalt shell --connect " + (server.tls().enabled() ? "basalts://" : "basalt://")
                    + addresses(peers) + (server.tls().ca() != null ? " --tls-ca " + server.tls().ca() : ""));
            return 0;
        }

    }

    @Command(name = "status", mixinStandardHelpOptions = true,
            description = "Each node (address, pid, state) and each region (replicas, leader, replica lag).")
    static final class Status implements Callable<Integer> {
        @CommandLine.Mixin
        DataDir dir;

        @CommandLine.Mixin
        NodeConfig nodeConfig;

        @Override
        public Integer call() throws Exception {
            PrintStream out = out();
            List<ClusterPeer> peers = peers(dir.data);
            Optional<Path> configFile = nodeConfig(dir.data, nodeConfig.config);
            RaftTls tls = RaftTls.of(serverConfig(configFile).tls());
            ClusterStatus.Report report = ClusterStatus.of(peers, tls);
            out.println("NODE  ADDRESS               RAFT                  PID      STATE");
            for (ClusterStatus.NodeStatus n : report.nodes()) {
                Optional<ProcessHandle> p = process(dir.data, n.peer().id());
                out.printf("%-5d %-21s %-21s %-8s %s%n", n.peer().id(), n.peer().clientAddress(), n.peer().raftAddress(),
                        p.map(h -> String.valueOf(h.pid())).orElse("-"),
                        n.up() ? "up, " + n.groups() + " groups" : p.isPresent() ? "not answering" : "down");
            }
            if (report.problem() != null) {
                out.println(report.problem());
                if (report.wantsTls()) {
                    out.println("give status the nodes' configuration file: --config FILE (with tlsCert, tlsKey and"
                            + " tlsCa)");
                }
                return 1;
            }
            out.println();
            out.println("TABLE            REGION  START        END          LEADER  REPLICAS (node: role, lag)");
            for (ClusterStatus.RegionStatus r : report.regions()) {
                String replicas = r.replicas().stream().map(x -> x.node() + ": " + x.role()
                        + (r.lag().get(x.node()) >= 0 ? ", " + r.lag().get(x.node()) : ""))
                        .collect(Collectors.joining("; "));
                out.printf("%-16s %-7d %-12s %-12s %-7s %s%n", r.table(), r.id(), r.start(), r.end(),
                        r.leader() == 0 ? "none" : String.valueOf(r.leader()), replicas);
            }
            return 0;
        }
    }

    @Command(name = "stop", mixinStandardHelpOptions = true,
            description = "Stop the cluster's node processes (SIGTERM; SIGKILL after 30 s).")
    static final class Stop implements Callable<Integer> {
        @CommandLine.Mixin
        DataDir dir;

        @Override
        public Integer call() throws Exception {
            PrintStream out = out();
            for (ClusterPeer p : peers(dir.data)) {
                Optional<ProcessHandle> h = process(dir.data, p.id());
                if (h.isEmpty()) {
                    out.println("node " + p.id() + ": not running");
                    continue;
                }
                h.get().destroy();
                try {
                    h.get().onExit().get(30, TimeUnit.SECONDS);
                    out.println("node " + p.id() + ": stopped");
                } catch (java.util.concurrent.TimeoutException e) {
                    h.get().destroyForcibly();
                    out.println("node " + p.id() + ": killed after 30 s");
                }
                Files.deleteIfExists(dir.data.resolve("node" + p.id() + ".pid"));
            }
            return 0;
        }
    }
}
