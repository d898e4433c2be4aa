package io.basalt.engine;

import static org.assertj.core.api.Assertions.assertThat;

import io.basalt.cell.Cell;
import io.basalt.client.AsyncTable;
import io.basalt.client.Basalt;
import io.basalt.client.Connection;
import io.basalt.client.Delete;
import io.basalt.client.FamilyDescriptor;
import io.basalt.client.Get;
import io.basalt.client.Put;
import io.basalt.client.Result;
import io.basalt.client.Scan;
import io.basalt.client.TableDescriptor;
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
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;

/**
 * Filters move the reader (seeks to a row, a column or the next family; steps over a column or a
 * row) and the reader's moves never change what a filter returns: a filtered scan, forward or
 * reversed, over a store of random cells (several versions, delete markers of every kind, the
 * empty qualifier where family markers sort, two regions, data in files and memtables) returns
 * what the same compiled filter returns when it is walked naively over the unfiltered scan's
 * cells, one by one, honouring each skip by dropping cells instead of seeking. Gets are checked
 * the same way, row by row.
 */
class FilterSeekTest {

    private static final String[] ROW_PARTS = {"a", "b", "c"};
    private static final String[] QUALIFIERS = {"", "a", "ab", "b", "c"};
    private static final String[] FAMILIES = {"f", "g"};

    @Property(tries = 60)
    void seeksNeverChangeWhatAFilterReturns(@ForAll long seed) throws Exception {
        Random random = new Random(seed);
        Path dir = Files.createTempDirectory("basalt-filter-seek");
        try (Connection c = Basalt.open(dir)) {
            byte[] split = bytes(row(random));
            c.admin().createTable(new TableDescriptor("t", List.of(FamilyDescriptor.of("f").withMaxVersions(3),
                    FamilyDescriptor.of("g").withMaxVersions(2))), List.of(split)).get(30, TimeUnit.SECONDS);
            AsyncTable table = c.table("t");
            load(c, table, random);
            for (int i = 0; i < 8; i++) {
                Filter filter = filter(random, 0);
                Scan selection = selection(random);
                for (boolean reversed : new boolean[] {false, true}) {
                    Scan plain = selection.copy().setReversed(reversed);
                    // A filter sees every version the family keeps; the scan's count applies after it.
                    List<Result> unfiltered = table.scanAll(plain.copy().readAllVersions()).get(30, TimeUnit.SECONDS);
                    List<String> expected = naive(unfiltered, filter, reversed, selection.maxVersions(), split);
                    List<String> actual = text(table.scanAll(plain.copy().setFilter(filter)).get(30, TimeUnit.SECONDS));
                    assertThat(actual).as("seed %d, filter %s, reversed %s", seed, filter, reversed)
                            .containsExactlyElementsOf(expected);
                }
                for (Result r : table.scanAll(selection.copy().readAllVersions()).get(30, TimeUnit.SECONDS)) {
                    Get get = new Get(r.row());
                    selection.columns().forEach((family, qualifiers) -> {
                        if (qualifiers.isEmpty()) {
                            get.addFamily(family);
                        }
                        qualifiers.forEach(q -> get.addColumn(family, q));
                    });
                    get.readVersions(selection.maxVersions()).setTimeRange(selection.timeRange());
                    Result filtered = table.get(get.setFilter(filter)).get(30, TimeUnit.SECONDS);
                    assertThat(text(List.of(filtered))).as("seed %d, get %s, filter %s", seed,
                            new String(r.row(), StandardCharsets.UTF_8), filter)
                            .containsExactlyElementsOf(naive(List.of(r), filter, false, selection.maxVersions(), null));
                }
            }
        } finally {
            delete(dir);
        }
    }

    /**
     * A row whose cells are all deleted is not a row to a filter: a while-match that would reject
     * its key does not end the scan there, whether the markers are in the memtable or a file. (The
     * reader once judged every stored key, so a deleted row stopped the scan.) The seed replays
     * the random case that found it.
     */
    @net.jqwik.api.Example
    void aDeletedRowDoesNotEndAWhileMatch() throws Exception {
        seeksNeverChangeWhatAFilterReturns(-1546714550L);
        Path dir = Files.createTempDirectory("basalt-filter-seek");
        try (Connection c = Basalt.open(dir)) {
            AsyncTable table = tableOfOneFamily(c);
            for (String row : List.of("a", "b", "c")) {
                table.put(new Put(bytes(row)).addColumn(bytes("f"), bytes("q"), 1, bytes(row))).get(30, TimeUnit.SECONDS);
            }
            table.delete(new Delete(bytes("b"))).get(30, TimeUnit.SECONDS);
            Filter filter = new WhileMatchFilter(new RowFilter(CompareOperator.NOT_EQUAL, new BinaryComparator(bytes("b"))));
            for (boolean flushed : new boolean[] {false, true}) {
                if (flushed) {
                    c.admin().flush("t").get(30, TimeUnit.SECONDS);
                }
                for (boolean reversed : new boolean[] {false, true}) {
                    List<String> rows = text(table.scanAll(new Scan().setReversed(reversed).setFilter(filter))
                            .get(30, TimeUnit.SECONDS));
                    assertThat(rows).as("flushed %s, reversed %s", flushed, reversed)
                            .containsExactlyElementsOf(reversed ? List.of("c/f:q@1=c", "a/f:q@1=a")
                                    : List.of("a/f:q@1=a", "c/f:q@1=c"));
                }
                assertThat(table.get(new Get(bytes("b")).setFilter(filter)).get(30, TimeUnit.SECONDS).isEmpty()).isTrue();
            }
        } finally {
            delete(dir);
        }
    }

    /**
     * A row with no visible cell must not end a fuzzy filter under an OR: when no filter of the
     * list passes a row, the list takes the fuzzy filter's hint, which ends it when no row can
     * match any more, and an ended filter keeps every later row at the row's end. A deleted row
     * {@code b1} once did that, so {@code c} (which both filters reject) was returned, or not,
     * depending on whether compaction had dropped {@code b1}'s markers.
     */
    @net.jqwik.api.Example
    void aDeletedRowDoesNotEndAFuzzyFilterInAList() throws Exception {
        Path dir = Files.createTempDirectory("basalt-filter-seek");
        try (Connection c = Basalt.open(dir)) {
            AsyncTable table = tableOfOneFamily(c);
            table.put(new Put(bytes("b1")).addColumn(bytes("f"), bytes("a"), 1, bytes("x"))).get(30, TimeUnit.SECONDS);
            table.delete(new Delete(bytes("b1"))).get(30, TimeUnit.SECONDS);
            table.put(new Put(bytes("c")).addColumn(bytes("f"), bytes("a"), 1, bytes("1"))
                    .addColumn(bytes("f"), bytes("q"), 1, bytes("bad"))).get(30, TimeUnit.SECONDS);
            Filter filter = FilterList.one(new FuzzyRowFilter(List.of(new FuzzyRowFilter.Rule(bytes("a?"), new byte[] {0, 1}))),
                    FilterList.all(new RowFilter(CompareOperator.EQUAL, new BinaryComparator(bytes("c"))),
                            new SingleColumnValueFilter(bytes("f"), bytes("q"), CompareOperator.EQUAL,
                                    new BinaryComparator(bytes("good")))));
            for (boolean flushed : new boolean[] {false, true}) {
                if (flushed) {
                    c.admin().flush("t").get(30, TimeUnit.SECONDS);
                }
                assertThat(table.scanAll(new Scan().setFilter(filter)).get(30, TimeUnit.SECONDS))
                        .as("flushed %s", flushed).isEmpty();
            }
        } finally {
            delete(dir);
        }
    }

    /**
     * A seek from the empty qualifier cannot be made (family markers sort there), so the reader
     * steps; the columns it steps over must not reach the filter, or a counting filter beside the
     * seeking one counts columns it would not have seen after a seek.
     */
    @net.jqwik.api.Example
    void columnsSteppedOverInsteadOfSoughtPastAreNotOfferedToTheFilter() throws Exception {
        Path dir = Files.createTempDirectory("basalt-filter-seek");
        try (Connection c = Basalt.open(dir)) {
            AsyncTable table = tableOfOneFamily(c);
            table.put(new Put(bytes("r")).addColumn(bytes("f"), bytes(""), 1, bytes("0"))
                    .addColumn(bytes("f"), bytes("a"), 1, bytes("1")).addColumn(bytes("f"), bytes("b"), 1, bytes("2")))
                    .get(30, TimeUnit.SECONDS);
            Filter filter = FilterList.all(new ColumnPrefixFilter(bytes("b")), new ColumnCountGetFilter(2));
            assertThat(text(table.scanAll(new Scan().setFilter(filter)).get(30, TimeUnit.SECONDS)))
                    .containsExactly("r/f:b@1=2");
            assertThat(text(List.of(table.get(new Get(bytes("r")).setFilter(filter)).get(30, TimeUnit.SECONDS))))
                    .containsExactly("r/f:b@1=2");
        } finally {
            delete(dir);
        }
    }

    /**
     * HBASE-14397: a PrefixFilter without a start row read the table from its first row. Here the
     * reader seeks to the prefix and stops after it, and a fuzzy rule jumps from candidate to
     * candidate: counted in block-cache lookups, against a full scan of the same file.
     */
    @net.jqwik.api.Example
    void prefixAndFuzzyFiltersSeekInsteadOfReadingThrough() throws Exception {
        Path dir = Files.createTempDirectory("basalt-filter-seek");
        try (Connection c = Basalt.open(dir)) {
            AsyncTable table = fiveThousandRowsInAFile(c);
            c.admin().compact("t").get(30, TimeUnit.SECONDS);
            BlockCache cache = ((EmbeddedConnection) c).store().blockCache();

            long fullScan = blockLookups(cache, () -> {
                assertThat(table.scanAll(new Scan()).get(30, TimeUnit.SECONDS)).hasSize(5000);
            });

            long prefix = blockLookups(cache, () -> {
                assertThat(table.scanAll(new Scan().setFilter(new PrefixFilter(bytes("row0499")))).get(30, TimeUnit.SECONDS))
                        .hasSize(10);
            });

            Filter fuzzy = new FuzzyRowFilter(List.of(new FuzzyRowFilter.Rule(bytes("row0?990"), new byte[] {0, 0, 0, 0, 1, 0, 0, 0})));
            long fuzzyBlocks = blockLookups(cache, () -> {
                assertThat(text(table.scanAll(new Scan().setFilter(fuzzy)).get(30, TimeUnit.SECONDS)))
                        .extracting(cell -> cell.substring(0, 8))
                        .containsExactly("row00990", "row01990", "row02990", "row03990", "row04990");
            });

            // In lists the same filters reject rows cell by cell (as HBase's do), and the list's
            // seek to their next row still moves the reader there.
            long fuzzyInAnd = blockLookups(cache, () -> {
                assertThat(table.scanAll(new Scan().setFilter(FilterList.all(
                        new ValueFilter(CompareOperator.NOT_EQUAL, new BinaryComparator(bytes("none"))), fuzzy)))
                        .get(30, TimeUnit.SECONDS)).hasSize(5);
            });
            long prefixesInOr = blockLookups(cache, () -> {
                assertThat(table.scanAll(new Scan().setFilter(FilterList.one(new PrefixFilter(bytes("row0199")),
                        new PrefixFilter(bytes("row0399"))))).get(30, TimeUnit.SECONDS)).hasSize(20);
            });

            assertThat(fuzzyInAnd).as("blocks read for 5 fuzzy matches in an AND, against %d for the table", fullScan)
                    .isLessThan(30);
            assertThat(prefixesInOr).as("blocks read for two prefixes of 10 rows in an OR, against %d for the table", fullScan)
                    .isLessThan(20);
            assertThat(fullScan).isGreaterThan(200);
            assertThat(prefix).as("blocks read for a prefix of 10 rows, against %d for the table", fullScan)
                    .isLessThan(10);
            assertThat(fuzzyBlocks).as("blocks read for 5 fuzzy matches, against %d for the table", fullScan)
                    .isLessThan(30);
        } finally {
            delete(dir);
        }
    }

    /**
     * Lists whose filters reject rows cell by cell seek in a table of two families too: a seek to
     * a later row moves one family's reader, and the reader seeks the whole merge once both have
     * been sent on. The while-match makes the AND read the rows its fuzzy rule rejects (it could
     * end the scan at one of their cells), so this measures the cell-by-cell path.
     */
    @net.jqwik.api.Example
    void listsThatRejectRowsCellByCellSeekInATableOfTwoFamilies() throws Exception {
        Path dir = Files.createTempDirectory("basalt-filter-seek");
        try (Connection c = Basalt.open(dir)) {
            c.admin().createTable(new TableDescriptor("t", List.of(FamilyDescriptor.of("f").withBlockSize(1024),
                    FamilyDescriptor.of("g").withBlockSize(1024)))).get(30, TimeUnit.SECONDS);
            AsyncTable table = c.table("t");
            for (int i = 0; i < 5000; i++) {
                table.put(new Put(bytes(String.format("row%05d", i)))
                        .addColumn(bytes("f"), bytes("q"), 1, bytes("value-" + "x".repeat(40)))
                        .addColumn(bytes("g"), bytes("q"), 1, bytes("other-" + "y".repeat(40)))).get(30, TimeUnit.SECONDS);
            }
            c.admin().flush("t").get(30, TimeUnit.SECONDS);
            c.admin().compact("t").get(30, TimeUnit.SECONDS);
            BlockCache cache = ((EmbeddedConnection) c).store().blockCache();

            long fullScan = blockLookups(cache, () -> {
                assertThat(table.scanAll(new Scan()).get(30, TimeUnit.SECONDS)).hasSize(5000);
            });

            Filter fuzzy = new FuzzyRowFilter(List.of(new FuzzyRowFilter.Rule(bytes("row0?990"), new byte[] {0, 0, 0, 0, 1, 0, 0, 0})));
            Filter watched = FilterList.all(new WhileMatchFilter(new ValueFilter(CompareOperator.NOT_EQUAL,
                    new BinaryComparator(bytes("none")))), fuzzy);
            long cellByCell = blockLookups(cache, () -> {
                assertThat(text(table.scanAll(new Scan().setFilter(watched)).get(30, TimeUnit.SECONDS)))
                        .extracting(cell -> cell.substring(0, 8))
                        .containsExactly("row00990", "row00990", "row01990", "row01990", "row02990", "row02990", "row03990",
                                "row03990", "row04990", "row04990");
            });

            long byKey = blockLookups(cache, () -> {
                assertThat(table.scanAll(new Scan().setFilter(FilterList.one(new PrefixFilter(bytes("row0199")),
                        new PrefixFilter(bytes("row0399"))))).get(30, TimeUnit.SECONDS)).hasSize(20);
            });

            assertThat(fullScan).isGreaterThan(400);
            assertThat(cellByCell).as("blocks read for 5 fuzzy matches, cell by cell, against %d for the table", fullScan)
                    .isLessThan(60);
            assertThat(byKey).as("blocks read for two prefixes of 10 rows, against %d for the table", fullScan)
                    .isLessThan(40);
        } finally {
            delete(dir);
        }
    }

    /**
     * A key filter seeks past deleted rows without reading them: its key decision does not depend
     * on earlier rows, so the reader judges each stored key, visible or not (a while-match, whose
     * decision does, waits for a visible cell). 4,990 deleted rows before the prefix, in files.
     */
    @net.jqwik.api.Example
    void aKeyFilterSeeksPastDeletedRows() throws Exception {
        Path dir = Files.createTempDirectory("basalt-filter-seek");
        try (Connection c = Basalt.open(dir)) {
            AsyncTable table = fiveThousandRowsInAFile(c);
            for (int i = 0; i < 4990; i++) {
                table.delete(new Delete(bytes(String.format("row%05d", i)))).get(30, TimeUnit.SECONDS);
            }
            c.admin().flush("t").get(30, TimeUnit.SECONDS);
            BlockCache cache = ((EmbeddedConnection) c).store().blockCache();
            long prefix = blockLookups(cache, () -> {
                assertThat(table.scanAll(new Scan().setFilter(new PrefixFilter(bytes("row0499")))).get(30, TimeUnit.SECONDS))
                        .hasSize(10);
            });
            assertThat(prefix).as("blocks read for a prefix after 4,990 deleted rows").isLessThan(20);
            Filter whileFilter = new WhileMatchFilter(new PrefixFilter(bytes("row0499")));
            assertThat(table.scanAll(new Scan().setFilter(whileFilter)).get(30, TimeUnit.SECONDS)).hasSize(10);
        } finally {
            delete(dir);
        }
    }

    /** A new table {@code t} with the one family {@code f}. */
    private static AsyncTable tableOfOneFamily(Connection c) throws Exception {
        c.admin().createTable(new TableDescriptor("t", List.of(FamilyDescriptor.of("f")))).get(30, TimeUnit.SECONDS);
        return c.table("t");
    }

    /** Table {@code t}: rows {@code row00000..row04999}, one 47-byte cell each, flushed into a file of 1 KiB blocks. */
    private interface Read {
        void run() throws Exception;
    }

    /** The block-cache lookups (hits and misses) {@code read} makes. */
    private static long blockLookups(BlockCache cache, Read read) throws Exception {
        long before = cache.hits() + cache.misses();
        read.run();
        return cache.hits() + cache.misses() - before;
    }

    private static AsyncTable fiveThousandRowsInAFile(Connection c) throws Exception {
        c.admin().createTable(new TableDescriptor("t", List.of(FamilyDescriptor.of("f").withBlockSize(1024))))
                .get(30, TimeUnit.SECONDS);
        AsyncTable table = c.table("t");
        for (int i = 0; i < 5000; i++) {
            table.put(new Put(bytes(String.format("row%05d", i))).addColumn(bytes("f"), bytes("q"), 1,
                    bytes("value-" + "x".repeat(40)))).get(30, TimeUnit.SECONDS);
        }
        c.admin().flush("t").get(30, TimeUnit.SECONDS);
        return table;
    }

    private static void delete(Path dir) throws java.io.IOException {
        try (var paths = Files.walk(dir)) {
            for (Path p : paths.sorted(java.util.Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        }
    }

    /**
     * What {@code filter} keeps of the unfiltered rows, walked cell by cell as the reader would
     * but dropping instead of seeking ({@link FilterWalk}); {@code split} is where the second
     * region starts, {@code null} for one.
     */
    private static List<String> naive(List<Result> rows, Filter filter, boolean reversed, int maxVersions, byte[] split) {
        List<Cell> kept = FilterWalk.walk(rows.stream().map(Result::cells).toList(), filter, reversed,
                java.util.random.RandomGenerator.getDefault(), maxVersions, split);
        return cellText(kept);
    }

    private static List<String> text(List<Result> results) {
        return cellText(results.stream().flatMap(r -> r.cells().stream()).toList());
    }

    private static List<String> cellText(List<Cell> cells) {
        List<String> out = new ArrayList<>();
        for (Cell c : cells) {
            out.add(str(c.rowBytes()) + "/" + str(c.familyBytes()) + ":" + str(c.qualifierBytes()) + "@"
                    + c.timestamp() + "=" + str(c.valueBytes()));
        }
        return out;
    }

    // ------------------------------------------------------------------ data

    private static void load(Connection c, AsyncTable table, Random random) throws Exception {
        int mutations = 40 + random.nextInt(120);
        for (int i = 0; i < mutations; i++) {
            byte[] row = bytes(row(random));
            String family = FAMILIES[random.nextInt(2)];
            byte[] qualifier = bytes(QUALIFIERS[random.nextInt(QUALIFIERS.length)]);
            long ts = 1 + random.nextInt(4);
            int kind = random.nextInt(20);
            if (kind < 16) {
                table.put(new Put(row).addColumn(bytes(family), qualifier, ts, bytes(value(random))))
                        .get(30, TimeUnit.SECONDS);
            } else if (kind == 16) {
                table.delete(new Delete(row).addColumn(bytes(family), qualifier, ts)).get(30, TimeUnit.SECONDS);
            } else if (kind == 17) {
                table.delete(new Delete(row).addColumns(bytes(family), qualifier, ts)).get(30, TimeUnit.SECONDS);
            } else if (kind == 18) {
                table.delete(new Delete(row).addFamily(bytes(family), ts)).get(30, TimeUnit.SECONDS);
            } else {
                c.admin().flush("t").get(30, TimeUnit.SECONDS);
            }
        }
    }

    private static String row(Random random) {
        StringBuilder row = new StringBuilder();
        int length = 1 + random.nextInt(3);
        for (int i = 0; i < length; i++) {
            row.append(ROW_PARTS[random.nextInt(ROW_PARTS.length)]);
        }
        return row.toString();
    }

    private static String value(Random random) {
        return List.of("", "1", "12", "x", "X1").get(random.nextInt(5));
    }

    private static Scan selection(Random random) {
        Scan scan = new Scan();
        switch (random.nextInt(4)) {
            case 0 -> scan.addFamily(bytes("f"));
            case 1 -> scan.addColumn(bytes("f"), bytes("a")).addFamily(bytes("g"));
            default -> { }
        }
        if (random.nextBoolean()) {
            scan.readAllVersions();
        }
        if (random.nextInt(4) == 0) {
            scan.setTimeRange(new io.basalt.client.TimeRange(2, 4));
        }
        return scan;
    }

    // ------------------------------------------------------------------ filters

    private static Filter filter(Random random, int depth) {
        int kinds = depth < 3 ? 25 : 22;
        return switch (random.nextInt(kinds)) {
            case 0 -> new PrefixFilter(bytes(random.nextBoolean() ? row(random) : ""));
            case 1 -> new ColumnPrefixFilter(bytes(QUALIFIERS[random.nextInt(QUALIFIERS.length)]));
            case 2 -> new MultipleColumnPrefixFilter(List.of(bytes(QUALIFIERS[1 + random.nextInt(4)]),
                    bytes(QUALIFIERS[1 + random.nextInt(4)])));
            case 3 -> {
                String a = QUALIFIERS[random.nextInt(QUALIFIERS.length)];
                String b = QUALIFIERS[random.nextInt(QUALIFIERS.length)];
                if (!a.isEmpty() && !b.isEmpty() && a.compareTo(b) > 0) {
                    String t = a;
                    a = b;
                    b = t;
                }
                yield new ColumnRangeFilter(bytes(a), random.nextBoolean(), bytes(b), random.nextBoolean());
            }
            case 4 -> new RowFilter(op(random), comparator(random, row(random)));
            case 5 -> new FamilyFilter(op(random), comparator(random, FAMILIES[random.nextInt(2)]));
            case 6 -> new QualifierFilter(op(random), comparator(random, QUALIFIERS[random.nextInt(QUALIFIERS.length)]));
            case 7 -> new ValueFilter(op(random), comparator(random, value(random)));
            case 8 -> new SingleColumnValueFilter(bytes(FAMILIES[random.nextInt(2)]), bytes(QUALIFIERS[random.nextInt(3)]),
                    op(random), comparator(random, value(random)), random.nextBoolean(), random.nextBoolean());
            case 9 -> new SingleColumnValueExcludeFilter(bytes("f"), bytes(QUALIFIERS[random.nextInt(3)]),
                    op(random), comparator(random, value(random)), random.nextBoolean(), random.nextBoolean());
            case 10 -> new PageFilter(random.nextInt(6));
            case 11 -> new KeyOnlyFilter(random.nextBoolean());
            case 12 -> new FirstKeyOnlyFilter();
            case 13 -> new InclusiveStopFilter(bytes(row(random)));
            case 14 -> new TimestampsFilter(List.of((long) 1 + random.nextInt(4), (long) 1 + random.nextInt(4)));
            case 15 -> new ColumnCountGetFilter(random.nextInt(4));
            case 16 -> random.nextBoolean() ? new ColumnPaginationFilter(1 + random.nextInt(3), random.nextInt(3))
                    : new ColumnPaginationFilter(1 + random.nextInt(3), bytes(QUALIFIERS[1 + random.nextInt(4)]));
            case 17 -> new RandomRowFilter(random.nextBoolean() ? 0f : 1f);
            case 18 -> {
                String pattern = row(random) + row(random);
                byte[] mask = new byte[pattern.length()];
                for (int i = 0; i < mask.length; i++) {
                    mask[i] = (byte) random.nextInt(2);
                }
                yield new FuzzyRowFilter(List.of(new FuzzyRowFilter.Rule(bytes(pattern), mask)));
            }
            case 19 -> {
                List<MultiRowRangeFilter.RowRange> ranges = new ArrayList<>();
                for (int i = 0; i < 1 + random.nextInt(3); i++) {
                    String a = row(random);
                    String b = random.nextInt(4) == 0 ? "" : row(random);
                    if (!b.isEmpty() && a.compareTo(b) > 0) {
                        String t = a;
                        a = b;
                        b = t;
                    }
                    boolean startInclusive = random.nextBoolean();
                    boolean stopInclusive = random.nextBoolean() || a.equals(b);
                    if (a.equals(b)) {
                        startInclusive = true;
                    }
                    ranges.add(new MultiRowRangeFilter.RowRange(bytes(a), startInclusive, bytes(b), stopInclusive));
                }
                yield new MultiRowRangeFilter(ranges);
            }
            case 20, 21 -> new QualifierFilter(CompareOperator.NOT_EQUAL, new BinaryComparator(bytes("ab")));
            case 22 -> new WhileMatchFilter(filter(random, depth + 1));
            case 23 -> new SkipFilter(filter(random, depth + 1));
            default -> {
                List<Filter> children = new ArrayList<>();
                for (int i = 0; i < 2 + random.nextInt(2); i++) {
                    children.add(filter(random, depth + 1));
                }
                yield new FilterList(random.nextBoolean() ? FilterList.Operator.MUST_PASS_ALL
                        : FilterList.Operator.MUST_PASS_ONE, children);
            }
        };
    }

    private static CompareOperator op(Random random) {
        return CompareOperator.values()[random.nextInt(CompareOperator.values().length)];
    }

    private static ByteArrayComparable comparator(Random random, String operand) {
        return switch (random.nextInt(6)) {
            case 0 -> new BinaryPrefixComparator(bytes(operand));
            case 1 -> new RegexStringComparator(operand.isEmpty() ? "^$" : operand + "$");
            case 2 -> new SubstringComparator(operand);
            case 3 -> new NullComparator();
            default -> new BinaryComparator(bytes(operand));
        };
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static String str(byte[] b) {
        return new String(b, StandardCharsets.UTF_8);
    }
}
