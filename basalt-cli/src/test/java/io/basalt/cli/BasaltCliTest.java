package io.basalt.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import picocli.CommandLine;

class BasaltCliTest {

    private final StringWriter out = new StringWriter();
    private final StringWriter err = new StringWriter();

    private int run(String... args) {
        CommandLine cli = BasaltCli.commandLine();
        cli.setOut(new PrintWriter(out, true));
        cli.setErr(new PrintWriter(err, true));
        return cli.execute(args);
    }

    @Test
    void versionNamesBasaltAndTheJavaRuntime() {
        assertThat(run("version")).isZero();
        assertThat(out.toString()).startsWith("Basalt " + BasaltCli.version())
                .contains("Java " + Runtime.version());
        assertThat(BasaltCli.version()).isNotEqualTo("unknown").doesNotContain("${");
    }

    @ParameterizedTest
    @ValueSource(strings = {"shell", "version", "test", "bench", "ycsb", "cert", "user"})
    void everyCommandHasHelp(String command) {
        assertThat(run(command, "--help")).isZero();
        assertThat(out.toString()).startsWith("Usage: basalt " + command);
    }

    @Test
    void noCommandPrintsTheUsage() {
        assertThat(run()).isZero();
        assertThat(out.toString()).startsWith("Usage: basalt").contains("test").contains("bench").contains("version");
    }

    @Test
    void unknownCommandIsAUsageError() {
        assertThat(run("frobnicate")).isEqualTo(2);
        assertThat(err.toString()).contains("Unmatched argument at index 0: 'frobnicate'");
    }

    @Test
    void benchWithoutASuiteFailsWithOneLine() {
        assertThat(run("bench")).isEqualTo(1);
        assertThat(err.toString().strip())
                .isEqualTo("basalt bench: name a suite to run (basalt bench --list shows them)");
    }

    @Test
    void testCommandMapsItsOptionsToMaven() {
        TestCommand command = new TestCommand();
        new CommandLine(command).parseArgs("--module", "basalt-common", "--test", "CellTest", "--unit");

        assertThat(command.mavenCommand("mvn")).containsExactly("mvn", "-B", "-ntp", "-pl", "basalt-common", "-am",
                "-Dtest=CellTest", "-Dit.test=CellTest", "-Dsurefire.failIfNoSpecifiedTests=false",
                "-Dfailsafe.failIfNoSpecifiedTests=false", "-DskipITs", "verify");
    }

    @Test
    void stressCommandRunsTheCrashAndFaultTestForTheTimeAsked() {
        StressCommand command = new StressCommand();
        new CommandLine(command).parseArgs("--minutes", "30", "--seed", "42");

        assertThat(command.mavenCommand("mvn")).containsExactly("mvn", "-B", "-ntp", "-pl", "basalt-engine", "-am",
                "-Dtest=CrashFaultStressTest", "-Dsurefire.failIfNoSpecifiedTests=false", "-DskipITs",
                "-Dbasalt.stress.minutes=30", "-Dbasalt.stress.rounds=200", "-Dbasalt.stress.seed=42", "verify");
    }

    @Test
    void testCommandRunsEverythingByDefault() {
        TestCommand command = new TestCommand();
        new CommandLine(command).parseArgs();

        assertThat(command.mavenCommand("/opt/mvn")).containsExactly("/opt/mvn", "-B", "-ntp", "verify");
    }

    @Test
    void benchRunsTheSuiteInItsOwnJvmAndWritesTheJsonUnderBenchResults(@TempDir Path root) throws Exception {
        Files.createDirectories(root.resolve("basalt-bench/target/classes"));
        Files.createDirectories(root.resolve("basalt-bench/target/lib"));
        BenchCommand command = new BenchCommand();
        new CommandLine(command).parseArgs("cells", "--quick");

        List<String> java = command.javaCommand(root);

        assertThat(java.getFirst()).endsWith("/bin/java");
        assertThat(java).containsSubsequence(BenchCommand.MAIN, "cells", "--out",
                root.resolve("bench-results/cells.json").toString(), "--quick");
        assertThat(java.get(java.indexOf("-cp") + 1))
                .contains(root.resolve("basalt-bench/target/classes").toString())
                .contains(root.resolve("basalt-bench/target/lib").resolve("*").toString());
    }

    @Test
    void benchParametersGoToTheSuiteAndTheirResultsToTheirOwnFile(@TempDir Path root) throws Exception {
        Files.createDirectories(root.resolve("basalt-bench/target/classes"));
        Files.createDirectories(root.resolve("basalt-bench/target/lib"));
        BenchCommand command = new BenchCommand();
        new CommandLine(command).parseArgs("grouping", "-p", "engine=on", "--param", "streams=1,50");

        List<String> java = command.javaCommand(root);

        assertThat(java).containsSubsequence(BenchCommand.MAIN, "grouping", "--out",
                root.resolve("bench-results/grouping-custom.json").toString(), "--param", "engine=on", "--param",
                "streams=1,50");
    }

    @Test
    void loadRunsTheNamedRunInItsOwnJvmWithTheOptionsAfterItsName(@TempDir Path root) throws Exception {
        Files.createDirectories(root.resolve("basalt-bench/target/classes"));
        Files.createDirectories(root.resolve("basalt-bench/target/lib"));
        LoadCommand command = new LoadCommand();
        new CommandLine(command).parseArgs("regions", "--quick", "--mb", "64");

        List<String> java = command.javaCommand(root);

        assertThat(java).containsSubsequence(LoadCommand.RUNS.get("regions"), "--quick", "--mb", "64");
        LoadCommand unknown = new LoadCommand();
        new CommandLine(unknown).parseArgs("nope");
        assertThatThrownBy(() -> unknown.javaCommand(root)).hasMessageContaining("no load run named 'nope'")
                .hasMessageContaining("regions");
    }

    @Test
    void ycsbRunsYcsbsClientWithTheBindingAndFindsTheShippedWorkloads(@TempDir Path root) throws Exception {
        Files.createDirectories(root.resolve("basalt-ycsb/target/classes"));
        Files.createDirectories(root.resolve("basalt-ycsb/target/lib"));
        Files.createDirectories(root.resolve("basalt-ycsb/workloads"));
        Files.writeString(root.resolve("basalt-ycsb/workloads/workloada"), "readproportion=0.5\n");
        Path here = Files.createDirectories(root.resolve("elsewhere"));
        Files.writeString(here.resolve("mine"), "readproportion=1\n");

        YcsbCommand load = new YcsbCommand();
        new CommandLine(load).parseArgs("load", "-P", "workloada", "-p", "basalt.uri=/tmp/x", "-threads", "4");
        assertThat(load.javaCommand(root, here)).contains("-Dlogback.configurationFile="
                + root.resolve("basalt-ycsb/target/classes").resolve(YcsbCommand.LOGGING));
        assertThat(load.javaCommand(root, here)).containsSubsequence(YcsbCommand.CLIENT, "-db", YcsbCommand.BINDING,
                "-load", "-P", root.resolve("basalt-ycsb/workloads/workloada").toString(), "-p", "basalt.uri=/tmp/x",
                "-threads", "4");

        YcsbCommand run = new YcsbCommand();
        new CommandLine(run).parseArgs("run", "-P", "mine");
        assertThat(run.javaCommand(root, here)).containsSubsequence("-t", "-P", here.resolve("mine").toString());

        YcsbCommand missing = new YcsbCommand();
        new CommandLine(missing).parseArgs("run", "-P", "workloadz");
        assertThatThrownBy(() -> missing.javaCommand(root, here)).hasMessageContaining("no workload file 'workloadz'");
        YcsbCommand wrong = new YcsbCommand();
        new CommandLine(wrong).parseArgs("unload");
        assertThatThrownBy(() -> wrong.javaCommand(root, here)).hasMessageContaining("load or run first, not 'unload'");
    }

    @Test
    void benchSaysSoWhenTheBenchmarksAreNotBuilt(@TempDir Path root) {
        BenchCommand command = new BenchCommand();
        new CommandLine(command).parseArgs("cells");

        assertThatThrownBy(() -> command.javaCommand(root))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("the benchmarks are not built");
    }

    /**
     * Issue 23: {@code basalt cert} makes a CA and certificates a TLS server serves and a client
     * trusts; the shell connects with {@code basalts://} and {@code --tls-ca}.
     */
    @Test
    void certMakesWhatATlsServerAndTheShellUse(@TempDir Path root) throws Exception {
        Path certs = root.resolve("certs");
        assertThat(run("cert", "--dir", certs.toString())).isZero();
        assertThat(out.toString()).contains("made a CA: " + certs.resolve("ca.pem"))
                .contains("for localhost, 127.0.0.1");
        assertThat(run("cert", "--dir", certs.toString(), "--name", "alice", "--client")).isZero();
        assertThat(out.toString()).contains("alice.pem").contains("(a client's)");
        assertThat(Files.readString(certs.resolve("node.key"))).startsWith("-----BEGIN PRIVATE KEY-----");
        assertThat(Files.getPosixFilePermissions(certs.resolve("node.key")))
                .containsExactlyInAnyOrder(java.nio.file.attribute.PosixFilePermission.OWNER_READ,
                        java.nio.file.attribute.PosixFilePermission.OWNER_WRITE);
        assertThat(run("cert", "--dir", certs.toString(), "--days", "0")).isNotZero();

        io.basalt.server.ServerConfig config = io.basalt.server.ServerConfig.builder().port(0)
                .httpPort(io.basalt.server.ServerConfig.NO_HTTP).dataDir(root.resolve("data")).ioThreads(1)
                .tls(io.basalt.server.ServerConfig.TlsSettings.of(certs.resolve("node.pem"), certs.resolve("node.key"))
                        .withClients(certs.resolve("ca.pem"), io.basalt.protocol.Tls.ClientCertificates.REQUIRE))
                .build();
        try (io.basalt.server.BasaltServer server = io.basalt.server.BasaltServer.start(config)) {
            String at = "basalts://127.0.0.1:" + server.address().getPort();
            java.io.ByteArrayOutputStream printed = new java.io.ByteArrayOutputStream();
            java.io.PrintStream console = System.out; // the shell prints to standard output
            System.setOut(new java.io.PrintStream(printed, true, java.nio.charset.StandardCharsets.UTF_8));
            try {
                assertThat(run("shell", "--connect", at, "--tls-ca", certs.resolve("ca.pem").toString(), "--tls-cert",
                        certs.resolve("alice.pem").toString(), "--tls-key", certs.resolve("alice.key").toString(),
                        "-e", "create 't', 'f'; put 't', 'r', 'f:q', 'v'; get 't', 'r'")).isZero();
            } finally {
                System.setOut(console);
            }
            assertThat(printed.toString(java.nio.charset.StandardCharsets.UTF_8)).contains("value=v");
            err.getBuffer().setLength(0);
            assertThat(run("shell", "--connect", at, "--tls-ca", certs.resolve("ca.pem").toString(), "-e", "list"))
                    .as("no client certificate: refused").isNotZero();
        }
    }

    /** Runs the command with standard output captured (the shell prints there); returns exit code and output. */
    private Object[] shell(String... args) {
        java.io.ByteArrayOutputStream printed = new java.io.ByteArrayOutputStream();
        java.io.PrintStream console = System.out;
        System.setOut(new java.io.PrintStream(printed, true, java.nio.charset.StandardCharsets.UTF_8));
        try {
            int code = run(args);
            return new Object[] {code, printed.toString(java.nio.charset.StandardCharsets.UTF_8)};
        } finally {
            System.setOut(console);
        }
    }

    /**
     * Issue 23: {@code basalt user} makes the first admin on the store's directory; the shell
     * authenticates with {@code --user}, grants, lists and revokes, and a user meets what it may
     * not do; passwords change and users go over the network.
     */
    @Test
    void usersAndGrantsFromTheCommandLineAndTheShell(@TempDir Path root) throws Exception {
        Path data = root.resolve("data");
        Path rootPw = Files.writeString(root.resolve("root.pw"), "root-Password-1\n");
        Path bobPw = Files.writeString(root.resolve("bob.pw"), "bob-Password-22\n");
        Path bobNext = Files.writeString(root.resolve("bob.next"), "bob-Password-333\n");
        assertThat(run("user", "add", "root", "--data", data.toString(), "--new-password-file", rootPw.toString())).isZero();
        assertThat(out.toString()).contains("Added user root.");
        assertThat(run("user", "add", "root", "--data", data.toString(), "--new-password-file", rootPw.toString()))
                .isNotZero();
        assertThat(err.toString()).contains("user 'root' exists");
        assertThat(run("user", "add", "bob", "--data", data.toString(), "--new-password-file", bobPw.toString())).isZero();
        out.getBuffer().setLength(0);
        assertThat(run("user", "list", "--data", data.toString())).isZero();
        assertThat(out.toString()).contains("bob\nroot\n2 user(s)");
        assertThat(run("user", "add", "x", "--data", data.toString(), "--new-password-file",
                Files.writeString(root.resolve("short"), "short\n").toString())).isNotZero();
        assertThat(err.toString()).contains("at least 8 characters");
        assertThat(run("shell", "--data", data.toString(), "--user", "root", "-e", "list")).isNotZero();
        assertThat(err.toString()).contains("--user applies to a server");

        io.basalt.server.ServerConfig config = io.basalt.server.ServerConfig.builder().port(0)
                .httpPort(io.basalt.server.ServerConfig.NO_HTTP).dataDir(data).ioThreads(1)
                .auth(io.basalt.server.ServerConfig.AuthSettings.passwords("root")).build();
        try (io.basalt.server.BasaltServer server = io.basalt.server.BasaltServer.start(config)) {
            String at = "127.0.0.1:" + server.address().getPort();
            Object[] r = shell("shell", "--connect", at, "--user", "root", "--password-file", rootPw.toString(), "-e",
                    "create 't', 'f'; put 't', 'r', 'f:q', 'v'; grant 'bob', 'R', 't'; user_permission 't'; whoami");
            assertThat(r[0]).isEqualTo(0);
            assertThat((String) r[1]).contains(" bob  | t     |        | R").contains("1 row(s)").contains("root\n");
            r = shell("shell", "--connect", at, "--user", "bob", "--password-file", bobPw.toString(), "-e",
                    "get 't', 'r'");
            assertThat(r[0]).isEqualTo(0);
            assertThat((String) r[1]).contains("value=v");
            r = shell("shell", "--connect", at, "--user", "bob", "--password-file", bobPw.toString(), "-e",
                    "put 't', 'r', 'f:q', 'w'");
            assertThat(r[0]).isEqualTo(1);
            assertThat((String) r[1]).contains("ERROR: user 'bob' may not put into: it needs W (write) on family 't:f'");
            r = shell("shell", "--connect", at, "--user", "bob", "--password-file", bobPw.toString(), "-e",
                    "grant 'bob', 'RW', 't'");
            assertThat((String) r[1]).contains("ERROR: user 'bob' may not grant RW at table 't'");
            r = shell("shell", "--connect", at, "--user", "root", "--password-file", rootPw.toString(), "-e",
                    "grant 'bob', 'RZ', 't'\ngrant 'bob', 'C', 't', 'f'\ngrant 'bob', 'R', 't', 'f', 'q'\n"
                            + "revoke 'bob', 'nope'\nrevoke 'bob', 't'\nuser_permission");
            assertThat((String) r[1]).contains("ERROR: 'Z' in 'RZ' is not a permission")
                    .contains("ERROR: C applies to a table or globally, not to a column family")
                    .contains("ERROR: Basalt grants down to column families, not qualifiers")
                    .contains("ERROR: user 'bob' holds nothing at table 'nope' to revoke")
                    .contains("0 row(s)");
            r = shell("shell", "--connect", at, "--user", "bob", "--password-file", bobPw.toString(), "-e",
                    "get 't', 'r'");
            assertThat(r[0]).as("revoked").isEqualTo(1);
            assertThat((String) r[1]).contains("ERROR: user 'bob' may not get from");

            assertThat(run("user", "passwd", "bob", "--connect", at, "--user", "bob", "--password-file", bobPw.toString(),
                    "--new-password-file", bobNext.toString())).isZero();
            r = shell("shell", "--connect", at, "--user", "bob", "--password-file", bobPw.toString(), "-e", "list");
            assertThat(r[0]).as("the old password").isEqualTo(1);
            assertThat((String) r[1]).contains("authentication failed for user 'bob': wrong password or no such user");
            assertThat(run("user", "remove", "bob", "--connect", at, "--user", "root", "--password-file",
                    rootPw.toString())).isZero();
            out.getBuffer().setLength(0);
            assertThat(run("user", "list", "--connect", at, "--user", "root", "--password-file", rootPw.toString()))
                    .isZero();
            assertThat(out.toString()).contains("root\n1 user(s)");
            assertThat(run("shell", "--connect", at, "-e", "list")).as("no user").isNotZero();
        }
    }
}
