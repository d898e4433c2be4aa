package io.basalt.engine;

import io.basalt.client.Connection;

/**
 * What an embedded store's background work has done since it was opened: a snapshot, for load
 * runs, and the background part of {@link StoreMetrics}. Cheap: a read of counters, no walk.
 *
 * @param compactionsRunning compactions under way now
 * @param compactions compactions finished (committed or not)
 * @param longestCompactionNanos the longest of them, wall time
 * @param compactionNanos all of them together
 * @param compactedBytes bytes written by compactions
 * @param flushes memtables written to SSTables
 * @param splits regions split
 * @param merges region pairs merged
 * @param compactionReadBytes bytes of the SSTables compactions took as input
 * @param flushedBytes bytes of SSTables written by flushes
 * @param flushNanos wall time of those flushes together
 * @param stalls times writers waited for room (a stall logs a line)
 * @param stallNanos time writers spent in stalls that ended
 */
public record EngineStatistics(long compactionsRunning, long compactions, long longestCompactionNanos,
                               long compactionNanos, long compactedBytes, long flushes, long splits, long merges,
                               long compactionReadBytes, long flushedBytes, long flushNanos, long stalls,
                               long stallNanos) {

    /**
     * The statistics of the embedded store behind {@code connection}.
     *
     * @throws IllegalArgumentException when the connection is not to an embedded store
     */
    public static EngineStatistics of(Connection connection) {
        return storeOf(connection).statistics();
    }

    /** Both stores' work together (the longest compaction is the longer of the two). */
    public EngineStatistics plus(EngineStatistics o) {
        return new EngineStatistics(compactionsRunning + o.compactionsRunning, compactions + o.compactions,
                Math.max(longestCompactionNanos, o.longestCompactionNanos), compactionNanos + o.compactionNanos,
                compactedBytes + o.compactedBytes, flushes + o.flushes, splits + o.splits, merges + o.merges,
                compactionReadBytes + o.compactionReadBytes, flushedBytes + o.flushedBytes, flushNanos + o.flushNanos,
                stalls + o.stalls, stallNanos + o.stallNanos);
    }

    /** The store behind an embedded connection. */
    static Store storeOf(Connection connection) {
        if (connection instanceof EmbeddedConnection embedded) {
            return embedded.store();
        }
        throw new IllegalArgumentException("engine statistics are kept by an embedded store; " + connection.target()
                + " is not one");
    }
}
