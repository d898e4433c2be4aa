package io.basalt.cli;

import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/** {@code basalt version}: what this is and what it runs on. */
@Command(name = "version", mixinStandardHelpOptions = true,
        description = "Print Basalt's version and the Java runtime it runs on.")
final class VersionCommand implements Callable<Integer> {

    @Spec
    private CommandSpec spec;

    static String[] lines() {
        return new String[] {
            "Basalt " + BasaltCli.version(),
            "Java " + Runtime.version() + " (" + System.getProperty("java.vendor") + ") on "
                    + System.getProperty("os.name") + " " + System.getProperty("os.arch")
        };
    }

    @Override
    public Integer call() {
        for (String line : lines()) {
            spec.commandLine().getOut().println(line);
        }
        spec.commandLine().getOut().flush();
        return 0;
    }
}
