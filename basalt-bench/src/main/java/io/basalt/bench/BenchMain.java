package io.basalt.bench;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.Callable;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.options.ChainedOptionsBuilder;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.RunnerException;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * Runs one {@link Suite}: JMH once per thread count of the suite, JMH's JSON for all of them in
 * one file, then a table of the results and ratios on standard output. Started by
 * {@code ./basalt bench NAME [--quick]}.
 */
@Command(name = "basalt bench", mixinStandardHelpOptions = true,
        description = "Run one benchmark suite.")
public final class BenchMain implements Callable<Integer> {

    @Parameters(arity = "0..1", paramLabel = "NAME", description = "The suite to run.")
    private String name;

    @Option(names = "--quick", description = "One short fork: proves every implementation runs.")
    private boolean quick;

    @Option(names = "--list", description = "List the suites: name, seed, description (tab-separated).")
    private boolean list;

    @Option(names = "--out", paramLabel = "FILE", description = "Where to write JMH's JSON results.")
    private Path out;

    @Option(names = {"-p", "--param"}, paramLabel = "NAME=V1,V2",
            description = "Run a parameter at these values instead of the suite's (repeatable).")
    private List<String> params = new ArrayList<>();

    public static void main(String[] args) {
        CommandLine cli = new CommandLine(new BenchMain());
        cli.setExecutionExceptionHandler((e, line, parsed) -> {
            line.getErr().println("basalt bench: " + e.getMessage());
            return 1;
        });
        System.exit(cli.execute(args));
    }

    @Override
    public Integer call() throws IOException, RunnerException, InterruptedException {
        PrintWriter stdout = new PrintWriter(System.out, true, StandardCharsets.UTF_8);
        if (list) {
            for (Suite suite : Suite.values()) {
                stdout.println(suite.suiteName() + "\t" + suite.seed() + "\t" + suite.description());
            }
            return 0;
        }
        if (name == null) {
            throw new IllegalArgumentException("name a suite to run (--list shows them)");
        }
        Suite suite = Suite.named(name);
        Path json = out != null ? out : Path.of("bench-results", suite.suiteName() + ".json");
        Path dir = json.toAbsolutePath().getParent();
        Files.createDirectories(dir);

        if (suite == Suite.YCSB) {
            List<ResultRow> rows = YcsbSuite.run(YcsbSuite.Settings.of(quick, params), json, quick, stdout);
            stdout.println();
            stdout.print(ResultTable.render(rows, Suite.BASELINE));
            stdout.println("JMH-shaped JSON: " + json.toAbsolutePath());
            return 0;
        }
        List<ResultRow> rows = new ArrayList<>();
        List<String> counters = new ArrayList<>();
        List<String> jsonParts = new ArrayList<>();
        for (int threads : suite.threads()) {
            Path part = Files.createTempFile(dir, suite.suiteName() + "-t" + threads + "-", ".json");
            try {
                ChainedOptionsBuilder options = BenchDefaults.options(suite, quick, threads, part);
                for (String param : params) {
                    int eq = param.indexOf('=');
                    if (eq < 1 || eq == param.length() - 1) {
                        throw new IllegalArgumentException("--param " + param + ": expected NAME=VALUE[,VALUE...]");
                    }
                    options.param(param.substring(0, eq), param.substring(eq + 1).split(","));
                }
                Collection<RunResult> results = new Runner(options.build()).run();
                results.stream().map(r -> ResultRow.of(r, suite.comparedParam())).forEach(rows::add);
                for (RunResult run : results) {
                    var secondary = run.getSecondaryResults();
                    if (!secondary.isEmpty()) {
                        StringBuilder line = new StringBuilder(String.format("%-40s", run.getParams().getParamsKeys().stream()
                                .map(k -> k + "=" + run.getParams().getParam(k)).collect(java.util.stream.Collectors.joining(" "))));
                        // Event counters add up over iterations; a per-iteration mean is per operation when
                        // the benchmark sets them per operation (the filters suite does).
                        secondary.forEach((name, r) -> line.append(String.format("  %s=%,.0f", name,
                                r.getStatistics().getMean())));
                        counters.add(line.toString());
                    }
                }
                jsonParts.add(Files.readString(part));
            } finally {
                Files.deleteIfExists(part);
            }
        }
        Files.writeString(json, JmhJson.concat(jsonParts));

        stdout.println();
        stdout.println("Suite " + suite.suiteName() + (quick ? " (quick run: numbers are not for quoting)" : ""));
        stdout.print(ResultTable.render(rows, suite.comparedParam(), suite.baseline()));
        if (!counters.isEmpty()) {
            stdout.println();
            stdout.println("Counters (JMH secondary metrics, mean per iteration):");
            counters.forEach(stdout::println);
        }
        stdout.println("JMH JSON: " + json.toAbsolutePath());
        return 0;
    }
}
