package io.basalt.client.filter;

/**
 * At most {@code pageSize} rows, after which the scan stops reading. Counted per scan on one node
 * (see {@link Filter}); {@link io.basalt.client.Scan#setLimit} is the exact limit across a cluster.
 */
public record PageFilter(long pageSize) implements Filter {

    public PageFilter {
        if (pageSize < 0) {
            throw new IllegalArgumentException("page size " + pageSize + " is negative");
        }
    }

    @Override
    public String toString() {
        return FilterText.call("PageFilter", pageSize);
    }
}
