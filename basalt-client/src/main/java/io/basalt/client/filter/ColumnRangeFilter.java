package io.basalt.client.filter;

import io.basalt.bytes.Bytes;

/**
 * Columns whose qualifier lies between {@code minColumn} and {@code maxColumn}, each bound
 * inclusive or not; an empty bound is no bound (as in HBase). The reader seeks to the lower bound
 * in each family and leaves the family after the upper one.
 */
public record ColumnRangeFilter(byte[] minColumn, boolean minInclusive, byte[] maxColumn, boolean maxInclusive)
        implements Filter {

    public ColumnRangeFilter {
        minColumn = FilterText.copy(minColumn, "minColumn");
        maxColumn = FilterText.copy(maxColumn, "maxColumn");
        if (minColumn.length > 0 && maxColumn.length > 0 && Bytes.compare(minColumn, maxColumn) > 0) {
            throw new IllegalArgumentException("column range from " + Bytes.toStringBinary(minColumn) + " to "
                    + Bytes.toStringBinary(maxColumn) + " is empty: the minimum sorts after the maximum");
        }
    }

    @Override
    public byte[] minColumn() {
        return minColumn.clone();
    }

    @Override
    public byte[] maxColumn() {
        return maxColumn.clone();
    }

    @Override
    public String toString() {
        return FilterText.call("ColumnRangeFilter", minColumn, minInclusive, maxColumn, maxInclusive);
    }
}
