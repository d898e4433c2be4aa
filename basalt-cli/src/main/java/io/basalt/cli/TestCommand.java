package io.basalt.cli;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code basalt test}: the whole test suite, unit tests (Surefire, {@code *Test}) and integration
 * tests (Failsafe, {@code *IT}), through Maven's {@code verify}. The exit code is the suite's.
 */
@Command(name = "test", mixinStandardHelpOptions = true,
        description = {"Run the test suite: unit tests (*Test) and integration tests (*IT) of every module.",
            "Exits with 0 only when every test passed."})
final class TestCommand implements Callable<Integer> {

    @Option(names = {"-m", "--module"}, paramLabel = "MODULE",
            description = "Test only this module (and build what it needs), e.g. basalt-common.")
    private String module;

    @Option(names = {"-t", "--test"}, paramLabel = "PATTERN",
            description = "Run only tests whose class (or Class#method) matches, as Surefire's -Dtest.")
    private String test;

    @Option(names = "--unit", description = "Unit tests only; skip the integration tests.")
    private boolean unitOnly;

    @Override
    public Integer call() throws Exception {
        SourceTree tree = SourceTree.fromEnvironment();
        return tree.run(mavenCommand(tree.maven()));
    }

    List<String> mavenCommand(String mvn) {
        List<String> command = new ArrayList<>(List.of(mvn, "-B", "-ntp"));
        if (module != null) {
            command.addAll(List.of("-pl", module, "-am"));
        }
        if (test != null) {
            command.add("-Dtest=" + test);
            command.add("-Dit.test=" + test);
            command.add("-Dsurefire.failIfNoSpecifiedTests=false");
            command.add("-Dfailsafe.failIfNoSpecifiedTests=false");
        }
        if (unitOnly) {
            command.add("-DskipITs");
        }
        command.add("verify");
        return command;
    }
}
