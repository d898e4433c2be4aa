package io.basalt.engine;

import io.basalt.client.AsyncTable;
import io.basalt.client.Basalt;
import io.basalt.client.Compression;
import io.basalt.client.Connection;
import io.basalt.client.Delete;
import io.basalt.client.Durability;
import io.basalt.client.FamilyDescriptor;
import io.basalt.client.Put;
import io.basalt.client.StoreOptions;
import io.basalt.client.TableDescriptor;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The child process of {@link CrashRecoveryIT}: opens a store and writes from several threads
 * until it is killed, announcing each write before it starts and again once its future completes.
 *
 * <pre>
 *   java -cp CLASSPATH io.basalt.engine.CrashWriter DIR SYNC|ASYNC THREADS FIRST_VERSION SEED
 *
 *   stdout   READY                                  the store is open and the table exists
 *            I thread row version PUT|DELETE        about to write
 *            A thread row version PUT|DELETE        the write was acknowledged
 * </pre>
 *
 * With THREADS 0 it only opens the store (recovering what a killed writer left) and waits to be
 * killed in turn. Each thread owns its rows ({@code w<thread>-<k>}) and writes one at a time, so at most one
 * write per row is unacknowledged when the kill comes. A put writes every column of
 * {@link #COLUMNS} with the same version, so a half-applied row shows; a delete removes the whole
 * row. Versions grow across the run (and across rounds, through FIRST_VERSION). Every line is one
 * {@code write} of less than a pipe buffer, so a kill never tears one.
 */
final class CrashWriter {

    static final String TABLE = "crash";
    /** family:qualifier of every column a put writes. */
    static final List<String> COLUMNS = List.of("a:c0", "a:c1", "a:c2", "b:c0", "b:c1");
    static final int ROWS_PER_THREAD = 16;
    /** A writer the parent forgot to kill stops by itself after this long. */
    static final long MAX_RUN_MILLIS = 120_000;

    private CrashWriter() {}

    /** Small memtables and log segments so flushes, log rolls and compactions happen all the time. */
    static StoreOptions options(Durability durability) {
        return StoreOptions.defaults().withDurability(durability).withMemtableFlushSize(64 * 1024)
                .withWalSegmentSize(64 * 1024).withBlockCacheSize(256 * 1024).withCompaction(3, 30);
    }

    static TableDescriptor table() {
        return new TableDescriptor(TABLE, List.of(
                FamilyDescriptor.of("a").withBlockSize(4096).withCompression(Compression.LZ4),
                FamilyDescriptor.of("b").withBlockSize(1024)));
    }

    static String row(int thread, int k) {
        return "w" + thread + "-" + k;
    }

    /** One column's value in one write: a header naming it, padded to {@code size} with a filler. */
    static byte[] value(String row, long version, String column, int size) {
        byte[] header = (row + "|" + version + "|" + column + "|" + size + "|").getBytes(StandardCharsets.UTF_8);
        byte[] value = Arrays.copyOf(header, Math.max(size, header.length));
        Arrays.fill(value, header.length, value.length, filler(version, column));
        return value;
    }

    static byte filler(long version, String column) {
        return (byte) ('a' + Math.floorMod(version * 31 + column.hashCode(), 26));
    }

    /** A put of every column of {@code row} at {@code version}, values of random sizes. */
    static Put put(String row, long version, Random random) {
        Put put = new Put(row.getBytes(StandardCharsets.UTF_8));
        for (String column : COLUMNS) {
            int colon = column.indexOf(':');
            put.addColumn(column.substring(0, colon).getBytes(StandardCharsets.UTF_8),
                    column.substring(colon + 1).getBytes(StandardCharsets.UTF_8),
                    value(row, version, column, 40 + random.nextInt(600)));
        }
        return put;
    }

    public static void main(String[] args) throws Exception {
        Path directory = Path.of(args[0]);
        Durability durability = Durability.valueOf(args[1]);
        int threads = Integer.parseInt(args[2]);
        AtomicLong versions = new AtomicLong(Long.parseLong(args[3]) - 1);
        long seed = Long.parseLong(args[4]);
        PrintStream out = new PrintStream(new FileOutputStream(FileDescriptor.out), false, StandardCharsets.UTF_8);

        Connection connection = Basalt.open(directory, options(durability));
        boolean exists = connection.admin().listTables().get(60, TimeUnit.SECONDS).stream()
                .anyMatch(t -> t.name().equals(TABLE));
        if (!exists) {
            connection.admin().createTable(table()).get(60, TimeUnit.SECONDS);
        }
        AsyncTable table = connection.table(TABLE);
        line(out, "READY");
        for (int t = 0; t < threads; t++) {
            int thread = t;
            Thread.ofPlatform().name("crash-writer-" + t).daemon().start(
                    () -> writeUntilKilled(table, thread, versions, new Random(seed * 1_000_003 + thread), out));
        }
        Thread.sleep(MAX_RUN_MILLIS);
        line(out, "TIMEOUT nobody killed this writer");
        System.exit(2);
    }

    private static void writeUntilKilled(AsyncTable table, int thread, AtomicLong versions, Random random,
                                         PrintStream out) {
        try {
            while (true) {
                String row = row(thread, random.nextInt(ROWS_PER_THREAD));
                long version = versions.incrementAndGet();
                boolean delete = random.nextInt(8) == 0;
                String what = thread + " " + row + " " + version + " " + (delete ? "DELETE" : "PUT");
                line(out, "I " + what);
                CompletableFuture<Void> write = delete ? table.delete(new Delete(row.getBytes(StandardCharsets.UTF_8)))
                        : table.put(put(row, version, random));
                write.get(60, TimeUnit.SECONDS);
                line(out, "A " + what);
            }
        } catch (Throwable e) {
            e.printStackTrace();
            line(out, "FAILED " + e);
            System.exit(3);
        }
    }

    private static void line(PrintStream out, String line) {
        synchronized (out) {
            out.print(line + "\n");
            out.flush();
        }
    }
}
