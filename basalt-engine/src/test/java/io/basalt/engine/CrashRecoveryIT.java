package io.basalt.engine;

import io.basalt.cell.Cell;
import io.basalt.client.AsyncTable;
import io.basalt.client.Basalt;
import io.basalt.client.Connection;
import io.basalt.client.Durability;
import io.basalt.client.Get;
import io.basalt.client.Result;
import io.basalt.client.Scan;
import io.basalt.client.TableDescriptor;
import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.SplittableRandom;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.jar.Attributes;
import java.util.jar.JarFile;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.CleanupMode;
import org.junit.jupiter.api.io.TempDir;

/**
 * Kills a writing process at random moments and checks what survives: a {@link CrashWriter}
 * child writes multi-column rows and deletes from several threads, the test kills it with
 * {@link Process#destroyForcibly()} (SIGKILL on Linux) at a random moment (sometimes before the
 * store is even open), then reopens the store here and checks that
 *
 * <ul>
 *   <li>every acknowledged write is there, unless the row's one unacknowledged later write
 *       replaced it (it may or may not have survived; both are correct),</li>
 *   <li>no row is half-applied: a put's columns are all there, with the same version and intact
 *       values, or none are,</li>
 *   <li>no row exists that nobody wrote, and</li>
 *   <li>the store accepts and returns a new write.</li>
 * </ul>
 *
 * In about half the rounds a second child only opens the killed writer's store (replaying its log,
 * cutting a torn tail, deleting half-written files) and is killed too, at a random moment before,
 * during or after that recovery, so the check here recovers an interrupted recovery. A directory
 * is reused for {@value #ROUNDS_PER_DIRECTORY} rounds, so later rounds recover a store that
 * earlier rounds recovered (and wrote to, and compacted) and must keep what those rounds
 * verified. Small memtables and log segments make flushes, log rolls and compactions happen
 * throughout each run.
 *
 * <p>The children run on a copy of this build's classes (see {@link #snapshotClassPath}), so a
 * rebuild of the module beside the test does not pull them away. Runs with {@code mvn verify}: {@value #DEFAULT_ROUNDS} rounds under {@code SYNC} and
 * {@value #DEFAULT_ASYNC_ROUNDS} under {@code ASYNC}, about a minute in all. Long mode:
 * {@code -Dbasalt.crash.rounds=500} (the ASYNC test runs a third of that); a failure names its seed,
 * {@code -Dbasalt.crash.seed=N} repeats the same choices (the kill timing cannot repeat exactly).
 */
class CrashRecoveryIT {

    static final int DEFAULT_ROUNDS = 20;
    static final int DEFAULT_ASYNC_ROUNDS = 6;
    static final int ROUNDS_PER_DIRECTORY = 5;
    static final int THREADS = 4;
    /** Most rounds kill within this long after the writer is ready. */
    static final int MAX_KILL_DELAY_MILLIS = 1500;

    /**
     * While true, a round whose kill left no record in any log segment (the log had just rolled
     * and a flush retired every older segment) is reported and skipped, and the next round starts
     * a fresh store: opening such a store starts sequence numbers at 0 and hides every flushed
     * write, the known bug of
     * {@link StoreModelTest#reopeningAfterTheLogRolledAndWasRetiredHidesEveryFlushedWrite}.
     */
    static final boolean SEQUENCE_RESTARTS_AFTER_LOG_RETIRED = StoreModelTest.SEQUENCE_RESTARTS_AFTER_LOG_RETIRED;

    /** Kept when a test fails: the stores, and every child's output and log, for a post-mortem. */
    @TempDir(cleanup = CleanupMode.ON_SUCCESS)
    Path temp;

    @Test
    void acknowledgedWritesSurviveAKillAtAnyMoment() throws Exception {
        int rounds = Math.max(DEFAULT_ROUNDS, Integer.getInteger("basalt.crash.rounds", DEFAULT_ROUNDS));
        new Run(Durability.SYNC, rounds).run();
    }

    /** {@link Durability#ASYNC} acknowledges once the write reached the OS: a process kill loses nothing. */
    @Test
    void asyncDurabilitySurvivesAProcessKill() throws Exception {
        int rounds = Math.max(DEFAULT_ASYNC_ROUNDS, Integer.getInteger("basalt.crash.rounds", 0) / 3);
        new Run(Durability.ASYNC, rounds).run();
    }

    /** What a row holds: a whole put at a version, or nothing. */
    record RowState(boolean present, long version) {
        static final RowState ABSENT = new RowState(false, 0);

        @Override
        public String toString() {
            return present ? "put v" + version : "absent";
        }
    }

    /** One line of the writer: an intent or an acknowledgement. */
    record Write(String row, long version, boolean delete) {
        RowState result() {
            return delete ? RowState.ABSENT : new RowState(true, version);
        }
    }

    /** What one killed writer printed, and how it was killed. */
    record Killed(List<String> lines, boolean ready, String how, Path log) {
        /** This writer, followed by a killed recovery that wrote nothing. */
        Killed then(Killed recovery) {
            return new Killed(lines, ready || recovery.ready, how + ", then a recovery " + recovery.how, log);
        }
    }

    private final class Run {
        final Durability durability;
        final int rounds;
        final long seed = Long.getLong("basalt.crash.seed", System.nanoTime());
        final SplittableRandom random = new SplittableRandom(seed);
        final List<String> summary = new ArrayList<>();
        long acknowledged;
        String classPath;

        Run(Durability durability, int rounds) {
            this.durability = durability;
            this.rounds = rounds;
        }

        void run() throws Exception {
            classPath = snapshotClassPath(temp.resolve("classpath-" + durability));
            Path directory = null;
            Map<String, RowState> verified = null;
            boolean tableConfirmed = false;
            for (int round = 0; round < rounds; round++) {
                if (round % ROUNDS_PER_DIRECTORY == 0) {
                    directory = temp.resolve(durability + "-" + round);
                    verified = new TreeMap<>();
                    tableConfirmed = false;
                }
                long firstVersion = (round + 1) * 1_000_000L;
                Killed killed = killWriter(directory, round, firstVersion);
                String atKill = files(directory);
                if (random.nextBoolean()) {
                    killed = killed.then(killRecovery(directory, round));
                }
                tableConfirmed |= killed.ready;
                if (SEQUENCE_RESTARTS_AFTER_LOG_RETIRED && logLostItsSequence(directory)) {
                    summary.add(round + ": " + killed.how + ", at the kill " + atKill + ": no log record left,"
                            + " SKIPPED (known bug: the sequence restarts at 0); the next round starts a fresh store");
                    directory = temp.resolve(durability + "-" + round + "-fresh");
                    verified = new TreeMap<>();
                    tableConfirmed = false;
                    continue;
                }
                String context = "seed " + seed + ", " + durability + " round " + round + " (" + killed.how + ", "
                        + killed.lines.size() + " lines), store " + directory;
                try {
                    verify(directory, verified, killed, tableConfirmed, firstVersion + 999_999, context);
                } catch (AssertionError e) {
                    throw new AssertionError(e.getMessage() + "\n-- writer's stderr (tail; all output kept in " + temp
                            + "):\n" + tail(killed.log, 30), e);
                }
                summary.add(round + ": " + killed.how + ", " + count(killed.lines, "A ") + " acks, at the kill " + atKill);
            }
            System.out.println("CrashRecoveryIT " + durability + " (seed " + seed + "):\n  " + String.join("\n  ", summary));
            if (acknowledged == 0) {
                throw new AssertionError("no write was acknowledged in " + rounds + " rounds (seed " + seed
                        + "): the test checked nothing; the writers' logs are in " + temp);
            }
        }

        /**
         * Starts a writer on {@code directory}, kills it at a random moment, returns what it
         * printed. The writer's stdout goes to a file, not a pipe: killing a {@link Process}
         * closes its pipes, and the lines still in them would be lost.
         */
        Killed killWriter(Path directory, int round, long firstVersion) throws Exception {
            return kill(directory, "writer-" + durability + "-" + round, THREADS, firstVersion, random.nextInt(5) == 0);
        }

        /** Starts a child that only opens (recovers) the store, and kills it at a random moment. */
        Killed killRecovery(Path directory, int round) throws Exception {
            Killed recovery = kill(directory, "recovery-" + durability + "-" + round, 0, 1, true);
            if (recovery.lines.stream().anyMatch(l -> !l.equals("READY"))) {
                throw new AssertionError("the recovery wrote " + recovery.lines + " (seed " + seed + ", round " + round + ")");
            }
            return recovery;
        }

        private Killed kill(Path directory, String name, int threads, long firstVersion, boolean early)
                throws Exception {
            Path log = temp.resolve(name + ".log");
            Path out = temp.resolve(name + ".out");
            ProcessBuilder builder = new ProcessBuilder(
                    Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                    "--enable-native-access=ALL-UNNAMED", "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-Xmx256m",
                    "-cp", classPath,
                    CrashWriter.class.getName(), directory.toString(), durability.name(), Integer.toString(threads),
                    Long.toString(firstVersion), Long.toString(random.nextLong()))
                    .redirectOutput(out.toFile()).redirectError(log.toFile());
            Process process = builder.start();
            String how;
            if (early) {
                int delay = random.nextInt(threads == 0 ? 1500 : 1200);
                Thread.sleep(delay);
                how = "killed " + delay + " ms after start";
            } else {
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
                while (!Files.readString(out, StandardCharsets.UTF_8).startsWith("READY\n")) {
                    if (!process.isAlive()) {
                        throw new AssertionError(name + " exited with status " + process.exitValue()
                                + " before opening the store (seed " + seed + "):\n" + tail(log, 30));
                    }
                    if (System.nanoTime() > deadline) {
                        process.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
                        throw new AssertionError(name + " did not open the store within 120 s (seed " + seed
                                + "):\n" + tail(log, 30));
                    }
                    Thread.sleep(5);
                }
                int delay = random.nextInt(MAX_KILL_DELAY_MILLIS);
                Thread.sleep(delay);
                how = "killed " + delay + " ms after ready";
            }
            if (!process.isAlive()) {
                throw new AssertionError(name + " exited by itself with status " + process.exitValue() + " (seed "
                        + seed + "); last lines " + tail(out, 5) + "\n" + tail(log, 30));
            }
            process.destroyForcibly();
            if (!process.waitFor(60, TimeUnit.SECONDS)) {
                throw new AssertionError("the killed " + name + " did not exit within 60 s");
            }
            String printed = Files.readString(out, StandardCharsets.UTF_8);
            List<String> lines = new ArrayList<>(List.of(printed.split("\n")));
            if (!printed.isEmpty() && !printed.endsWith("\n")) {
                lines.removeLast(); // torn by the kill: an intent never acted on, or an ack not counted
            }
            lines.removeIf(String::isEmpty);
            return new Killed(List.copyOf(lines), lines.contains("READY"), how, log);
        }

        /**
         * Reopens the store and checks it against what the writer acknowledged; then writes one
         * row, reads it back, and records what the store now holds as the truth for later rounds.
         */
        void verify(Path directory, Map<String, RowState> verified, Killed killed, boolean tableConfirmed,
                    long parentVersion, String context) throws Exception {
            Map<String, Write> intents = new HashMap<>();
            Map<String, Write> acks = new HashMap<>();
            for (int i = 0; i < killed.lines.size(); i++) {
                String line = killed.lines.get(i);
                if (line.equals("READY")) {
                    continue;
                }
                String[] f = line.split(" ");
                if (f.length != 5 || !(f[0].equals("I") || f[0].equals("A"))) {
                    throw new AssertionError(context + ": the writer printed '" + line + "' (line " + (i + 1) + ")");
                }
                Write write = new Write(f[2], Long.parseLong(f[3]), f[4].equals("DELETE"));
                (f[0].equals("I") ? intents : acks).merge(write.row, write, (a, b) -> a.version > b.version ? a : b);
            }
            acknowledged += count(killed.lines, "A ");

            Connection connection = Basalt.open(directory, CrashWriter.options(durability));
            try {
                boolean exists = connection.admin().listTables().get(60, TimeUnit.SECONDS).stream()
                        .map(TableDescriptor::name).anyMatch(CrashWriter.TABLE::equals);
                if (!exists) {
                    if (tableConfirmed) {
                        throw new AssertionError(context + ": table '" + CrashWriter.TABLE
                                + "' is gone after the writer reported it open");
                    }
                    return; // killed before the table was created: nothing was written
                }
                AsyncTable table = connection.table(CrashWriter.TABLE);
                Map<String, RowState> observed = new TreeMap<>();
                List<String> problems = new ArrayList<>();
                for (Result result : table.scanAll(new Scan()).get(60, TimeUnit.SECONDS)) {
                    String row = new String(result.row(), StandardCharsets.UTF_8);
                    observed.put(row, parse(row, result, problems));
                }

                Set<String> rows = new LinkedHashSet<>(verified.keySet());
                rows.addAll(intents.keySet());
                for (String row : rows) {
                    Write ack = acks.get(row);
                    RowState committed = ack != null ? ack.result() : verified.getOrDefault(row, RowState.ABSENT);
                    Set<RowState> allowed = new LinkedHashSet<>();
                    allowed.add(committed);
                    Write intent = intents.get(row);
                    if (intent != null && (ack == null || intent.version > ack.version)) {
                        allowed.add(intent.result());
                    }
                    RowState actual = observed.getOrDefault(row, RowState.ABSENT);
                    if (!allowed.contains(actual)) {
                        problems.add("row " + row + " is " + actual + "; expected " + String.join(" or ",
                                allowed.stream().map(RowState::toString).toList()) + " (last ack: "
                                + (ack == null ? "none this round" : ack) + ", unacknowledged: "
                                + (allowed.size() > 1 ? intent : "none") + ")");
                    }
                }
                for (String row : observed.keySet()) {
                    if (!rows.contains(row)) {
                        problems.add("row " + row + " (" + observed.get(row) + ") was never written");
                    }
                }
                if (!problems.isEmpty()) {
                    throw new AssertionError(context + ": " + problems.size() + " problems after recovery:\n  "
                            + String.join("\n  ", problems.subList(0, Math.min(40, problems.size()))));
                }
                verified.clear();
                observed.forEach((row, state) -> {
                    if (state.present) {
                        verified.put(row, state);
                    }
                });
                rows.forEach(row -> verified.putIfAbsent(row, RowState.ABSENT));

                String row = "p-" + parentVersion;
                table.put(CrashWriter.put(row, parentVersion, new Random(random.nextLong()))).get(60, TimeUnit.SECONDS);
                List<String> readBack = new ArrayList<>();
                RowState state = parse(row, table.get(Get.of(row)).get(60, TimeUnit.SECONDS), readBack);
                if (!readBack.isEmpty() || !state.equals(new RowState(true, parentVersion))) {
                    throw new AssertionError(context + ": a write after recovery reads back as " + state + " " + readBack);
                }
                verified.put(row, state);
            } finally {
                connection.close();
            }
        }
    }

    /**
     * What a scanned row holds: a whole put (every column, one version, intact values), or a
     * problem added to {@code problems} and the row's first column's version.
     */
    static RowState parse(String row, Result result, List<String> problems) {
        if (result.isEmpty()) {
            return RowState.ABSENT;
        }
        Map<String, Long> versions = new TreeMap<>();
        for (Cell cell : result.cells()) {
            String column = new String(cell.familyBytes(), StandardCharsets.UTF_8) + ":"
                    + new String(cell.qualifierBytes(), StandardCharsets.UTF_8);
            byte[] value = cell.valueBytes();
            String text = new String(value, StandardCharsets.ISO_8859_1);
            String[] header = text.split("\\|", 5);
            long version = -1;
            try {
                version = Long.parseLong(header[1]);
                int size = Integer.parseInt(header[3]);
                if (!header[0].equals(row) || !header[2].equals(column)
                        || !java.util.Arrays.equals(value, CrashWriter.value(row, version, column, size))) {
                    problems.add("row " + row + " column " + column + " holds a damaged value: " + abbreviate(text));
                }
            } catch (RuntimeException e) {
                problems.add("row " + row + " column " + column + " holds an unreadable value: " + abbreviate(text));
            }
            if (versions.put(column, version) != null) {
                problems.add("row " + row + " returned column " + column + " twice");
            }
        }
        if (!versions.keySet().equals(new java.util.TreeSet<>(CrashWriter.COLUMNS))
                || versions.values().stream().distinct().count() != 1) {
            problems.add("row " + row + " is half-applied: " + versions);
        }
        return new RowState(true, versions.values().iterator().next());
    }

    private static String abbreviate(String s) {
        return s.length() <= 60 ? s : s.substring(0, 60) + "...(" + s.length() + " chars)";
    }

    private static long count(List<String> lines, String prefix) {
        return lines.stream().filter(l -> l.startsWith(prefix)).count();
    }

    private static String tail(Path log, int lines) {
        try {
            List<String> all = Files.readAllLines(log, StandardCharsets.UTF_8);
            return String.join("\n", all.subList(Math.max(0, all.size() - lines), all.size()));
        } catch (IOException e) {
            return "(no log: " + e.getMessage() + ")";
        }
    }

    /**
     * The test class path for the children, with Basalt's own entries (target directories and
     * jars, installed Basalt jars) copied to {@code into}: a build running beside this one
     * recompiles target/test-classes or installs new jars, and a child started then would not
     * find its classes. The entries of a jar's Class-Path (how Failsafe may pass a long class
     * path) are listed too.
     */
    static String snapshotClassPath(Path into) throws IOException {
        List<Path> entries = new ArrayList<>();
        for (String entry : System.getProperty("java.class.path").split(File.pathSeparator)) {
            Path path = Path.of(entry).toAbsolutePath();
            String manifestPath = null;
            if (Files.isRegularFile(path) && entry.endsWith(".jar")) {
                try (JarFile jar = new JarFile(path.toFile())) {
                    java.util.jar.Manifest manifest = jar.getManifest();
                    manifestPath = manifest == null ? null
                            : manifest.getMainAttributes().getValue(Attributes.Name.CLASS_PATH);
                }
            }
            entries.add(path);
            if (manifestPath != null) {
                for (String url : manifestPath.trim().split("\\s+")) {
                    entries.add(Path.of(path.toUri().resolve(url)));
                }
            }
        }
        List<String> out = new ArrayList<>();
        for (int i = 0; i < entries.size(); i++) {
            Path entry = entries.get(i);
            String name = entry.toString().replace(File.separatorChar, '/');
            boolean ours = name.contains("/target/") || name.contains("/io/basalt/");
            if (!ours || !Files.exists(entry)) {
                out.add(entry.toString());
                continue;
            }
            Path copy = into.resolve(i + "-" + entry.getFileName());
            if (Files.isDirectory(entry)) {
                try (Stream<Path> walk = Files.walk(entry)) {
                    for (Path p : walk.toList()) {
                        Path target = copy.resolve(entry.relativize(p).toString());
                        if (Files.isDirectory(p)) {
                            Files.createDirectories(target);
                        } else {
                            Files.copy(p, target);
                        }
                    }
                }
            } else {
                Files.createDirectories(into);
                Files.copy(entry, copy);
            }
            out.add(copy.toString());
        }
        return String.join(File.pathSeparator, out);
    }

    /** True when the store has SSTables but no log segment holds a record. */
    private static boolean logLostItsSequence(Path directory) throws IOException {
        if (!Files.isDirectory(directory.resolve("wal")) || !Files.isDirectory(directory.resolve("tables"))) {
            return false;
        }
        try (Stream<Path> segments = Files.list(directory.resolve("wal"));
             Stream<Path> tables = Files.walk(directory.resolve("tables"))) {
            boolean noRecord = segments.allMatch(p -> p.toFile().length() <= RecordLogLayout.HEADER_SIZE);
            return noRecord && tables.anyMatch(p -> p.getFileName().toString().endsWith(".sst"));
        }
    }

    /** How many SSTables and log segments the directory holds, for the run's summary. */
    private static String files(Path directory) throws IOException {
        if (!Files.isDirectory(directory)) {
            return "no store yet";
        }
        try (Stream<Path> walk = Files.walk(directory)) {
            List<String> names = walk.map(p -> p.getFileName().toString()).toList();
            return names.stream().filter(n -> n.endsWith(".sst")).count() + " sstables, "
                    + names.stream().filter(n -> n.endsWith(".wal")).count() + " log segments";
        }
    }
}
