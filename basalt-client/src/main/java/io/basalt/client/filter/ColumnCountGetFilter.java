package io.basalt.client.filter;

/** The first {@code limit} columns of each row, one version each. */
public record ColumnCountGetFilter(int limit) implements Filter {

    public ColumnCountGetFilter {
        if (limit < 0) {
            throw new IllegalArgumentException("column limit " + limit + " is negative");
        }
    }

    @Override
    public String toString() {
        return FilterText.call("ColumnCountGetFilter", limit);
    }
}
