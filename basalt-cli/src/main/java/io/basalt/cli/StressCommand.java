package io.basalt.cli;

import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code basalt stress}: the engine's randomized crash-and-fault test (concurrent writers, injected
 * I/O errors, simulated power losses, every acknowledged write checked after each reopen) for as
 * long as asked, through Maven like {@code basalt test}. {@code ./basalt test} runs a short version
 * of the same test.
 */
@Command(name = "stress", mixinStandardHelpOptions = true,
        description = {"Run the engine's crash-and-fault test for longer than ./basalt test does: rounds of",
            "concurrent writes under injected I/O errors and power losses, each checked after a reopen.",
            "Exits with 0 only when no acknowledged write was lost and no failed one appeared."})
final class StressCommand implements Callable<Integer> {

    @Option(names = "--minutes", paramLabel = "N", defaultValue = "10",
            description = "Keep starting rounds for this long (default ${DEFAULT-VALUE}).")
    private long minutes;

    @Option(names = "--rounds", paramLabel = "N", defaultValue = "200",
            description = "Run at least this many rounds (default ${DEFAULT-VALUE}).")
    private int rounds;

    @Option(names = "--seed", paramLabel = "SEED", description = "Replay the rounds of a failed run.")
    private Long seed;

    @Override
    public Integer call() throws Exception {
        SourceTree tree = SourceTree.fromEnvironment();
        return tree.run(mavenCommand(tree.maven()));
    }

    List<String> mavenCommand(String mvn) {
        List<String> command = new java.util.ArrayList<>(List.of(mvn, "-B", "-ntp", "-pl", "basalt-engine", "-am",
                "-Dtest=CrashFaultStressTest", "-Dsurefire.failIfNoSpecifiedTests=false", "-DskipITs",
                "-Dbasalt.stress.minutes=" + minutes, "-Dbasalt.stress.rounds=" + rounds));
        if (seed != null) {
            command.add("-Dbasalt.stress.seed=" + seed);
        }
        command.add("verify");
        return command;
    }
}
