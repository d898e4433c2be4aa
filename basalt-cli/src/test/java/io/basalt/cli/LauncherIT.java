package io.basalt.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The {@code ./basalt} launcher script's choice of JDK. Only paths that stop before the build are
 * exercised ({@code --which-java} and the missing-JDK error), so the test never starts Maven.
 */
class LauncherIT {

    /** Failsafe runs in the module directory; the launcher is at the checkout's root. */
    private static final Path LAUNCHER = Path.of("").toAbsolutePath().getParent().resolve("basalt");

    private record Result(int exitCode, String stdout, String stderr) {}

    private static Result launch(Map<String, String> env, String... args) throws IOException, InterruptedException {
        var command = new java.util.ArrayList<String>();
        command.add(LAUNCHER.toString());
        command.addAll(java.util.List.of(args));
        ProcessBuilder builder = new ProcessBuilder(command);
        builder.environment().remove("JAVA_HOME");
        builder.environment().putAll(env);
        Process process = builder.start();
        process.getOutputStream().close();
        assertThat(process.waitFor(60, TimeUnit.SECONDS)).as("launcher finished").isTrue();
        return new Result(process.exitValue(),
                new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8),
                new String(process.getErrorStream().readAllBytes(), StandardCharsets.UTF_8));
    }

    /** A directory that looks like a JDK of the given version to the launcher. */
    private static Path fakeJdk(Path parent, String name, String version) throws IOException {
        Path home = parent.resolve(name);
        Files.createDirectories(home.resolve("bin"));
        for (String tool : new String[] {"java", "javac"}) {
            Path exe = home.resolve("bin").resolve(tool);
            Files.writeString(exe, "#!/bin/sh\nexit 0\n");
            Files.setPosixFilePermissions(exe, PosixFilePermissions.fromString("rwxr-xr-x"));
        }
        Files.writeString(home.resolve("release"), "IMPLEMENTOR=\"Test\"\nJAVA_VERSION=\"" + version + "\"\n");
        return home;
    }

    @Test
    void missingJdk25IsOneLineThatSaysWhatToInstall(@TempDir Path jvms) throws Exception {
        Path old = fakeJdk(jvms, "jdk-17", "17.0.15");

        Result result = launch(Map.of("JAVA_HOME", old.toString(), "BASALT_JDK_DIRS", jvms.toString()), "version");

        assertThat(result.exitCode()).isEqualTo(1);
        assertThat(result.stdout()).isEmpty();
        assertThat(result.stderr().lines().toList()).singleElement().asString()
                .startsWith("basalt: no JDK 25 found")
                .contains("install a JDK 25")
                .doesNotContain("Exception");
    }

    @Test
    void javaHomeOlderThan25IsPassedOverForAJdk25InTheSearchPath(@TempDir Path jvms) throws Exception {
        Path old = fakeJdk(jvms, "jdk-17", "17.0.15");
        Path jdk25 = fakeJdk(jvms, "temurin-25", "25.0.3");

        Result result = launch(Map.of("JAVA_HOME", old.toString(), "BASALT_JDK_DIRS", jvms.toString()),
                "--which-java");

        assertThat(result.exitCode()).isZero();
        assertThat(result.stdout().strip()).isEqualTo(jdk25.toString());
    }

    @Test
    void javaHome25OrNewerWins(@TempDir Path jvms) throws Exception {
        Path mine = fakeJdk(jvms.resolve("mine"), "jdk", "26");
        fakeJdk(jvms.resolve("system"), "temurin-25", "25.0.3");

        Result result = launch(Map.of("JAVA_HOME", mine.toString(),
                "BASALT_JDK_DIRS", jvms.resolve("system").toString()), "--which-java");

        assertThat(result.stdout().strip()).isEqualTo(mine.toString());
    }

    @Test
    void newestJdkInTheSearchPathIsChosen(@TempDir Path jvms) throws Exception {
        fakeJdk(jvms, "temurin-25", "25.0.3");
        Path newest = fakeJdk(jvms, "temurin-27", "27-ea");
        fakeJdk(jvms, "openjdk-17", "17.0.15");

        Result result = launch(Map.of("BASALT_JDK_DIRS", jvms.toString()), "--which-java");

        assertThat(result.stdout().strip()).isEqualTo(newest.toString());
    }

    @Test
    void directoryWithoutJavacIsNotAJdk(@TempDir Path jvms) throws Exception {
        Path jre = fakeJdk(jvms, "jre-25", "25.0.3");
        Files.delete(jre.resolve("bin/javac"));

        Result result = launch(Map.of("BASALT_JDK_DIRS", jvms.toString()), "--which-java");

        assertThat(result.exitCode()).isEqualTo(1);
        assertThat(result.stderr()).startsWith("basalt: no JDK 25 found");
    }
}
