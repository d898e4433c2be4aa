package io.basalt.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code basalt shell} as a process: -e, standard input, exit codes, data kept between runs. */
class ShellCommandIT {

    @TempDir
    Path dir;

    private record Run(int exit, String out, String err) {}

    private Run shell(String stdin, String... args) throws Exception {
        List<String> command = new java.util.ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "--enable-native-access=ALL-UNNAMED", "-cp", System.getProperty("java.class.path"),
                "io.basalt.cli.BasaltCli", "shell", "--data", dir.resolve("store").toString()));
        command.addAll(List.of(args));
        Process process = new ProcessBuilder(command).start();
        process.getOutputStream().write(stdin.getBytes(StandardCharsets.UTF_8));
        process.getOutputStream().close();
        assertThat(process.waitFor(60, TimeUnit.SECONDS)).isTrue();
        return new Run(process.exitValue(), new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8),
                new String(process.getErrorStream().readAllBytes(), StandardCharsets.UTF_8));
    }

    @Test
    void executeOptionRunsCommandsAndTheDataStays() throws Exception {
        Run first = shell("", "-e", "create 't', 'f'; put 't', 'r1', 'f:q', 'hello'");
        assertThat(first.exit()).isZero();
        assertThat(first.out()).contains("Created table t");

        Run second = shell("", "-e", "get 't', 'r1'");
        assertThat(second.exit()).isZero();
        assertThat(second.out()).contains("value=hello");
    }

    @Test
    void commandsOnStandardInput() throws Exception {
        Run run = shell("create 't', 'f'\nput 't', 'a', 'f:q', '1'\nput 't', 'b', 'f:q', '2'\nscan 't'\n");
        assertThat(run.exit()).isZero();
        assertThat(run.out()).contains("2 row(s)");
    }

    @Test
    void aFailedCommandMakesTheExitCodeOneWithoutAStackTrace() throws Exception {
        Run run = shell("", "-e", "get 'missing', 'r'");
        assertThat(run.exit()).isEqualTo(1);
        assertThat(run.out()).contains("ERROR: table 'missing' does not exist");
        assertThat(run.out() + run.err()).doesNotContain("Exception");
    }
}
