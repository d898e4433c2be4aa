package io.basalt.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.basalt.client.Basalt;
import io.basalt.client.Connection;
import io.basalt.client.Get;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code basalt server} as a process: the ready line, a shell connected to it with
 * {@code --connect}, and a clean stop on SIGTERM that leaves the data on disk.
 */
class ServerCommandIT {

    private static final Pattern READY = Pattern.compile("Basalt server ready on 127\\.0\\.0\\.1:(\\d+) .*");

    @TempDir
    Path dir;

    private static List<String> java(String... args) {
        List<String> command = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "--enable-native-access=ALL-UNNAMED", "-cp", System.getProperty("java.class.path"),
                "io.basalt.cli.BasaltCli"));
        command.addAll(List.of(args));
        return command;
    }

    private static String run(List<String> command) throws Exception {
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        p.getOutputStream().close();
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.exitValue()).as(out).isZero();
        return out;
    }

    @Test
    void servesAShellAndStopsCleanlyOnSigterm() throws Exception {
        Path store = dir.resolve("store");
        Process server = new ProcessBuilder(java("server", "--port", "0", "--data", store.toString()))
                .redirectErrorStream(true).start();
        try {
            BufferedReader lines = new BufferedReader(new InputStreamReader(server.getInputStream(),
                    StandardCharsets.UTF_8));
            String ready = lines.readLine();
            assertThat(ready).isNotNull().matches(READY);
            Matcher m = READY.matcher(ready);
            assertThat(m.matches()).isTrue();
            String address = "127.0.0.1:" + m.group(1);

            String out = run(java("shell", "--connect", address, "-e",
                    "create 't', 'f'; put 't', 'r1', 'f:q', 'over the wire'; get 't', 'r1'"));
            assertThat(out).contains("Created table t").contains("value=over the wire");

            // SIGTERM by kill(1): Process.destroy() would also close our end of its output.
            assertThat(new ProcessBuilder("kill", "-TERM", Long.toString(server.pid())).start().waitFor()).isZero();
            assertThat(server.waitFor(60, TimeUnit.SECONDS)).isTrue();
            String rest = String.join("\n", lines.lines().toList());
            assertThat(rest).contains("Basalt server stopping").contains("Basalt server stopped");
        } finally {
            server.destroyForcibly();
        }
        try (Connection embedded = Basalt.open(store)) {
            assertThat(embedded.table("t").get(Get.of("r1")).get(30, TimeUnit.SECONDS).value("f", "q"))
                    .asString(StandardCharsets.UTF_8).isEqualTo("over the wire");
        }
    }

    @Test
    void shellWithoutAServerSaysWhichAddressRefused() throws Exception {
        Process p = new ProcessBuilder(java("shell", "--connect", "127.0.0.1:1", "-e", "list"))
                .redirectErrorStream(true).start();
        p.getOutputStream().close();
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.exitValue()).isEqualTo(1);
        assertThat(out).contains("127.0.0.1:1").doesNotContain("Exception");
    }
}
