package io.basalt.client.filter;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.basalt.bytes.Bytes;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The comparators' semantics, {@link CompareOperator#passes}, and the checks, normalisation and
 * defensive copies of the filter records.
 */
class FilterValuesTest {

    private static byte[] b(String s) {
        return Bytes.utf8(s);
    }

    private static byte[] bytes(int... values) {
        byte[] out = new byte[values.length];
        for (int i = 0; i < values.length; i++) {
            out[i] = (byte) values[i];
        }
        return out;
    }

    // ------------------------------------------------------------------ comparators

    @Test
    void binaryComparatorOrdersTheOperandAgainstTheCell() {
        BinaryComparator m = new BinaryComparator(b("m"));
        assertThat(m.compareTo(b("a"))).isPositive(); // the operand sorts after the cell
        assertThat(m.compareTo(b("z"))).isNegative();
        assertThat(m.compareTo(b("m"))).isZero();
        assertThat(m.compareTo(b("ma"))).isNegative(); // a prefix sorts first
        assertThat(m.compareTo(Bytes.EMPTY)).isPositive();
        assertThat(new BinaryComparator(Bytes.EMPTY).compareTo(Bytes.EMPTY)).isZero();
        assertThat(new BinaryComparator(Bytes.EMPTY).compareTo(b("a"))).isNegative();
    }

    @Test
    void binaryComparatorComparesUnsignedBytes() {
        assertThat(new BinaryComparator(bytes(0x01)).compareTo(bytes(0xFF))).isNegative(); // 0xFF > 0x01
        assertThat(new BinaryComparator(bytes(0xFF)).compareTo(bytes(0x01))).isPositive();
        assertThat(new BinaryComparator(bytes(0x7F)).compareTo(bytes(0x80))).isNegative();
        assertThat(CompareOperator.GREATER.passes(new BinaryComparator(bytes(0x01)).compareTo(bytes(0xFF)))).isTrue();
        assertThat(CompareOperator.LESS.passes(new BinaryComparator(bytes(0x01)).compareTo(bytes(0xFF)))).isFalse();
    }

    @Test
    void comparatorsReadASliceOfASegment() {
        MemorySegment slice = MemorySegment.ofArray(b("xxabcxx")).asSlice(2, 3);
        assertThat(new BinaryComparator(b("abc")).compareTo(slice)).isZero();
        assertThat(new BinaryPrefixComparator(b("ab")).compareTo(slice)).isZero();
        assertThat(new SubstringComparator("x").compareTo(slice)).isEqualTo(1);
        assertThat(new RegexStringComparator("^abc$").compareTo(slice)).isZero();
    }

    @Test
    void binaryPrefixComparatorComparesOnlyTheOperandsLength() {
        BinaryPrefixComparator ab = new BinaryPrefixComparator(b("ab"));
        assertThat(ab.compareTo(b("abc"))).isZero();
        assertThat(ab.compareTo(b("ab"))).isZero();
        assertThat(ab.compareTo(b("a"))).isPositive(); // a shorter cell sorts first
        assertThat(ab.compareTo(Bytes.EMPTY)).isPositive();
        assertThat(ab.compareTo(b("aa"))).isPositive();
        assertThat(ab.compareTo(b("b"))).isNegative();
        assertThat(ab.compareTo(b("ac"))).isNegative();
        assertThat(new BinaryPrefixComparator(Bytes.EMPTY).compareTo(b("anything"))).isZero();
        assertThat(new BinaryPrefixComparator(bytes(0x01)).compareTo(bytes(0xFF, 0x00))).isNegative();
        assertThat(new BinaryPrefixComparator(bytes(0xFF)).compareTo(bytes(0x01, 0xFF))).isPositive();
        assertThat(new BinaryPrefixComparator(bytes(0xFF)).compareTo(bytes(0xFF, 0x01))).isZero();
    }

    @Test
    void substringComparatorIgnoresCase() {
        SubstringComparator abc = new SubstringComparator("AbC");
        assertThat(abc.substring()).isEqualTo("abc");
        assertThat(abc.compareTo(b("xxabcxx"))).isZero();
        assertThat(abc.compareTo(b("XXABCXX"))).isZero();
        assertThat(abc.compareTo(b("aBc"))).isZero();
        assertThat(abc.compareTo(b("ab"))).isEqualTo(1);
        assertThat(abc.compareTo(b("a b c"))).isEqualTo(1);
        assertThat(new SubstringComparator("").compareTo(Bytes.EMPTY)).isZero();
        assertThat(new SubstringComparator("É").compareTo(b("café"))).isZero();
        assertThat(new SubstringComparator("x").compareTo(b("abc"))).isEqualTo(1);
    }

    @Test
    void regexStringComparatorFindsAMatchAnywhere() {
        assertThat(new RegexStringComparator("b+").compareTo(b("abbbc"))).isZero();
        assertThat(new RegexStringComparator("bc").compareTo(b("abcd"))).isZero();
        assertThat(new RegexStringComparator("^bc").compareTo(b("abcd"))).isEqualTo(1);
        assertThat(new RegexStringComparator("a.c$").compareTo(b("xxabc"))).isZero();
        assertThat(new RegexStringComparator("x").compareTo(b("abc"))).isEqualTo(1);
        assertThat(new RegexStringComparator("").compareTo(Bytes.EMPTY)).isZero();
        assertThat(new RegexStringComparator("\\d{3}").compareTo(b("ab123cd"))).isZero();
    }

    @Test
    void regexStringComparatorFlags() {
        assertThat(new RegexStringComparator("abc").compareTo(b("xABCx"))).isEqualTo(1);
        assertThat(new RegexStringComparator("abc", RegexStringComparator.CASE_INSENSITIVE).compareTo(b("xABCx"))).isZero();
        assertThat(new RegexStringComparator("a.b", 0).compareTo(b("a\nb"))).isEqualTo(1);
        assertThat(new RegexStringComparator("a.b").compareTo(b("a\nb"))).as("DOTALL by default, as in HBase").isZero();
        assertThat(new RegexStringComparator("a.b", RegexStringComparator.DOTALL).compareTo(b("a\nb"))).isZero();
        assertThat(new RegexStringComparator("^b$").compareTo(b("a\nb\nc"))).isEqualTo(1);
        assertThat(new RegexStringComparator("^b$", RegexStringComparator.MULTILINE).compareTo(b("a\nb\nc"))).isZero();
        assertThatThrownBy(() -> new RegexStringComparator("a", 1 << 10)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("unknown bits");
    }

    /** As HBase's: the cell is decoded as UTF-8 and the pattern matches characters. */
    @Test
    void regexStringComparatorMatchesUtf8Text() {
        RegexStringComparator ff = new RegexStringComparator("\\xFF");
        assertThat(ff.compareTo(b("ÿ"))).isZero(); // U+00FF is C3 BF in UTF-8
        assertThat(ff.compareTo(bytes(0x00, 0xFF, 0x00))).isEqualTo(1); // a lone 0xFF decodes to U+FFFD
        // a non-ASCII character matches its UTF-8 encoding, and '.' is one character
        assertThat(new RegexStringComparator("é").compareTo(bytes(0xC3, 0xA9))).isZero();
        assertThat(new RegexStringComparator("^.$").compareTo(b("é"))).isZero();
        assertThat(new RegexStringComparator("^..$").compareTo(b("é"))).isEqualTo(1);
        // each malformed sequence is one U+FFFD
        assertThat(new RegexStringComparator("^.$").compareTo(bytes(0xFF))).isZero();
        assertThat(new RegexStringComparator("^a\\x{FFFD}b$").compareTo(bytes('a', 0x9C, 'b'))).isZero();
        assertThat(new RegexStringComparator("a[\\x80-\\xFF]b").compareTo(bytes('a', 0x9C, 'b'))).isEqualTo(1);
        // RE2 folds case across Unicode
        assertThat(new RegexStringComparator("é", RegexStringComparator.CASE_INSENSITIVE).compareTo(b("É"))).isZero();
    }

    @Test
    void regexStringComparatorRefusesABadOrLongPattern() {
        assertThatThrownBy(() -> new RegexStringComparator("(")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("regular expression '(' does not parse");
        assertThatThrownBy(() -> new RegexStringComparator("(?<=a)b")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new RegexStringComparator("(a)\\1")).isInstanceOf(IllegalArgumentException.class);
        assertThat(new RegexStringComparator("a".repeat(RegexStringComparator.MAX_PATTERN_LENGTH)).pattern())
                .hasSize(RegexStringComparator.MAX_PATTERN_LENGTH);
        assertThatThrownBy(() -> new RegexStringComparator("a".repeat(RegexStringComparator.MAX_PATTERN_LENGTH + 1)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("the limit is 16384 bytes");
        // the bound is in UTF-8 bytes: 8193 two-byte characters are over it
        assertThatThrownBy(() -> new RegexStringComparator("é".repeat(RegexStringComparator.MAX_PATTERN_LENGTH / 2 + 1)))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void regexStringComparatorsAreValues() {
        assertThat(new RegexStringComparator("a+")).isEqualTo(new RegexStringComparator("a+", RegexStringComparator.DOTALL));
        assertThat(new RegexStringComparator("a+")).isNotEqualTo(new RegexStringComparator("a+", 0));
        assertThat(new RegexStringComparator("a+").toString()).isEqualTo("'regexstring:a+'");
        assertThat(new RegexStringComparator("a+", RegexStringComparator.CASE_INSENSITIVE).toString())
                .isEqualTo("'regexstring:(?i-s)a+'");
        assertThat(new RegexStringComparator("a+").compiled().pattern()).isEqualTo("a+");
    }

    /** As HBase's NullComparator: 1 for every present value, so = keeps nothing, != and < everything. */
    @Test
    void nullComparatorAnswersAsHBasesDoes() {
        NullComparator nul = new NullComparator();
        assertThat(nul.compareTo(Bytes.EMPTY)).isPositive();
        assertThat(nul.compareTo(bytes(0x00))).isPositive();
        assertThat(nul.compareTo(bytes(0xFF, 0xFF))).isPositive();
        assertThat(CompareOperator.EQUAL.passes(nul.compareTo(b("v")))).isFalse();
        assertThat(CompareOperator.NOT_EQUAL.passes(nul.compareTo(b("v")))).isTrue();
        assertThat(CompareOperator.GREATER.passes(nul.compareTo(b("v")))).isFalse();
        assertThat(CompareOperator.LESS.passes(nul.compareTo(b("v")))).isTrue();
        assertThat(nul.toString()).isEqualTo("'null:'");
    }

    // ------------------------------------------------------------------ operators

    @ParameterizedTest
    @CsvSource({
        // operator, passes when the operand sorts after the cell (1), equal (0), before (-1)
        "LESS, true, false, false",
        "LESS_OR_EQUAL, true, true, false",
        "EQUAL, false, true, false",
        "NOT_EQUAL, true, false, true",
        "GREATER_OR_EQUAL, false, true, true",
        "GREATER, false, false, true"})
    void compareOperatorPasses(CompareOperator op, boolean operandAfter, boolean equal, boolean operandBefore) {
        assertThat(op.passes(1)).isEqualTo(operandAfter);
        assertThat(op.passes(Integer.MAX_VALUE)).isEqualTo(operandAfter);
        assertThat(op.passes(0)).isEqualTo(equal);
        assertThat(op.passes(-1)).isEqualTo(operandBefore);
        assertThat(op.passes(Integer.MIN_VALUE)).isEqualTo(operandBefore);
    }

    @Test
    void compareOperatorsReadTheWayTheirNamesSay() {
        // RowFilter(LESS, binary:m) keeps rows before m
        BinaryComparator m = new BinaryComparator(b("m"));
        assertThat(CompareOperator.LESS.passes(m.compareTo(b("a")))).isTrue();
        assertThat(CompareOperator.LESS.passes(m.compareTo(b("m")))).isFalse();
        assertThat(CompareOperator.LESS_OR_EQUAL.passes(m.compareTo(b("m")))).isTrue();
        assertThat(CompareOperator.GREATER.passes(m.compareTo(b("z")))).isTrue();
        assertThat(CompareOperator.GREATER_OR_EQUAL.passes(m.compareTo(b("a")))).isFalse();
    }

    @Test
    void compareOperatorSymbols() {
        assertThat(List.of(CompareOperator.values()).stream().map(CompareOperator::symbol))
                .containsExactly("<", "<=", "=", "!=", ">=", ">");
        assertThat(CompareOperator.ofSymbol("=<")).isNull();
        assertThat(CompareOperator.ofSymbol("==")).isNull();
        assertThat(CompareOperator.ofSymbol("")).isNull();
    }

    // ------------------------------------------------------------------ record checks

    @Test
    void countsMustNotBeNegative() {
        assertThatThrownBy(() -> new PageFilter(-1)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("page size -1 is negative");
        assertThat(new PageFilter(0).pageSize()).isZero();
        assertThatThrownBy(() -> new ColumnCountGetFilter(-1)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("negative");
        assertThatThrownBy(() -> new ColumnPaginationFilter(-1, 0)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("must not be negative");
        assertThatThrownBy(() -> new ColumnPaginationFilter(1, -1)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("must not be negative");
        assertThatThrownBy(() -> new ColumnPaginationFilter(1, 2, b("c"))).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("not both");
        assertThatThrownBy(() -> new TimestampsFilter(List.of(1L, -5L))).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("timestamp -5 is negative");
    }

    @Test
    void columnRangeFilterRefusesAMinimumAfterTheMaximum() {
        assertThatThrownBy(() -> new ColumnRangeFilter(b("b"), true, b("a"), true)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("column range from b to a is empty");
        assertThatThrownBy(() -> new ColumnRangeFilter(bytes(0xFF), true, bytes(0x01), true))
                .isInstanceOf(IllegalArgumentException.class);
        // equal bounds, and an empty bound on either side, are ranges
        assertThat(new ColumnRangeFilter(b("a"), true, b("a"), true).minColumn()).isEqualTo(b("a"));
        assertThat(new ColumnRangeFilter(b("z"), true, Bytes.EMPTY, true).maxColumn()).isEmpty();
        assertThat(new ColumnRangeFilter(Bytes.EMPTY, true, b("a"), false).minColumn()).isEmpty();
    }

    @Test
    void randomRowFilterChanceIsBetweenZeroAndOne() {
        for (float bad : new float[] {1.5f, -0.1f, Float.NaN, Float.POSITIVE_INFINITY, Math.nextUp(1f)}) {
            assertThatThrownBy(() -> new RandomRowFilter(bad)).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("is not between 0 and 1");
        }
        assertThat(new RandomRowFilter(0f).chance()).isZero();
        assertThat(new RandomRowFilter(1f).chance()).isEqualTo(1f);
    }

    @Test
    void fuzzyRowFilterRules() {
        assertThatThrownBy(() -> new FuzzyRowFilter.Rule(b("abc"), bytes(0, 1))).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("fuzzy row of 3 bytes has a mask of 2; they must be the same length");
        assertThatThrownBy(() -> new FuzzyRowFilter.Rule(b("ab"), bytes(0, 2))).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("fuzzy mask byte 2 is neither 0 (fixed) nor 1 (any)");
        assertThatThrownBy(() -> new FuzzyRowFilter.Rule(b("ab"), bytes(0, -1))).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new FuzzyRowFilter(List.of())).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("at least one rule");
        FuzzyRowFilter.Rule rule = new FuzzyRowFilter.Rule(b("ab"), bytes(1, 0));
        assertThat(rule.maskText()).isEqualTo("10");
    }

    private static MultiRowRangeFilter.RowRange range(String start, boolean si, String stop, boolean so) {
        return new MultiRowRangeFilter.RowRange(b(start), si, b(stop), so);
    }

    /** The filter's ranges as {@code [start, stop)} strings, 0x00 written as {@code ~}. */
    private static List<String> ranges(MultiRowRangeFilter f) {
        List<String> out = new ArrayList<>();
        for (MultiRowRangeFilter.RowRange r : f.ranges()) {
            assertThat(r.startInclusive()).isTrue();
            assertThat(r.stopInclusive()).isFalse();
            out.add("[" + new String(r.start(), java.nio.charset.StandardCharsets.ISO_8859_1).replace('\0', '~') + ","
                    + new String(r.stop(), java.nio.charset.StandardCharsets.ISO_8859_1).replace('\0', '~') + ")");
        }
        return out;
    }

    @Test
    void multiRowRangeFilterSortsAndMergesOverlappingRanges() {
        assertThat(ranges(new MultiRowRangeFilter(List.of(range("b", true, "d", false), range("a", true, "c", false)))))
                .containsExactly("[a,d)");
        assertThat(ranges(new MultiRowRangeFilter(List.of(range("a", true, "b", false), range("b", true, "c", false)))))
                .containsExactly("[a,c)"); // adjacent ranges merge
        assertThat(ranges(new MultiRowRangeFilter(List.of(range("x", true, "z", false), range("a", true, "b", false)))))
                .containsExactly("[a,b)", "[x,z)");
        assertThat(ranges(new MultiRowRangeFilter(List.of(range("a", true, "z", false), range("c", true, "d", false)))))
                .containsExactly("[a,z)"); // a contained range disappears
        assertThat(ranges(new MultiRowRangeFilter(List.of(range("c", true, "", false), range("a", true, "b", false),
                range("d", true, "e", false))))).containsExactly("[a,b)", "[c,)"); // an open end swallows what follows
        assertThat(ranges(new MultiRowRangeFilter(List.of(range("a", true, "b", true), range("b", false, "c", false)))))
                .containsExactly("[a,c)"); // [a, b] and (b, c) meet at b~
        assertThat(ranges(new MultiRowRangeFilter(List.of(range("a", true, "b", false), range("b", false, "c", false)))))
                .containsExactly("[a,b)", "[b~,c)"); // b itself is in neither
        assertThat(ranges(new MultiRowRangeFilter(List.of(range("", true, "b", false), range("", false, "a", true)))))
                .containsExactly("[,b)"); // an empty start is the table's first row, inclusive or not
    }

    @Test
    void multiRowRangeFilterRefusesAnEmptyRange() {
        assertThatThrownBy(() -> new MultiRowRangeFilter(List.of(range("b", true, "a", true))))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("row range from b to a holds no row");
        assertThatThrownBy(() -> new MultiRowRangeFilter(List.of(range("a", true, "a", false))))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("holds no row");
        assertThatThrownBy(() -> new MultiRowRangeFilter(List.of(range("a", false, "a", true))))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("holds no row");
        assertThatThrownBy(() -> new MultiRowRangeFilter(List.of(range("a", true, "c", false), range("b", false, "b", true))))
                .isInstanceOf(IllegalArgumentException.class); // one empty range among good ones
        assertThatThrownBy(() -> new MultiRowRangeFilter(List.of())).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("at least one range");
        // one row: [a, a]
        assertThat(ranges(new MultiRowRangeFilter(List.of(range("a", true, "a", true))))).containsExactly("[a,a~)");
    }

    @Test
    void listsOfPrefixesAndTimestampsAreSortedWithoutDuplicates() {
        MultipleColumnPrefixFilter f = new MultipleColumnPrefixFilter(List.of(bytes(0xFF), bytes(0x01), bytes(0x01), b("")));
        assertThat(f.prefixes()).containsExactly(Bytes.EMPTY, bytes(0x01), bytes(0xFF));
        assertThat(new TimestampsFilter(List.of(9L, 1L, 9L)).timestamps()).containsExactly(1L, 9L);
    }

    @Test
    void recordsCopyTheirArraysInAndOut() {
        byte[] prefix = b("abc");
        PrefixFilter f = new PrefixFilter(prefix);
        prefix[0] = 'z';
        assertThat(f.prefix()).isEqualTo(b("abc"));
        f.prefix()[0] = 'z';
        assertThat(f.prefix()).isEqualTo(b("abc"));
        byte[] operand = b("v");
        BinaryComparator c = new BinaryComparator(operand);
        operand[0] = 'w';
        c.operand()[0] = 'w';
        assertThat(c.compareTo(b("v"))).isZero();
        List<byte[]> prefixes = new ArrayList<>(List.of(b("a")));
        MultipleColumnPrefixFilter m = new MultipleColumnPrefixFilter(prefixes);
        prefixes.getFirst()[0] = 'q';
        m.prefixes().getFirst()[0] = 'q';
        assertThat(m.prefixes().getFirst()).isEqualTo(b("a"));
        byte[] mask = bytes(0, 1);
        FuzzyRowFilter.Rule rule = new FuzzyRowFilter.Rule(b("ab"), mask);
        mask[0] = 5;
        assertThat(rule.mask()).containsExactly(0, 1);
    }

    @Test
    void nullsAreRefused() {
        assertThatThrownBy(() -> new PrefixFilter(null)).isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> new RowFilter(null, new NullComparator())).isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> new RowFilter(CompareOperator.EQUAL, null)).isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> new SkipFilter(null)).isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> FilterList.all(new FirstKeyOnlyFilter(), null)).isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> Filter.parse((byte[]) null)).isInstanceOf(NullPointerException.class);
    }

    // ------------------------------------------------------------------ tree bounds

    @Test
    void treeDepthAndCountBoundsHoldForRecordsToo() {
        Filter f = new FirstKeyOnlyFilter();
        for (int i = 1; i < Filter.MAX_DEPTH; i++) {
            f = i % 2 == 0 ? new SkipFilter(f) : FilterList.all(f, new FirstKeyOnlyFilter());
        }
        assertThat(FilterText.depth(f)).isEqualTo(Filter.MAX_DEPTH);
        Filter deepest = f;
        assertThatThrownBy(() -> new WhileMatchFilter(deepest)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("filters nest 33 deep; the limit is 32");
        assertThatThrownBy(() -> FilterList.one(deepest)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("nest 33 deep");
        Filter[] leaves = new Filter[Filter.MAX_FILTERS - 1];
        java.util.Arrays.fill(leaves, new FirstKeyOnlyFilter());
        FilterList full = FilterList.all(leaves);
        assertThat(FilterText.count(full)).isEqualTo(Filter.MAX_FILTERS);
        assertThatThrownBy(() -> new SkipFilter(full)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("a filter tree of 1025 filters; the limit is 1024");
        assertThat(FilterText.count(FilterList.all())).isEqualTo(1);
        assertThat(FilterText.depth(FilterList.all())).isEqualTo(1);
    }

    // ------------------------------------------------------------------ text

    @Test
    void toStringWritesTheFilterLanguage() {
        assertThat(new ValueFilter(CompareOperator.NOT_EQUAL, new BinaryPrefixComparator(b("a'b"))).toString())
                .isEqualTo("ValueFilter(!=, 'binaryprefix:a''b')");
        assertThat(new SingleColumnValueFilter(b("f"), b("q"), CompareOperator.EQUAL, new NullComparator()).toString())
                .isEqualTo("SingleColumnValueFilter('f', 'q', =, 'null:', false, true)");
        assertThat(new ColumnRangeFilter(b("a"), true, b("b"), false).toString())
                .isEqualTo("ColumnRangeFilter('a', true, 'b', false)");
        assertThat(new TimestampsFilter(List.of(2L, 1L)).toString()).isEqualTo("TimestampsFilter(1, 2)");
        assertThat(new KeyOnlyFilter(true).toString()).isEqualTo("KeyOnlyFilter(true)");
        assertThat(new KeyOnlyFilter(false).toString()).isEqualTo("KeyOnlyFilter()");
        assertThat(new ColumnPaginationFilter(3, b("q")).toString()).isEqualTo("ColumnPaginationFilter(3, 'q')");
        assertThat(new RandomRowFilter(0.25f).toString()).isEqualTo("RandomRowFilter(0.25)");
        assertThat(new SkipFilter(FilterList.one(new FirstKeyOnlyFilter(), new KeyOnlyFilter())).toString())
                .isEqualTo("SKIP (FirstKeyOnlyFilter() OR KeyOnlyFilter())");
        assertThat(FilterList.all(FilterList.one(new FirstKeyOnlyFilter(), new KeyOnlyFilter()), new PageFilter(1)).toString())
                .isEqualTo("(FirstKeyOnlyFilter() OR KeyOnlyFilter()) AND PageFilter(1)");
        assertThat(FilterList.one().toString()).isEqualTo("FilterList(OR)");
        assertThat(new RowFilter(CompareOperator.EQUAL, new RegexStringComparator("a'b")).toString())
                .isEqualTo("RowFilter(=, 'regexstring:a''b')");
    }

    @Test
    void regularExpressionsThatWouldNestOrExpandTooFarAreRefusedBeforeCompiling() {
        for (String fine : List.of("[0-9]{4}-[0-9]{2}-[0-9]{2}", "a{1000}", "(ab|cd){3}x*", "(?i)user_[a-z]+\\d{1,3}",
                "[{}()]+", "\\{10000\\}", "(".repeat(100) + "a" + ")".repeat(100))) {
            assertThat(new RegexStringComparator(fine).pattern()).isEqualTo(fine);
        }
        assertThatThrownBy(() -> new RegexStringComparator("a{1001}")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("repeats 1001 times; the limit is 1000");
        assertThatThrownBy(() -> new RegexStringComparator("(".repeat(101) + "a" + ")".repeat(101)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("nests groups more than 100 deep");
        assertThatThrownBy(() -> new RegexStringComparator("((a{100}){100}){100}"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("expands to more than");
        assertThatThrownBy(() -> new RegexStringComparator("a{900}".repeat(30)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("expands to more than");
    }
}
