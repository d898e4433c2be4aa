package io.basalt.client;

import java.util.List;
import java.util.Objects;

/**
 * One store now, as the shell's {@code status} shows it: the node, its memory, its background
 * work, and its tables and regions with their sizes and request counts. An embedded store and a
 * single server have one; a cluster node's is the region replicas it holds, and the cluster as a
 * whole is {@link ClusterInfo}.
 *
 * @param node {@code host:port} of a server, or {@code embedded DIR}
 * @param uptimeMillis time since the server started or the store was opened
 * @param connections client connections open, or -1 for an embedded store
 * @param requests requests the server answered, or -1 for an embedded store
 * @param readOnlyReason why the store refuses writes until it is reopened, or {@code null}
 * @param memtableBytes bytes held by memtables, frozen ones included
 * @param blockCacheBytes bytes the cached blocks are charged
 * @param blockCacheCapacity the block cache's size
 * @param blockCacheHits data blocks found in the cache
 * @param blockCacheMisses data blocks read from a file
 * @param flushes memtables written to files
 * @param compactions compactions finished
 * @param compactionsRunning compactions under way
 * @param walSyncs forces of the write-ahead log
 * @param walBytes bytes written to the write-ahead log
 * @param stalls times writers waited for flushes or compactions
 * @param tables every table, sorted by name
 */
public record ServerStatus(String node, long uptimeMillis, int connections, long requests, String readOnlyReason,
                           long memtableBytes, long blockCacheBytes, long blockCacheCapacity, long blockCacheHits,
                           long blockCacheMisses, long flushes, long compactions, long compactionsRunning,
                           long walSyncs, long walBytes, long stalls, List<Table> tables) {

    public ServerStatus {
        Objects.requireNonNull(node, "node");
        tables = List.copyOf(tables);
    }

    /** The same store seen through a server, with its connections and the requests it answered. */
    public ServerStatus withServer(int openConnections, long answered) {
        return new ServerStatus(node, uptimeMillis, openConnections, answered, readOnlyReason, memtableBytes,
                blockCacheBytes, blockCacheCapacity, blockCacheHits, blockCacheMisses, flushes, compactions,
                compactionsRunning, walSyncs, walBytes, stalls, tables);
    }

    /** Every table's regions together. */
    public int regions() {
        return tables.stream().mapToInt(t -> t.regions().size()).sum();
    }

    /** Every table's files together. */
    public int files() {
        return tables.stream().mapToInt(Table::files).sum();
    }

    /** Every table's SSTable bytes together. */
    public long sizeBytes() {
        return tables.stream().mapToLong(Table::sizeBytes).sum();
    }

    /** Rows read, every region together. */
    public long readRequests() {
        return tables.stream().mapToLong(Table::readRequests).sum();
    }

    /** Mutations applied, every region together. */
    public long writeRequests() {
        return tables.stream().mapToLong(Table::writeRequests).sum();
    }

    /** @param regions its regions in key order */
    public record Table(String name, boolean disabled, List<Region> regions) {
        public Table {
            Objects.requireNonNull(name, "name");
            regions = List.copyOf(regions);
        }

        public int files() {
            return regions.stream().mapToInt(r -> r.info().files()).sum();
        }

        public long sizeBytes() {
            return regions.stream().mapToLong(r -> r.info().sizeBytes()).sum();
        }

        public long memtableBytes() {
            return regions.stream().mapToLong(r -> r.info().memtableBytes()).sum();
        }

        public long readRequests() {
            return regions.stream().mapToLong(Region::readRequests).sum();
        }

        public long writeRequests() {
            return regions.stream().mapToLong(Region::writeRequests).sum();
        }
    }

    /**
     * @param info its range, files, size and memtable bytes
     * @param readRequests rows read from it since it opened (gets, and rows scans returned)
     * @param writeRequests mutations applied to it since it opened
     */
    public record Region(RegionInfo info, long readRequests, long writeRequests) {
        public Region {
            Objects.requireNonNull(info, "info");
        }
    }
}
