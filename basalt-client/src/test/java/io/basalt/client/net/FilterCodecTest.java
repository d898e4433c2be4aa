package io.basalt.client.net;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.basalt.bytes.Bytes;
import io.basalt.client.Get;
import io.basalt.client.Scan;
import io.basalt.client.TimeRange;
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
import io.basalt.protocol.MalformedFrameException;
import io.basalt.protocol.Wire;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BiConsumer;
import java.util.function.Function;
import java.util.function.Supplier;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Positive;
import net.jqwik.api.constraints.Size;
import org.junit.jupiter.api.Test;

/**
 * {@link FilterCodec}: every filter and comparator survives encoding and decoding (compared by
 * re-encoding, since records holding arrays have no value equality), inside a Get and a Scan too;
 * hostile encodings fail with a {@link MalformedFrameException}, or an {@link IllegalArgumentException}
 * for a value that decodes but is invalid, and never with anything else. Also the property that a
 * filter's {@code toString} parses back to the same filter.
 */
class FilterCodecTest {

    private static byte[] b(String s) {
        return Bytes.utf8(s);
    }

    static byte[] encode(Filter filter) {
        ByteBuf buf = Unpooled.buffer();
        FilterCodec.write(buf, filter);
        return ByteBufUtil.getBytes(buf);
    }

    private static Filter decode(byte[] bytes) {
        ByteBuf buf = Unpooled.wrappedBuffer(bytes);
        Filter f = FilterCodec.read(buf);
        Wire.end(buf, "filter");
        return f;
    }

    private static ByteBuf bytes(int... values) {
        ByteBuf buf = Unpooled.buffer();
        for (int v : values) {
            buf.writeByte(v);
        }
        return buf;
    }

    /** Decodes, re-encodes to the same bytes, and refuses every proper prefix cleanly. */
    private static Filter roundTrip(Filter filter) {
        byte[] encoded = encode(filter);
        Filter back = decode(encoded);
        assertThat(back.getClass()).isEqualTo(filter.getClass());
        assertThat(encode(back)).as("%s", filter).isEqualTo(encoded);
        assertThat(back.toString()).isEqualTo(filter.toString());
        for (int cut = 0; cut < encoded.length; cut++) {
            ByteBuf prefix = Unpooled.wrappedBuffer(encoded, 0, cut);
            int at = cut;
            assertThatThrownBy(() -> FilterCodec.read(prefix)).as("the first %d of %d bytes of %s", at, encoded.length, filter)
                    .isInstanceOfAny(MalformedFrameException.class, IllegalArgumentException.class);
        }
        return back;
    }

    private static final Filter A = new PrefixFilter(b("a"));
    private static final Filter B = new PrefixFilter(b("b"));

    static List<Filter> everyFilter() {
        List<Filter> all = new ArrayList<>();
        all.add(new PrefixFilter(b("row")));
        all.add(new PrefixFilter(Bytes.EMPTY));
        all.add(new ColumnPrefixFilter(new byte[] {0, (byte) 0xFF}));
        all.add(new MultipleColumnPrefixFilter(List.of(b("b"), b("a"), new byte[] {(byte) 0x80})));
        all.add(new ColumnRangeFilter(b("a"), true, b("c"), false));
        all.add(new ColumnRangeFilter(Bytes.EMPTY, false, Bytes.EMPTY, true));
        for (CompareOperator op : CompareOperator.values()) {
            all.add(new RowFilter(op, new BinaryComparator(b("m"))));
        }
        for (ByteArrayComparable c : everyComparator()) {
            all.add(new RowFilter(CompareOperator.EQUAL, c));
            all.add(new FamilyFilter(CompareOperator.NOT_EQUAL, c));
            all.add(new QualifierFilter(CompareOperator.LESS, c));
            all.add(new ValueFilter(CompareOperator.GREATER, c));
            all.add(new SingleColumnValueFilter(b("f"), b("q"), CompareOperator.LESS_OR_EQUAL, c, true, false));
            all.add(new SingleColumnValueExcludeFilter(b("f"), b("q"), CompareOperator.GREATER_OR_EQUAL, c, false, true));
        }
        all.add(new SingleColumnValueFilter(b("f"), b("q"), CompareOperator.EQUAL, new NullComparator()));
        all.add(new SingleColumnValueExcludeFilter(Bytes.EMPTY, Bytes.EMPTY, CompareOperator.EQUAL, new NullComparator()));
        all.add(new PageFilter(0));
        all.add(new PageFilter(Long.MAX_VALUE));
        all.add(new KeyOnlyFilter());
        all.add(new KeyOnlyFilter(true));
        all.add(new FirstKeyOnlyFilter());
        all.add(new InclusiveStopFilter(b("z")));
        all.add(new TimestampsFilter(List.of(5L, 1L, Long.MAX_VALUE, 0L)));
        all.add(new TimestampsFilter(List.of()));
        all.add(new ColumnCountGetFilter(0));
        all.add(new ColumnCountGetFilter(Integer.MAX_VALUE));
        all.add(new ColumnPaginationFilter(10, 5));
        all.add(new ColumnPaginationFilter(Integer.MAX_VALUE, b("q")));
        all.add(new RandomRowFilter(0f));
        all.add(new RandomRowFilter(0.5f));
        all.add(new RandomRowFilter(1f));
        all.add(new RandomRowFilter(Float.MIN_VALUE));
        all.add(new FuzzyRowFilter(List.of(new FuzzyRowFilter.Rule(b("ab?d"), new byte[] {0, 0, 1, 0}),
                new FuzzyRowFilter.Rule(Bytes.EMPTY, Bytes.EMPTY))));
        all.add(new MultiRowRangeFilter(List.of(new MultiRowRangeFilter.RowRange(b("x"), true, b("z"), true),
                new MultiRowRangeFilter.RowRange(b("a"), false, b("c"), false))));
        all.add(new MultiRowRangeFilter(List.of(new MultiRowRangeFilter.RowRange(Bytes.EMPTY, true, Bytes.EMPTY, false))));
        all.add(new WhileMatchFilter(A));
        all.add(new SkipFilter(A));
        all.add(new SkipFilter(new WhileMatchFilter(FilterList.all(A, B))));
        all.add(FilterList.all(A, B));
        all.add(FilterList.one(A, FilterList.all(A, B), new SkipFilter(B)));
        all.add(FilterList.all());
        all.add(FilterList.one(A));
        return all;
    }

    static List<ByteArrayComparable> everyComparator() {
        return List.of(new BinaryComparator(b("v")), new BinaryComparator(new byte[] {(byte) 0xFF, 0}),
                new BinaryPrefixComparator(b("pre")), new BinaryPrefixComparator(Bytes.EMPTY),
                new RegexStringComparator("^a.*\\d$"),
                new RegexStringComparator("é|x", RegexStringComparator.CASE_INSENSITIVE | RegexStringComparator.DOTALL
                        | RegexStringComparator.MULTILINE),
                new SubstringComparator("MiXeD"), new SubstringComparator(""), new NullComparator());
    }

    // ------------------------------------------------------------------ round trips

    @Test
    void everyFilterAndComparatorRoundTrips() {
        List<Filter> all = everyFilter();
        for (Filter f : all) {
            roundTrip(f);
        }
        // every filter class is among them
        assertThat(all.stream().map(Object::getClass).distinct()).hasSize(Filter.class.getPermittedSubclasses().length);
        assertThat(everyComparator().stream().map(Object::getClass).distinct())
                .hasSize(ByteArrayComparable.class.getPermittedSubclasses().length);
    }

    @Test
    void decodedFieldsAreTheWrittenOnes() {
        SingleColumnValueFilter f = (SingleColumnValueFilter) roundTrip(new SingleColumnValueFilter(b("f"), b("q"),
                CompareOperator.NOT_EQUAL, new RegexStringComparator("x+", RegexStringComparator.DOTALL), true, false));
        assertThat(f.family()).isEqualTo(b("f"));
        assertThat(f.qualifier()).isEqualTo(b("q"));
        assertThat(f.operator()).isEqualTo(CompareOperator.NOT_EQUAL);
        assertThat(f.comparator()).isEqualTo(new RegexStringComparator("x+", RegexStringComparator.DOTALL));
        assertThat(f.filterIfMissing()).isTrue();
        assertThat(f.latestVersionOnly()).isFalse();
        RandomRowFilter r = (RandomRowFilter) roundTrip(new RandomRowFilter(0.3f));
        assertThat(r.chance()).isEqualTo(0.3f);
        ColumnPaginationFilter p = (ColumnPaginationFilter) roundTrip(new ColumnPaginationFilter(4, b("col")));
        assertThat(p.limit()).isEqualTo(4);
        assertThat(p.columnOffset()).isEqualTo(b("col"));
        TimestampsFilter t = (TimestampsFilter) roundTrip(new TimestampsFilter(List.of(9L, 2L)));
        assertThat(t.timestamps()).containsExactly(2L, 9L);
    }

    @Test
    void theLayoutIsTheDocumentedOne() {
        assertThat(encode(new PrefixFilter(b("ab")))).containsExactly(0, 2, 'a', 'b');
        assertThat(encode(new ValueFilter(CompareOperator.GREATER, new NullComparator()))).containsExactly(7, 5, 4);
        assertThat(encode(new SkipFilter(new FirstKeyOnlyFilter()))).containsExactly(21, 12);
        assertThat(encode(FilterList.one(new FirstKeyOnlyFilter(), new KeyOnlyFilter(true))))
                .containsExactly(22, 1, 2, 12, 11, 1);
        assertThat(encode(new RowFilter(CompareOperator.LESS, new RegexStringComparator("a", 2))))
                .containsExactly(4, 0, 2, 1, 'a', 2);
    }

    private static <T> void messageRoundTrip(T value, BiConsumer<ByteBuf, T> writer, Function<ByteBuf, T> reader,
                                             BiConsumer<T, T> same) {
        ByteBuf buf = Unpooled.buffer();
        writer.accept(buf, value);
        byte[] encoded = ByteBufUtil.getBytes(buf);
        ByteBuf whole = Unpooled.wrappedBuffer(encoded);
        T back = reader.apply(whole);
        Wire.end(whole, "round trip");
        same.accept(back, value);
        ByteBuf again = Unpooled.buffer();
        writer.accept(again, back);
        assertThat(ByteBufUtil.getBytes(again)).isEqualTo(encoded);
        for (int cut = 0; cut < encoded.length; cut++) {
            ByteBuf prefix = Unpooled.wrappedBuffer(encoded, 0, cut);
            assertThatThrownBy(() -> reader.apply(prefix))
                    .isInstanceOfAny(MalformedFrameException.class, IllegalArgumentException.class);
        }
    }

    @Test
    void aGetCarriesItsFilter() {
        Filter filter = FilterList.all(new ColumnPrefixFilter(b("q")),
                new ValueFilter(CompareOperator.EQUAL, new SubstringComparator("x")));
        Get get = Get.of("row").addFamily(b("f")).readVersions(3).setFilter(filter);
        messageRoundTrip(get, Messages::writeGet, Messages::readGet, (back, sent) -> {
            assertThat(back.row()).isEqualTo(b("row"));
            assertThat(back.maxVersions()).isEqualTo(3);
            assertThat(back.filter()).isNotNull();
            assertThat(encode(back.filter())).isEqualTo(encode(filter));
        });
        messageRoundTrip(Get.of("row"), Messages::writeGet, Messages::readGet,
                (back, sent) -> assertThat(back.filter()).isNull());
    }

    @Test
    void aScanCarriesItsFilterBeforeItsOwnFields() {
        Filter filter = new SkipFilter(new SingleColumnValueFilter(b("f"), b("q"), CompareOperator.GREATER,
                new BinaryComparator(b("5")), true, true));
        Scan scan = new Scan().withStartRow(b("a"), false).withStopRow(b("z"), true).setReversed(true).setLimit(7)
                .setCaching(11).setBatch(2).setTimeRange(new TimeRange(1, 100)).setFilter(filter);
        messageRoundTrip(scan, Messages::writeScan, Messages::readScan, (back, sent) -> {
            assertThat(encode(back.filter())).isEqualTo(encode(filter));
            assertThat(back.startRow()).isEqualTo(b("a"));
            assertThat(back.startInclusive()).isFalse();
            assertThat(back.stopRow()).isEqualTo(b("z"));
            assertThat(back.reversed()).isTrue();
            assertThat(back.limit()).isEqualTo(7);
            assertThat(back.caching()).isEqualTo(11);
            assertThat(back.batch()).isEqualTo(2);
        });
        messageRoundTrip(new Scan(), Messages::writeScan, Messages::readScan,
                (back, sent) -> assertThat(back.filter()).isNull());
    }

    @Test
    void aQueryWhoseFilterFlagIsNotABooleanIsRefused() {
        ByteBuf buf = Unpooled.buffer();
        Messages.writeGet(buf, Get.of("r"));
        buf.setByte(buf.writerIndex() - 1, 2); // the has-filter flag is the last byte of a filterless get
        assertThatThrownBy(() -> Messages.readGet(buf)).isInstanceOf(MalformedFrameException.class)
                .hasMessageContaining("has filter is 2");
    }

    // ------------------------------------------------------------------ hostile input

    @Test
    void anUnknownFilterTagIsRefused() {
        assertThatThrownBy(() -> FilterCodec.read(bytes(23))).isInstanceOf(MalformedFrameException.class)
                .hasMessage("filter type 23 is unknown (0 to 22)");
        assertThatThrownBy(() -> FilterCodec.read(bytes(255))).isInstanceOf(MalformedFrameException.class)
                .hasMessageContaining("filter type 255 is unknown");
    }

    @Test
    void anEmptyBodyIsRefused() {
        assertThatThrownBy(() -> FilterCodec.read(bytes())).isInstanceOf(MalformedFrameException.class)
                .hasMessageContaining("filter type");
    }

    @Test
    void anUnknownComparatorTypeIsRefused() {
        assertThatThrownBy(() -> FilterCodec.read(bytes(7, 2, 5))).isInstanceOf(MalformedFrameException.class)
                .hasMessage("comparator type 5 is unknown (0 to 4)");
        ByteBuf column = Unpooled.buffer();
        column.writeByte(8);
        Wire.writeBytes(column, b("f"));
        Wire.writeBytes(column, b("q"));
        column.writeByte(2);
        column.writeByte(200);
        assertThatThrownBy(() -> FilterCodec.read(column)).isInstanceOf(MalformedFrameException.class)
                .hasMessageContaining("comparator type 200 is unknown");
    }

    @Test
    void anUnknownOperatorOrdinalIsRefused() {
        assertThatThrownBy(() -> FilterCodec.read(bytes(4, 6, 4))).isInstanceOf(MalformedFrameException.class)
                .hasMessage("compare operator 6 is unknown (0 to 5)");
        assertThatThrownBy(() -> FilterCodec.read(bytes(6, 255, 4))).isInstanceOf(MalformedFrameException.class)
                .hasMessageContaining("compare operator 255 is unknown");
    }

    @Test
    void aListOperatorAboveOneIsRefused() {
        assertThatThrownBy(() -> FilterCodec.read(bytes(22, 2, 1, 12))).isInstanceOf(MalformedFrameException.class)
                .hasMessage("filter list operator 2 is not 0 (all) or 1 (one)");
        assertThatThrownBy(() -> FilterCodec.read(bytes(22, 255, 0))).isInstanceOf(MalformedFrameException.class)
                .hasMessageContaining("filter list operator 255");
    }

    @Test
    void aNonBooleanIsRefused() {
        assertThatThrownBy(() -> FilterCodec.read(bytes(11, 2))).isInstanceOf(MalformedFrameException.class)
                .hasMessageContaining("length as value is 2, not a boolean");
    }

    /** A tag then a varint count of {@code count} and {@code trailing} bytes. */
    private static ByteBuf counted(int tag, int count, int trailing, int... before) {
        ByteBuf buf = bytes(tag);
        for (int v : before) {
            buf.writeByte(v);
        }
        Wire.writeVarint(buf, count);
        buf.writeZero(trailing);
        return buf;
    }

    @Test
    void aCountLargerThanTheRemainingBytesIsRefusedBeforeAnythingIsSized() {
        assertThatThrownBy(() -> FilterCodec.read(counted(22, 1000, 1, 0))).isInstanceOf(MalformedFrameException.class)
                .hasMessage("filter list size 1000 cannot fit in 1 bytes");
        assertThatThrownBy(() -> FilterCodec.read(counted(22, Integer.MAX_VALUE, 10, 1)))
                .isInstanceOf(MalformedFrameException.class).hasMessageContaining("cannot fit");
        assertThatThrownBy(() -> FilterCodec.read(counted(2, Integer.MAX_VALUE, 3))).isInstanceOf(MalformedFrameException.class)
                .hasMessageContaining("column prefix count 2147483647 cannot fit in 3 bytes");
        assertThatThrownBy(() -> FilterCodec.read(counted(14, 100, 8))).isInstanceOf(MalformedFrameException.class)
                .hasMessageContaining("timestamp count 100 cannot fit");
        assertThatThrownBy(() -> FilterCodec.read(counted(18, 50, 2))).isInstanceOf(MalformedFrameException.class)
                .hasMessageContaining("fuzzy rule count 50 cannot fit");
        assertThatThrownBy(() -> FilterCodec.read(counted(19, 50, 2))).isInstanceOf(MalformedFrameException.class)
                .hasMessageContaining("row range count 50 cannot fit");
        // a count that fits the bytes but not eight-byte timestamps fails when they run out
        assertThatThrownBy(() -> FilterCodec.read(counted(14, 8, 8))).isInstanceOf(MalformedFrameException.class)
                .hasMessageContaining("timestamp");
        // a byte-string length beyond what is left
        assertThatThrownBy(() -> FilterCodec.read(counted(0, 1 << 30, 4))).isInstanceOf(MalformedFrameException.class)
                .hasMessageContaining("prefix");
        // a count beyond an int
        ByteBuf huge = bytes(22, 0);
        Wire.writeVarlong(huge, 1L << 40);
        assertThatThrownBy(() -> FilterCodec.read(huge)).isInstanceOf(MalformedFrameException.class)
                .hasMessageContaining("filter list size");
    }

    @Test
    void aNestingBombIsRefusedWithoutOverflowingTheStack() {
        for (int tag : new int[] {20, 21}) {
            ByteBuf buf = Unpooled.buffer();
            for (int i = 0; i < 10_000; i++) {
                buf.writeByte(tag);
            }
            buf.writeByte(12);
            assertThatThrownBy(() -> FilterCodec.read(buf)).isInstanceOf(MalformedFrameException.class)
                    .hasMessage("filters nest more than 32 deep");
        }
        ByteBuf lists = Unpooled.buffer();
        for (int i = 0; i < 10_000; i++) {
            lists.writeBytes(new byte[] {22, 0, 1});
        }
        lists.writeByte(12);
        assertThatThrownBy(() -> FilterCodec.read(lists)).isInstanceOf(MalformedFrameException.class)
                .hasMessage("filters nest more than 32 deep");
    }

    @Test
    void nestingUpToMaxDepthDecodes() {
        ByteBuf deepest = Unpooled.buffer();
        for (int i = 0; i < Filter.MAX_DEPTH - 1; i++) {
            deepest.writeByte(21);
        }
        deepest.writeByte(12);
        Filter f = FilterCodec.read(deepest);
        assertThat(f.toString()).isEqualTo("SKIP ".repeat(Filter.MAX_DEPTH - 1) + "FirstKeyOnlyFilter()");
        ByteBuf tooDeep = Unpooled.buffer();
        for (int i = 0; i < Filter.MAX_DEPTH; i++) {
            tooDeep.writeByte(i % 2 == 0 ? 21 : 20);
        }
        tooDeep.writeByte(12);
        assertThatThrownBy(() -> FilterCodec.read(tooDeep)).isInstanceOf(MalformedFrameException.class);
    }

    private static ByteBuf flatList(int children) {
        ByteBuf buf = bytes(22, 1);
        Wire.writeVarint(buf, children);
        for (int i = 0; i < children; i++) {
            buf.writeByte(12);
        }
        return buf;
    }

    @Test
    void aTreeOfMoreThanMaxFiltersIsRefused() {
        Filter largest = FilterCodec.read(flatList(Filter.MAX_FILTERS - 1));
        assertThat(((FilterList) largest).filters()).hasSize(Filter.MAX_FILTERS - 1);
        assertThatThrownBy(() -> FilterCodec.read(flatList(Filter.MAX_FILTERS))).isInstanceOf(MalformedFrameException.class)
                .hasMessage("filter tree holds more than 1024 filters");
        assertThatThrownBy(() -> FilterCodec.read(flatList(1_000_000))).isInstanceOf(MalformedFrameException.class)
                .hasMessage("filter tree holds more than 1024 filters");
        // counted across levels: lists of SKIP wrappers
        ByteBuf wrapped = bytes(22, 0);
        Wire.writeVarint(wrapped, 600);
        for (int i = 0; i < 600; i++) {
            wrapped.writeBytes(new byte[] {21, 12});
        }
        assertThatThrownBy(() -> FilterCodec.read(wrapped)).isInstanceOf(MalformedFrameException.class)
                .hasMessageContaining("more than 1024 filters");
    }

    private static ByteBuf regexFilter(String pattern, int flags) {
        ByteBuf buf = bytes(7, 2, 2);
        Wire.writeString(buf, pattern);
        Wire.writeVarint(buf, flags);
        return buf;
    }

    @Test
    void anInvalidRegexIsAnIllegalArgument() {
        assertThatThrownBy(() -> FilterCodec.read(regexFilter("(", 0))).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("regular expression '(' does not parse");
        assertThatThrownBy(() -> FilterCodec.read(regexFilter("a{1001}", 0))).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> FilterCodec.read(regexFilter("a", 1 << 20))).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("unknown bits");
        assertThatThrownBy(() -> FilterCodec.read(regexFilter("a".repeat(RegexStringComparator.MAX_PATTERN_LENGTH + 1), 0)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("the limit is 16384 bytes");
    }

    /**
     * RE2/J parses and compiles recursively, and the 16 KiB pattern bound allows about 8,000 nested
     * groups: without the nesting check, decoding a hostile query threw StackOverflowError on the
     * server thread rather than a refusal.
     */
    @Test
    void aDeeplyNestedRegexIsRefusedCleanly() {
        int n = 8_000;
        assertThatThrownBy(() -> FilterCodec.read(regexFilter("(".repeat(n) + "a" + ")".repeat(n), 0)))
                .isInstanceOfAny(MalformedFrameException.class, IllegalArgumentException.class);
    }

    /**
     * RE2/J (unlike RE2) does not bound the program a nested repetition expands to: without the
     * expansion check, this 43-byte pattern compiled to 10^7 instructions and exhausted a 512 MiB
     * heap (OutOfMemoryError) while decoding.
     */
    @Test
    void aRegexThatExpandsToAHugeProgramIsRefusedCleanly() {
        String pattern = "(".repeat(7) + "a" + "{10})".repeat(7);
        assertThatThrownBy(() -> FilterCodec.read(regexFilter(pattern, 0)))
                .isInstanceOfAny(MalformedFrameException.class, IllegalArgumentException.class);
    }

    @Test
    void invalidDecodedValuesAreIllegalArguments() {
        ByteBuf fuzzy = bytes(18, 1);
        Wire.writeBytes(fuzzy, b("ab"));
        Wire.writeBytes(fuzzy, new byte[] {0, 2});
        assertThatThrownBy(() -> FilterCodec.read(fuzzy)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("fuzzy mask byte 2 is neither 0 (fixed) nor 1 (any)");
        ByteBuf mismatch = bytes(18, 1);
        Wire.writeBytes(mismatch, b("ab"));
        Wire.writeBytes(mismatch, new byte[] {0});
        assertThatThrownBy(() -> FilterCodec.read(mismatch)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("same length");
        assertThatThrownBy(() -> FilterCodec.read(bytes(18, 0))).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("at least one rule");
        assertThatThrownBy(() -> FilterCodec.read(bytes(19, 0))).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("at least one range");
        ByteBuf range = bytes(3);
        Wire.writeBytes(range, b("z"));
        range.writeByte(1);
        Wire.writeBytes(range, b("a"));
        range.writeByte(1);
        assertThatThrownBy(() -> FilterCodec.read(range)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("is empty");
        ByteBuf page = bytes(10);
        Wire.writeVarlong(page, -5);
        assertThatThrownBy(() -> FilterCodec.read(page)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("page size -5 is negative");
        ByteBuf random = bytes(17);
        random.writeInt(Float.floatToIntBits(Float.NaN));
        assertThatThrownBy(() -> FilterCodec.read(random)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("row chance NaN");
        ByteBuf both = bytes(16, 1, 1);
        Wire.writeBytes(both, b("c"));
        assertThatThrownBy(() -> FilterCodec.read(both)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("not both");
        ByteBuf timestamps = bytes(14, 1);
        timestamps.writeLong(-1);
        assertThatThrownBy(() -> FilterCodec.read(timestamps)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("timestamp -1 is negative");
        ByteBuf emptyRow = bytes(19, 1);
        Wire.writeBytes(emptyRow, b("b"));
        emptyRow.writeByte(1);
        Wire.writeBytes(emptyRow, b("a"));
        emptyRow.writeByte(1);
        assertThatThrownBy(() -> FilterCodec.read(emptyRow)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("holds no row");
    }

    @Test
    void aVarintAboveIntIsMalformed() {
        ByteBuf limit = bytes(15);
        Wire.writeVarlong(limit, 1L << 31);
        assertThatThrownBy(() -> FilterCodec.read(limit)).isInstanceOf(MalformedFrameException.class)
                .hasMessageContaining("column limit");
    }

    @Test
    void theDecoderReadsOneFilterAndLeavesTheRest() {
        ByteBuf buf = Unpooled.buffer();
        FilterCodec.write(buf, new FirstKeyOnlyFilter());
        buf.writeByte(99);
        assertThat(FilterCodec.read(buf)).isInstanceOf(FirstKeyOnlyFilter.class);
        assertThat(buf.readableBytes()).isEqualTo(1);
    }

    // ------------------------------------------------------------------ generators

    private static final String PRINTABLE = printable();

    private static String printable() {
        StringBuilder s = new StringBuilder();
        for (char c = ' '; c <= '~'; c++) {
            if (c != '\\') {
                s.append(c);
            }
        }
        return s.toString();
    }

    /** How the generated leaves look: anything the codec carries, or only what toString writes parseably. */
    private record Style(Arbitrary<byte[]> bytes, Arbitrary<ByteArrayComparable> comparators, boolean anyRowRange) {}

    private static Style anyBytes() {
        Arbitrary<byte[]> bytes = Arbitraries.bytes().array(byte[].class).ofMaxSize(8);
        Arbitrary<String> patterns = Arbitraries.of("", "a", "^ab", "a.c$", "x*y+", "[a-z]+", "(ab|cd)", "\\d{2}", "é",
                "\\xFF", "(?i)abc", "[^']");
        Arbitrary<Integer> flags = Arbitraries.of(0, RegexStringComparator.CASE_INSENSITIVE, RegexStringComparator.DOTALL,
                RegexStringComparator.MULTILINE, RegexStringComparator.CASE_INSENSITIVE | RegexStringComparator.DOTALL
                        | RegexStringComparator.MULTILINE);
        Arbitrary<String> text = Arbitraries.strings().alpha().numeric().withChars("éßİ ':\\").ofMaxLength(8);
        return new Style(bytes, comparators(bytes, Combinators.combine(patterns, flags).as(RegexStringComparator::new),
                text), true);
    }

    private static Style printableBytes() {
        Arbitrary<String> text = Arbitraries.strings().withChars(PRINTABLE).ofMaxLength(8);
        Arbitrary<byte[]> bytes = text.map(Bytes::utf8);
        Arbitrary<String> patterns = Arbitraries.of("", "a", "^ab", "a.c$", "x*y+", "[a-z]+", "(ab|cd)", "''", "[^']",
                "a{2,3}", "(?i)abc");
        return new Style(bytes, comparators(bytes, patterns.map(RegexStringComparator::new), text), false);
    }

    private static Arbitrary<ByteArrayComparable> comparators(Arbitrary<byte[]> bytes,
                                                              Arbitrary<RegexStringComparator> regexes,
                                                              Arbitrary<String> text) {
        return Arbitraries.oneOf(List.of(
                bytes.map(BinaryComparator::new),
                bytes.map(BinaryPrefixComparator::new),
                regexes,
                text.map(SubstringComparator::new),
                Arbitraries.just(new NullComparator())));
    }

    private static <T> T orNull(Supplier<T> make) {
        try {
            return make.get();
        } catch (IllegalArgumentException e) {
            return null;
        }
    }

    private static Arbitrary<Filter> leaves(Style style) {
        Arbitrary<byte[]> bytes = style.bytes();
        Arbitrary<CompareOperator> ops = Arbitraries.of(CompareOperator.class);
        Arbitrary<Boolean> bools = Arbitraries.of(true, false);
        Arbitrary<Filter> columnRanges = Combinators.combine(bytes, bools, bytes, bools).as((a, ai, z, zi) ->
                Bytes.compare(a, z) <= 0 ? new ColumnRangeFilter(a, ai, z, zi) : new ColumnRangeFilter(z, ai, a, zi));
        Arbitrary<Filter> columnValues = Combinators.combine(bytes, bytes, ops, style.comparators(), bools, bools, bools)
                .as((f, q, op, c, ifMissing, latest, exclude) -> exclude
                        ? new SingleColumnValueExcludeFilter(f, q, op, c, ifMissing, latest)
                        : new SingleColumnValueFilter(f, q, op, c, ifMissing, latest));
        Arbitrary<Filter> compares = Combinators.combine(Arbitraries.integers().between(0, 3), ops, style.comparators())
                .as((kind, op, c) -> switch (kind) {
                    case 0 -> new RowFilter(op, c);
                    case 1 -> new FamilyFilter(op, c);
                    case 2 -> new QualifierFilter(op, c);
                    default -> new ValueFilter(op, c);
                });
        Arbitrary<Filter> pages = Arbitraries.frequencyOf(Tuple.of(3, Arbitraries.longs().between(0, 1000)),
                Tuple.of(1, Arbitraries.longs().between(0, Long.MAX_VALUE))).map(PageFilter::new);
        Arbitrary<Filter> timestamps = Arbitraries.longs().between(0, Long.MAX_VALUE).list().ofMaxSize(4)
                .map(TimestampsFilter::new);
        Arbitrary<Integer> ints = Arbitraries.frequencyOf(Tuple.of(3, Arbitraries.integers().between(0, 100)),
                Tuple.of(1, Arbitraries.integers().between(0, Integer.MAX_VALUE)));
        Arbitrary<Filter> columnPages = Combinators.combine(ints, ints, bytes, bools).as((limit, offset, column, byColumn) ->
                byColumn ? new ColumnPaginationFilter(limit, column) : new ColumnPaginationFilter(limit, offset));
        Arbitrary<Filter> randoms = Arbitraries.frequencyOf(
                Tuple.of(4, Arbitraries.floats().between(0f, 1f).ofScale(9)),
                Tuple.of(1, Arbitraries.of(0f, 1f, Float.MIN_VALUE, 1e-5f, 0.1f, Math.nextDown(1f)))).map(RandomRowFilter::new);
        Arbitrary<FuzzyRowFilter.Rule> rules = bytes.flatMap(row -> Arbitraries.integers().between(0, 1)
                .list().ofSize(row.length).map(mask -> {
                    byte[] m = new byte[row.length];
                    for (int i = 0; i < m.length; i++) {
                        m[i] = mask.get(i).byteValue();
                    }
                    return new FuzzyRowFilter.Rule(row, m);
                }));
        Arbitrary<Filter> fuzzy = rules.list().ofMinSize(1).ofMaxSize(3).map(FuzzyRowFilter::new);
        Arbitrary<Boolean> startInclusive = style.anyRowRange() ? bools : Arbitraries.just(true);
        Arbitrary<Boolean> stopInclusive = style.anyRowRange() ? bools : Arbitraries.just(false);
        Arbitrary<MultiRowRangeFilter.RowRange> ranges = Combinators.combine(bytes, startInclusive, bytes, stopInclusive)
                .as((a, ai, z, zi) -> orNull(() -> {
                    MultiRowRangeFilter.RowRange r = Bytes.compare(a, z) <= 0 || z.length == 0
                            ? new MultiRowRangeFilter.RowRange(a, ai, z, zi) : new MultiRowRangeFilter.RowRange(z, ai, a, zi);
                    new MultiRowRangeFilter(List.of(r)); // holds a row
                    return r;
                })).filter(r -> r != null);
        Arbitrary<Filter> rowRanges = ranges.list().ofMinSize(1).ofMaxSize(3).map(MultiRowRangeFilter::new);
        return Arbitraries.oneOf(List.of(
                bytes.map(PrefixFilter::new), bytes.map(ColumnPrefixFilter::new), bytes.map(InclusiveStopFilter::new),
                bytes.list().ofMinSize(1).ofMaxSize(3).map(MultipleColumnPrefixFilter::new),
                columnRanges, compares, columnValues, pages, bools.map(KeyOnlyFilter::new),
                Arbitraries.just(new FirstKeyOnlyFilter()), timestamps, ints.map(ColumnCountGetFilter::new), columnPages,
                randoms, fuzzy, rowRanges));
    }

    private static Arbitrary<Filter> trees(Arbitrary<Filter> leaves, int depth) {
        if (depth == 0) {
            return leaves;
        }
        Arbitrary<Filter> inner = trees(leaves, depth - 1);
        Arbitrary<Filter> lists = Combinators.combine(Arbitraries.of(FilterList.Operator.class),
                inner.list().ofMinSize(2).ofMaxSize(3)).as((op, children) -> new FilterList(op, children));
        return Arbitraries.frequencyOf(
                Tuple.of(3, leaves),
                Tuple.of(1, inner.map(SkipFilter::new)),
                Tuple.of(1, inner.map(WhileMatchFilter::new)),
                Tuple.of(4, lists));
    }

    @Provide
    Arbitrary<Filter> anyFilters() {
        return trees(leaves(anyBytes()), 4);
    }

    @Provide
    Arbitrary<Filter> printableFilters() {
        return trees(leaves(printableBytes()), 4);
    }

    // ------------------------------------------------------------------ properties

    @Property(tries = 400)
    void generatedFiltersRoundTrip(@ForAll("anyFilters") Filter filter) {
        roundTrip(filter);
    }

    @Property(tries = 1000)
    void toStringParsesBackToTheSameFilter(@ForAll("printableFilters") Filter filter) {
        String text = filter.toString();
        Filter parsed = Filter.parse(text);
        assertThat(encode(parsed)).as(text).isEqualTo(encode(filter));
        assertThat(parsed.toString()).isEqualTo(text);
    }

    @Property(tries = 1000)
    void aCorruptedEncodingIsRefusedCleanly(@ForAll("anyFilters") Filter filter, @ForAll @Positive int where,
                                            @ForAll @IntRange(min = 1, max = 255) int mask) {
        byte[] encoded = encode(filter);
        int at = where % encoded.length;
        encoded[at] ^= (byte) mask;
        try {
            Filter back = FilterCodec.read(Unpooled.wrappedBuffer(encoded));
            roundTripQuietly(back);
        } catch (MalformedFrameException | IllegalArgumentException e) {
            assertThat(e.getMessage()).isNotBlank();
        }
    }

    @Property(tries = 2000)
    void randomBytesAreRefusedCleanlyOrDecode(@ForAll @Size(max = 40) byte[] body) {
        try {
            Filter back = FilterCodec.read(Unpooled.wrappedBuffer(body));
            roundTripQuietly(back);
        } catch (MalformedFrameException | IllegalArgumentException e) {
            assertThat(e.getMessage()).isNotBlank();
        }
    }

    /** What decodes from forged bytes still encodes and decodes to itself. */
    private static void roundTripQuietly(Filter filter) {
        byte[] encoded = encode(filter);
        assertThat(encode(decode(encoded))).isEqualTo(encoded);
    }

    @Property(tries = 100)
    void aScanWithAGeneratedFilterRoundTrips(@ForAll("anyFilters") Filter filter) {
        messageRoundTrip(new Scan().withStartRow(b("r")).setFilter(filter), Messages::writeScan, Messages::readScan,
                (back, sent) -> assertThat(encode(back.filter())).isEqualTo(encode(filter)));
    }
}
