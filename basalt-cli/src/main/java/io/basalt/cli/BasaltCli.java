package io.basalt.cli;

import java.io.IOException;
import java.io.InputStream;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.util.Properties;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * The {@code basalt} command. The {@code ./basalt} launcher script finds a JDK 25, builds what
 * changed and then runs this class; every subcommand has {@code --help}.
 */
@Command(
        name = "basalt",
        mixinStandardHelpOptions = true,
        versionProvider = BasaltCli.Version.class,
        description = "Basalt: a wide-column, sorted, durable store for the JVM.",
        subcommands = {ShellCommand.class, ServerCommand.class, CertCommand.class, UserCommand.class, VersionCommand.class, TestCommand.class, BenchCommand.class,
            StressCommand.class, LoadCommand.class, ClusterCommand.class, YcsbCommand.class,
            CommandLine.HelpCommand.class})
public final class BasaltCli implements Runnable {

    @picocli.CommandLine.Spec
    private CommandLine.Model.CommandSpec spec;

    private BasaltCli() {}

    /** Without a command: the usage, so {@code ./basalt} alone shows what it can do. */
    @Override
    public void run() {
        spec.commandLine().usage(spec.commandLine().getOut());
    }

    public static void main(String[] args) {
        System.exit(commandLine().execute(args));
    }

    /** The configured command line, shared by {@link #main} and the tests. */
    static CommandLine commandLine() {
        CommandLine cli = new CommandLine(new BasaltCli());
        cli.setExecutionExceptionHandler(BasaltCli::reportFailure);
        return cli;
    }

    /**
     * A failing command prints one line, {@code basalt: <what went wrong>}, and exits with 1.
     * {@code BASALT_DEBUG=1} adds the stack trace.
     */
    private static int reportFailure(Exception e, CommandLine cli, CommandLine.ParseResult parsed) {
        PrintWriter err = cli.getErr();
        String message = e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
        err.println("basalt " + cli.getCommandName() + ": " + message);
        if (System.getenv("BASALT_DEBUG") != null) {
            e.printStackTrace(err);
        }
        err.flush();
        return 1;
    }

    /** This build's version, from the resource Maven filters at build time. */
    static String version() {
        try (InputStream in = BasaltCli.class.getResourceAsStream("/basalt-version.properties")) {
            Properties properties = new Properties();
            if (in != null) {
                properties.load(in);
            }
            return properties.getProperty("version", "unknown");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static final class Version implements CommandLine.IVersionProvider {
        @Override
        public String[] getVersion() {
            return VersionCommand.lines();
        }
    }
}
