package io.basalt.client.filter;

import java.util.Objects;

/** Cells whose qualifier passes {@code operator} against {@code comparator}, for example {@code QualifierFilter(<, 'binary:m')}. */
public record QualifierFilter(CompareOperator operator, ByteArrayComparable comparator) implements Filter {

    public QualifierFilter {
        Objects.requireNonNull(operator, "operator");
        Objects.requireNonNull(comparator, "comparator");
    }

    @Override
    public String toString() {
        return FilterText.call("QualifierFilter", operator, comparator);
    }
}
