package io.basalt.client.filter;

import java.util.Objects;

/**
 * Rows whose column {@code family:qualifier} passes {@code operator} against {@code comparator}.
 *
 * <p>With {@code latestVersionOnly} (the default) the column's newest version read decides; without
 * it, any version read that passes keeps the row. A row without the column is kept unless
 * {@code filterIfMissing}. The column must be among what the query reads (see {@link Filter}); the
 * filter drops no cell of a row it keeps.
 */
public record SingleColumnValueFilter(byte[] family, byte[] qualifier, CompareOperator operator, ByteArrayComparable comparator,
                 boolean filterIfMissing, boolean latestVersionOnly) implements Filter {

    public SingleColumnValueFilter {
        family = FilterText.copy(family, "family");
        qualifier = FilterText.copy(qualifier, "qualifier");
        Objects.requireNonNull(operator, "operator");
        Objects.requireNonNull(comparator, "comparator");
    }

    /** HBase's defaults: a row without the column is kept; the newest version decides. */
    public SingleColumnValueFilter(byte[] family, byte[] qualifier, CompareOperator operator, ByteArrayComparable comparator) {
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
        return FilterText.call("SingleColumnValueFilter", family, qualifier, operator, comparator, filterIfMissing, latestVersionOnly);
    }
}
