package io.basalt.cli;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Unmatched;

/**
 * {@code basalt ycsb load|run [YCSB options]}: YCSB's own client ({@code site.ycsb.Client}) with
 * the Basalt binding, in a JVM of its own, in the caller's directory, as YCSB's {@code bin/ycsb
 * load|run basalt ...} would run it. {@code -P NAME} that is not a file names one of the workload
 * files shipped in {@code basalt-ycsb/workloads}.
 */
@Command(name = "ycsb", mixinStandardHelpOptions = true,
        description = {"Run YCSB's client against Basalt: load the records, or run a workload's operations.",
            "The options after load|run are YCSB's: -P FILE (a workload; workloada..workloadf name the files in",
            "basalt-ycsb/workloads), -p NAME=VALUE, -threads N, -target OPS, -s. The binding's properties:",
            "basalt.uri (a directory, or basalt://host:port), basalt.family, basalt.clientbuffering,",
            "basalt.durability; the README's YCSB section lists them all.",
            "Example: ./basalt ycsb load -P workloada -p basalt.uri=/tmp/ycsb -p recordcount=100000 -threads 4"})
final class YcsbCommand implements Callable<Integer> {

    static final String CLIENT = "site.ycsb.Client";
    static final String BINDING = "io.basalt.ycsb.BasaltDB";
    static final String LOGGING = "basalt-ycsb-logback.xml";

    @Parameters(index = "0", paramLabel = "load|run", description = "load inserts the records; run runs the workload.")
    private String phase;

    @Unmatched
    private List<String> arguments = new ArrayList<>();

    @Override
    public Integer call() throws Exception {
        SourceTree tree = SourceTree.fromEnvironment();
        Path here = Path.of("").toAbsolutePath();
        return tree.run(javaCommand(tree.root(), here), here);
    }

    List<String> javaCommand(Path root, Path workingDirectory) {
        String mode = switch (phase) {
            case "load" -> "-load";
            case "run" -> "-t";
            default -> throw new IllegalArgumentException("ycsb takes load or run first, not '" + phase + "'");
        };
        Path module = root.resolve("basalt-ycsb");
        Path target = module.resolve("target");
        if (!Files.isDirectory(target.resolve("classes")) || !Files.isDirectory(target.resolve("lib"))) {
            throw new IllegalStateException("the YCSB binding is not built (" + target
                    + " has no classes/ and lib/); run ./basalt again to build it");
        }
        // The module's logging configuration has its own name, so that the benchmark suites, which
        // have basalt-ycsb on their class path, keep their own logback.xml without a warning.
        List<String> command = new ArrayList<>(List.of(SourceTree.java(), "--enable-native-access=ALL-UNNAMED",
                "--sun-misc-unsafe-memory-access=allow",
                "-Dlogback.configurationFile=" + target.resolve("classes").resolve(LOGGING), "-cp",
                target.resolve("classes") + java.io.File.pathSeparator + target.resolve("lib").resolve("*"),
                CLIENT, "-db", BINDING, mode));
        for (int i = 0; i < arguments.size(); i++) {
            String argument = arguments.get(i);
            command.add(argument);
            if (argument.equals("-P") && i + 1 < arguments.size()) {
                command.add(workloadFile(arguments.get(++i), workingDirectory, module).toString());
            }
        }
        return command;
    }

    /** {@code name} as a file from the working directory, else the shipped workload of that name. */
    static Path workloadFile(String name, Path workingDirectory, Path module) {
        Path given = workingDirectory.resolve(name);
        if (Files.isRegularFile(given)) {
            return given;
        }
        Path shipped = module.resolve("workloads").resolve(name);
        if (!name.contains("/") && Files.isRegularFile(shipped)) {
            return shipped;
        }
        throw new IllegalArgumentException("no workload file '" + name + "' (not in " + workingDirectory
                + ", and not one of workloada..workloadf in " + module.resolve("workloads") + ")");
    }
}
