package io.basalt.client.filter;

import java.lang.foreign.MemorySegment;

/**
 * Null, which sorts before every value a cell can hold, the empty one included ({@code 'null:'}):
 * every present cell compares as greater. As in HBase, its use is
 * {@code SingleColumnValueFilter(f, q, =, null:)} with filter-if-missing off, which keeps exactly
 * the rows that lack the column.
 */
public record NullComparator() implements ByteArrayComparable {

    @Override
    public int compareTo(MemorySegment bytes) {
        return -1;
    }

    @Override
    public String toString() {
        return "'null:'";
    }
}
