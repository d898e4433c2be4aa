package io.basalt.engine;

import io.basalt.client.Connection;
import io.basalt.client.ServerStatus;
import java.util.List;
import java.util.Objects;

/**
 * What an embedded store has done since it was opened, and what it holds now: read at once from
 * counters the store keeps anyway, so taking one costs a walk over the regions and nothing on the
 * paths that count. The server's metrics and status page are made from these (docs/operations.md
 * names each metric).
 *
 * @param background flushes, compactions and stalls ({@link EngineStatistics})
 * @param walSyncs forces of the write-ahead log to the disk
 * @param walBatches batches of records written to the log
 * @param walBytes bytes of records written to the log
 * @param memtableBytes bytes held by every memtable, frozen ones included
 * @param blockCacheHits data blocks found in the block cache
 * @param blockCacheMisses data blocks read from a file
 * @param blockCacheEvictions blocks evicted to make room
 * @param blockCacheBytes bytes the cached blocks are charged now
 * @param blockCacheCapacity the cache's size
 * @param rowCacheHits gets answered from the row cache
 * @param rowCacheMisses gets the row cache could have answered but did not hold (or held stale)
 * @param rowCacheBytes bytes the row cache's entries are charged now (0 without one)
 * @param bufferChunksInUse chunks of the block cache's buffer pool in use (cached or pinned blocks)
 * @param bufferChunksMax the most chunks that pool can have
 * @param lockWaits lock acquisitions that had to wait (table and row locks)
 * @param lockTimeouts lock waits that ran out of time
 * @param readOnlyReason why the store turned read-only, or {@code null} when it takes writes
 * @param tables each table's regions, with their files, sizes and request counts, sorted by name
 */
public record StoreMetrics(EngineStatistics background, long walSyncs, long walBatches, long walBytes, long memtableBytes,
                           long blockCacheHits, long blockCacheMisses, long blockCacheEvictions, long blockCacheBytes,
                           long blockCacheCapacity, long rowCacheHits, long rowCacheMisses, long rowCacheBytes,
                           long bufferChunksInUse, long bufferChunksMax, long lockWaits,
                           long lockTimeouts, String readOnlyReason, List<ServerStatus.Table> tables) {

    public StoreMetrics {
        Objects.requireNonNull(background, "background");
        tables = List.copyOf(tables);
    }

    /** Whether the store refuses writes until it is reopened. */
    public boolean readOnly() {
        return readOnlyReason != null;
    }

    /**
     * Several stores as one (a cluster node's region replicas, each a store of its own): counts
     * and sizes added, a table's regions gathered from every store that holds some, read-only when
     * any store is. Empty: a store with nothing.
     */
    public static StoreMetrics sum(List<StoreMetrics> stores) {
        EngineStatistics background = new EngineStatistics(0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0);
        long[] v = new long[16];
        String readOnly = null;
        java.util.Map<String, ServerStatus.Table> tables = new java.util.TreeMap<>();
        for (StoreMetrics m : stores) {
            background = background.plus(m.background);
            long[] add = {m.walSyncs, m.walBatches, m.walBytes, m.memtableBytes, m.blockCacheHits, m.blockCacheMisses,
                m.blockCacheEvictions, m.blockCacheBytes, m.blockCacheCapacity, m.rowCacheHits, m.rowCacheMisses,
                m.rowCacheBytes, m.bufferChunksInUse, m.bufferChunksMax, m.lockWaits, m.lockTimeouts};
            for (int i = 0; i < v.length; i++) {
                v[i] += add[i];
            }
            readOnly = readOnly != null ? readOnly : m.readOnlyReason;
            for (ServerStatus.Table t : m.tables) {
                tables.merge(t.name(), t, (a, b) -> {
                    List<ServerStatus.Region> regions = new java.util.ArrayList<>(a.regions());
                    regions.addAll(b.regions());
                    regions.sort((x, y) -> io.basalt.bytes.Bytes.compare(x.info().start(), y.info().start()));
                    return new ServerStatus.Table(a.name(), a.disabled() || b.disabled(), regions);
                });
            }
        }
        return new StoreMetrics(background, v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7], v[8], v[9], v[10], v[11],
                v[12], v[13], v[14], v[15], readOnly, List.copyOf(tables.values()));
    }

    /**
     * What the shell's {@code status} shows of this store: {@code node} names it; connections and
     * requests are -1 until a server fills them in ({@link ServerStatus#withServer}).
     */
    public ServerStatus status(String node, long uptimeMillis) {
        return new ServerStatus(node, uptimeMillis, -1, -1, readOnlyReason, memtableBytes, blockCacheBytes,
                blockCacheCapacity, blockCacheHits, blockCacheMisses, background.flushes(), background.compactions(),
                background.compactionsRunning(), walSyncs, walBytes, background.stalls(), tables);
    }

    /**
     * The metrics of the embedded store behind {@code connection}.
     *
     * @throws IllegalArgumentException when the connection is not to an embedded store
     */
    public static StoreMetrics of(Connection connection) {
        return EngineStatistics.storeOf(connection).metrics();
    }

    /** Whether {@link #of} can read {@code connection}'s metrics. */
    public static boolean available(Connection connection) {
        return connection instanceof EmbeddedConnection;
    }
}
