package io.basalt.client.filter;

/**
 * A page of each row's columns, one version each: {@code limit} columns after skipping
 * {@code offset} of them, or, when {@code columnOffset} is not empty, starting at the first column
 * of each family whose qualifier is at least {@code columnOffset} (the reader seeks there).
 */
public record ColumnPaginationFilter(int limit, int offset, byte[] columnOffset) implements Filter {

    public ColumnPaginationFilter {
        if (limit < 0 || offset < 0) {
            throw new IllegalArgumentException("column page limit " + limit + " and offset " + offset
                    + " must not be negative");
        }
        columnOffset = FilterText.copy(columnOffset, "columnOffset");
        if (columnOffset.length > 0 && offset > 0) {
            throw new IllegalArgumentException("a column page starts at a count offset or a column offset, not both");
        }
    }

    /** {@code limit} columns after the first {@code offset}. */
    public ColumnPaginationFilter(int limit, int offset) {
        this(limit, offset, io.basalt.bytes.Bytes.EMPTY);
    }

    /** {@code limit} columns from the first at or after {@code columnOffset}. */
    public ColumnPaginationFilter(int limit, byte[] columnOffset) {
        this(limit, 0, columnOffset);
    }

    @Override
    public byte[] columnOffset() {
        return columnOffset.clone();
    }

    @Override
    public String toString() {
        return columnOffset.length > 0 ? FilterText.call("ColumnPaginationFilter", limit, columnOffset)
                : FilterText.call("ColumnPaginationFilter", limit, offset);
    }
}
