package io.basalt.client.filter;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Reads HBase's filter language into a {@link Filter}:
 *
 * <pre>
 * expression := and ( OR and )*
 * and        := unary ( AND unary )*
 * unary      := SKIP unary | WHILE unary | '(' expression ')' | call
 * call       := Name '(' [ argument ( ',' argument )* ] ')'
 * argument   := 'quoted bytes' | number | true | false | &lt; | &lt;= | = | != | &gt;= | &gt;
 * </pre>
 *
 * A quoted literal holds raw bytes, a quote written twice; a comparator is a literal
 * {@code 'type:operand'} with type {@code binary}, {@code binaryprefix}, {@code regexstring},
 * {@code substring} or {@code null}. Keywords are case-insensitive. Beyond HBase's list it reads
 * {@code RandomRowFilter(chance)}, {@code FuzzyRowFilter('row', 'mask', ...)} with a mask of
 * {@code 0} (fixed) and {@code 1} (any) characters, and
 * {@code MultiRowRangeFilter('start', inclusive, 'stop', inclusive, ...)}.
 */
final class FilterParser {

    /** The filters the language names, as {@code show_filters} lists them. */
    static final List<String> NAMES = List.of("ColumnCountGetFilter", "ColumnPaginationFilter", "ColumnPrefixFilter",
            "ColumnRangeFilter", "FamilyFilter", "FirstKeyOnlyFilter", "FuzzyRowFilter", "InclusiveStopFilter",
            "KeyOnlyFilter", "MultiRowRangeFilter", "MultipleColumnPrefixFilter", "PageFilter", "PrefixFilter",
            "QualifierFilter", "RandomRowFilter", "RowFilter", "SingleColumnValueExcludeFilter",
            "SingleColumnValueFilter", "TimestampsFilter", "ValueFilter");

    /** HBase filters Basalt does not have, and what to use instead. */
    private static final Map<String, String> UNSUPPORTED = Map.of(
            "ColumnValueFilter", "use SingleColumnValueFilter, with the column selected, to keep the rows that match",
            "DependentColumnFilter", "read the reference column and compare timestamps in the client",
            "FirstKeyValueMatchingQualifiersFilter", "use FirstKeyOnlyFilter with the columns selected",
            "MultiRowRangeFilterByPrefix", "use MultiRowRangeFilter",
            "ColumnValueFilterWithRegex", "use ValueFilter with a regexstring comparator");

    private final byte[] text;
    private int at;
    private int depth;

    private FilterParser(byte[] text) {
        this.text = text;
    }

    static Filter parse(byte[] expression) {
        FilterParser parser = new FilterParser(java.util.Objects.requireNonNull(expression, "expression"));
        parser.skipSpace();
        if (parser.at >= expression.length) {
            throw new IllegalArgumentException("filter expression is empty");
        }
        Filter filter = parser.expression();
        parser.skipSpace();
        if (parser.at < expression.length) {
            throw parser.error("unexpected '" + parser.rest() + "' after the filter");
        }
        return filter;
    }

    private Filter expression() {
        List<Filter> terms = new ArrayList<>();
        terms.add(and());
        while (keyword("OR")) {
            terms.add(and());
        }
        return terms.size() == 1 ? terms.getFirst() : new FilterList(FilterList.Operator.MUST_PASS_ONE, terms);
    }

    private Filter and() {
        List<Filter> terms = new ArrayList<>();
        terms.add(unary());
        while (keyword("AND")) {
            terms.add(unary());
        }
        return terms.size() == 1 ? terms.getFirst() : new FilterList(FilterList.Operator.MUST_PASS_ALL, terms);
    }

    private Filter unary() {
        if (++depth > Filter.MAX_DEPTH) {
            throw error("filters nest more than " + Filter.MAX_DEPTH + " deep");
        }
        try {
            if (keyword("SKIP")) {
                return new SkipFilter(unary());
            }
            if (keyword("WHILE")) {
                return new WhileMatchFilter(unary());
            }
            skipSpace();
            if (peek() == '(') {
                at++;
                Filter inner = expression();
                expect(')');
                return inner;
            }
            return call();
        } finally {
            depth--;
        }
    }

    private Filter call() {
        skipSpace();
        int start = at;
        while (at < text.length && (Character.isLetterOrDigit(text[at]) || text[at] == '_')) {
            at++;
        }
        if (start == at) {
            throw error(at >= text.length ? "expected a filter at the end" : "expected a filter name at '" + rest() + "'");
        }
        String name = new String(text, start, at - start, StandardCharsets.US_ASCII);
        String hint = UNSUPPORTED.get(name);
        if (hint != null) {
            throw new IllegalArgumentException(name + " is not supported by Basalt; " + hint);
        }
        if (!NAMES.contains(name)) {
            throw new IllegalArgumentException("unknown filter '" + name + "'; Basalt has " + String.join(", ", NAMES));
        }
        expect('(');
        List<Object> args = new ArrayList<>();
        skipSpace();
        if (peek() == ')') {
            at++;
        } else {
            do {
                args.add(argument());
            } while (accept(','));
            expect(')');
        }
        try {
            return build(name, new Args(name, args));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(name + ": " + e.getMessage(), e);
        }
    }

    // ------------------------------------------------------------------ arguments

    /** A compare operator written as a symbol. */
    private record Symbol(CompareOperator operator) {}

    private Object argument() {
        skipSpace();
        int c = peek();
        if (c == '\'') {
            return literal();
        }
        if (isOperatorChar(c)) {
            int start = at;
            while (isOperatorChar(peek())) {
                at++; // the whole run, so that '=<' or '<>' is refused as written rather than read as '=' or '<'
            }
            String symbol = new String(text, start, at - start, StandardCharsets.US_ASCII);
            CompareOperator op = CompareOperator.ofSymbol(symbol);
            if (op == null) {
                at = start;
                throw error("'" + symbol + "' is not a compare operator (<, <=, =, !=, >=, >)");
            }
            return new Symbol(op);
        }
        int start = at;
        while (at < text.length && (Character.isLetterOrDigit(text[at]) || text[at] == '-' || text[at] == '.'
                || text[at] == '_')) {
            at++;
        }
        String word = new String(text, start, at - start, StandardCharsets.US_ASCII);
        if (word.equalsIgnoreCase("true") || word.equalsIgnoreCase("false")) {
            return Boolean.parseBoolean(word.toLowerCase(Locale.ROOT));
        }
        if (word.isEmpty()) {
            throw error(at >= text.length ? "expected an argument at the end" : "expected an argument at '" + rest() + "'");
        }
        try {
            return new java.math.BigDecimal(word);
        } catch (NumberFormatException e) {
            throw error("'" + word + "' is not a quoted string, a number, true, false or a compare operator");
        }
    }

    private static boolean isOperatorChar(int c) {
        return c == '<' || c == '>' || c == '=' || c == '!';
    }

    private byte[] literal() {
        at++; // the opening quote
        java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
        while (true) {
            if (at >= text.length) {
                throw error("a quoted string is not closed");
            }
            byte b = text[at++];
            if (b == '\'') {
                if (at < text.length && text[at] == '\'') {
                    at++;
                    out.write('\'');
                } else {
                    return out.toByteArray();
                }
            } else {
                out.write(b);
            }
        }
    }

    /** The arguments of one call, read by type with errors that name the position. */
    private static final class Args {
        private final String name;
        private final List<Object> values;

        Args(String name, List<Object> values) {
            this.name = name;
            this.values = values;
        }

        int size() {
            return values.size();
        }

        void expectCount(int... counts) {
            for (int c : counts) {
                if (values.size() == c) {
                    return;
                }
            }
            throw new IllegalArgumentException("takes " + java.util.Arrays.stream(counts).mapToObj(String::valueOf)
                    .collect(java.util.stream.Collectors.joining(" or ")) + " arguments, not " + values.size());
        }

        private Object get(int i, Class<?> type, String what) {
            Object v = values.get(i);
            if (!type.isInstance(v)) {
                throw new IllegalArgumentException("argument " + (i + 1) + " (" + what + ") should be " + describe(type)
                        + ", not " + describe(v.getClass()));
            }
            return v;
        }

        byte[] bytes(int i, String what) {
            return (byte[]) get(i, byte[].class, what);
        }

        boolean bool(int i, String what) {
            return (Boolean) get(i, Boolean.class, what);
        }

        long integer(int i, String what, long max) {
            java.math.BigDecimal d = (java.math.BigDecimal) get(i, java.math.BigDecimal.class, what);
            try {
                long v = d.longValueExact();
                if (v < 0) { // every count, offset and timestamp is non-negative; and no int cast below may wrap
                    throw new IllegalArgumentException("argument " + (i + 1) + " (" + what + ") " + v + " is negative");
                }
                if (v > max) {
                    throw new IllegalArgumentException("argument " + (i + 1) + " (" + what + ") " + v + " is above " + max);
                }
                return v;
            } catch (ArithmeticException e) {
                throw new IllegalArgumentException("argument " + (i + 1) + " (" + what + ") " + d + " is not a whole number"
                        + " in range", e);
            }
        }

        float decimal(int i, String what) {
            return ((java.math.BigDecimal) get(i, java.math.BigDecimal.class, what)).floatValue();
        }

        CompareOperator operator(int i) {
            return ((Symbol) get(i, Symbol.class, "compare operator")).operator();
        }

        ByteArrayComparable comparator(int i) {
            return FilterParser.comparator(bytes(i, "comparator"));
        }

        private static String describe(Class<?> type) {
            if (type == byte[].class) {
                return "a quoted string";
            }
            if (type == Boolean.class) {
                return "true or false";
            }
            if (type == Symbol.class) {
                return "a compare operator";
            }
            return "a number";
        }

        @Override
        public String toString() {
            return name;
        }
    }

    private static Filter build(String name, Args a) {
        return switch (name) {
            case "KeyOnlyFilter" -> {
                a.expectCount(0, 1);
                yield new KeyOnlyFilter(a.size() == 1 && a.bool(0, "lengthAsValue"));
            }
            case "FirstKeyOnlyFilter" -> {
                a.expectCount(0);
                yield new FirstKeyOnlyFilter();
            }
            case "PrefixFilter" -> {
                a.expectCount(1);
                yield new PrefixFilter(a.bytes(0, "prefix"));
            }
            case "ColumnPrefixFilter" -> {
                a.expectCount(1);
                yield new ColumnPrefixFilter(a.bytes(0, "prefix"));
            }
            case "MultipleColumnPrefixFilter" -> {
                if (a.size() == 0) {
                    throw new IllegalArgumentException("takes at least one prefix");
                }
                List<byte[]> prefixes = new ArrayList<>();
                for (int i = 0; i < a.size(); i++) {
                    prefixes.add(a.bytes(i, "prefix"));
                }
                yield new MultipleColumnPrefixFilter(prefixes);
            }
            case "ColumnCountGetFilter" -> {
                a.expectCount(1);
                yield new ColumnCountGetFilter((int) a.integer(0, "limit", Integer.MAX_VALUE));
            }
            case "PageFilter" -> {
                a.expectCount(1);
                yield new PageFilter(a.integer(0, "page size", Long.MAX_VALUE));
            }
            case "ColumnPaginationFilter" -> {
                a.expectCount(2);
                int limit = (int) a.integer(0, "limit", Integer.MAX_VALUE);
                yield a.values.get(1) instanceof byte[] column ? new ColumnPaginationFilter(limit, column)
                        : new ColumnPaginationFilter(limit, (int) a.integer(1, "offset", Integer.MAX_VALUE));
            }
            case "InclusiveStopFilter" -> {
                a.expectCount(1);
                yield new InclusiveStopFilter(a.bytes(0, "stop row"));
            }
            case "TimestampsFilter" -> {
                List<Long> timestamps = new ArrayList<>();
                for (int i = 0; i < a.size(); i++) {
                    timestamps.add(a.integer(i, "timestamp", Long.MAX_VALUE));
                }
                yield new TimestampsFilter(timestamps);
            }
            case "RowFilter" -> {
                a.expectCount(2);
                yield new RowFilter(a.operator(0), a.comparator(1));
            }
            case "FamilyFilter" -> {
                a.expectCount(2);
                yield new FamilyFilter(a.operator(0), a.comparator(1));
            }
            case "QualifierFilter" -> {
                a.expectCount(2);
                yield new QualifierFilter(a.operator(0), a.comparator(1));
            }
            case "ValueFilter" -> {
                a.expectCount(2);
                yield new ValueFilter(a.operator(0), a.comparator(1));
            }
            case "SingleColumnValueFilter", "SingleColumnValueExcludeFilter" -> {
                a.expectCount(4, 6);
                byte[] family = a.bytes(0, "family");
                byte[] qualifier = a.bytes(1, "qualifier");
                CompareOperator op = a.operator(2);
                ByteArrayComparable comparator = a.comparator(3);
                boolean ifMissing = a.size() == 6 && a.bool(4, "filterIfMissing");
                boolean latest = a.size() != 6 || a.bool(5, "latestVersionOnly");
                yield name.equals("SingleColumnValueFilter")
                        ? new SingleColumnValueFilter(family, qualifier, op, comparator, ifMissing, latest)
                        : new SingleColumnValueExcludeFilter(family, qualifier, op, comparator, ifMissing, latest);
            }
            case "ColumnRangeFilter" -> {
                a.expectCount(4);
                yield new ColumnRangeFilter(a.bytes(0, "minColumn"), a.bool(1, "minInclusive"), a.bytes(2, "maxColumn"),
                        a.bool(3, "maxInclusive"));
            }
            case "RandomRowFilter" -> {
                a.expectCount(1);
                yield new RandomRowFilter(a.decimal(0, "chance"));
            }
            case "FuzzyRowFilter" -> {
                if (a.size() == 0 || a.size() % 2 != 0) {
                    throw new IllegalArgumentException("takes pairs of a row and a mask, not " + a.size() + " arguments");
                }
                List<FuzzyRowFilter.Rule> rules = new ArrayList<>();
                for (int i = 0; i < a.size(); i += 2) {
                    rules.add(new FuzzyRowFilter.Rule(a.bytes(i, "row"), mask(a.bytes(i + 1, "mask"))));
                }
                yield new FuzzyRowFilter(rules);
            }
            case "MultiRowRangeFilter" -> {
                if (a.size() == 0 || a.size() % 4 != 0) {
                    throw new IllegalArgumentException("takes groups of start, inclusive, stop, inclusive, not "
                            + a.size() + " arguments");
                }
                List<MultiRowRangeFilter.RowRange> ranges = new ArrayList<>();
                for (int i = 0; i < a.size(); i += 4) {
                    ranges.add(new MultiRowRangeFilter.RowRange(a.bytes(i, "start row"), a.bool(i + 1, "start inclusive"),
                            a.bytes(i + 2, "stop row"), a.bool(i + 3, "stop inclusive")));
                }
                yield new MultiRowRangeFilter(ranges);
            }
            default -> throw new IllegalStateException("no builder for " + name);
        };
    }

    private static byte[] mask(byte[] text) {
        byte[] mask = new byte[text.length];
        for (int i = 0; i < text.length; i++) {
            if (text[i] != '0' && text[i] != '1') {
                throw new IllegalArgumentException("a fuzzy mask is written with 0 (fixed) and 1 (any), not '"
                        + (char) (text[i] & 0xFF) + "'");
            }
            mask[i] = (byte) (text[i] - '0');
        }
        return mask;
    }

    /** Reads {@code 'type:operand'}. */
    static ByteArrayComparable comparator(byte[] text) {
        int colon = -1;
        for (int i = 0; i < text.length; i++) {
            if (text[i] == ':') {
                colon = i;
                break;
            }
        }
        if (colon < 0) {
            throw new IllegalArgumentException("comparator '" + new String(text, StandardCharsets.UTF_8)
                    + "' has no type; write 'binary:...', 'binaryprefix:...', 'regexstring:...', 'substring:...' or 'null:'");
        }
        String type = new String(text, 0, colon, StandardCharsets.UTF_8).toLowerCase(Locale.ROOT);
        byte[] operand = java.util.Arrays.copyOfRange(text, colon + 1, text.length);
        return switch (type) {
            case "binary" -> new BinaryComparator(operand);
            case "binaryprefix" -> new BinaryPrefixComparator(operand);
            case "regexstring" -> new RegexStringComparator(new String(operand, StandardCharsets.UTF_8));
            case "substring" -> new SubstringComparator(new String(operand, StandardCharsets.UTF_8));
            case "null" -> new NullComparator();
            default -> throw new IllegalArgumentException("comparator type '" + type
                    + "' is unknown; use binary, binaryprefix, regexstring, substring or null");
        };
    }

    // ------------------------------------------------------------------ tokens

    private boolean keyword(String word) {
        skipSpace();
        int end = at + word.length();
        if (end > text.length) {
            return false;
        }
        String found = new String(text, at, word.length(), StandardCharsets.US_ASCII);
        if (!found.equalsIgnoreCase(word)) {
            return false;
        }
        if (end < text.length && (Character.isLetterOrDigit(text[end]) || text[end] == '_')) {
            return false; // a filter name that starts with the keyword
        }
        at = end;
        return true;
    }

    private void skipSpace() {
        while (at < text.length && (text[at] == ' ' || text[at] == '\t' || text[at] == '\n' || text[at] == '\r')) {
            at++;
        }
    }

    private int peek() {
        return at < text.length ? text[at] : -1;
    }

    private boolean accept(char c) {
        skipSpace();
        if (peek() == c) {
            at++;
            return true;
        }
        return false;
    }

    private void expect(char c) {
        if (!accept(c)) {
            throw error(at >= text.length ? "expected '" + c + "' at the end" : "expected '" + c + "' at '" + rest() + "'");
        }
    }

    private String rest() {
        int end = Math.min(text.length, at + 20);
        return new String(text, at, end - at, StandardCharsets.UTF_8) + (end < text.length ? "..." : "");
    }

    private IllegalArgumentException error(String message) {
        return new IllegalArgumentException("filter expression, at character " + (at + 1) + ": " + message);
    }
}
