package io.basalt.client.filter;

/**
 * Rows for every cell of which {@code filter} answers a plain include: one cell it drops (or
 * includes but moves on from, as a column count does) drops the whole row. As HBase's, it shows
 * {@code filter} cells only: never row keys (a row filter inside judges nothing, so
 * {@code SKIP PrefixFilter('a')} drops every row), never its end-of-row decision or end of the
 * scan.
 */
public record SkipFilter(Filter filter) implements Filter {

    public SkipFilter {
        FilterText.checkBounds(java.util.List.of(java.util.Objects.requireNonNull(filter, "filter")));
    }

    @Override
    public String toString() {
        return "SKIP " + FilterList.operand(filter);
    }
}
