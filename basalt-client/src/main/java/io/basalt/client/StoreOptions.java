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
 */
public record StoreOptions(Durability durability, Duration asyncSyncInterval, long memtableFlushSize,
                           long walSegmentSize, long blockCacheSize, WalCorruptionPolicy walCorruption,
                           int compactionTrigger, int writeStallFiles) {

    /** What opening a store does when a log record before the end fails its checksum. */
    public enum WalCorruptionPolicy {
        /** Refuse to open, naming the file and offset: nothing is lost silently. */
        REFUSE,
        /** Skip the damaged record, report file and offset in the log, and go on. */
        SKIP_AND_REPORT
    }

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
    }

    public static StoreOptions defaults() {
        return new StoreOptions(Durability.SYNC, Duration.ofSeconds(1), 64L << 20, 64L << 20, 256L << 20,
                WalCorruptionPolicy.REFUSE, 4, 20);
    }

    public StoreOptions withDurability(Durability value) {
        return new StoreOptions(value, asyncSyncInterval, memtableFlushSize, walSegmentSize, blockCacheSize,
                walCorruption, compactionTrigger, writeStallFiles);
    }

    public StoreOptions withMemtableFlushSize(long bytes) {
        return new StoreOptions(durability, asyncSyncInterval, bytes, walSegmentSize, blockCacheSize,
                walCorruption, compactionTrigger, writeStallFiles);
    }

    public StoreOptions withWalSegmentSize(long bytes) {
        return new StoreOptions(durability, asyncSyncInterval, memtableFlushSize, bytes, blockCacheSize,
                walCorruption, compactionTrigger, writeStallFiles);
    }

    public StoreOptions withBlockCacheSize(long bytes) {
        return new StoreOptions(durability, asyncSyncInterval, memtableFlushSize, walSegmentSize, bytes,
                walCorruption, compactionTrigger, writeStallFiles);
    }

    public StoreOptions withWalCorruption(WalCorruptionPolicy policy) {
        return new StoreOptions(durability, asyncSyncInterval, memtableFlushSize, walSegmentSize, blockCacheSize,
                policy, compactionTrigger, writeStallFiles);
    }

    public StoreOptions withCompaction(int trigger, int stallFiles) {
        return new StoreOptions(durability, asyncSyncInterval, memtableFlushSize, walSegmentSize, blockCacheSize,
                walCorruption, trigger, stallFiles);
    }
}
