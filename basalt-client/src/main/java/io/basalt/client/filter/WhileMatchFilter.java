package io.basalt.client.filter;

/**
 * Rows while {@code filter} keeps them: the first row it drops ends the scan; at the first cell it
 * does not plainly include (it drops the cell, or keeps it but moves on, as a column count's last
 * does), the scan ends after the cells of that row kept so far, as in HBase. Unless the inner
 * filter drops that row at its end, they are returned. The inner filter's removal of cells at the
 * row's end ({@code SingleColumnValueExcludeFilter}'s column) does not run, as in HBase.
 */
public record WhileMatchFilter(Filter filter) implements Filter {

    public WhileMatchFilter {
        FilterText.checkBounds(java.util.List.of(java.util.Objects.requireNonNull(filter, "filter")));
    }

    @Override
    public String toString() {
        return "WHILE " + FilterList.operand(filter);
    }
}
