package io.basalt.client.filter;

import java.util.Objects;

/** Cells whose value passes {@code operator} against {@code comparator}, for example {@code ValueFilter(<, 'binary:m')}. */
public record ValueFilter(CompareOperator operator, ByteArrayComparable comparator) implements Filter {

    public ValueFilter {
        Objects.requireNonNull(operator, "operator");
        Objects.requireNonNull(comparator, "comparator");
    }

    @Override
    public String toString() {
        return FilterText.call("ValueFilter", operator, comparator);
    }
}
