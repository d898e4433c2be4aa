package io.basalt.client.filter;

/** Rows of which {@code filter} drops no cell: one dropped cell drops the whole row. */
public record SkipFilter(Filter filter) implements Filter {

    public SkipFilter {
        FilterText.checkBounds(java.util.List.of(java.util.Objects.requireNonNull(filter, "filter")));
    }

    @Override
    public String toString() {
        return "SKIP " + FilterList.operand(filter);
    }
}
