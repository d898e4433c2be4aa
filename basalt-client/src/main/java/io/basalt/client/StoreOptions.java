package io.basalt.client;

import java.time.Duration;
import java.util.Objects;

/**
 * Options of an embedded store. Every option has one documented default; {@link #defaults()}
 * gives them all.
 *
 * @param durability when writes are acknowledged (default {@link Durability#SYNC})
 * @param asyncSyncInterval how often the log is forced under {@link Durability#ASYNC} (default 1 s)
 * @param memtableFlushSize bytes of in-memory data per table that trigger a flush (default 64 MiB)
 * @param walSegmentSize bytes after which the write-ahead log rolls to a new segment (default 64 MiB)
 * @param blockCacheSize bytes of SSTable blocks cached off-heap (default 256 MiB)
 * @param walCorruption what opening does when a log record in the middle fails its checksum
 *     (default {@link WalCorruptionPolicy#REFUSE})
 * @param compactionTrigger files per family that start a compaction (default 4)
 * @param writeStallFiles files per family at which writers wait for compaction (default 20)
 * @param maxWalSize bytes of write-ahead log past which the table holding the oldest unflushed
 *     write is flushed, so that one rarely written table cannot keep every later log segment
 *     (and the time to replay them) growing without bound: HBase's {@code maxlogs}, RocksDB's
 *     {@code max_total_wal_size} (default 1 GiB, at least {@code walSegmentSize})
 * @param memtableMemoryLimit bytes all tables' memtables may hold together before writers wait
 *     for flushes, as HBase's global memstore limit (default 40% of the JVM's maximum heap, at
 *     least twice {@code memtableFlushSize})
 * @param backgroundRetries how often a failed flush or compaction is retried, with a backoff that
 *     doubles from {@code backgroundRetryBackoff}, before the store gives up and goes read-only
 *     (default 5)
 * @param backgroundRetryBackoff the first retry's delay (default 1 s; 1, 2, 4, 8, 16 s with the
 *     default retries, about half a minute in all)
 * @param regionSplitSize bytes of SSTable data past which a region splits in two at a middle
 *     row (default {@link #DEFAULT_REGION_SPLIT_SIZE}); 0 turns automatic splits off
 * @param rowCacheSize bytes of whole rows, as gets returned them, kept on the heap so that a hot
 *     row is answered without merging its versions again (default {@link #DEFAULT_ROW_CACHE_SIZE});
 *     memory beside the block cache, as RocksDB's {@code row_cache}; 0 turns it off
 * @param readCompactionBytes read-triggered compaction: every get that finds its row in more than
 *     one file of a family is charged one read per extra file, and once a region's charges pass
 *     its files' bytes divided by this, the region's families are merged into one file each (default
 *     {@link #DEFAULT_READ_COMPACTION_BYTES}); 0 turns it off
 */
public record StoreOptions(Durability durability, Duration asyncSyncInterval, long memtableFlushSize,
                           long walSegmentSize, long blockCacheSize, WalCorruptionPolicy walCorruption,
                           int compactionTrigger, int writeStallFiles, long maxWalSize, long memtableMemoryLimit,
                           int backgroundRetries, Duration backgroundRetryBackoff, long regionSplitSize,
                           long rowCacheSize, long readCompactionBytes) {

    /** What opening a store does when a log record before the end fails its checksum. */
    public enum WalCorruptionPolicy {
        /** Refuse to open, naming the file and offset: nothing is lost silently. */
        REFUSE,
        /** Skip the damaged record, report file and offset in the log, and go on. */
        SKIP_AND_REPORT
    }

    /**
     * The default {@link #regionSplitSize}, 256 MiB: a compaction rewrites at most one region, and
     * on this project's 2-core reference machine one of this size compacts in under 4 s, while a
     * node with 10 GB holds about 40 regions (see {@code docs/benchmarks.md}, "load regions").
     */
    public static final long DEFAULT_REGION_SPLIT_SIZE = 256L << 20;

    /**
     * The default {@link #rowCacheSize}, 32 MiB: under YCSB's Zipfian reads it holds the rows that
     * most gets ask for (see {@code docs/benchmarks.md}, "ycsb").
     */
    public static final long DEFAULT_ROW_CACHE_SIZE = 32L << 20;

    /**
     * The default {@link #readCompactionBytes}, 512: by measurement on the reference machine, an
     * extra file a get reads costs about what compacting 600 bytes does, so a region is merged once
     * its gets have spent on extra files about what merging it costs (see {@code
     * docs/architecture.md}, "Read-triggered compaction").
     */
    public static final long DEFAULT_READ_COMPACTION_BYTES = 512;

    public StoreOptions {
        Objects.requireNonNull(durability, "durability");
        Objects.requireNonNull(asyncSyncInterval, "asyncSyncInterval");
        Objects.requireNonNull(walCorruption, "walCorruption");
        if (asyncSyncInterval.isNegative() || asyncSyncInterval.isZero()) {
            throw new IllegalArgumentException("asyncSyncInterval must be positive, not " + asyncSyncInterval);
        }
        if (memtableFlushSize < 64 * 1024) {
            throw new IllegalArgumentException("memtableFlushSize " + memtableFlushSize + " is below 64 KiB");
        }
        if (walSegmentSize < 64 * 1024) {
            throw new IllegalArgumentException("walSegmentSize " + walSegmentSize + " is below 64 KiB");
        }
        if (blockCacheSize < 0) {
            throw new IllegalArgumentException("blockCacheSize " + blockCacheSize + " is negative");
        }
        if (compactionTrigger < 2) {
            throw new IllegalArgumentException("compactionTrigger " + compactionTrigger + " must be at least 2");
        }
        if (writeStallFiles <= compactionTrigger) {
            throw new IllegalArgumentException("writeStallFiles " + writeStallFiles
                    + " must exceed compactionTrigger " + compactionTrigger);
        }
        if (maxWalSize < walSegmentSize) {
            throw new IllegalArgumentException("maxWalSize " + maxWalSize + " is below walSegmentSize "
                    + walSegmentSize);
        }
        if (memtableMemoryLimit < memtableFlushSize) {
            throw new IllegalArgumentException("memtableMemoryLimit " + memtableMemoryLimit
                    + " is below memtableFlushSize " + memtableFlushSize);
        }
        if (backgroundRetries < 0) {
            throw new IllegalArgumentException("backgroundRetries " + backgroundRetries + " is negative");
        }
        if (regionSplitSize < 0) {
            throw new IllegalArgumentException("regionSplitSize " + regionSplitSize + " is negative");
        }
        if (rowCacheSize < 0) {
            throw new IllegalArgumentException("rowCacheSize " + rowCacheSize + " is negative");
        }
        if (readCompactionBytes < 0) {
            throw new IllegalArgumentException("readCompactionBytes " + readCompactionBytes + " is negative");
        }
        Objects.requireNonNull(backgroundRetryBackoff, "backgroundRetryBackoff");
        if (backgroundRetryBackoff.isNegative() || backgroundRetryBackoff.isZero()) {
            throw new IllegalArgumentException("backgroundRetryBackoff must be positive, not " + backgroundRetryBackoff);
        }
    }

    /** The default {@link #memtableMemoryLimit}: 40% of the maximum heap, at least twice {@code flushSize}. */
    static long defaultMemtableMemoryLimit(long flushSize) {
        return Math.max(2 * flushSize, Runtime.getRuntime().maxMemory() / 5 * 2);
    }

    public static StoreOptions defaults() {
        return new StoreOptions(Durability.SYNC, Duration.ofSeconds(1), 64L << 20, 64L << 20, 256L << 20,
                WalCorruptionPolicy.REFUSE, 4, 20, 1L << 30, defaultMemtableMemoryLimit(64L << 20), 5,
                Duration.ofSeconds(1), DEFAULT_REGION_SPLIT_SIZE, DEFAULT_ROW_CACHE_SIZE, DEFAULT_READ_COMPACTION_BYTES);
    }

    public StoreOptions withDurability(Durability value) {
        return new StoreOptions(value, asyncSyncInterval, memtableFlushSize, walSegmentSize, blockCacheSize,
                walCorruption, compactionTrigger, writeStallFiles, maxWalSize, memtableMemoryLimit, backgroundRetries,
                backgroundRetryBackoff, regionSplitSize, rowCacheSize, readCompactionBytes);
    }

    /** Sets the flush size, raising {@link #memtableMemoryLimit} to twice it when it was lower. */
    public StoreOptions withMemtableFlushSize(long bytes) {
        return new StoreOptions(durability, asyncSyncInterval, bytes, walSegmentSize, blockCacheSize,
                walCorruption, compactionTrigger, writeStallFiles, maxWalSize,
                Math.max(memtableMemoryLimit, 2 * bytes), backgroundRetries, backgroundRetryBackoff, regionSplitSize,
                rowCacheSize, readCompactionBytes);
    }

    /** Sets the segment size, raising {@link #maxWalSize} to it when it was lower. */
    public StoreOptions withWalSegmentSize(long bytes) {
        return new StoreOptions(durability, asyncSyncInterval, memtableFlushSize, bytes, blockCacheSize,
                walCorruption, compactionTrigger, writeStallFiles, Math.max(maxWalSize, bytes), memtableMemoryLimit,
                backgroundRetries, backgroundRetryBackoff, regionSplitSize, rowCacheSize, readCompactionBytes);
    }

    public StoreOptions withBlockCacheSize(long bytes) {
        return new StoreOptions(durability, asyncSyncInterval, memtableFlushSize, walSegmentSize, bytes,
                walCorruption, compactionTrigger, writeStallFiles, maxWalSize, memtableMemoryLimit, backgroundRetries,
                backgroundRetryBackoff, regionSplitSize, rowCacheSize, readCompactionBytes);
    }

    public StoreOptions withWalCorruption(WalCorruptionPolicy policy) {
        return new StoreOptions(durability, asyncSyncInterval, memtableFlushSize, walSegmentSize, blockCacheSize,
                policy, compactionTrigger, writeStallFiles, maxWalSize, memtableMemoryLimit, backgroundRetries,
                backgroundRetryBackoff, regionSplitSize, rowCacheSize, readCompactionBytes);
    }

    public StoreOptions withCompaction(int trigger, int stallFiles) {
        return new StoreOptions(durability, asyncSyncInterval, memtableFlushSize, walSegmentSize, blockCacheSize,
                walCorruption, trigger, stallFiles, maxWalSize, memtableMemoryLimit, backgroundRetries,
                backgroundRetryBackoff, regionSplitSize, rowCacheSize, readCompactionBytes);
    }

    public StoreOptions withMaxWalSize(long bytes) {
        return new StoreOptions(durability, asyncSyncInterval, memtableFlushSize, walSegmentSize, blockCacheSize,
                walCorruption, compactionTrigger, writeStallFiles, bytes, memtableMemoryLimit, backgroundRetries,
                backgroundRetryBackoff, regionSplitSize, rowCacheSize, readCompactionBytes);
    }

    public StoreOptions withMemtableMemoryLimit(long bytes) {
        return new StoreOptions(durability, asyncSyncInterval, memtableFlushSize, walSegmentSize, blockCacheSize,
                walCorruption, compactionTrigger, writeStallFiles, maxWalSize, bytes, backgroundRetries,
                backgroundRetryBackoff, regionSplitSize, rowCacheSize, readCompactionBytes);
    }

    public StoreOptions withBackgroundRetries(int retries, Duration firstBackoff) {
        return new StoreOptions(durability, asyncSyncInterval, memtableFlushSize, walSegmentSize, blockCacheSize,
                walCorruption, compactionTrigger, writeStallFiles, maxWalSize, memtableMemoryLimit, retries,
                firstBackoff, regionSplitSize, rowCacheSize, readCompactionBytes);
    }

    /** Sets the size past which a region splits; 0 turns automatic splits off. */
    public StoreOptions withRegionSplitSize(long bytes) {
        return new StoreOptions(durability, asyncSyncInterval, memtableFlushSize, walSegmentSize, blockCacheSize,
                walCorruption, compactionTrigger, writeStallFiles, maxWalSize, memtableMemoryLimit, backgroundRetries,
                backgroundRetryBackoff, bytes, rowCacheSize, readCompactionBytes);
    }

    /** Sets the bytes of the row cache; 0 turns it off. */
    public StoreOptions withRowCacheSize(long bytes) {
        return new StoreOptions(durability, asyncSyncInterval, memtableFlushSize, walSegmentSize, blockCacheSize,
                walCorruption, compactionTrigger, writeStallFiles, maxWalSize, memtableMemoryLimit, backgroundRetries,
                backgroundRetryBackoff, regionSplitSize, bytes, readCompactionBytes);
    }

    /** Sets the bytes of a region's files one extra file read is charged against; 0 turns read-triggered compaction off. */
    public StoreOptions withReadCompactionBytes(long bytes) {
        return new StoreOptions(durability, asyncSyncInterval, memtableFlushSize, walSegmentSize, blockCacheSize,
                walCorruption, compactionTrigger, writeStallFiles, maxWalSize, memtableMemoryLimit, backgroundRetries,
                backgroundRetryBackoff, regionSplitSize, rowCacheSize, bytes);
    }
}
