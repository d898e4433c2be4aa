package io.basalt.cli;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Unmatched;

/**
 * {@code basalt load NAME}: an end-to-end load run of {@code basalt-bench} in its own JVM (a load
 * run measures a whole store under load, where a JMH suite measures one code path). Options after
 * the name go to the run; {@code --help} after it lists them.
 */
@Command(name = "load", mixinStandardHelpOptions = true,
        description = {"Run one load run (a whole store under load) and print its table.",
            "Runs: regions (one region against many: compactions and read latency; issue 18);",
            "failover (kill the leader of a 3-node cluster again and again: how long until writes resume; issue 19);",
            "replication (YCSB A and C shapes against one server and a 3-node cluster; issue 19);",
            "nemesis (clients on a 3-node cluster under kills and pauses, checked for linearizability; issue 19)."})
final class LoadCommand implements Callable<Integer> {

    static final Map<String, String> RUNS = Map.of("regions", "io.basalt.bench.load.RegionLoadRun",
            "failover", "io.basalt.bench.load.FailoverLoadRun", "replication", "io.basalt.bench.load.ReplicationLoadRun",
            "nemesis", "io.basalt.bench.load.NemesisRun");

    @Parameters(index = "0", paramLabel = "NAME", description = "The run: regions, failover, replication or nemesis.")
    private String name;

    @Unmatched
    private List<String> arguments = new ArrayList<>();

    @Override
    public Integer call() throws Exception {
        SourceTree tree = SourceTree.fromEnvironment();
        return tree.run(javaCommand(tree.root()));
    }

    List<String> javaCommand(Path root) {
        String main = RUNS.get(name);
        if (main == null) {
            throw new IllegalArgumentException("no load run named '" + name + "'; known: " + RUNS.keySet());
        }
        String classPath = BenchCommand.benchClassPath(root);
        List<String> command = new ArrayList<>(List.of(SourceTree.java(), "--enable-native-access=ALL-UNNAMED",
                "--sun-misc-unsafe-memory-access=allow",
                "-XX:+UseG1GC", "-Xmx4g", "-cp", classPath, main));
        command.addAll(arguments);
        return command;
    }
}
