package io.basalt.engine;

import io.basalt.client.Connection;

/**
 * What an embedded store's background work has done since it was opened: a snapshot, for load
 * runs and, later, metrics.
 *
 * @param compactionsRunning compactions under way now
 * @param compactions compactions finished (committed or not)
 * @param longestCompactionNanos the longest of them, wall time
 * @param compactionNanos all of them together
 * @param compactedBytes bytes written by compactions
 * @param flushes memtables written to SSTables
 * @param splits regions split
 * @param merges region pairs merged
 */
public record EngineStatistics(long compactionsRunning, long compactions, long longestCompactionNanos,
                               long compactionNanos, long compactedBytes, long flushes, long splits, long merges) {

    /**
     * The statistics of the embedded store behind {@code connection}.
     *
     * @throws IllegalArgumentException when the connection is not to an embedded store
     */
    public static EngineStatistics of(Connection connection) {
        if (connection instanceof EmbeddedConnection embedded) {
            return embedded.store().statistics();
        }
        throw new IllegalArgumentException("engine statistics are kept by an embedded store; " + connection.target()
                + " is not one");
    }
}
