package io.basalt.cli;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code basalt bench NAME}: runs one JMH suite of {@code basalt-bench} in its own JVM (the
 * benchmark peers, HBase, Netty and the rest, never enter the CLI's class path). The suite writes
 * JMH's JSON to {@code bench-results/NAME.json} and prints a table with the ratios.
 */
@Command(name = "bench", mixinStandardHelpOptions = true,
        description = {"Run one benchmark suite (JMH) and write bench-results/NAME.json.",
            "See docs/benchmarks.md for what each suite measures and the quoted results."})
final class BenchCommand implements Callable<Integer> {

    static final String MAIN = "io.basalt.bench.BenchMain";

    @Parameters(arity = "0..1", paramLabel = "NAME", description = "The suite to run; --list shows them.")
    private String name;

    @Option(names = "--quick", description = "A smoke run: one short fork that still runs every "
            + "implementation and parameter. Its numbers are not for quoting.")
    private boolean quick;

    @Option(names = "--list", description = "List the suites and exit.")
    private boolean list;

    @Option(names = {"-p", "--param"}, paramLabel = "NAME=V1,V2",
            description = "Run a parameter at these values instead of the suite's (repeatable), e.g. -p "
                    + "engine=on. The results go to bench-results/NAME-custom.json, leaving the suite's own file.")
    private List<String> params = new ArrayList<>();

    @Override
    public Integer call() throws Exception {
        if (!list && name == null) {
            throw new IllegalArgumentException("name a suite to run (basalt bench --list shows them)");
        }
        SourceTree tree = SourceTree.fromEnvironment();
        return tree.run(javaCommand(tree.root()));
    }

    /** The class path of the built {@code basalt-bench} module, or why there is none. */
    static String benchClassPath(Path root) {
        Path bench = root.resolve("basalt-bench").resolve("target");
        if (!Files.isDirectory(bench.resolve("classes")) || !Files.isDirectory(bench.resolve("lib"))) {
            throw new IllegalStateException("the benchmarks are not built (" + bench
                    + " has no classes/ and lib/); run ./basalt again to build them");
        }
        return bench.resolve("classes") + java.io.File.pathSeparator + bench.resolve("lib").resolve("*");
    }

    List<String> javaCommand(Path root) {
        String classPath = benchClassPath(root);
        // JMH forks inherit these flags. JMH reads fields through sun.misc.Unsafe, which JDK 25
        // warns about on every fork unless told it is allowed.
        List<String> command = new ArrayList<>(List.of(SourceTree.java(), "--enable-native-access=ALL-UNNAMED",
                "--sun-misc-unsafe-memory-access=allow", "-cp", classPath, MAIN));
        if (list) {
            command.add("--list");
        } else {
            command.add(name);
            command.add("--out");
            command.add(root.resolve("bench-results").resolve(name + (params.isEmpty() ? "" : "-custom") + ".json")
                    .toString());
            if (quick) {
                command.add("--quick");
            }
            for (String param : params) {
                command.add("--param");
                command.add(param);
            }
        }
        return command;
    }
}
