package io.basalt.client.filter;

import java.util.List;
import java.util.Objects;
import java.util.stream.Collectors;

/**
 * Filters combined: with {@link Operator#MUST_PASS_ALL} a cell or row must pass every one of them
 * ({@code AND} in the filter language), with {@link Operator#MUST_PASS_ONE} at least one
 * ({@code OR}). Lists nest up to {@link Filter#MAX_DEPTH} deep. An empty list passes everything.
 */
public record FilterList(Operator operator, List<Filter> filters) implements Filter {

    /** How a list combines its filters. */
    public enum Operator {
        MUST_PASS_ALL,
        MUST_PASS_ONE
    }

    public FilterList {
        Objects.requireNonNull(operator, "operator");
        filters = List.copyOf(Objects.requireNonNull(filters, "filters"));
        FilterText.checkBounds(filters);
    }

    public FilterList(Operator operator, Filter... filters) {
        this(operator, List.of(filters));
    }

    /** Every one of {@code filters}. */
    public static FilterList all(Filter... filters) {
        return new FilterList(Operator.MUST_PASS_ALL, filters);
    }

    /** At least one of {@code filters}. */
    public static FilterList one(Filter... filters) {
        return new FilterList(Operator.MUST_PASS_ONE, filters);
    }

    @Override
    public String toString() {
        if (filters.isEmpty()) {
            return operator == Operator.MUST_PASS_ALL ? "FilterList(AND)" : "FilterList(OR)";
        }
        String joiner = operator == Operator.MUST_PASS_ALL ? " AND " : " OR ";
        return filters.stream().map(FilterList::operand).collect(Collectors.joining(joiner));
    }

    /** {@code filter}'s text, in parentheses when it is a list of several (so precedence reads right). */
    static String operand(Filter filter) {
        return filter instanceof FilterList list && list.filters.size() > 1 ? "(" + list + ")" : filter.toString();
    }
}
