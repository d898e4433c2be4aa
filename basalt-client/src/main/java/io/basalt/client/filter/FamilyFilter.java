package io.basalt.client.filter;

import java.util.Objects;

/** Cells whose family name passes {@code operator} against {@code comparator}, for example {@code FamilyFilter(<, 'binary:m')}. */
public record FamilyFilter(CompareOperator operator, ByteArrayComparable comparator) implements Filter {

    public FamilyFilter {
        Objects.requireNonNull(operator, "operator");
        Objects.requireNonNull(comparator, "comparator");
    }

    @Override
    public String toString() {
        return FilterText.call("FamilyFilter", operator, comparator);
    }
}
