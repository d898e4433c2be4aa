package io.basalt.bench.engine;

import io.basalt.client.AsyncTable;
import io.basalt.client.Basalt;
import io.basalt.client.Connection;
import io.basalt.client.Get;
import io.basalt.client.Mutation;
import io.basalt.client.Put;
import io.basalt.client.Result;
import io.basalt.client.ResultScanner;
import io.basalt.client.Scan;
import io.basalt.client.StoreOptions;
import io.basalt.client.TableDescriptor;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.rocksdb.BlockBasedTableConfig;
import org.rocksdb.BloomFilter;
import org.rocksdb.CompressionType;
import org.rocksdb.FlushOptions;
import org.rocksdb.LRUCache;
import org.rocksdb.Options;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.RocksIterator;
import org.rocksdb.WriteBatch;
import org.rocksdb.WriteOptions;

/**
 * One embedded engine as the {@code engine} suite drives it: the adapter per {@code impl}. Both
 * store the same rows (16-byte keys in a scrambled order, one 100-byte value each) with the same
 * durability (every batch forced to disk before it is acknowledged), the same block cache size
 * and a 10-bit bloom filter, no compression.
 */
public interface KvEngine extends AutoCloseable {

    int VALUE_SIZE = 100;
    long CACHE_BYTES = 256L << 20;

    /** Writes rows {@code [from, to)} in batches of {@code batch}, each batch durable before the next. */
    void load(int from, int to, int batch) throws Exception;

    /** The value of row {@code i}, or {@code null}. */
    byte[] get(int i) throws Exception;

    /** Reads every row in key order; returns how many value bytes it saw. */
    long scan() throws Exception;

    /** Flushes and compacts into one sorted run, so reads meet both engines in the same shape. */
    void settle() throws Exception;

    @Override
    void close() throws java.io.IOException;

    static KvEngine open(String impl, Path dir) throws Exception {
        return switch (impl) {
            case "basalt" -> new BasaltEngine(dir);
            case "rocksdb" -> new RocksEngine(dir);
            default -> throw new IllegalArgumentException("unknown impl " + impl);
        };
    }

    /** Row {@code i}'s key: a bijective scramble of i, so keys arrive in random order but never collide. */
    static byte[] key(int i) {
        long h = i * 0x9E3779B97F4A7C15L;
        h ^= h >>> 32;
        h *= 0xD6E8FEB86659FD93L;
        h ^= h >>> 32;
        return String.format("%016x", h).getBytes(StandardCharsets.US_ASCII);
    }

    static byte[] value(int i) {
        byte[] value = new byte[VALUE_SIZE];
        for (int b = 0; b < VALUE_SIZE; b++) {
            value[b] = (byte) ('a' + (i + b) % 26);
        }
        return value;
    }

    /** Basalt embedded: batches through {@code AsyncTable.batch}, group commit shares the forces. */
    final class BasaltEngine implements KvEngine {
        private static final byte[] F = {'f'};
        private static final byte[] Q = {'v'};
        private final Connection connection;
        private final AsyncTable table;

        BasaltEngine(Path dir) throws Exception {
            connection = Basalt.open(dir, StoreOptions.defaults().withBlockCacheSize(CACHE_BYTES));
            if (connection.admin().listTables().get().stream().noneMatch(t -> t.name().equals("bench"))) {
                connection.admin().createTable(TableDescriptor.of("bench", "f")).get();
            }
            table = connection.table("bench");
        }

        @Override
        public void load(int from, int to, int batch) throws Exception {
            List<Mutation> puts = new ArrayList<>(batch);
            for (int i = from; i < to; i++) {
                puts.add(new Put(key(i)).addColumn(F, Q, value(i)));
                if (puts.size() == batch || i == to - 1) {
                    List<CompletableFuture<Object>> done = table.batch(puts);
                    CompletableFuture.allOf(done.toArray(CompletableFuture[]::new)).get(60, TimeUnit.SECONDS);
                    puts.clear();
                }
            }
        }

        @Override
        public byte[] get(int i) throws Exception {
            Result result = table.get(new Get(key(i))).get();
            return result.value(F, Q);
        }

        @Override
        public long scan() {
            long bytes = 0;
            try (ResultScanner scanner = table.scanner(new Scan())) {
                for (Result r = scanner.next(); r != null; r = scanner.next()) {
                    bytes += r.cells().getFirst().value().byteSize();
                }
            }
            return bytes;
        }

        @Override
        public void settle() throws Exception {
            connection.admin().compact("bench").get();
        }

        @Override
        public void close() {
            connection.close();
        }
    }

    /** RocksDB through its JNI binding: one WriteBatch per batch, written with sync. */
    final class RocksEngine implements KvEngine {
        static {
            RocksDB.loadLibrary();
        }

        private final Options options;
        private final LRUCache cache;
        private final RocksDB db;
        private final WriteOptions sync = new WriteOptions().setSync(true);

        RocksEngine(Path dir) throws RocksDBException {
            cache = new LRUCache(CACHE_BYTES);
            BlockBasedTableConfig table = new BlockBasedTableConfig().setBlockCache(cache)
                    .setFilterPolicy(new BloomFilter(10, false));
            options = new Options().setCreateIfMissing(true).setCompressionType(CompressionType.NO_COMPRESSION)
                    .setTableFormatConfig(table);
            db = RocksDB.open(options, dir.toString());
        }

        @Override
        public void load(int from, int to, int batch) throws RocksDBException {
            WriteBatch writes = new WriteBatch();
            try {
                for (int i = from; i < to; i++) {
                    writes.put(key(i), value(i));
                    if (writes.count() == batch || i == to - 1) {
                        db.write(sync, writes);
                        writes.clear();
                    }
                }
            } finally {
                writes.close();
            }
        }

        @Override
        public byte[] get(int i) throws RocksDBException {
            return db.get(key(i));
        }

        @Override
        public long scan() {
            long bytes = 0;
            try (RocksIterator it = db.newIterator()) {
                for (it.seekToFirst(); it.isValid(); it.next()) {
                    bytes += it.value().length;
                }
            }
            return bytes;
        }

        @Override
        public void settle() throws RocksDBException {
            try (FlushOptions flush = new FlushOptions().setWaitForFlush(true)) {
                db.flush(flush);
            }
            db.compactRange();
        }

        @Override
        public void close() {
            db.close();
            options.close();
            cache.close();
            sync.close();
        }
    }
}
