package io.basalt.client.filter;

import java.util.Objects;

/** Rows whose row key passes {@code operator} against {@code comparator}, for example {@code RowFilter(<, 'binary:m')}. */
public record RowFilter(CompareOperator operator, ByteArrayComparable comparator) implements Filter {

    public RowFilter {
        Objects.requireNonNull(operator, "operator");
        Objects.requireNonNull(comparator, "comparator");
    }

    @Override
    public String toString() {
        return FilterText.call("RowFilter", operator, comparator);
    }
}
