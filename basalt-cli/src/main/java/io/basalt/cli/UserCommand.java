package io.basalt.cli;

import io.basalt.client.Connection;
import java.io.Console;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code basalt user add|remove|passwd|list}: the users a server with {@code auth=password} lets
 * in. On a store directory (the server stopped) it writes the store directly, which is how the
 * first administrator is made; on a server ({@code --connect}) it needs global A, or to be the
 * user whose password changes.
 */
@Command(name = "user", mixinStandardHelpOptions = true,
        description = {"Add, remove and list users, and set their passwords (SCRAM-SHA-256: the store keeps a salted"
                + " credential, never the password).",
            "  basalt user add alice --data DIR            (server stopped: the first admin; then grant 'alice', 'A' in the shell)",
            "  basalt user add bob --connect HOST:PORT --user alice",
            "The new password is asked twice on a terminal, or read from --new-password-file, or from the first line of"
                + " standard input."})
final class UserCommand implements Callable<Integer> {

    @Parameters(index = "0", paramLabel = "ACTION", description = "add, remove, passwd or list")
    private String action;

    @Parameters(index = "1", arity = "0..1", paramLabel = "NAME", description = "the user (not for list)")
    private String name;

    @Option(names = "--new-password-file", paramLabel = "FILE",
            description = "A file whose first line is the new password (add, passwd).")
    private Path newPasswordFile;

    @Mixin
    private ConnectOptions where = new ConnectOptions();

    @Spec
    private picocli.CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() throws Exception {
        PrintWriter out = spec.commandLine().getOut();
        if (!action.equals("list") && name == null) {
            throw new IllegalArgumentException(action + " needs a user name: basalt user " + action + " NAME");
        }
        try (Connection connection = where.open()) {
            switch (action) {
                case "add" -> {
                    char[] password = newPassword();
                    try {
                        await(connection.admin().addUser(name, password));
                    } finally {
                        Arrays.fill(password, '\0');
                    }
                    out.println("Added user " + name + "." + (where.connect == null
                            ? " Grant it permissions in the shell (grant '" + name + "', 'RW', 'TABLE'), or name it in"
                            + " the server's superusers." : ""));
                }
                case "passwd" -> {
                    char[] password = newPassword();
                    try {
                        await(connection.admin().changePassword(name, password));
                    } finally {
                        Arrays.fill(password, '\0');
                    }
                    out.println("Changed the password of " + name + "; connections open now stay open.");
                }
                case "remove" -> {
                    await(connection.admin().removeUser(name));
                    out.println("Removed user " + name + " and its grants.");
                }
                case "list" -> {
                    List<String> users = await(connection.admin().listUsers());
                    users.forEach(out::println);
                    out.println(users.size() + " user(s)");
                }
                default -> throw new IllegalArgumentException("unknown action '" + action
                        + "': use add, remove, passwd or list");
            }
        }
        out.flush();
        return 0;
    }

    private char[] newPassword() {
        if (newPasswordFile != null) {
            return ConnectOptions.firstLine(newPasswordFile, "--new-password-file");
        }
        Console console = System.console();
        if (console != null && console.isTerminal()) {
            char[] first = console.readPassword("New password for %s: ", name);
            char[] second = console.readPassword("Again: ");
            if (first == null || second == null || !Arrays.equals(first, second)) {
                throw new IllegalArgumentException("the two passwords differ; nothing changed");
            }
            Arrays.fill(second, '\0');
            return first;
        }
        char[] line = ConnectOptions.stdinLine();
        if (line == null || line.length == 0) {
            throw new IllegalArgumentException("no new password: give --new-password-file FILE, pipe it on standard input,"
                    + " or run on a terminal to be asked");
        }
        return line;
    }

    private static <T> T await(java.util.concurrent.CompletableFuture<T> f) throws Exception {
        try {
            return f.get();
        } catch (ExecutionException e) {
            throw e.getCause() instanceof Exception x ? x : e;
        }
    }
}
