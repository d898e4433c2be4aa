package io.basalt.client.filter;

import java.util.List;
import java.util.TreeSet;

/**
 * Cells whose timestamp is one of {@code timestamps} (kept sorted, without duplicates), among every
 * version the family keeps; the query's version count applies to the cells it keeps.
 */
public record TimestampsFilter(List<Long> timestamps) implements Filter {

    public TimestampsFilter {
        TreeSet<Long> sorted = new TreeSet<>(java.util.Objects.requireNonNull(timestamps, "timestamps"));
        if (!sorted.isEmpty() && sorted.first() < 0) {
            throw new IllegalArgumentException("timestamp " + sorted.first() + " is negative");
        }
        timestamps = List.copyOf(sorted);
    }

    @Override
    public String toString() {
        return FilterText.call("TimestampsFilter", timestamps.toArray());
    }
}
