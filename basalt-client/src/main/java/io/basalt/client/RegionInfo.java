package io.basalt.client;

import io.basalt.bytes.Bytes;
import java.util.Arrays;

/**
 * One region of a table: the rows {@code [start, end)} (an empty start is the table's first row,
 * an empty end its last) and what it holds.
 *
 * @param table the table's name
 * @param id the region's id, unique in its store
 * @param start the region's first row; empty for the first region
 * @param end the first row after the region; empty for the last region
 * @param sizeBytes bytes of SSTable data in the region (for a file it shares with a sibling after
 *     a split, the part in its range, estimated from the file's index)
 * @param files the SSTables the region reads
 * @param memtableBytes bytes held in its memtables, not yet flushed
 * @param leader in a cluster, the client address ({@code host:port}) of the node leading the
 *     region as the answering node knew it; empty when unknown or not a cluster
 * @param replicas in a cluster, the client addresses of the nodes holding the region's replicas;
 *     empty when not a cluster
 */
public record RegionInfo(String table, long id, byte[] start, byte[] end, long sizeBytes, int files,
                         long memtableBytes, String leader, java.util.List<String> replicas) {

    public RegionInfo {
        start = start.clone();
        end = end.clone();
        leader = java.util.Objects.requireNonNull(leader, "leader");
        replicas = java.util.List.copyOf(replicas);
    }

    /** A region of one server (no leader, no replicas). */
    public RegionInfo(String table, long id, byte[] start, byte[] end, long sizeBytes, int files, long memtableBytes) {
        this(table, id, start, end, sizeBytes, files, memtableBytes, "", java.util.List.of());
    }

    /** The region's name, as HBase writes it: {@code table,start,id}. */
    public String name() {
        return table + "," + Bytes.toStringBinary(start) + "," + id;
    }

    /** Whether {@code row} falls in the region. */
    public boolean contains(byte[] row) {
        return Bytes.compare(row, start) >= 0 && (end.length == 0 || Bytes.compare(row, end) < 0);
    }

    @Override
    public byte[] start() {
        return start.clone();
    }

    @Override
    public byte[] end() {
        return end.clone();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof RegionInfo r && r.table.equals(table) && r.id == id && Arrays.equals(r.start, start)
                && Arrays.equals(r.end, end) && r.sizeBytes == sizeBytes && r.files == files
                && r.memtableBytes == memtableBytes && r.leader.equals(leader) && r.replicas.equals(replicas);
    }

    @Override
    public int hashCode() {
        return Long.hashCode(id) * 31 + table.hashCode();
    }

    @Override
    public String toString() {
        return "RegionInfo{" + name() + ", [" + Bytes.toStringBinary(start) + ", " + Bytes.toStringBinary(end)
                + "), " + sizeBytes + " bytes in " + files + " files, " + memtableBytes + " in memtables"
                + (replicas.isEmpty() ? "" : ", replicas " + replicas + ", leader " + (leader.isEmpty() ? "unknown" : leader))
                + "}";
    }
}
