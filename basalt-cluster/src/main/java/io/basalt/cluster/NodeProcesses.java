package io.basalt.cluster;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

/**
 * A local cluster of node processes on loopback ({@link NodeMain}, on this JVM's class path), for
 * tests and load runs that need real processes: killed with SIGKILL, paused with SIGSTOP,
 * restarted on their directories. Every wait is bounded.
 */
public final class NodeProcesses implements AutoCloseable {

    private final Path dir;
    private final List<ClusterPeer> peers = new ArrayList<>();
    private final Process[] processes;
    private final String electionMs;
    private final List<String> jvmArgs;

    /**
     * @param electionMs {@code min:max} election timeout in milliseconds, or {@code null} for the default
     */
    public NodeProcesses(Path dir, int nodes, String electionMs) throws IOException {
        this(dir, nodes, electionMs, List.of());
    }

    /** As {@link #NodeProcesses(Path, int, String)}, each node's JVM started with {@code jvmArgs} too. */
    public NodeProcesses(Path dir, int nodes, String electionMs, List<String> jvmArgs) throws IOException {
        this.dir = dir;
        this.electionMs = electionMs;
        this.jvmArgs = List.copyOf(jvmArgs);
        this.processes = new Process[nodes];
        for (int i = 1; i <= nodes; i++) {
            peers.add(new ClusterPeer(i, "127.0.0.1", FreePorts.take(), FreePorts.take()));
        }
        Files.createDirectories(dir);
    }


    public List<ClusterPeer> peers() {
        return List.copyOf(peers);
    }

    /** {@code basalt://h1:p1,h2:p2,...}. */
    public String uri() {
        return "basalt://" + peers.stream().map(ClusterPeer::clientAddress).collect(Collectors.joining(","));
    }

    public Path log(int node) {
        return dir.resolve("node" + node + ".log");
    }

    /** Starts every node and waits until each says it is ready. */
    public void startAll() throws IOException, InterruptedException {
        for (int i = 1; i <= processes.length; i++) {
            launch(i);
        }
        for (int i = 1; i <= processes.length; i++) {
            awaitReady(i);
        }
    }

    /** Starts node {@code id} (again) on its directory and ports, and waits until it is ready. */
    public void start(int id) throws IOException, InterruptedException {
        launch(id);
        awaitReady(id);
    }

    private void launch(int id) throws IOException {
        if (processes[id - 1] != null && processes[id - 1].isAlive()) {
            throw new IllegalStateException("node " + id + " is running");
        }
        List<String> command = new ArrayList<>(List.of(ProcessHandle.current().info().command().orElse("java"),
                "--enable-native-access=ALL-UNNAMED", "--sun-misc-unsafe-memory-access=allow", "-Xmx512m"));
        command.addAll(jvmArgs);
        command.add("-Dbasalt.nemesis.links=" + links(id));
        // For profiling a run's nodes, e.g. -Dbasalt.nodes.jvmArgs=-XX:StartFlightRecording=filename=n.jfr
        String extra = System.getProperty("basalt.nodes.jvmArgs", "").replace("{id}", String.valueOf(id));
        if (!extra.isBlank()) {
            command.addAll(List.of(extra.trim().split("\\s+")));
        }
        command.addAll(List.of("-cp", System.getProperty("java.class.path"), NodeMain.class.getName(),
                "--node-id", String.valueOf(id), "--peers",
                peers.stream().map(ClusterPeer::toString).collect(Collectors.joining(",")),
                "--data", dir.resolve("node" + id).toString()));
        if (electionMs != null) {
            command.addAll(List.of("--election-ms", electionMs));
        }
        Files.writeString(log(id), "--- starting node " + id + "\n", java.nio.file.StandardOpenOption.CREATE,
                java.nio.file.StandardOpenOption.APPEND);
        processes[id - 1] = new ProcessBuilder(command).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(log(id).toFile())).start();
    }

    private void awaitReady(int id) throws IOException, InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        String marker = "node " + id + " ready (pid " + processes[id - 1].pid() + ")";
        while (!Files.readString(log(id)).contains(marker)) {
            if (!processes[id - 1].isAlive() || System.nanoTime() > deadline) {
                throw new IOException("node " + id + " did not start; see " + log(id));
            }
            Thread.sleep(50);
        }
    }

    public boolean running(int id) {
        return processes[id - 1] != null && processes[id - 1].isAlive();
    }

    public long pid(int id) {
        return processes[id - 1].pid();
    }

    /** SIGKILL: the process dies at once, with whatever it had not forced to disk. */
    public void kill(int id) throws InterruptedException {
        Process p = processes[id - 1];
        p.destroyForcibly();
        if (!p.waitFor(30, TimeUnit.SECONDS)) {
            throw new IllegalStateException("node " + id + " (pid " + p.pid() + ") survived SIGKILL for 30 s");
        }
    }

    /** SIGSTOP: the process freezes (a long GC pause, as the others see it). */
    public void pause(int id) throws IOException, InterruptedException {
        signal(id, "STOP");
    }

    /** SIGCONT: a paused process goes on. */
    public void resume(int id) throws IOException, InterruptedException {
        signal(id, "CONT");
    }

    private void signal(int id, String signal) throws IOException, InterruptedException {
        // bash's own kill: a fresh machine may lack procps's /bin/kill, never bash (the launcher is a bash script)
        Process kill = new ProcessBuilder("bash", "-c", "kill -" + signal + " " + pid(id)).redirectErrorStream(true)
                .start();
        if (!kill.waitFor(10, TimeUnit.SECONDS) || kill.exitValue() != 0) {
            throw new IOException("kill -" + signal + " " + pid(id) + " failed");
        }
    }

    /**
     * Cuts every link between {@code id} and the other nodes (both ways: each side refuses the
     * other's Raft messages), as a network partition would; {@link #heal} restores them.
     */
    public void isolate(int id) throws IOException {
        for (ClusterPeer p : peers) {
            String cut = p.id() == id
                    ? peers.stream().filter(o -> o.id() != id).map(ClusterPeer::peerId).collect(Collectors.joining(","))
                    : "n" + id;
            writeLinks(p.id(), cut);
        }
    }

    /** Every link between nodes works again. */
    public void heal() throws IOException {
        for (ClusterPeer p : peers) {
            writeLinks(p.id(), "");
        }
    }

    private Path links(int id) {
        return dir.resolve("links").resolve("node" + id);
    }

    private void writeLinks(int id, String cut) throws IOException {
        Path file = links(id);
        Files.createDirectories(file.getParent());
        Path next = file.resolveSibling(file.getFileName() + ".next");
        Files.writeString(next, cut);
        Files.move(next, file, java.nio.file.StandardCopyOption.REPLACE_EXISTING,
                java.nio.file.StandardCopyOption.ATOMIC_MOVE);
    }

    /** The node that leads the first region of {@code table} now, or 0 when none does. */
    public int leaderOf(String table) {
        for (ClusterStatus.RegionStatus r : ClusterStatus.of(peers).regions()) {
            if (r.table().equals(table)) {
                return r.leader();
            }
        }
        return 0;
    }

    /** Waits (bounded) until {@code table}'s first region has a leader; returns it. */
    public int awaitLeader(String table, Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < deadline) {
            int leader = leaderOf(table);
            if (leader != 0) {
                return leader;
            }
            Thread.sleep(100);
        }
        throw new IllegalStateException("no leader for " + table + " within " + timeout);
    }

    /** Stops every node: resumed if paused, then SIGTERM, then SIGKILL after 20 s. */
    @Override
    public void close() {
        for (int i = 1; i <= processes.length; i++) {
            Process p = processes[i - 1];
            if (p != null && p.isAlive()) {
                try {
                    resume(i);
                } catch (IOException | InterruptedException e) {
                    // not paused, or gone: either way SIGTERM is next
                }
                p.destroy();
            }
        }
        try {
            for (Process p : processes) {
                if (p != null && !p.waitFor(20, TimeUnit.SECONDS)) {
                    p.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            for (Process p : processes) {
                if (p != null) {
                    p.destroyForcibly();
                }
            }
        }
    }
}
