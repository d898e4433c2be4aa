package io.basalt.ycsb;

import io.basalt.client.BufferedMutator;
import io.basalt.client.Durability;
import io.basalt.client.FamilyDescriptor;
import io.basalt.client.StoreOptions;
import java.util.Locale;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;

/**
 * The binding's properties, read and checked once per {@link BasaltDB}. A {@code basalt.*} key
 * the binding does not know is refused by name, so a typo never runs a benchmark with a default
 * the user did not mean.
 *
 * @param uri where the store is: a directory or {@code file:} URI (embedded) or {@code basalt://}
 * @param family the column family holding the fields (default {@code family}, as YCSB's HBase
 *     binding is usually run)
 * @param clientBuffering writes through a {@link BufferedMutator} (default false)
 * @param writeBufferSize the mutator's buffer in bytes (default 2 MiB)
 * @param createTable create the table with the family when it is missing (default true)
 * @param blockSize the family's SSTable block size when the binding creates the table, or 0 for
 *     the family default
 * @param bloomBitsPerKey the family's bloom filter bits per row when the binding creates the
 *     table, or 0 for the family default
 * @param store the embedded store's options, or {@code null} for a {@code basalt://} URI (the
 *     {@code basalt.durability}, {@code .blockcachesize}, {@code .memtableflushsize},
 *     {@code .memtablememorylimit}, {@code .compactiontrigger}, {@code .writestallfiles} and
 *     {@code .readcompactionbytes} properties set them; the store's defaults otherwise)
 * @param timeoutMillis how long one operation may take before it counts as failed (default 60 s)
 * @param connections connections to a {@code basalt://} server, which the binding's threads share
 *     (default 2): a server serves each connection on one of its event loops, and a server on two
 *     cores needed two connections to use both (measured in docs/benchmarks.md, {@code ycsb},
 *     seventh session); ignored for an embedded store
 * @param debug print every operation to standard error (YCSB's {@code debug} property)
 */
public record BindingOptions(String uri, String family, boolean clientBuffering, long writeBufferSize,
                             boolean createTable, int blockSize, int bloomBitsPerKey, StoreOptions store,
                             long timeoutMillis,
                             int connections, boolean debug) {

    public static final String URI = "basalt.uri";
    public static final String FAMILY = "basalt.family";
    /** YCSB's HBase binding's name for the family, accepted when {@link #FAMILY} is not set. */
    public static final String HBASE_FAMILY = "columnfamily";
    public static final String CLIENT_BUFFERING = "basalt.clientbuffering";
    public static final String WRITE_BUFFER_SIZE = "basalt.writebuffersize";
    public static final String CREATE_TABLE = "basalt.createtable";
    public static final String BLOCK_SIZE = "basalt.blocksize";
    public static final String BLOOM_BITS_PER_KEY = "basalt.bloombitsperkey";
    public static final String DURABILITY = "basalt.durability";
    public static final String BLOCK_CACHE_SIZE = "basalt.blockcachesize";
    public static final String ROW_CACHE_SIZE = "basalt.rowcachesize";
    public static final String MEMTABLE_FLUSH_SIZE = "basalt.memtableflushsize";
    public static final String MEMTABLE_MEMORY_LIMIT = "basalt.memtablememorylimit";
    public static final String COMPACTION_TRIGGER = "basalt.compactiontrigger";
    public static final String WRITE_STALL_FILES = "basalt.writestallfiles";
    public static final String READ_COMPACTION_BYTES = "basalt.readcompactionbytes";
    public static final String REGION_SPLIT_SIZE = "basalt.regionsplitsize";
    public static final String TIMEOUT = "basalt.timeout";
    public static final String CONNECTIONS = "basalt.connections";
    public static final String DEBUG = "debug";

    private static final Set<String> KEYS = Set.of(URI, FAMILY, CLIENT_BUFFERING, WRITE_BUFFER_SIZE, CREATE_TABLE,
            BLOCK_SIZE, BLOOM_BITS_PER_KEY, DURABILITY, BLOCK_CACHE_SIZE, ROW_CACHE_SIZE, MEMTABLE_FLUSH_SIZE, MEMTABLE_MEMORY_LIMIT, COMPACTION_TRIGGER,
            WRITE_STALL_FILES, READ_COMPACTION_BYTES, REGION_SPLIT_SIZE, TIMEOUT, CONNECTIONS);
    /** Keys that configure an embedded store; a server has its own configuration file. */
    private static final Set<String> EMBEDDED_ONLY = Set.of(DURABILITY, BLOCK_CACHE_SIZE, ROW_CACHE_SIZE, MEMTABLE_FLUSH_SIZE,
            MEMTABLE_MEMORY_LIMIT, COMPACTION_TRIGGER, WRITE_STALL_FILES, READ_COMPACTION_BYTES, REGION_SPLIT_SIZE);

    /**
     * Reads the properties YCSB passes to every DB instance.
     *
     * @throws IllegalArgumentException naming the key, for a missing URI, an unknown key or a bad value
     */
    public static BindingOptions from(Properties p) {
        Set<String> unknown = new TreeSet<>();
        for (String key : p.stringPropertyNames()) {
            if (key.startsWith("basalt.") && !KEYS.contains(key)) {
                unknown.add(key);
            }
        }
        if (!unknown.isEmpty()) {
            throw new IllegalArgumentException("unknown propert" + (unknown.size() == 1 ? "y " : "ies ") + unknown
                    + "; the binding's properties are " + new TreeSet<>(KEYS));
        }
        String uri = p.getProperty(URI, "").trim();
        if (uri.isEmpty()) {
            throw new IllegalArgumentException(URI + " is not set: give a directory (an embedded store) or"
                    + " basalt://host:port (a server), e.g. -p " + URI + "=/tmp/ycsb-data");
        }
        boolean remote = uri.startsWith("basalt://");
        if (remote) {
            for (String key : EMBEDDED_ONLY) {
                if (p.getProperty(key) != null) {
                    throw new IllegalArgumentException(key + " configures an embedded store; " + uri + " is a server,"
                            + " whose configuration file sets it");
                }
            }
        }
        String family = p.getProperty(FAMILY, p.getProperty(HBASE_FAMILY, "family")).trim();
        FamilyDescriptor.of(family); // checks the name
        int blockSize = (int) number(p, BLOCK_SIZE, 0);
        if (blockSize != 0) {
            FamilyDescriptor.of(family).withBlockSize(blockSize); // checks the range
        }
        int bloomBits = (int) number(p, BLOOM_BITS_PER_KEY, 0);
        if (bloomBits != 0) {
            try {
                FamilyDescriptor.of(family).withBloomBitsPerKey(bloomBits); // checks the range
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException(BLOOM_BITS_PER_KEY + ": " + e.getMessage(), e);
            }
        }
        StoreOptions store = null;
        if (!remote) {
            store = StoreOptions.defaults();
            String durability = p.getProperty(DURABILITY);
            if (durability != null) {
                try {
                    store = store.withDurability(Durability.valueOf(durability.trim().toUpperCase(Locale.ROOT)));
                } catch (IllegalArgumentException e) {
                    throw new IllegalArgumentException(DURABILITY + "=" + durability + ": expected SYNC or ASYNC", e);
                }
            }
            long cache = number(p, BLOCK_CACHE_SIZE, -1);
            if (cache >= 0) {
                store = store.withBlockCacheSize(cache);
            }
            long rows = number(p, ROW_CACHE_SIZE, -1);
            if (rows >= 0) {
                store = store.withRowCacheSize(rows);
            }
            long flush = number(p, MEMTABLE_FLUSH_SIZE, store.memtableFlushSize());
            long limit = number(p, MEMTABLE_MEMORY_LIMIT, p.getProperty(MEMTABLE_FLUSH_SIZE) == null
                    ? store.memtableMemoryLimit() : Math.max(store.memtableMemoryLimit(), 2 * flush));
            int trigger = (int) number(p, COMPACTION_TRIGGER, store.compactionTrigger());
            int stall = (int) number(p, WRITE_STALL_FILES, Math.max(store.writeStallFiles(), trigger + 1));
            try {
                // All at once: the store checks the pairs, and the order of setters would matter.
                store = new StoreOptions(store.durability(), store.asyncSyncInterval(), flush, store.walSegmentSize(),
                        store.blockCacheSize(), store.walCorruption(), trigger, stall, store.maxWalSize(), limit,
                        store.backgroundRetries(), store.backgroundRetryBackoff(),
                        number(p, REGION_SPLIT_SIZE, store.regionSplitSize()),
                        store.rowCacheSize(), number(p, READ_COMPACTION_BYTES, store.readCompactionBytes()));
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException(MEMTABLE_FLUSH_SIZE + "/" + MEMTABLE_MEMORY_LIMIT + "/"
                        + COMPACTION_TRIGGER + "/" + WRITE_STALL_FILES + "/" + READ_COMPACTION_BYTES + "/" + REGION_SPLIT_SIZE + ": " + e.getMessage(), e);
            }
        }
        long writeBuffer = number(p, WRITE_BUFFER_SIZE, BufferedMutator.DEFAULT_WRITE_BUFFER_SIZE);
        if (writeBuffer < 1) {
            throw new IllegalArgumentException(WRITE_BUFFER_SIZE + "=" + writeBuffer + " must be positive");
        }
        long timeout = number(p, TIMEOUT, 60_000);
        if (timeout < 1) {
            throw new IllegalArgumentException(TIMEOUT + "=" + timeout + " must be a positive number of milliseconds");
        }
        long connections = number(p, CONNECTIONS, 2);
        if (connections < 1 || connections > 64) {
            throw new IllegalArgumentException(CONNECTIONS + "=" + connections + " must be between 1 and 64");
        }
        return new BindingOptions(uri, family, bool(p, CLIENT_BUFFERING, false), writeBuffer,
                bool(p, CREATE_TABLE, true), blockSize, bloomBits, store, timeout, (int) connections, bool(p, DEBUG, false));
    }

    private static long number(Properties p, String key, long otherwise) {
        String v = p.getProperty(key);
        if (v == null) {
            return otherwise;
        }
        try {
            return Long.parseLong(v.trim().replace("_", ""));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(key + "=" + v + " is not a whole number", e);
        }
    }

    private static boolean bool(Properties p, String key, boolean otherwise) {
        String v = p.getProperty(key);
        if (v == null) {
            return otherwise;
        }
        return switch (v.trim().toLowerCase(Locale.ROOT)) {
            case "true", "yes", "on" -> true;
            case "false", "no", "off" -> false;
            default -> throw new IllegalArgumentException(key + "=" + v + " is not true or false");
        };
    }
}
