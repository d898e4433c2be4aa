package io.basalt.client.filter;

import java.lang.foreign.MemorySegment;

/**
 * Null ({@code 'null:'}): every present cell, the empty value included, is unequal to it, so with
 * {@code =} nothing passes and with {@code !=} everything does. Its use, as in HBase, is
 * {@code SingleColumnValueFilter(f, q, =, null:)} with filter-if-missing off, which keeps exactly
 * the rows that lack the column. The ordering operators follow HBase's, whose comparator answers
 * 1 for any present value: {@code <} and {@code <=} keep every cell, {@code >} and {@code >=} none.
 */
public record NullComparator() implements ByteArrayComparable {

    @Override
    public int compareTo(MemorySegment bytes) {
        return 1;
    }

    @Override
    public String toString() {
        return "'null:'";
    }
}
