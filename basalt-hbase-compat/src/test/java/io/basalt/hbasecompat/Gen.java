package io.basalt.hbasecompat;

import io.basalt.client.filter.BinaryComparator;
import io.basalt.client.filter.BinaryPrefixComparator;
import io.basalt.client.filter.ByteArrayComparable;
import io.basalt.client.filter.ColumnCountGetFilter;
import io.basalt.client.filter.ColumnPaginationFilter;
import io.basalt.client.filter.ColumnPrefixFilter;
import io.basalt.client.filter.ColumnRangeFilter;
import io.basalt.client.filter.CompareOperator;
import io.basalt.client.filter.FamilyFilter;
import io.basalt.client.filter.Filter;
import io.basalt.client.filter.FilterList;
import io.basalt.client.filter.FirstKeyOnlyFilter;
import io.basalt.client.filter.FuzzyRowFilter;
import io.basalt.client.filter.InclusiveStopFilter;
import io.basalt.client.filter.KeyOnlyFilter;
import io.basalt.client.filter.MultiRowRangeFilter;
import io.basalt.client.filter.MultipleColumnPrefixFilter;
import io.basalt.client.filter.NullComparator;
import io.basalt.client.filter.PageFilter;
import io.basalt.client.filter.PrefixFilter;
import io.basalt.client.filter.QualifierFilter;
import io.basalt.client.filter.RandomRowFilter;
import io.basalt.client.filter.RegexStringComparator;
import io.basalt.client.filter.RowFilter;
import io.basalt.client.filter.SingleColumnValueExcludeFilter;
import io.basalt.client.filter.SingleColumnValueFilter;
import io.basalt.client.filter.SkipFilter;
import io.basalt.client.filter.SubstringComparator;
import io.basalt.client.filter.TimestampsFilter;
import io.basalt.client.filter.ValueFilter;
import io.basalt.client.filter.WhileMatchFilter;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.TreeSet;

/**
 * Random data and random filters over one small alphabet, so that prefixes, ranges, fuzzy rules
 * and comparisons hit rows, columns and values often, near misses included: rows of one to three
 * of {@code a b c}, now and then with a 0x00 or 0xFF byte; families {@code f} and {@code g};
 * qualifiers {@code "" a ab b c}; one to three versions of a column at timestamps 1 to 5; text
 * and binary values.
 *
 * <p>Two modes. {@code strict} generates every filter, comparator, nesting and direction (only
 * the upstream bugs {@link Known} lists first are left out, because HBase hangs on them). The
 * default mode also leaves out the differences {@link Known} lists as reported and not yet
 * settled (HBase bugs not filed upstream, and places where Basalt's semantics are not HBase's):
 * it shapes filters and data so that they do not arise, each restriction naming the difference.
 * Run with {@code -Dbasalt.hbasecompat.strict=true} to see them all.
 */
final class Gen {

    static final int MAX_TS = 5;
    static final String[] QUALIFIERS = {"", "a", "ab", "b", "c"};
    static final String[] FAMILIES = {"f", "g"};
    static final byte[][] VALUES = {
        b(""), b("1"), b("12"), b("x"), b("X1"), b("ab"), {(byte) 0xFF}, {0, 'x'}, b("\u00e9"), {(byte) 0xE9}, b("b\nx"),
    };

    /** One differential case: the region's cells (visible, at most {@code maxVersions} a column), a filter, a direction. */
    record Case(List<Kv> cells, Filter filter, boolean reversed, int maxVersions) {
        Case with(List<Kv> newCells) {
            return new Case(newCells, filter, reversed, maxVersions);
        }

        Case with(Filter newFilter) {
            return new Case(cells, newFilter, reversed, maxVersions);
        }
    }

    /** What the data must look like for a filter, in the default mode (see {@link #shape}). */
    record Shape(int minRowLength, int maxColumns) {}

    static final boolean STRICT = Boolean.getBoolean("basalt.hbasecompat.strict");

    private final Random random;
    private final boolean strict;

    Gen(Random random) {
        this(random, STRICT);
    }

    Gen(Random random, boolean strict) {
        this.random = random;
        this.strict = strict;
    }

    /** A case with one filter, not a list (a wrapper around one now and then). */
    Case singleCase() {
        return next(this::single);
    }

    /** A case with a random filter list tree, nesting at most three deep. */
    Case treeCase() {
        return next(() -> tree(3));
    }

    /** Generates until a case meets none of the differences {@link Known} leaves out. */
    private Case next(java.util.function.Supplier<Filter> filters) {
        while (true) {
            Filter filter = filters.get();
            int versions = 1 + random.nextInt(3);
            boolean reversed = random.nextBoolean();
            // The family may keep more versions than the scan reads: the filter still sees them.
            Case c = new Case(cells(3, strict ? new Shape(1, 4) : shape(filter)), filter, reversed, versions);
            if (Known.excluded(c, strict) == null) {
                return c;
            }
        }
    }

    /**
     * A filter (one, or a list tree) for cells already written: in the default mode one whose
     * {@link #shape} the cells fit.
     */
    Filter filterFor(List<Kv> cells, boolean single) {
        while (true) {
            Filter f = single ? single() : tree(3);
            if (strict || fits(cells, shape(f))) {
                return f;
            }
        }
    }

    static boolean fits(List<Kv> cells, Shape shape) {
        java.util.Map<String, java.util.Set<String>> columns = new java.util.HashMap<>();
        for (Kv kv : cells) {
            String row = Kv.esc(kv.row());
            if (kv.row().length < shape.minRowLength()) {
                return false;
            }
            columns.computeIfAbsent(row, r -> new java.util.HashSet<>()).add(Kv.esc(kv.family()) + ":" + Kv.esc(kv.qualifier()));
        }
        return columns.values().stream().allMatch(s -> s.size() <= shape.maxColumns());
    }

    /** The data a filter may meet in the default mode; see {@link Known} for each difference named. */
    static Shape shape(Filter filter) {
        int minRowLength = 1;
        for (Filter f : Known.leaves(filter)) {
            if (f instanceof FuzzyRowFilter fuzzy) { // FUZZY_SHORT_ROW
                for (FuzzyRowFilter.Rule r : fuzzy.rules()) {
                    minRowLength = Math.max(minRowLength, r.row().length);
                }
            }
        }
        return new Shape(minRowLength, 4);
    }

    // ------------------------------------------------------------------ data

    /** Up to six rows of one or two families, each column one to {@code maxVersions} versions, shaped by {@code shape}. */
    List<Kv> cells(int maxVersions, Shape shape) {
        List<String> families = random.nextInt(3) == 0 ? List.of(FAMILIES[random.nextInt(2)])
                : List.of(FAMILIES);
        TreeSet<byte[]> rows = new TreeSet<>(Arrays::compareUnsigned);
        int rowCount = 1 + random.nextInt(6);
        while (rows.size() < rowCount) {
            rows.add(row(shape.minRowLength()));
        }
        List<Kv> cells = new ArrayList<>();
        for (byte[] row : rows) {
            TreeSet<String> columns = new TreeSet<>();
            int columnCount = 1 + random.nextInt(shape.maxColumns());
            for (int i = 0; i < columnCount; i++) {
                columns.add(families.get(random.nextInt(families.size())) + ":" + QUALIFIERS[random.nextInt(QUALIFIERS.length)]);
            }
            for (String column : columns) {
                int colon = column.indexOf(':');
                byte[] family = b(column.substring(0, colon));
                byte[] qualifier = b(column.substring(colon + 1));
                TreeSet<Long> stamps = new TreeSet<>();
                int versions = 1 + random.nextInt(maxVersions);
                while (stamps.size() < versions) {
                    stamps.add(1L + random.nextInt(MAX_TS));
                }
                for (long ts : stamps.descendingSet()) {
                    cells.add(new Kv(row, family, qualifier, ts, VALUES[random.nextInt(VALUES.length)]));
                }
            }
        }
        cells.sort(Kv.ORDER);
        return cells;
    }

    /** One to three of {@code a b c}, at least {@code minLength}; one time in ten a 0x00 or 0xFF byte somewhere. */
    byte[] row(int minLength) {
        int length = minLength + random.nextInt(Math.max(1, 4 - minLength));
        byte[] row = new byte[length];
        for (int i = 0; i < length; i++) {
            row[i] = (byte) ('a' + random.nextInt(3));
        }
        if (random.nextInt(10) == 0) {
            row[random.nextInt(length)] = random.nextBoolean() ? 0 : (byte) 0xFF;
        }
        return row;
    }

    byte[] row() {
        return row(1);
    }

    byte[] qualifier() {
        return b(QUALIFIERS[random.nextInt(QUALIFIERS.length)]);
    }

    byte[] value() {
        return VALUES[random.nextInt(VALUES.length)];
    }

    // ------------------------------------------------------------------ filters

    /** A filter tree: a list at the top, lists and wrappers nesting at most {@code maxDepth} deep. */
    Filter tree(int maxDepth) {
        return list(0, maxDepth);
    }

    private Filter node(int depth, int maxDepth) {
        if (depth < maxDepth) {
            int r = random.nextInt(10);
            if (r < 2) {
                return list(depth, maxDepth);
            }
            if (r == 2) {
                return wrapper(depth, maxDepth);
            }
        }
        return leaf();
    }

    private Filter wrapper(int depth, int maxDepth) {
        return random.nextBoolean() ? new WhileMatchFilter(node(depth + 1, maxDepth))
                : new SkipFilter(node(depth + 1, maxDepth));
    }

    private Filter list(int depth, int maxDepth) {
        boolean and = random.nextBoolean();
        List<Filter> children = new ArrayList<>();
        int n = random.nextInt(12) == 0 ? 0 : 1 + random.nextInt(3);
        for (int i = 0; i < n; i++) {
            children.add(node(depth + 1, maxDepth));
        }
        return new FilterList(and ? FilterList.Operator.MUST_PASS_ALL : FilterList.Operator.MUST_PASS_ONE, children);
    }

    /** One filter of any kind but a list; a wrapper around one, one time in twelve. */
    Filter single() {
        if (random.nextInt(12) == 0) {
            return random.nextBoolean() ? new WhileMatchFilter(leaf()) : new SkipFilter(leaf());
        }
        return leaf();
    }

    /** One filter of any kind but a list or wrapper. */
    Filter leaf() {
        return anyLeaf();
    }

    private Filter anyLeaf() {
        int kind = random.nextInt(21);
        boolean latestOnly = random.nextBoolean();
        return switch (kind) {
            case 0 -> new PrefixFilter(random.nextInt(8) == 0 ? new byte[0] : prefixOf(row()));
            case 1 -> new ColumnPrefixFilter(qualifier());
            case 2 -> columnPrefixes();
            case 3 -> {
                byte[] a = qualifier();
                byte[] z = qualifier();
                if (a.length > 0 && z.length > 0 && Arrays.compareUnsigned(a, z) > 0) {
                    byte[] t = a;
                    a = z;
                    z = t;
                }
                yield new ColumnRangeFilter(a, random.nextBoolean(), z, random.nextBoolean());
            }
            case 4 -> new RowFilter(op(), comparator(prefixOf(row())));
            case 5 -> new FamilyFilter(op(), comparator(b(FAMILIES[random.nextInt(2)])));
            case 6 -> new QualifierFilter(op(), comparator(qualifier()));
            case 7 -> new ValueFilter(op(), comparator(value()));
            case 8 -> new SingleColumnValueFilter(b(FAMILIES[random.nextInt(2)]), qualifier(), op(), comparator(value()),
                    random.nextBoolean(), latestOnly);
            case 9 -> new SingleColumnValueExcludeFilter(b(FAMILIES[random.nextInt(2)]), qualifier(), op(),
                    comparator(value()), random.nextBoolean(), latestOnly);
            case 10 -> new PageFilter(random.nextInt(5));
            case 11 -> new KeyOnlyFilter(random.nextBoolean());
            case 12 -> new FirstKeyOnlyFilter();
            case 13 -> new InclusiveStopFilter(row());
            case 14 -> {
                List<Long> stamps = new ArrayList<>();
                for (int i = 0, n = random.nextInt(8) == 0 ? 0 : 1 + random.nextInt(3); i < n; i++) {
                    stamps.add(1L + random.nextInt(MAX_TS));
                }
                yield new TimestampsFilter(stamps);
            }
            case 15 -> new ColumnCountGetFilter(random.nextInt(4));
            case 16 -> random.nextBoolean() ? new ColumnPaginationFilter(random.nextInt(4), random.nextInt(4))
                    : new ColumnPaginationFilter(random.nextInt(4), b(QUALIFIERS[1 + random.nextInt(QUALIFIERS.length - 1)]));
            case 17 -> new RandomRowFilter(random.nextBoolean() ? 0f : 1f);
            case 18 -> fuzzy();
            case 19 -> rowRanges();
            default -> new QualifierFilter(op(), comparator(qualifier()));
        };
    }

    /** In the default mode no prefix is a prefix of another (MULTI_PREFIX_SHADOWED). */
    private MultipleColumnPrefixFilter columnPrefixes() {
        List<byte[]> prefixes = new ArrayList<>();
        for (int i = 0, n = 1 + random.nextInt(3); i < n; i++) {
            byte[] p = qualifier();
            boolean overlaps = prefixes.stream().anyMatch(q -> !Arrays.equals(p, q) && (startsWith(p, q) || startsWith(q, p)));
            if (strict || !overlaps) {
                prefixes.add(p);
            }
        }
        return new MultipleColumnPrefixFilter(prefixes);
    }

    private static boolean startsWith(byte[] a, byte[] prefix) {
        return a.length >= prefix.length && Arrays.equals(a, 0, prefix.length, prefix, 0, prefix.length);
    }

    private FuzzyRowFilter fuzzy() {
        List<FuzzyRowFilter.Rule> rules = new ArrayList<>();
        for (int r = 0, n = 1 + random.nextInt(2); r < n; r++) {
            int length = 1 + random.nextInt(4);
            byte[] row = new byte[length];
            byte[] mask = new byte[length];
            for (int i = 0; i < length; i++) {
                row[i] = (byte) ('a' + random.nextInt(3));
                mask[i] = (byte) random.nextInt(2);
            }
            rules.add(new FuzzyRowFilter.Rule(row, mask));
        }
        return new FuzzyRowFilter(rules);
    }

    private MultiRowRangeFilter rowRanges() {
        List<MultiRowRangeFilter.RowRange> ranges = new ArrayList<>();
        for (int i = 0, n = 1 + random.nextInt(3); i < n; i++) {
            byte[] start = random.nextInt(6) == 0 ? new byte[0] : row();
            byte[] stop = random.nextInt(4) == 0 ? new byte[0] : row();
            if (start.length > 0 && stop.length > 0 && Arrays.compareUnsigned(start, stop) > 0) {
                byte[] t = start;
                start = stop;
                stop = t;
            }
            boolean startInclusive = random.nextBoolean();
            boolean stopInclusive = random.nextBoolean();
            if (Arrays.equals(start, stop)) {
                startInclusive = true;
                stopInclusive = true;
            }
            ranges.add(new MultiRowRangeFilter.RowRange(start, startInclusive, stop, stopInclusive));
        }
        try {
            return new MultiRowRangeFilter(ranges);
        } catch (IllegalArgumentException e) { // a range that holds no row, such as ('c', false, 'c\x00', false)
            return rowRanges();
        }
    }

    private byte[] prefixOf(byte[] row) {
        return Arrays.copyOf(row, 1 + random.nextInt(row.length));
    }

    CompareOperator op() {
        return CompareOperator.values()[random.nextInt(CompareOperator.values().length)];
    }

    /** A comparator around {@code operand}: binary, binary prefix, a regular expression, a substring or null. */
    ByteArrayComparable comparator(byte[] operand) {
        String text = new String(operand, StandardCharsets.ISO_8859_1);
        return switch (random.nextInt(8)) {
            case 0, 1 -> new BinaryComparator(operand);
            case 2 -> new BinaryPrefixComparator(random.nextBoolean() || operand.length == 0 ? operand
                    : Arrays.copyOf(operand, 1 + random.nextInt(operand.length)));
            case 3, 4 -> regex(text);
            case 5, 6 -> new SubstringComparator(ascii(text) ? text : random.nextBoolean() ? "x" : "B");
            default -> new NullComparator();
        };
    }

    private RegexStringComparator regex(String operand) {
        String literal = ascii(operand) && !operand.contains("\n") ? quote(operand) : "x";
        String pattern = switch (random.nextInt(10)) {
            case 0 -> literal + "$";
            case 1 -> "^" + literal;
            case 2 -> ".";
            case 3 -> "^$";
            case 4 -> "a|b";
            case 5 -> "x";
            case 6 -> "[0-9]";
            case 7 -> "^b.x$";
            case 8 -> random.nextBoolean() ? "\\xFF" : "^.$"; // a character, not a byte, on both sides
            default -> "x\\z";
        };
        return switch (random.nextInt(5)) {
            case 0 -> new RegexStringComparator(pattern, RegexStringComparator.CASE_INSENSITIVE | RegexStringComparator.DOTALL);
            case 1 -> new RegexStringComparator(pattern, 0);
            // REGEX_ENGINE: Java's multi-line ^ never matches at the end of the input, RE2's does
            case 2 -> new RegexStringComparator(pattern, strict || !pattern.contains("^") ? RegexStringComparator.MULTILINE : 0);
            default -> new RegexStringComparator(pattern);
        };
    }

    private static String quote(String literal) {
        StringBuilder out = new StringBuilder();
        for (char c : literal.toCharArray()) {
            if (Character.isLetterOrDigit(c)) {
                out.append(c);
            } else {
                out.append(String.format("\\x%02X", (int) c));
            }
        }
        return out.toString();
    }

    private static boolean ascii(String s) {
        return s.chars().allMatch(c -> c >= 0x20 && c < 0x7F);
    }

    static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
