package io.basalt.client.filter;

import java.util.Objects;

/**
 * {@link SingleColumnValueFilter}, which also leaves the tested column out of the rows it keeps.
 */
public record SingleColumnValueExcludeFilter(byte[] family, byte[] qualifier, CompareOperator operator, ByteArrayComparable comparator,
                 boolean filterIfMissing, boolean latestVersionOnly) implements Filter {

    public SingleColumnValueExcludeFilter {
        family = FilterText.copy(family, "family");
        qualifier = FilterText.copy(qualifier, "qualifier");
        Objects.requireNonNull(operator, "operator");
        Objects.requireNonNull(comparator, "comparator");
    }

    /** HBase's defaults: a row without the column is kept; the newest version decides. */
    public SingleColumnValueExcludeFilter(byte[] family, byte[] qualifier, CompareOperator operator, ByteArrayComparable comparator) {
        this(family, qualifier, operator, comparator, false, true);
    }

    @Override
    public byte[] family() {
        return family.clone();
    }

    @Override
    public byte[] qualifier() {
        return qualifier.clone();
    }

    @Override
    public String toString() {
        return FilterText.call("SingleColumnValueExcludeFilter", family, qualifier, operator, comparator, filterIfMissing, latestVersionOnly);
    }
}
