package io.basalt.client.filter;

/**
 * Rows while {@code filter} keeps them whole: the first row or cell it drops ends the scan, that
 * row included.
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
