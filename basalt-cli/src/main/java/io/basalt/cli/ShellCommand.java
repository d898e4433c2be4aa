package io.basalt.cli;

import io.basalt.cli.shell.Shell;
import io.basalt.client.Connection;
import java.io.BufferedReader;
import java.io.Console;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code basalt shell}: the HBase-style shell on an embedded store, or on a server with
 * {@code --connect}. Interactive on a terminal;
 * otherwise runs {@code -e} commands or standard input and exits with 1 if any command failed.
 */
@Command(name = "shell", mixinStandardHelpOptions = true,
        description = {"Open a store and run shell commands (HBase shell syntax: create, put, get, scan, ...).",
            "Type help in the shell for the commands."})
final class ShellCommand implements Callable<Integer> {

    @picocli.CommandLine.Mixin
    private ConnectOptions where = new ConnectOptions();

    @Option(names = {"-e", "--execute"}, paramLabel = "COMMANDS",
            description = "Run these commands (separated by ; or new lines) and exit.")
    private String execute;

    @Override
    public Integer call() throws IOException {
        PrintStream out = new PrintStream(System.out, true, StandardCharsets.UTF_8);
        try (Connection connection = where.open()) {
            Shell shell = new Shell(connection, out, where.user);
            if (execute != null) {
                return shell.run(execute) == Shell.Outcome.ERROR ? 1 : 0;
            }
            Console console = System.console();
            if (console == null || !console.isTerminal()) {
                String input = new String(System.in.readAllBytes(), StandardCharsets.UTF_8);
                return shell.run(input) == Shell.Outcome.ERROR ? 1 : 0;
            }
            return interactive(shell, out);
        }
    }

    private static int interactive(Shell shell, PrintStream out) throws IOException {
        out.println("Basalt shell " + BasaltCli.version() + "; type help for the commands, exit to leave.");
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        StringBuilder pending = new StringBuilder();
        int line = 1;
        while (true) {
            out.printf("basalt:%03d%s ", line++, pending.isEmpty() ? ">" : "*");
            out.flush();
            String next = in.readLine();
            if (next == null) {
                out.println();
                return 0;
            }
            pending.append(next).append('\n');
            if (Shell.incomplete(pending.toString())) {
                continue;
            }
            Shell.Outcome outcome = shell.run(pending.toString());
            pending.setLength(0);
            if (outcome == Shell.Outcome.EXIT) {
                return 0;
            }
        }
    }
}
