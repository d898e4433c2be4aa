package io.basalt.cli;

import io.basalt.client.AsyncTable;
import io.basalt.client.Basalt;
import io.basalt.client.Connection;
import io.basalt.client.Delete;
import io.basalt.client.Get;
import io.basalt.client.Increment;
import io.basalt.client.Put;
import io.basalt.client.Result;
import io.basalt.client.TableDescriptor;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Kills the server process with SIGKILL while network clients write, flush and compact through
 * it, then starts it again on the same directory and checks through the network what survived:
 * every acknowledged put, delete and increment is there, counters are exact, and the one write
 * per writer that was in flight at the kill is there whole or not at all. The directory is reused
 * for every round, so each round also recovers what earlier rounds wrote and recovered.
 *
 * <p>{@value #DEFAULT_ROUNDS} rounds by default (about a minute); {@code -Dbasalt.crash.server.rounds=N}
 * for more, {@code -Dbasalt.crash.seed=S} to replay the kill timings of a failed run.
 */
class ServerCrashRecoveryIT {

    static final int DEFAULT_ROUNDS = 20;
    private static final Pattern READY = Pattern.compile("Basalt server ready on 127\\.0\\.0\\.1:(\\d+) .*");
    private static final int WRITERS = 4;
    private static final int ROWS = 16;
    private static final byte[] F = "f".getBytes(StandardCharsets.UTF_8);
    private static final byte[] Q = "q".getBytes(StandardCharsets.UTF_8);
    private static final byte[] N = "n".getBytes(StandardCharsets.UTF_8);

    @TempDir
    Path dir;

    /** A row's state: the put's value (null when absent) and the counter. */
    record RowState(String value, long counter) {
        static final RowState EMPTY = new RowState(null, 0);
    }

    private final Map<String, RowState> model = new HashMap<>();
    private final Map<String, RowState> inDoubt = new HashMap<>();

    @Test
    void everyAcknowledgedWriteSurvivesKillingTheServer() throws Exception {
        long seed = Long.getLong("basalt.crash.seed", System.nanoTime());
        int rounds = Integer.getInteger("basalt.crash.server.rounds", DEFAULT_ROUNDS);
        SplittableRandom random = new SplittableRandom(seed);
        Path store = dir.resolve("store");
        long acknowledged = 0;
        for (int round = 0; round < rounds; round++) {
            Process server = start(store);
            try {
                String address = awaitReady(server);
                try (Connection client = Basalt.connect("basalt://" + address)) {
                    if (round == 0) {
                        client.admin().createTable(TableDescriptor.of("t", "f")).get(30, TimeUnit.SECONDS);
                    }
                    verify(client.table("t"), round, seed);
                    acknowledged += writeUntilKilled(client, server, random.split(), round);
                }
            } finally {
                server.destroyForcibly();
                server.waitFor(60, TimeUnit.SECONDS);
            }
        }
        Process server = start(store);
        try (Connection client = Basalt.connect("basalt://" + awaitReady(server))) {
            verify(client.table("t"), rounds, seed);
        } finally {
            server.destroyForcibly();
            server.waitFor(60, TimeUnit.SECONDS);
        }
        System.out.printf("server kill -9: %d rounds, %d writes acknowledged, all there (seed %d)%n", rounds,
                acknowledged, seed);
    }

    private static Process start(Path store) throws Exception {
        List<String> command = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "--enable-native-access=ALL-UNNAMED", "-XX:TieredStopAtLevel=1", "-Xmx256m",
                "-cp", System.getProperty("java.class.path"), "io.basalt.cli.BasaltCli",
                "server", "--port", "0", "--data", store.toString()));
        return new ProcessBuilder(command).redirectErrorStream(true).start();
    }

    private static String awaitReady(Process server) throws Exception {
        BufferedReader lines = new BufferedReader(new InputStreamReader(server.getInputStream(), StandardCharsets.UTF_8));
        CompletableFuture<String> ready = CompletableFuture.supplyAsync(() -> {
            try {
                String line;
                while ((line = lines.readLine()) != null) {
                    Matcher m = READY.matcher(line);
                    if (m.matches()) {
                        return "127.0.0.1:" + m.group(1);
                    }
                }
                return null;
            } catch (java.io.IOException e) {
                return null;
            }
        });
        String address = ready.get(60, TimeUnit.SECONDS);
        if (address == null) {
            throw new AssertionError("the server exited before it was ready");
        }
        Thread.ofVirtual().start(() -> lines.lines().forEach(l -> { })); // keep its output drained
        return address;
    }

    /**
     * Writers (puts, deletes, increments on rows each owns) and an admin loop (flush, compact)
     * run until the server is killed at a random moment; returns the writes acknowledged.
     */
    private long writeUntilKilled(Connection client, Process server, SplittableRandom random, int round)
            throws Exception {
        AtomicBoolean killed = new AtomicBoolean();
        AsyncTable table = client.table("t");
        List<CompletableFuture<Long>> writers = new ArrayList<>();
        for (int w = 0; w < WRITERS; w++) {
            int id = w;
            SplittableRandom mine = random.split();
            writers.add(CompletableFuture.supplyAsync(() -> write(table, id, mine, killed, round),
                    r -> Thread.ofPlatform().start(r)));
        }
        Thread admin = Thread.ofPlatform().start(() -> {
            while (!killed.get()) {
                try {
                    (random.nextBoolean() ? client.admin().flush("t") : client.admin().compact("t"))
                            .get(30, TimeUnit.SECONDS);
                } catch (Exception e) {
                    return; // the server is gone
                }
            }
        });
        Thread.sleep(random.nextInt(150, 1500));
        killed.set(true);
        server.destroyForcibly(); // SIGKILL
        server.waitFor(60, TimeUnit.SECONDS);
        client.close(); // fails what is still in flight at once
        long acked = 0;
        for (CompletableFuture<Long> w : writers) {
            acked += w.get(120, TimeUnit.SECONDS);
        }
        admin.join(TimeUnit.SECONDS.toMillis(60));
        return acked;
    }

    private long write(AsyncTable table, int id, SplittableRandom random, AtomicBoolean killed, int round) {
        long acked = 0;
        for (int op = 0; ; op++) {
            String row = "w" + id + "-" + random.nextInt(ROWS);
            RowState before;
            synchronized (this) {
                before = model.getOrDefault(row, RowState.EMPTY);
            }
            RowState after;
            CompletableFuture<?> future;
            int kind = random.nextInt(10);
            if (kind < 6) {
                String value = "r" + round + "-w" + id + "-" + op;
                after = new RowState(value, before.counter());
                future = table.put(new Put(row.getBytes(StandardCharsets.UTF_8)).addColumn(F, Q,
                        value.getBytes(StandardCharsets.UTF_8)));
            } else if (kind < 7) {
                after = RowState.EMPTY;
                future = table.delete(new Delete(row.getBytes(StandardCharsets.UTF_8)));
            } else {
                long by = random.nextInt(1, 10);
                after = new RowState(before.value(), before.counter() + by);
                future = table.increment(Increment.of(row).addColumn(F, N, by));
            }
            try {
                future.get(60, TimeUnit.SECONDS);
                synchronized (this) {
                    model.put(row, after);
                }
                acked++;
            } catch (ExecutionException | java.util.concurrent.TimeoutException e) {
                if (!killed.get()) {
                    throw new AssertionError("round " + round + ": a write failed before the kill", e);
                }
                synchronized (this) {
                    inDoubt.put(row, after); // sent before the kill: it may have been applied
                }
                return acked;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return acked;
            }
        }
    }

    private void verify(AsyncTable table, int round, long seed) throws Exception {
        for (int w = 0; w < WRITERS; w++) {
            for (int r = 0; r < ROWS; r++) {
                String row = "w" + w + "-" + r;
                Result result = table.get(Get.of(row)).get(30, TimeUnit.SECONDS);
                byte[] v = result.value(F, Q);
                byte[] n = result.value(F, N);
                RowState found = new RowState(v == null ? null : new String(v, StandardCharsets.UTF_8),
                        n == null ? 0 : io.basalt.client.Increment.decode(MemorySegment.ofArray(n)));
                RowState expected = model.getOrDefault(row, RowState.EMPTY);
                RowState maybe = inDoubt.get(row);
                if (found.equals(expected)) {
                    continue;
                }
                if (found.equals(maybe)) {
                    model.put(row, maybe);
                    continue;
                }
                throw new AssertionError("after kill " + round + " (seed " + seed + "): " + row + " holds " + found
                        + "; expected " + expected + (maybe == null ? "" : " or " + maybe));
            }
        }
        inDoubt.clear();
    }
}
