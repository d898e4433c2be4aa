package io.basalt.bench.ycsb;

import io.basalt.ycsb.FieldNames;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.Vector;
import org.rocksdb.BlockBasedTableConfig;
import org.rocksdb.BloomFilter;
import org.rocksdb.CompressionType;
import org.rocksdb.LRUCache;
import org.rocksdb.Options;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.RocksIterator;
import org.rocksdb.WriteOptions;
import site.ycsb.ByteArrayByteIterator;
import site.ycsb.ByteIterator;
import site.ycsb.DB;
import site.ycsb.DBException;
import site.ycsb.Status;

/**
 * The RocksDB side of the {@code ycsb} suite: a YCSB {@link DB} over {@code rocksdbjni}, storing a
 * record as YCSB's own RocksDB binding does (one key, the fields serialized into one value; an
 * update reads the record, changes the fields and writes it back). Configured as the issue asks:
 * WAL on and never synced, a 256 MiB LRU block cache, a 10-bit bloom filter, no compression, the
 * rest RocksDB's defaults (64 MiB write buffer, leveled compaction).
 *
 * <p>Property {@code rocksdb.dir}: the database directory. One database per process, shared by
 * every client thread's instance.
 */
public final class RocksYcsbDB extends DB {

    public static final String DIR = "rocksdb.dir";
    static final long CACHE_BYTES = 256L << 20;

    static {
        RocksDB.loadLibrary();
    }

    private static Shared shared;

    /** This instance's (its thread's) field names, as {@code BasaltDB} keeps its own. */
    private final FieldNames names = new FieldNames();

    private static final class Shared {
        final String dir;
        final LRUCache cache = new LRUCache(CACHE_BYTES);
        final BloomFilter bloom = new BloomFilter(10, false);
        final Options options;
        final RocksDB db;
        final WriteOptions writes = new WriteOptions().setSync(false).setDisableWAL(false);
        int users;

        Shared(String dir) throws RocksDBException {
            this.dir = dir;
            BlockBasedTableConfig table = new BlockBasedTableConfig().setBlockCache(cache)
                    .setFilterPolicy(bloom);
            options = new Options().setCreateIfMissing(true).setCompressionType(CompressionType.NO_COMPRESSION)
                    .setTableFormatConfig(table);
            db = RocksDB.open(options, dir);
        }

        void close() {
            db.close();
            options.close();
            cache.close();
            bloom.close();
            writes.close();
        }
    }

    private Shared mine;

    @Override
    public void init() throws DBException {
        String dir = getProperties().getProperty(DIR);
        if (dir == null) {
            throw new DBException(DIR + " is not set");
        }
        synchronized (RocksYcsbDB.class) {
            if (shared == null) {
                try {
                    shared = new Shared(dir);
                } catch (RocksDBException e) {
                    throw new DBException("cannot open RocksDB in " + dir + ": " + e.getMessage(), e);
                }
            } else if (!shared.dir.equals(dir)) {
                throw new DBException("RocksDB is open in " + shared.dir + "; one database per process");
            }
            shared.users++;
            mine = shared;
        }
    }

    @Override
    public void cleanup() {
        synchronized (RocksYcsbDB.class) {
            if (mine != null && --mine.users == 0) {
                mine.close();
                shared = null;
            }
            mine = null;
        }
    }

    @Override
    public Status read(String table, String key, Set<String> fields, Map<String, ByteIterator> result) {
        try {
            byte[] value = mine.db.get(bytes(key));
            if (value == null) {
                return Status.NOT_FOUND;
            }
            decode(value, fields, result, names);
            return Status.OK;
        } catch (RocksDBException e) {
            return Status.ERROR;
        }
    }

    @Override
    public Status scan(String table, String startkey, int recordcount, Set<String> fields,
                       Vector<HashMap<String, ByteIterator>> result) {
        try (RocksIterator it = mine.db.newIterator()) {
            for (it.seek(bytes(startkey)); it.isValid() && result.size() < recordcount; it.next()) {
                HashMap<String, ByteIterator> row = new HashMap<>();
                decode(it.value(), fields, row, names);
                result.add(row);
            }
            return Status.OK;
        }
    }

    @Override
    public Status update(String table, String key, Map<String, ByteIterator> values) {
        try {
            byte[] current = mine.db.get(bytes(key));
            if (current == null) {
                return Status.NOT_FOUND;
            }
            Map<String, ByteIterator> record = new LinkedHashMap<>();
            decode(current, null, record, names);
            record.putAll(values);
            mine.db.put(mine.writes, bytes(key), encode(record, names));
            return Status.OK;
        } catch (RocksDBException e) {
            return Status.ERROR;
        }
    }

    @Override
    public Status insert(String table, String key, Map<String, ByteIterator> values) {
        try {
            mine.db.put(mine.writes, bytes(key), encode(values, names));
            return Status.OK;
        } catch (RocksDBException e) {
            return Status.ERROR;
        }
    }

    @Override
    public Status delete(String table, String key) {
        try {
            mine.db.delete(mine.writes, bytes(key));
            return Status.OK;
        } catch (RocksDBException e) {
            return Status.ERROR;
        }
    }

    /** Fields as {@code [name length][name][value length][value]...}, lengths as 4-byte ints. */
    public static byte[] encode(Map<String, ByteIterator> values) {
        return encode(values, new FieldNames());
    }

    static byte[] encode(Map<String, ByteIterator> values, FieldNames names) {
        Map<byte[], byte[]> raw = new LinkedHashMap<>();
        int size = 0;
        for (Map.Entry<String, ByteIterator> e : values.entrySet()) {
            byte[] name = names.qualifier(e.getKey());
            byte[] value = e.getValue().toArray();
            raw.put(name, value);
            size += 8 + name.length + value.length;
        }
        ByteBuffer out = ByteBuffer.allocate(size);
        raw.forEach((name, value) -> out.putInt(name.length).put(name).putInt(value.length).put(value));
        return out.array();
    }

    /**
     * The record's fields, each name found from the record ({@link FieldNames}) and each value
     * read in place (as {@code BasaltDB} reads a cell's), so that neither binding copies or makes
     * what the other does not.
     */
    static void decode(byte[] record, Set<String> fields, Map<String, ByteIterator> into) {
        decode(record, fields, into, new FieldNames());
    }

    static void decode(byte[] record, Set<String> fields, Map<String, ByteIterator> into, FieldNames names) {
        ByteBuffer in = ByteBuffer.wrap(record);
        while (in.hasRemaining()) {
            int nameLength = in.getInt();
            String field = names.name(record, in.position(), nameLength);
            in.position(in.position() + nameLength);
            int valueLength = in.getInt();
            if (fields == null || fields.contains(field)) {
                into.put(field, new ByteArrayByteIterator(record, in.position(), valueLength));
            }
            in.position(in.position() + valueLength);
        }
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
