package io.basalt.hbasecompat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * The JDK that runs the real HBase region: HBase 2.6.4's Hadoop 2.10 asks for the caller's
 * {@code Subject} in a way JDK 23 and newer refuse, so it needs a JDK from 17 to 22. Taken from
 * {@code -Dbasalt.hbase.java} (a {@code java} binary) or {@code BASALT_HBASE_JAVA}, else the
 * oldest such JDK under {@code /usr/lib/jvm} (as Debian installs them) or beside this JVM's home.
 */
final class HBaseJdk {

    static final int OLDEST = 17;
    static final int NEWEST = 22;

    private HBaseJdk() {}

    static Path java() throws IOException {
        String given = Optional.ofNullable(System.getProperty("basalt.hbase.java")).orElse(System.getenv("BASALT_HBASE_JAVA"));
        if (given != null) {
            Path java = Path.of(given);
            if (!Files.isExecutable(java)) {
                throw new IllegalStateException("basalt.hbase.java / BASALT_HBASE_JAVA names " + given + ", which is not executable");
            }
            return java;
        }
        List<Path> roots = new ArrayList<>(List.of(Path.of("/usr/lib/jvm")));
        Path home = Path.of(System.getProperty("java.home")).getParent();
        if (home != null) {
            roots.add(home);
        }
        Path best = null;
        int bestVersion = Integer.MAX_VALUE;
        for (Path root : roots) {
            if (!Files.isDirectory(root)) {
                continue;
            }
            try (Stream<Path> homes = Files.list(root)) {
                for (Path jdk : homes.sorted(Comparator.naturalOrder()).toList()) {
                    Path java = jdk.resolve("bin").resolve("java");
                    int version = version(jdk);
                    if (Files.isExecutable(java) && version >= OLDEST && version <= NEWEST && version < bestVersion) {
                        best = java;
                        bestVersion = version;
                    }
                }
            }
        }
        if (best == null) {
            throw new IllegalStateException("no JDK " + OLDEST + " to " + NEWEST + " found under " + roots
                    + " for the real HBase region (Hadoop 2.10 cannot run on JDK 23 or newer): install one (Debian: apt-get"
                    + " install openjdk-17-jdk-headless; .ci/run does) or pass -Dbasalt.hbase.java=/path/to/bin/java");
        }
        return best;
    }

    /** The feature version in a JDK home's {@code release} file, or -1. */
    private static int version(Path jdk) {
        Path release = jdk.resolve("release");
        if (!Files.isRegularFile(release)) {
            return -1;
        }
        try {
            for (String line : Files.readAllLines(release)) {
                if (line.startsWith("JAVA_VERSION=")) {
                    String v = line.substring("JAVA_VERSION=".length()).replace("\"", "");
                    String feature = v.startsWith("1.") ? v.substring(2) : v;
                    int end = 0;
                    while (end < feature.length() && Character.isDigit(feature.charAt(end))) {
                        end++;
                    }
                    return end == 0 ? -1 : Integer.parseInt(feature.substring(0, end));
                }
            }
        } catch (IOException | RuntimeException e) {
            return -1;
        }
        return -1;
    }
}
