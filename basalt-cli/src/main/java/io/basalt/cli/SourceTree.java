package io.basalt.cli;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * The source checkout the CLI was launched from, for the commands that build or run code from it
 * ({@code test}, {@code bench}). The launcher passes its location in {@code BASALT_HOME}.
 */
record SourceTree(Path root) {

    /**
     * The checkout named by {@code BASALT_HOME}.
     *
     * @throws IllegalStateException when there is none, with what to do about it
     */
    static SourceTree fromEnvironment() {
        String home = System.getenv("BASALT_HOME");
        if (home == null || home.isBlank()) {
            throw new IllegalStateException("this command needs a Basalt source checkout; run it through the"
                    + " ./basalt launcher at the checkout's root (BASALT_HOME is not set)");
        }
        Path root = Path.of(home).toAbsolutePath().normalize();
        if (!Files.isRegularFile(root.resolve("pom.xml"))) {
            throw new IllegalStateException("BASALT_HOME=" + root + " is not a Basalt checkout (no pom.xml there)");
        }
        return new SourceTree(root);
    }

    /** Maven as the launcher found it ({@code BASALT_MVN}), else {@code mvn} from the PATH. */
    String maven() {
        String mvn = System.getenv("BASALT_MVN");
        return mvn == null || mvn.isBlank() ? "mvn" : mvn;
    }

    /** The java executable of the running JVM, so children use the same JDK 25. */
    static String java() {
        return Path.of(System.getProperty("java.home"), "bin", "java").toString();
    }

    /**
     * Runs a child process in the checkout with this process's standard streams, and returns its
     * exit code.
     */
    int run(List<String> command) throws IOException, InterruptedException {
        return run(command, root);
    }

    /** Runs a child process in {@code directory} with this process's standard streams; returns its exit code. */
    int run(List<String> command, Path directory) throws IOException, InterruptedException {
        Process process = new ProcessBuilder(command).directory(directory.toFile()).inheritIO().start();
        try {
            return process.waitFor();
        } catch (InterruptedException e) {
            process.destroy();
            throw e;
        }
    }
}
