package io.basalt.engine;

import io.basalt.bytes.Bytes;
import io.basalt.cell.CellLayout;
import io.basalt.cell.CellType;
import io.basalt.cell.EncodedCell;
import io.basalt.client.FamilyDescriptor;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Decides, one cell at a time in cell order, which cells of a row are alive: the rules shared by
 * reads and compaction, so that compacting never changes what a read returns.
 *
 * <ul>
 *   <li><b>Snapshot.</b> Cells written after the read point (higher sequence number) do not exist
 *       for this pass: they neither show nor mask anything. Compaction keeps them untouched.</li>
 *   <li><b>Deletes mask only older writes.</b> A marker hides cells with a timestamp at or below its
 *       own (exactly its own for a single-version {@link CellType#DELETE}) <em>and</em> written
 *       before it (lower sequence number). A put written after a delete is visible even with an
 *       older timestamp; HBase 2 calls this "new version behavior", and it makes the result
 *       independent of when compactions run.</li>
 *   <li><b>One write per version.</b> Two puts of the same column and timestamp: the later write
 *       wins, the earlier is gone.</li>
 *   <li><b>Retention.</b> Cells older than the family's time to live are gone; of the rest, only
 *       the family's {@code maxVersions} newest versions of a column exist. A version pushed out
 *       stays out: the region writes a column marker over the surplus versions when a
 *       single-version delete would otherwise bring one back (see {@code Region.surplusMarker}),
 *       so a version surplus at one read point is invisible at every later one, and compaction
 *       drops it.</li>
 * </ul>
 *
 * Markers sort before the cells they can mask (equal or higher timestamp, higher type code), so a
 * single forward pass sees every relevant marker before the cells it judges. Feed cells of one row
 * and family at a time; {@link #reset} between families and rows.
 */
final class Visibility {

    /** What to do with a cell. */
    enum Verdict {
        /** A live put: show it (reads) or keep it (compaction). */
        LIVE,
        /** Invisible and droppable: masked, expired, surplus, or an older write of the same version. */
        DROP,
        /** A delete marker: never shown; compaction keeps it unless it may drop markers. */
        MARKER,
        /** Not decided by this pass: written after the read point. Reads skip it; compaction keeps it as is. */
        FUTURE
    }

    private record Marker(long timestamp, long sequence, CellType type) {}

    private final long readPoint;
    private final int maxVersions;
    private final long expiredBefore;

    private final List<Marker> familyMarkers = new ArrayList<>();
    private final List<Marker> columnMarkers = new ArrayList<>();
    /** The first cell of the current column, {@code null} before one. */
    private EncodedCell column;
    private int versions;
    private long lastTimestamp = -1;

    /**
     * @param readPoint the highest sequence number this pass sees
     * @param family the family's retention rules
     * @param now the store's clock, for time to live
     */
    Visibility(long readPoint, FamilyDescriptor family, long now) {
        this.readPoint = readPoint;
        this.maxVersions = family.maxVersions();
        this.expiredBefore = family.expires() ? now - family.timeToLive().toMillis() : Long.MIN_VALUE;
    }

    /** Starts a new row or family. */
    void reset() {
        familyMarkers.clear();
        startColumn(null);
    }

    private void startColumn(EncodedCell cell) {
        column = cell;
        columnKeyLength = -1;
        columnMarkers.clear();
        versions = 0;
        lastTimestamp = -1;
    }

    /**
     * Judges the next cell of the current row and family.
     *
     * @param sequence the cell's write sequence number
     */
    Verdict judge(EncodedCell cell, long sequence) {
        CellType type = cell.type();
        if (type == CellType.DELETE_FAMILY) {
            return familyMarker(cell.timestamp(), sequence);
        }
        if (column == null || !column.sameQualifier(cell)) {
            startColumn(cell);
        }
        return judgeVersion(type, cell.timestamp(), sequence);
    }

    /**
     * The current column's family-length byte, family and qualifier as {@link #judge(byte[], int,
     * int, long)} last saw them; {@link #columnKeyLength} is -1 before one.
     */
    private byte[] columnKey = new byte[64];
    private int columnKeyLength = -1;

    /**
     * {@link #judge(EncodedCell, long)} of the cell whose well-formed key is {@code keyLength}
     * bytes at {@code keyOffset} of {@code key}, read in place: for compaction, which judges
     * entries without making them cells.
     */
    Verdict judge(byte[] key, int keyOffset, int keyLength, long sequence) {
        int end = keyOffset + keyLength;
        CellType type = CellType.fromCode(key[end - 1]);
        long ts = Bytes.longBE(key, end - CellLayout.TIMESTAMP_TYPE_SIZE);
        if (type == CellType.DELETE_FAMILY) {
            return familyMarker(ts, sequence);
        }
        // The family's length, the family and the qualifier: what follows the row.
        int from = keyOffset + CellLayout.ROW_LENGTH_SIZE + Bytes.unsignedShortBE(key, keyOffset);
        int length = end - CellLayout.TIMESTAMP_TYPE_SIZE - from;
        if (column != null || columnKeyLength != length
                || !Arrays.equals(columnKey, 0, length, key, from, from + length)) {
            startColumn(null);
            if (columnKey.length < length) {
                columnKey = new byte[Math.max(length, columnKey.length * 2)];
            }
            System.arraycopy(key, from, columnKey, 0, length);
            columnKeyLength = length;
        }
        return judgeVersion(type, ts, sequence);
    }

    private Verdict familyMarker(long timestamp, long sequence) {
        if (sequence > readPoint) {
            return Verdict.FUTURE;
        }
        familyMarkers.add(new Marker(timestamp, sequence, CellType.DELETE_FAMILY));
        return Verdict.MARKER;
    }

    /** Judges a version of the current column. */
    private Verdict judgeVersion(CellType type, long ts, long sequence) {
        if (sequence > readPoint) {
            return Verdict.FUTURE;
        }
        if (type.isDelete()) {
            columnMarkers.add(new Marker(ts, sequence, type));
            return Verdict.MARKER;
        }
        if (masked(ts, sequence)) {
            return Verdict.DROP;
        }
        if (ts == lastTimestamp) {
            return Verdict.DROP; // an earlier write of a version already judged
        }
        lastTimestamp = ts;
        if (ts < expiredBefore) {
            return Verdict.DROP;
        }
        versions++;
        return versions > maxVersions ? Verdict.DROP : Verdict.LIVE;
    }

    private boolean masked(long ts, long sequence) {
        for (Marker m : familyMarkers) {
            if (ts <= m.timestamp && sequence < m.sequence) {
                return true;
            }
        }
        for (Marker m : columnMarkers) {
            boolean covers = m.type == CellType.DELETE ? ts == m.timestamp : ts <= m.timestamp;
            if (covers && sequence < m.sequence) {
                return true;
            }
        }
        return false;
    }
}
