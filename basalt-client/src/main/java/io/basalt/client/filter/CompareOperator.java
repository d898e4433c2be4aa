package io.basalt.client.filter;

/**
 * How a comparing filter relates a cell's bytes to its comparator's operand: a cell passes
 * {@code RowFilter(LESS, binary:m)} when its row sorts before {@code m}. Comparators that match
 * rather than order (regular expression, substring) compare as equal when they match.
 */
public enum CompareOperator {
    LESS("<"),
    LESS_OR_EQUAL("<="),
    EQUAL("="),
    NOT_EQUAL("!="),
    GREATER_OR_EQUAL(">="),
    GREATER(">");

    private final String symbol;

    CompareOperator(String symbol) {
        this.symbol = symbol;
    }

    /** The operator as the filter language writes it. */
    public String symbol() {
        return symbol;
    }

    /**
     * Whether a cell passes, given {@code comparison}: the comparator's operand compared with the
     * cell's bytes ({@link ByteArrayComparable#compareTo}), negative when the operand sorts first.
     */
    public boolean passes(int comparison) {
        return switch (this) {
            case LESS -> comparison > 0;
            case LESS_OR_EQUAL -> comparison >= 0;
            case EQUAL -> comparison == 0;
            case NOT_EQUAL -> comparison != 0;
            case GREATER_OR_EQUAL -> comparison <= 0;
            case GREATER -> comparison < 0;
        };
    }

    /** The operator written {@code symbol} in the filter language, or {@code null}. */
    static CompareOperator ofSymbol(String symbol) {
        for (CompareOperator op : values()) {
            if (op.symbol.equals(symbol)) {
                return op;
            }
        }
        return null;
    }
}
