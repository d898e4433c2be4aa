package io.basalt.client.net;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.basalt.cell.Cell;
import io.basalt.cell.CellType;
import io.basalt.cell.MalformedCellException;
import io.basalt.client.CheckAndMutate;
import io.basalt.client.Compression;
import io.basalt.client.Delete;
import io.basalt.client.FamilyDescriptor;
import io.basalt.client.Get;
import io.basalt.client.Increment;
import io.basalt.client.Mutation;
import io.basalt.client.Put;
import io.basalt.client.Query;
import io.basalt.client.Result;
import io.basalt.client.Scan;
import io.basalt.client.TableDescriptor;
import io.basalt.client.TimeRange;
import io.basalt.protocol.MalformedFrameException;
import io.basalt.protocol.Wire;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.NavigableSet;
import java.util.function.BiConsumer;
import java.util.function.Function;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.From;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Positive;
import net.jqwik.api.constraints.Size;
import org.junit.jupiter.api.Test;

/**
 * {@link Messages}: every API object survives encoding and decoding field by field, and every
 * truncated or corrupted encoding is refused with a {@link MalformedFrameException} (or, for a
 * body that decodes to an invalid object, an {@link IllegalArgumentException}), never another
 * failure.
 */
class MessagesTest {

    // ------------------------------------------------------------------ generators

    private static Arbitrary<byte[]> bytes(int min, int max) {
        return Arbitraries.bytes().array(byte[].class).ofMinSize(min).ofMaxSize(max);
    }

    private static Arbitrary<byte[]> rows() {
        return bytes(1, 12);
    }

    private static Arbitrary<Long> timestamps() {
        return Arbitraries.frequencyOf(
                Tuple.of(5, Arbitraries.longs().between(0, 1000)),
                Tuple.of(2, Arbitraries.longs().between(0, Long.MAX_VALUE)),
                Tuple.of(2, Arbitraries.just(Mutation.LATEST_TIMESTAMP)));
    }

    @Provide
    Arbitrary<Put> puts() {
        return puts(rows());
    }

    private static Arbitrary<Put> puts(Arbitrary<byte[]> rows) {
        Arbitrary<List<Object[]>> columns = Combinators.combine(bytes(0, 6), bytes(0, 10), timestamps(), bytes(0, 40))
                .as((f, q, t, v) -> new Object[] {f, q, t, v}).list().ofMaxSize(6);
        return Combinators.combine(rows, timestamps(), columns).as((row, ts, cols) -> {
            Put put = new Put(row, ts);
            for (Object[] c : cols) {
                put.addColumn((byte[]) c[0], (byte[]) c[1], (Long) c[2], (byte[]) c[3]);
            }
            return put;
        });
    }

    @Provide
    Arbitrary<Delete> deletes() {
        return deletes(rows());
    }

    /** Whole-row deletes, and deletes of families, of all versions of columns and of single versions. */
    private static Arbitrary<Delete> deletes(Arbitrary<byte[]> rows) {
        Arbitrary<List<Object[]>> parts = Combinators.combine(Arbitraries.integers().between(0, 4), bytes(0, 6),
                bytes(0, 10), timestamps()).as((k, f, q, t) -> new Object[] {k, f, q, t}).list().ofMaxSize(5);
        return Combinators.combine(rows, timestamps(), parts).as((row, ts, ps) -> {
            Delete delete = new Delete(row, ts);
            for (Object[] p : ps) {
                byte[] f = (byte[]) p[1];
                byte[] q = (byte[]) p[2];
                long t = (Long) p[3];
                switch ((Integer) p[0]) {
                    case 0 -> delete.addFamily(f, t);
                    case 1 -> delete.addColumns(f, q, t);
                    case 2 -> delete.addColumn(f, q, t);
                    case 3 -> delete.addFamily(f);
                    default -> delete.addColumn(f, q);
                }
            }
            return delete;
        });
    }

    @Provide
    Arbitrary<Increment> increments() {
        Arbitrary<List<Object[]>> columns = Combinators.combine(bytes(0, 6), bytes(0, 10), Arbitraries.longs())
                .as((f, q, a) -> new Object[] {f, q, a}).list().ofMaxSize(5);
        return Combinators.combine(rows(), columns).as((row, cols) -> {
            Increment inc = new Increment(row);
            for (Object[] c : cols) {
                inc.addColumn((byte[]) c[0], (byte[]) c[1], (Long) c[2]);
            }
            return inc;
        });
    }

    @Provide
    Arbitrary<io.basalt.client.Append> appends() {
        Arbitrary<List<Object[]>> columns = Combinators.combine(bytes(0, 6), bytes(0, 10), bytes(0, 20))
                .as((f, q, v) -> new Object[] {f, q, v}).list().ofMaxSize(5);
        return Combinators.combine(rows(), columns).as((row, cols) -> {
            io.basalt.client.Append append = new io.basalt.client.Append(row);
            for (Object[] c : cols) {
                append.addColumn((byte[]) c[0], (byte[]) c[1], (byte[]) c[2]);
            }
            return append;
        });
    }

    @Provide
    Arbitrary<Mutation> mutations() {
        return Arbitraries.oneOf(puts(), deletes(), increments(), appends());
    }

    /** Applies a random column, time and version selection. */
    private static Arbitrary<Selection> selections() {
        Arbitrary<List<Object[]>> columns = Combinators.combine(bytes(0, 5), bytes(0, 6).list().ofMaxSize(3))
                .as((f, qs) -> new Object[] {f, qs}).list().ofMaxSize(4);
        Arbitrary<TimeRange> ranges = Combinators.combine(Arbitraries.longs().between(0, Long.MAX_VALUE),
                Arbitraries.longs().between(0, Long.MAX_VALUE)).as((a, b) -> new TimeRange(Math.min(a, b), Math.max(a, b)));
        Arbitrary<Integer> versions = Arbitraries.frequencyOf(Tuple.of(4, Arbitraries.integers().between(1, 10)),
                Tuple.of(1, Arbitraries.integers().between(1, Integer.MAX_VALUE)),
                Tuple.of(1, Arbitraries.just(Integer.MAX_VALUE)));
        return Combinators.combine(columns, Arbitraries.frequencyOf(Tuple.of(1, Arbitraries.just(TimeRange.ALL)),
                Tuple.of(2, ranges)), versions).as(Selection::new);
    }

    record Selection(List<Object[]> columns, TimeRange range, int versions) {
        @SuppressWarnings("unchecked")
        <Q extends Query<Q>> Q applyTo(Q query) {
            for (Object[] c : columns) {
                List<byte[]> qualifiers = (List<byte[]>) c[1];
                if (qualifiers.isEmpty()) {
                    query.addFamily((byte[]) c[0]);
                }
                for (byte[] q : qualifiers) {
                    query.addColumn((byte[]) c[0], q);
                }
            }
            query.setTimeRange(range);
            return versions == Integer.MAX_VALUE ? query.readAllVersions() : query.readVersions(versions);
        }
    }

    @Provide
    Arbitrary<Get> gets() {
        return Combinators.combine(rows(), selections()).as((row, s) -> s.applyTo(new Get(row)));
    }

    @Provide
    Arbitrary<Scan> scans() {
        Arbitrary<Scan> bounds = Combinators.combine(bytes(0, 6), Arbitraries.of(true, false), bytes(0, 6),
                Arbitraries.of(true, false), Arbitraries.of(true, false))
                .as((start, si, stop, so, rev) -> new Scan().withStartRow(start, si).withStopRow(stop, so)
                        .setReversed(rev));
        Arbitrary<long[]> sizes = Combinators.combine(
                Arbitraries.frequencyOf(Tuple.of(3, Arbitraries.just(0L)), Tuple.of(2, Arbitraries.longs()
                        .between(0, Long.MAX_VALUE))),
                Arbitraries.integers().between(0, Integer.MAX_VALUE),
                Arbitraries.integers().between(0, Integer.MAX_VALUE),
                Arbitraries.longs().between(1, Long.MAX_VALUE))
                .as((limit, caching, batch, max) -> new long[] {limit, caching, batch, max});
        return Combinators.combine(bounds, sizes, Arbitraries.of(true, false), selections())
                .as((scan, n, partial, s) -> s.applyTo(scan.setLimit(n[0]).setCaching((int) n[1])
                        .setBatch((int) n[2]).setMaxResultSize(n[3]).setAllowPartialResults(partial)
                        .setRaw(n[0] % 2 == 0)));
    }

    @Provide
    Arbitrary<CheckAndMutate> checks() {
        return rows().flatMap(row -> {
            Arbitrary<byte[]> sameRow = Arbitraries.just(row);
            Arbitrary<List<Mutation>> mutations = Arbitraries.oneOf(puts(sameRow).map(Mutation.class::cast),
                    deletes(sameRow).map(Mutation.class::cast)).list().ofMinSize(1).ofMaxSize(3);
            Arbitrary<byte[]> expected = bytes(0, 10).injectNull(0.25);
            Arbitrary<Integer> kinds = Arbitraries.integers().between(0, 4);
            Arbitrary<io.basalt.client.filter.CompareOperator> ops = Arbitraries.of(io.basalt.client.filter.CompareOperator.class);
            Arbitrary<io.basalt.client.TimeRange> ranges = Arbitraries.longs().between(0, 100)
                    .map(min -> new io.basalt.client.TimeRange(min, min + 10)).injectNull(0.5);
            return Combinators.combine(bytes(0, 5), bytes(0, 8), expected, mutations, kinds, ops, ranges)
                    .as((f, q, e, ms, kind, op, range) -> {
                        CheckAndMutate.Builder b = CheckAndMutate.onRow(row);
                        switch (kind) {
                            case 0 -> b.ifAbsent(f, q);
                            case 1 -> b.ifEquals(f, q, e == null ? new byte[0] : e);
                            case 2 -> b.ifMatches(f, q, op, e == null ? new byte[0] : e);
                            case 3 -> b.ifMatches(new io.basalt.client.filter.PrefixFilter(f));
                            default -> b.always();
                        }
                        if (range != null && kind < 4) {
                            b.timeRange(range);
                        }
                        return b.then(ms.toArray(Mutation[]::new));
                    });
        });
    }

    private static Arbitrary<String> names(int max) {
        return Arbitraries.strings().withChars("abcXYZ019_.-").ofMinLength(1).ofMaxLength(max)
                .filter(n -> !n.equals(".") && !n.equals(".."));
    }

    @Provide
    Arbitrary<TableDescriptor> tables() {
        Arbitrary<FamilyDescriptor> family = Combinators.combine(names(12), Arbitraries.integers().between(1,
                        Integer.MAX_VALUE), Arbitraries.longs().between(0, Long.MAX_VALUE / 1_000_000),
                Arbitraries.integers().between(FamilyDescriptor.MIN_BLOOM_BITS_PER_KEY - 1,
                        FamilyDescriptor.MAX_BLOOM_BITS_PER_KEY), Arbitraries.integers().between(FamilyDescriptor.MIN_BLOCK_SIZE,
                        FamilyDescriptor.MAX_BLOCK_SIZE), Arbitraries.of(Compression.class))
                // bloom bits below the minimum stand for no filter (a family without one keeps no bits)
                .as((n, v, ttl, bits, block, c) -> bits < FamilyDescriptor.MIN_BLOOM_BITS_PER_KEY
                        ? new FamilyDescriptor(n, v, Duration.ofMillis(ttl), false, block, c)
                        : new FamilyDescriptor(n, v, Duration.ofMillis(ttl), true, block, c, bits));
        return Combinators.combine(names(30), family.list().ofMinSize(1).ofMaxSize(4)
                .uniqueElements(FamilyDescriptor::name)).as(TableDescriptor::new);
    }

    @Provide
    Arbitrary<Result> results() {
        Arbitrary<List<Object[]>> cells = Combinators.combine(bytes(0, 5), bytes(0, 8), timestamps(),
                Arbitraries.of(CellType.class), bytes(0, 30)).as((f, q, t, k, v) -> new Object[] {f, q, t, k, v})
                .list().ofMaxSize(5);
        return Combinators.combine(rows(), cells, Arbitraries.of(true, false)).as((row, cs, partial) -> {
            List<Cell> list = new ArrayList<>();
            for (Object[] c : cs) {
                list.add(Cell.of(row, (byte[]) c[0], (byte[]) c[1], (Long) c[2], (CellType) c[3], (byte[]) c[4]));
            }
            return Result.of(list, partial);
        });
    }

    // ------------------------------------------------------------------ comparisons

    static void assertSameCells(List<Cell> actual, List<Cell> expected) {
        assertThat(actual).hasSameSizeAs(expected);
        for (int i = 0; i < expected.size(); i++) {
            Cell a = actual.get(i);
            Cell e = expected.get(i);
            assertThat(a.rowBytes()).as("cell %d row", i).isEqualTo(e.rowBytes());
            assertThat(a.familyBytes()).as("cell %d family", i).isEqualTo(e.familyBytes());
            assertThat(a.qualifierBytes()).as("cell %d qualifier", i).isEqualTo(e.qualifierBytes());
            assertThat(a.timestamp()).as("cell %d timestamp", i).isEqualTo(e.timestamp());
            assertThat(a.type()).as("cell %d type", i).isEqualTo(e.type());
            assertThat(a.valueBytes()).as("cell %d value", i).isEqualTo(e.valueBytes());
        }
    }

    static void assertSameMutation(Mutation actual, Mutation expected) {
        assertThat(actual).isExactlyInstanceOf(expected.getClass());
        assertThat(actual.row()).isEqualTo(expected.row());
        assertThat(actual.timestamp()).isEqualTo(expected.timestamp());
        assertSameCells(actual.cells(), expected.cells());
    }

    private static List<String> columns(Query<?> q) {
        List<String> out = new ArrayList<>();
        HexFormat hex = HexFormat.of();
        for (Map.Entry<byte[], NavigableSet<byte[]>> e : q.columns().entrySet()) {
            out.add("f:" + hex.formatHex(e.getKey()));
            for (byte[] qualifier : e.getValue()) {
                out.add("q:" + hex.formatHex(qualifier));
            }
        }
        return out;
    }

    static void assertSameSelection(Query<?> actual, Query<?> expected) {
        assertThat(columns(actual)).isEqualTo(columns(expected));
        assertThat(actual.timeRange()).isEqualTo(expected.timeRange());
        assertThat(actual.maxVersions()).isEqualTo(expected.maxVersions());
    }

    static void assertSameScan(Scan a, Scan e) {
        assertSameSelection(a, e);
        assertThat(a.startRow()).isEqualTo(e.startRow());
        assertThat(a.startInclusive()).isEqualTo(e.startInclusive());
        assertThat(a.stopRow()).isEqualTo(e.stopRow());
        assertThat(a.stopInclusive()).isEqualTo(e.stopInclusive());
        assertThat(a.reversed()).isEqualTo(e.reversed());
        assertThat(a.limit()).isEqualTo(e.limit());
        assertThat(a.caching()).isEqualTo(e.caching());
        assertThat(a.batch()).isEqualTo(e.batch());
        assertThat(a.maxResultSize()).isEqualTo(e.maxResultSize());
        assertThat(a.allowPartialResults()).isEqualTo(e.allowPartialResults());
        assertThat(a.raw()).isEqualTo(e.raw());
        assertThat(a.filter() == null ? null : a.filter().toString())
                .isEqualTo(e.filter() == null ? null : e.filter().toString());
    }

    static void assertSameResults(List<Result> actual, List<Result> expected) {
        assertThat(actual).hasSameSizeAs(expected);
        for (int i = 0; i < expected.size(); i++) {
            assertThat(actual.get(i).row()).isEqualTo(expected.get(i).row());
            assertThat(actual.get(i).isPartial()).isEqualTo(expected.get(i).isPartial());
            assertSameCells(actual.get(i).cells(), expected.get(i).cells());
        }
    }

    // ------------------------------------------------------------------ the round trip

    /**
     * Encodes {@code value}, decodes it and compares; then decodes every strict prefix of the
     * encoding, each of which must be refused.
     */
    private static <T> void roundTrip(T value, BiConsumer<ByteBuf, T> writer, Function<ByteBuf, T> reader,
                                      BiConsumer<T, T> same) {
        ByteBuf buf = Unpooled.buffer();
        writer.accept(buf, value);
        ByteBuf whole = buf.duplicate();
        T back = reader.apply(whole);
        Wire.end(whole, "round trip");
        same.accept(back, value);
        for (int cut = 0; cut < buf.readableBytes(); cut++) {
            ByteBuf prefix = buf.slice(buf.readerIndex(), cut);
            int at = cut;
            assertThatThrownBy(() -> reader.apply(prefix)).as("the first %d of %d bytes", at, buf.readableBytes())
                    .isInstanceOfAny(MalformedFrameException.class, IllegalArgumentException.class);
        }
    }

    /** Decodes an encoding with one byte changed: an object, or a refusal of the two allowed kinds. */
    private static <T> void corrupted(T value, BiConsumer<ByteBuf, T> writer, Function<ByteBuf, T> reader, int where,
                                      int mask) {
        ByteBuf buf = Unpooled.buffer();
        writer.accept(buf, value);
        int at = where % buf.readableBytes();
        buf.setByte(at, buf.getByte(at) ^ mask);
        try {
            reader.apply(buf);
        } catch (MalformedFrameException | IllegalArgumentException e) {
            assertThat(e.getMessage()).isNotBlank();
        }
    }

    @Property(tries = 300)
    void mutationsRoundTrip(@ForAll("mutations") Mutation m) {
        roundTrip(m, Messages::writeMutation, Messages::readMutation, MessagesTest::assertSameMutation);
    }

    @Property(tries = 200)
    void deletesOfEveryKindRoundTrip(@ForAll("deletes") Delete d) {
        roundTrip(d, Messages::writeMutation, Messages::readMutation, MessagesTest::assertSameMutation);
    }

    @Property(tries = 100)
    void mutationListsRoundTrip(@ForAll @Size(max = 5) List<@From("mutations") Mutation> ms) {
        roundTrip(ms, Messages::writeMutations, Messages::readMutations, (a, e) -> {
            assertThat(a).hasSameSizeAs(e);
            for (int i = 0; i < e.size(); i++) {
                assertSameMutation(a.get(i), e.get(i));
            }
        });
    }

    @Property(tries = 300)
    void getsRoundTrip(@ForAll("gets") Get get) {
        roundTrip(get, Messages::writeGet, Messages::readGet, (a, e) -> {
            assertThat(a.row()).isEqualTo(e.row());
            assertSameSelection(a, e);
        });
    }

    @Property(tries = 300)
    void scansWithEveryOptionRoundTrip(@ForAll("scans") Scan scan) {
        roundTrip(scan, Messages::writeScan, Messages::readScan, MessagesTest::assertSameScan);
    }

    @Property(tries = 200)
    void checkAndMutatesRoundTrip(@ForAll("checks") CheckAndMutate check) {
        roundTrip(check, Messages::writeCheckAndMutate, Messages::readCheckAndMutate, (a, e) -> {
            assertThat(a.row()).isEqualTo(e.row());
            assertThat(a.family()).isEqualTo(e.family());
            assertThat(a.qualifier()).isEqualTo(e.qualifier());
            assertThat(a.expected()).isEqualTo(e.expected());
            assertThat(a.operator()).isEqualTo(e.operator());
            assertThat(a.unconditional()).isEqualTo(e.unconditional());
            assertThat(a.timeRange()).isEqualTo(e.timeRange());
            assertThat(a.filter() == null ? null : a.filter().toString())
                    .isEqualTo(e.filter() == null ? null : e.filter().toString());
            assertThat(a.mutations()).hasSameSizeAs(e.mutations());
            for (int i = 0; i < e.mutations().size(); i++) {
                assertSameMutation(a.mutations().get(i), e.mutations().get(i));
            }
        });
    }

    /**
     * A replicated log written by protocol version 4 holds checks as row, family, qualifier, a
     * "has expected" boolean and the expected bytes: they decode to the same conditions now.
     */
    @org.junit.jupiter.api.Test
    void checksInTheVersion4LayoutDecodeTheSame() {
        for (boolean hasExpected : new boolean[] {false, true}) {
            ByteBuf buf = io.netty.buffer.Unpooled.buffer();
            io.basalt.protocol.Wire.writeBytes(buf, "r".getBytes());
            io.basalt.protocol.Wire.writeBytes(buf, "f".getBytes());
            io.basalt.protocol.Wire.writeBytes(buf, "q".getBytes());
            io.basalt.protocol.Wire.writeBoolean(buf, hasExpected);
            if (hasExpected) {
                io.basalt.protocol.Wire.writeBytes(buf, "v".getBytes());
            }
            Messages.writeMutations(buf, List.of(new Put("r".getBytes()).addColumn("f".getBytes(), "q".getBytes(),
                    "w".getBytes())));
            CheckAndMutate check = Messages.readCheckAndMutate(buf);
            assertThat(check.family()).isEqualTo("f".getBytes());
            assertThat(check.expected()).isEqualTo(hasExpected ? "v".getBytes() : null);
            assertThat(check.operator()).isEqualTo(hasExpected ? io.basalt.client.filter.CompareOperator.EQUAL : null);
            assertThat(check.timeRange()).isEqualTo(io.basalt.client.TimeRange.ALL);
            assertThat(check.mutations()).hasSize(1);
        }
    }

    @Property(tries = 200)
    void tableDescriptorsRoundTrip(@ForAll("tables") TableDescriptor table) {
        roundTrip(table, Messages::writeTable, Messages::readTable, (a, e) -> assertThat(a).isEqualTo(e));
    }

    @Property(tries = 100)
    void tableListsRoundTrip(@ForAll @Size(max = 4) List<@From("tables") TableDescriptor> tables) {
        roundTrip(tables, Messages::writeTables, Messages::readTables, (a, e) -> assertThat(a).isEqualTo(e));
    }

    @Property(tries = 300)
    void resultListsRoundTrip(@ForAll @Size(max = 6) List<@From("results") Result> results) {
        roundTrip(results, Messages::writeResults, Messages::readResults, MessagesTest::assertSameResults);
    }

    @Property(tries = 100)
    void errorsRoundTrip(@ForAll String message, @ForAll @Size(max = 3) List<String> args) {
        List<String> expected = new ArrayList<>();
        expected.add(message);
        expected.addAll(args);
        roundTrip(expected, (buf, l) -> Messages.writeError(buf, l.getFirst(), l.subList(1, l.size())),
                Messages::readError, (a, e) -> assertThat(a).isEqualTo(e));
    }

    // ------------------------------------------------------------------ corrupted encodings

    @Property(tries = 1000)
    void aCorruptedMutationIsRefusedCleanly(@ForAll("mutations") Mutation m, @ForAll @Positive int where,
                                            @ForAll @IntRange(min = 1, max = 255) int mask) {
        corrupted(m, Messages::writeMutation, Messages::readMutation, where, mask);
    }

    @Property(tries = 500)
    void aCorruptedScanIsRefusedCleanly(@ForAll("scans") Scan scan, @ForAll @Positive int where,
                                        @ForAll @IntRange(min = 1, max = 255) int mask) {
        corrupted(scan, Messages::writeScan, Messages::readScan, where, mask);
    }

    @Property(tries = 500)
    void aCorruptedCheckIsRefusedCleanly(@ForAll("checks") CheckAndMutate check, @ForAll @Positive int where,
                                         @ForAll @IntRange(min = 1, max = 255) int mask) {
        corrupted(check, Messages::writeCheckAndMutate, Messages::readCheckAndMutate, where, mask);
    }

    @Property(tries = 500)
    void aCorruptedTableIsRefusedCleanly(@ForAll("tables") TableDescriptor table, @ForAll @Positive int where,
                                         @ForAll @IntRange(min = 1, max = 255) int mask) {
        corrupted(table, Messages::writeTable, Messages::readTable, where, mask);
    }

    @Property(tries = 500)
    void aCorruptedResultListIsRefusedCleanly(@ForAll @Size(max = 4) List<@From("results") Result> results,
                                              @ForAll @Positive int where, @ForAll @IntRange(min = 1, max = 255) int mask) {
        corrupted(results, Messages::writeResults, Messages::readResults, where, mask);
    }

    // ------------------------------------------------------------------ named refusals

    @Test
    void aForgedMutationCountIsRefusedBeforeAnyListIsSized() {
        ByteBuf buf = Unpooled.buffer();
        Wire.writeVarint(buf, Integer.MAX_VALUE);
        buf.writeZero(20);
        assertThatThrownBy(() -> Messages.readMutations(buf)).isInstanceOf(MalformedFrameException.class)
                .hasMessageContaining("mutations cannot fit");
    }

    @Test
    void aMutationWhoseCellsNameAnotherRowIsRefused() {
        ByteBuf buf = Unpooled.buffer();
        buf.writeByte(0);
        Wire.writeBytes(buf, new byte[] {'a'});
        buf.writeLong(1);
        Wire.writeCells(buf, List.of(Cell.put("b", "f", "q", 1, "v")));
        assertThatThrownBy(() -> Messages.readMutation(buf)).isInstanceOf(MalformedFrameException.class)
                .hasMessageContaining("row a").hasMessageContaining("row b");
    }

    @Test
    void anUnknownMutationKindAndWrongCellTypesAreRefused() {
        ByteBuf kind = Unpooled.buffer();
        kind.writeByte(7);
        Wire.writeBytes(kind, new byte[] {'a'});
        kind.writeLong(1);
        Wire.writeCells(kind, List.of());
        assertThatThrownBy(() -> Messages.readMutation(kind)).isInstanceOf(MalformedFrameException.class)
                .hasMessageContaining("mutation kind 7");

        ByteBuf putOfDelete = Unpooled.buffer();
        putOfDelete.writeByte(0);
        Wire.writeBytes(putOfDelete, new byte[] {'a'});
        putOfDelete.writeLong(1);
        Wire.writeCells(putOfDelete, List.of(Cell.of(new byte[] {'a'}, new byte[] {'f'}, new byte[0], 1,
                CellType.DELETE_FAMILY, new byte[0])));
        assertThatThrownBy(() -> Messages.readMutation(putOfDelete)).isInstanceOf(MalformedFrameException.class)
                .hasMessageContaining("put carries a cell of type DELETE_FAMILY");

        ByteBuf shortAmount = Unpooled.buffer();
        shortAmount.writeByte(2);
        Wire.writeBytes(shortAmount, new byte[] {'a'});
        shortAmount.writeLong(Mutation.LATEST_TIMESTAMP);
        Wire.writeCells(shortAmount, List.of(Cell.put(new byte[] {'a'}, new byte[] {'f'}, new byte[] {'q'},
                Mutation.LATEST_TIMESTAMP, new byte[3])));
        assertThatThrownBy(() -> Messages.readMutation(shortAmount)).isInstanceOf(MalformedFrameException.class)
                .hasMessageContaining("increment amount of 3 bytes");
    }

    /** A row section whose single result has {@code cells} cells and claims {@code claimed}. */
    private static ByteBuf oneResult(int claimed, List<Cell> cells) {
        ByteBuf body = Unpooled.buffer();
        Wire.writeRows(body, Wire.Rows.of(List.of(cells), r -> false));
        // The count is the byte after the count varint (1) and the padded length (5).
        int countAt = 1 + Wire.PADDED_VARINT_SIZE;
        assertThat((int) body.getByte(countAt)).isEqualTo(cells.size());
        body.setByte(countAt, claimed);
        return body;
    }

    @Test
    void resultsThatMixRowsOrMiscountTheirCellsAreRefused() {
        Cell a = Cell.put("a", "f", "q", 1, "v".repeat(40));
        Cell a2 = Cell.put("a", "f", "r", 1, "v".repeat(40));
        Cell b = Cell.put("b", "f", "q", 1, "v".repeat(40));
        assertThatThrownBy(() -> Messages.readResults(oneResult(2, List.of(a, b))))
                .isInstanceOf(MalformedFrameException.class)
                .hasMessageContaining("cell 1 of 2 is of row b, the first of row a");
        assertThatThrownBy(() -> Messages.readResults(oneResult(2, List.of(a))))
                .isInstanceOf(MalformedFrameException.class)
                .hasMessageContaining("cell 1 of 2 starts past");
        assertThatThrownBy(() -> Messages.readResults(oneResult(1, List.of(a, a2))))
                .isInstanceOf(MalformedFrameException.class)
                .hasMessageContaining("1 cells end at byte");
        assertThatThrownBy(() -> Messages.readResults(oneResult(9, List.of(a))))
                .isInstanceOf(MalformedFrameException.class)
                .hasMessageContaining("9 cells cannot fit");
        assertThat(Messages.readResults(oneResult(2, List.of(a, a2))).getFirst().cells()).hasSize(2);

        ByteBuf forged = Unpooled.buffer();
        Wire.writeVarint(forged, Integer.MAX_VALUE);
        Wire.writeVarint(forged, 10);
        forged.writeZero(10);
        assertThatThrownBy(() -> Messages.readResults(forged)).isInstanceOf(MalformedFrameException.class)
                .hasMessageContaining("results cannot fit");
    }

    @Test
    void aScannersResultsAreCheckedWhenTheirCellsAreFirstRead() {
        List<Result> results = List.of(
                Result.of(List.of(Cell.put("a", "f", "q", 1, "v"), Cell.put("a", "f", "r", 1, "v"))),
                Result.of(List.of(Cell.put("b", "f", "q", 1, "v"), Cell.put("b", "f", "r", 1, "v"))));
        ByteBuf body = Unpooled.buffer();
        Messages.writeResults(body, results);
        // The type byte of row b's second cell, which is the body's last cell: its value (1 byte)
        // is the body's last byte, the type the one before.
        body.setByte(body.writerIndex() - 2, 99);
        List<Result> decoded = Messages.readEncodedResults(body).decode("a scan batch from test");
        assertThat(decoded).hasSize(2);
        assertThat(decoded.get(0).cells()).hasSize(2);
        assertThat(decoded.get(0).cells().get(1).valueBytes()).isEqualTo(new byte[] {'v'});
        assertThat(decoded.get(1).row()).isEqualTo(new byte[] {'b'});
        assertThatThrownBy(() -> decoded.get(1).cells().get(0))
                .isInstanceOf(MalformedCellException.class)
                .hasMessageContaining("in a scan batch from test")
                .hasMessageContaining("cell 1 of 2")
                .hasMessageContaining("type");
        // Reading it again fails again: a failed check publishes nothing.
        assertThatThrownBy(() -> decoded.get(1).cells().get(1)).isInstanceOf(MalformedCellException.class);
        ByteBuf again = body.resetReaderIndex();
        assertThatThrownBy(() -> Messages.readResults(again)).isInstanceOf(MalformedFrameException.class)
                .hasMessageContaining("cell 1 of 2");
    }

    @Test
    void aResultsFirstCellIsCheckedWithItsHeader() {
        ByteBuf body = Unpooled.buffer();
        Messages.writeResults(body, List.of(Result.of(List.of(Cell.put("a", "f", "q", 1, "v")))));
        body.setByte(body.writerIndex() - 2, 99);
        assertThatThrownBy(() -> Messages.readEncodedResults(body).decode("test"))
                .isInstanceOf(MalformedFrameException.class)
                .hasMessageContaining("result 0 of 1");
    }

    @Test
    void aTableWithAnUnknownCodecOrForgedFamilyCountIsRefused() {
        ByteBuf buf = Unpooled.buffer();
        Messages.writeTable(buf, TableDescriptor.of("t", "f"));
        buf.setByte(buf.writerIndex() - 1, Compression.values().length);
        assertThatThrownBy(() -> Messages.readTable(buf)).isInstanceOf(MalformedFrameException.class)
                .hasMessageContaining("compression");
        ByteBuf forged = Unpooled.buffer();
        Wire.writeString(forged, "t");
        Wire.writeVarint(forged, Integer.MAX_VALUE);
        assertThatThrownBy(() -> Messages.readTable(forged)).isInstanceOf(MalformedFrameException.class)
                .hasMessageContaining("families cannot fit");
    }

    @Test
    void bloomBitsTravelInTheByteThatWasTheFilterFlag() {
        ByteBuf custom = Unpooled.buffer();
        TableDescriptor twelve = new TableDescriptor("t", List.of(FamilyDescriptor.of("f").withBloomBitsPerKey(12)));
        Messages.writeTable(custom, twelve);
        assertThat(Messages.readTable(custom)).isEqualTo(twelve);
        // a peer from before bits were settable writes 1 for "on": the default bits
        ByteBuf old = Unpooled.buffer();
        Messages.writeTable(old, TableDescriptor.of("t", "f"));
        assertThat(old.getByte(old.writerIndex() - 4)).isEqualTo((byte) 1); // bloom, block size (8192: a 2-byte varint), codec
        assertThat(Messages.readTable(old).families().getFirst().bloomBitsPerKey())
                .isEqualTo(FamilyDescriptor.DEFAULT_BLOOM_BITS_PER_KEY);
        ByteBuf forged = Unpooled.buffer();
        Messages.writeTable(forged, TableDescriptor.of("t", "f"));
        forged.setByte(forged.writerIndex() - 4, FamilyDescriptor.MAX_BLOOM_BITS_PER_KEY + 1);
        assertThatThrownBy(() -> Messages.readTable(forged)).isInstanceOf(MalformedFrameException.class)
                .hasMessageContaining("bloom filter code 33");
    }

    @Test
    void aBodyThatDecodesToAnInvalidObjectIsAnIllegalArgument() {
        ByteBuf buf = Unpooled.buffer();
        Wire.writeString(buf, "bad name!");
        Wire.writeVarint(buf, 0);
        assertThatThrownBy(() -> Messages.readTable(buf)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("bad name!");
        ByteBuf zeroVersions = Unpooled.buffer();
        Messages.writeGet(zeroVersions, Get.of("r"));
        zeroVersions.setByte(zeroVersions.writerIndex() - 2, 0); // max versions, before the has-filter flag
        assertThatThrownBy(() -> Messages.readGet(zeroVersions)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("versions");
    }

    @Test
    void clusterInfoRoundTripsAndATruncatedOneIsRefused() {
        io.basalt.client.ClusterInfo info = new io.basalt.client.ClusterInfo(
                List.of(new io.basalt.client.ClusterInfo.Node(1, "h1:16020", true, 4),
                        new io.basalt.client.ClusterInfo.Node(2, "h2:16020", false, 0)),
                List.of(new io.basalt.client.ClusterInfo.Region("t", 7, "", "g", 1,
                        List.of(new io.basalt.client.ClusterInfo.Replica(1, "leader", 0),
                                new io.basalt.client.ClusterInfo.Replica(2, "unreachable", -1)))));
        assertRoundTripsAndEveryCutIsRefused(info, Messages::writeClusterInfo, Messages::readClusterInfo);
    }

    /** {@code value} written and read back is equal; read from any prefix of its bytes it is malformed. */
    private static <T> void assertRoundTripsAndEveryCutIsRefused(T value, java.util.function.BiConsumer<ByteBuf, T> write,
                                                                 java.util.function.Function<ByteBuf, T> read) {
        ByteBuf buf = Unpooled.buffer();
        write.accept(buf, value);
        byte[] bytes = new byte[buf.readableBytes()];
        buf.readBytes(bytes);
        assertThat(read.apply(Unpooled.wrappedBuffer(bytes))).isEqualTo(value);
        for (int cut = 0; cut < bytes.length; cut++) {
            ByteBuf part = Unpooled.wrappedBuffer(java.util.Arrays.copyOf(bytes, cut));
            assertThatThrownBy(() -> read.apply(part)).as("cut at %s", cut).isInstanceOf(MalformedFrameException.class);
        }
    }

    @Test
    void serverStatusRoundTripsAndATruncatedOneIsRefused() {
        io.basalt.client.RegionInfo a = new io.basalt.client.RegionInfo("t", 1, new byte[0], new byte[] {'m'}, 100, 2, 30);
        io.basalt.client.RegionInfo b = new io.basalt.client.RegionInfo("t", 2, new byte[] {'m'}, new byte[0], 0, 0, 0);
        for (io.basalt.client.ServerStatus status : List.of(
                new io.basalt.client.ServerStatus("127.0.0.1:16020", 5_000, 3, 1_000_000, null, 30, 4096, 1 << 20, 7, 3,
                        2, 1, 0, 9, 12_345, 0, List.of(new io.basalt.client.ServerStatus.Table("t", false, List.of(
                                new io.basalt.client.ServerStatus.Region(a, 40, 12),
                                new io.basalt.client.ServerStatus.Region(b, 0, 0))),
                        new io.basalt.client.ServerStatus.Table("u", true, List.of()))),
                new io.basalt.client.ServerStatus("embedded /d", 1, -1, -1, "log failed", 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
                        Long.MAX_VALUE - 1, List.of()))) {
            assertRoundTripsAndEveryCutIsRefused(status, Messages::writeServerStatus, Messages::readServerStatus);
        }
    }
}
