package io.basalt.bench.engine;

import io.basalt.client.Basalt;
import io.basalt.cell.Cell;
import io.basalt.cell.EncodedCell;
import io.basalt.client.AsyncTable;
import io.basalt.client.Connection;
import io.basalt.client.Mutation;
import io.basalt.client.Put;
import io.basalt.client.Result;
import io.basalt.client.ResultScanner;
import io.basalt.client.Scan;
import io.basalt.client.StoreOptions;
import io.basalt.bench.ycsb.RocksYcsbDB;
import io.basalt.client.TableDescriptor;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.rocksdb.BlockBasedTableConfig;
import org.rocksdb.BloomFilter;
import org.rocksdb.CompressionType;
import org.rocksdb.FlushOptions;
import org.rocksdb.LRUCache;
import org.rocksdb.Options;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksIterator;
import org.rocksdb.WriteOptions;
import site.ycsb.ByteArrayByteIterator;
import site.ycsb.ByteIterator;

/**
 * Suite {@code engine}, method {@code wideScan}: a scan of 50 rows from a random start over rows
 * shaped as YCSB's (ten fields of 100 bytes), every field's value read in place, one thread. Basalt
 * keeps a row as ten cells; RocksDB, as YCSB's binding does, as one record holding the ten fields
 * (the harness's encoding, {@code RocksYcsbDB.encode}), which the scan walks field by field.
 * {@code updated}: how many fields of every row were written again after the first flush, so that
 * the newest version lies in a second file and the older one is passed over: 0 (each field once,
 * as after YCSB's load) or 3 (as after its update-heavy workloads; RocksDB rewrites the record).
 * Compaction is held off in both so the two files stay as they are, and the data fits both block
 * caches (512 MiB each, no compression, RocksDB with a 10-bit bloom filter). What it isolates is
 * each engine's per-row work in a short scan, which is most of what YCSB's workload E costs.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
public class WideScanBenchmark {

    static final int COLUMNS = 10;
    static final int SCANNED_ROWS = 50;
    static final long CACHE_BYTES = 512L << 20;

    @Param({"basalt", "rocksdb"})
    public String impl;

    @Param({"100000"})
    public int rows;

    @Param({"0", "3"})
    public int updated;

    /**
     * Files the rows are first written to, row {@code i} to file {@code i % files}, as a load's
     * flushes leave them: a scan's rows then alternate between files, each whole in one.
     */
    @Param({"1"})
    public int files;

    private Path dir;
    private Connection connection;
    private AsyncTable table;
    private Options rocksOptions;
    private LRUCache rocksCache;
    private BloomFilter rocksBloom;
    private RocksDB rocks;
    private final byte[] family = "f".getBytes(StandardCharsets.UTF_8);
    private final SplittableRandom random = new SplittableRandom(11);
    /** Every row's key, made once: the scans' start rows are not what is measured. */
    private byte[][] keys;

    @Setup(Level.Trial)
    public void load() throws Exception {
        dir = Files.createTempDirectory("basalt-bench-widescan-");
        keys = new byte[rows][];
        for (int i = 0; i < rows; i++) {
            keys[i] = key(i);
        }
        if (impl.equals("rocksdb")) {
            openRocks();
        } else {
            connection = Basalt.open(dir, StoreOptions.defaults().withBlockCacheSize(CACHE_BYTES).withCompaction(64, 128));
            connection.admin().createTable(TableDescriptor.of("bench", "f")).get();
            table = connection.table("bench");
            for (int f = 0; f < files; f++) {
                write(0, COLUMNS, (byte) 'a', f);
                connection.admin().flush("bench").get();
            }
            if (updated > 0) {
                write(0, updated, (byte) 'b', -1);
                connection.admin().flush("bench").get();
            }
        }
        long read = wideScan();
        if (read != (long) SCANNED_ROWS * COLUMNS * 100) { // a scan that found less would be measured as faster
            throw new IllegalStateException(impl + ": a scan read " + read + " bytes of values, not "
                    + SCANNED_ROWS * COLUMNS * 100);
        }
    }

    private void openRocks() throws Exception {
        RocksDB.loadLibrary();
        rocksCache = new LRUCache(CACHE_BYTES);
        rocksBloom = new BloomFilter(10, false);
        rocksOptions = new Options().setCreateIfMissing(true)
                .setCompressionType(CompressionType.NO_COMPRESSION).setDisableAutoCompactions(true)
                .setTableFormatConfig(new BlockBasedTableConfig().setBlockCache(rocksCache)
                        .setFilterPolicy(rocksBloom));
        rocks = RocksDB.open(rocksOptions, dir.toString());
        for (int f = 0; f < files; f++) {
            writeRocks(0, f);
        }
        if (updated > 0) {
            writeRocks(updated, -1);
        }
    }

    /**
     * Every row (of file {@code file}'s share, or all for -1) as one record of ten fields, the
     * first {@code rewritten} of them new ('b', the rest 'a'); then a flush.
     */
    private void writeRocks(int rewritten, int file) throws Exception {
        try (WriteOptions writes = new WriteOptions().setDisableWAL(true);
             FlushOptions flush = new FlushOptions().setWaitForFlush(true)) {
            for (int i = 0; i < rows; i++) {
                if (file >= 0 && i % files != file) {
                    continue;
                }
                Map<String, ByteIterator> fields = new LinkedHashMap<>();
                for (int c = 0; c < COLUMNS; c++) {
                    byte[] value = new byte[100];
                    Arrays.fill(value, c < rewritten ? (byte) 'b' : (byte) 'a');
                    fields.put("field" + c, new ByteArrayByteIterator(value));
                }
                rocks.put(writes, keys[i], RocksYcsbDB.encode(fields));
            }
            rocks.flush(flush);
        }
    }

    /** Writes the columns of every row (of file {@code file}'s share, or all for -1). */
    private void write(int firstColumn, int columns, byte fill, int file) throws Exception {
        byte[] value = new byte[100];
        Arrays.fill(value, fill);
        List<Mutation> puts = new ArrayList<>(1000);
        for (int i = 0; i < rows; i++) {
            if (file >= 0 && i % files != file) {
                continue;
            }
            Put put = new Put(keys[i]);
            for (int c = firstColumn; c < firstColumn + columns; c++) {
                put.addColumn(family, ("field" + c).getBytes(StandardCharsets.UTF_8), value);
            }
            puts.add(put);
            if (puts.size() == 1000) {
                CompletableFuture.allOf(table.batch(puts).toArray(CompletableFuture[]::new)).get(60, TimeUnit.SECONDS);
                puts.clear();
            }
        }
        if (!puts.isEmpty()) {
            CompletableFuture.allOf(table.batch(puts).toArray(CompletableFuture[]::new)).get(60, TimeUnit.SECONDS);
        }
    }

    private static byte[] key(int i) {
        return String.format("user%010d", i).getBytes(StandardCharsets.UTF_8);
    }

    @TearDown(Level.Trial)
    public void close() throws Exception {
        if (connection != null) {
            connection.close();
        }
        if (rocks != null) {
            rocks.close();
            rocksOptions.close();
            rocksCache.close();
            rocksBloom.close();
        }
        EngineLoadBenchmark.delete(dir);
    }

    /** Scans 50 rows from a random row and reads every field's value length; returns their sum. */
    @Benchmark
    public long wideScan() {
        byte[] start = keys[random.nextInt(rows - SCANNED_ROWS)];
        return rocks != null ? scanRocks(start) : scanBasalt(start);
    }

    private long scanBasalt(byte[] start) {
        Scan scan = new Scan().withStartRow(start).setLimit(SCANNED_ROWS).setCaching(SCANNED_ROWS);
        long bytes = 0;
        try (ResultScanner scanner = table.scanner(scan)) {
            for (Result r = scanner.next(); r != null; r = scanner.next()) {
                for (Cell cell : r.cells()) { // as the YCSB binding reads a value: in place, no segment made
                    bytes += cell instanceof EncodedCell e ? e.valueLength() : cell.value().byteSize();
                }
            }
        }
        return bytes;
    }

    private long scanRocks(byte[] start) {
        long bytes = 0;
        try (RocksIterator it = rocks.newIterator()) {
            int n = 0;
            for (it.seek(start); it.isValid() && n < SCANNED_ROWS; it.next(), n++) {
                ByteBuffer record = ByteBuffer.wrap(it.value());
                while (record.hasRemaining()) { // the fields as RocksYcsbDB.decode walks them
                    int nameLength = record.getInt();
                    record.position(record.position() + nameLength);
                    int valueLength = record.getInt();
                    bytes += valueLength;
                    record.position(record.position() + valueLength);
                }
            }
        }
        return bytes;
    }
}
