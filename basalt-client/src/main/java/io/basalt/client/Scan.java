package io.basalt.client;

import io.basalt.bytes.Bytes;
import java.util.Objects;

/**
 * Reads a range of rows in key order (or reverse order), with the same column, time and version
 * selection as {@link Get}.
 *
 * <p>The start row is inclusive and the stop row exclusive unless said otherwise; an empty start
 * or stop row means the table's first or last row. In a reversed scan the start row is the
 * highest row read and the stop row the lowest.
 */
public final class Scan extends Query<Scan> {

    /** Default bytes of rows per server round trip. */
    public static final long DEFAULT_MAX_RESULT_SIZE = 2L * 1024 * 1024;

    private byte[] startRow = Bytes.EMPTY;
    private boolean startInclusive = true;
    private byte[] stopRow = Bytes.EMPTY;
    private boolean stopInclusive;
    private boolean reversed;
    private long limit;
    private int caching;
    private int batch;
    private long maxResultSize = DEFAULT_MAX_RESULT_SIZE;
    private boolean allowPartialResults;
    private boolean raw;

    /** A scan with every setting of this one, which later changes to either do not affect. */
    public Scan copy() {
        Scan copy = new Scan();
        copy.copySelection(this);
        copy.startRow = startRow;
        copy.startInclusive = startInclusive;
        copy.stopRow = stopRow;
        copy.stopInclusive = stopInclusive;
        copy.reversed = reversed;
        copy.limit = limit;
        copy.caching = caching;
        copy.batch = batch;
        copy.maxResultSize = maxResultSize;
        copy.allowPartialResults = allowPartialResults;
        copy.raw = raw;
        return copy;
    }

    @Override
    Scan self() {
        return this;
    }

    public Scan withStartRow(byte[] row) {
        return withStartRow(row, true);
    }

    public Scan withStartRow(byte[] row, boolean inclusive) {
        this.startRow = Objects.requireNonNull(row, "row");
        this.startInclusive = inclusive;
        return this;
    }

    public Scan withStopRow(byte[] row) {
        return withStopRow(row, false);
    }

    public Scan withStopRow(byte[] row, boolean inclusive) {
        this.stopRow = Objects.requireNonNull(row, "row");
        this.stopInclusive = inclusive;
        return this;
    }

    /**
     * Reads exactly the rows that start with {@code prefix}, by setting the start and stop rows for
     * the scan's direction (HBase's {@code ROWPREFIXFILTER}; set the direction first). Unlike a
     * {@link io.basalt.client.filter.PrefixFilter}, the bounds also keep the scan from opening the
     * table's other regions.
     */
    public Scan setStartStopRowForPrefixScan(byte[] prefix) {
        Objects.requireNonNull(prefix, "prefix");
        byte[] after = Bytes.EMPTY; // rows after every row with the prefix: none when it is all 0xFF
        for (int i = prefix.length - 1; i >= 0; i--) {
            if (prefix[i] != (byte) 0xFF) {
                after = java.util.Arrays.copyOf(prefix, i + 1);
                after[i]++;
                break;
            }
        }
        if (reversed) {
            return withStartRow(after, false).withStopRow(prefix, true);
        }
        return withStartRow(prefix, true).withStopRow(after, false);
    }

    /** Reads from the start row down to the stop row. */
    public Scan setReversed(boolean reversed) {
        this.reversed = reversed;
        return this;
    }

    /** At most {@code rows} rows in all; 0 (the default) is no limit. */
    public Scan setLimit(long rows) {
        if (rows < 0) {
            throw new IllegalArgumentException("limit " + rows + " is negative");
        }
        this.limit = rows;
        return this;
    }

    /** Rows per server round trip; 0 (the default) lets {@link #maxResultSize()} decide. */
    public Scan setCaching(int rows) {
        if (rows < 0) {
            throw new IllegalArgumentException("caching " + rows + " is negative");
        }
        this.caching = rows;
        return this;
    }

    /** At most {@code cells} cells per returned result; a wider row comes in several results. */
    public Scan setBatch(int cells) {
        if (cells < 0) {
            throw new IllegalArgumentException("batch " + cells + " is negative");
        }
        this.batch = cells;
        return this;
    }

    /** Bytes of rows per server round trip (default 2 MiB). */
    public Scan setMaxResultSize(long bytes) {
        if (bytes < 1) {
            throw new IllegalArgumentException("maxResultSize " + bytes + " must be positive");
        }
        this.maxResultSize = bytes;
        return this;
    }

    /** Lets a row that does not fit one round trip reach the caller in parts. */
    public Scan setAllowPartialResults(boolean allow) {
        this.allowPartialResults = allow;
        return this;
    }

    /**
     * A raw scan (HBase's {@code RAW => true}) returns what is stored rather than what is visible:
     * delete markers as cells of their type, and the cells they mask that compaction has not
     * dropped yet, still within the scan's snapshot, columns and time range. Each column gives at
     * most {@link #maxVersions()} puts; markers are all shown. A raw scan takes no filter.
     */
    public Scan setRaw(boolean raw) {
        this.raw = raw;
        return this;
    }

    public boolean raw() {
        return raw;
    }

    public byte[] startRow() {
        return startRow;
    }

    public boolean startInclusive() {
        return startInclusive;
    }

    public byte[] stopRow() {
        return stopRow;
    }

    public boolean stopInclusive() {
        return stopInclusive;
    }

    public boolean reversed() {
        return reversed;
    }

    public long limit() {
        return limit;
    }

    public int caching() {
        return caching;
    }

    public int batch() {
        return batch;
    }

    public long maxResultSize() {
        return maxResultSize;
    }

    public boolean allowPartialResults() {
        return allowPartialResults;
    }

    /** True while {@code row} has not passed the stop row in the scan's direction. */
    public boolean beforeStop(byte[] row) {
        return beforeStop(row, reversed ? -1 : 1);
    }

    private boolean beforeStop(byte[] row, int direction) {
        if (stopRow.length == 0) {
            return true;
        }
        int c = direction * Bytes.compare(row, stopRow);
        return c < 0 || (c == 0 && stopInclusive);
    }
}
