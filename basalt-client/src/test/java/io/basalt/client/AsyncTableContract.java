package io.basalt.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.basalt.bytes.Bytes;
import io.basalt.cell.Cell;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * What every {@link AsyncTable} does, whatever is behind it: each implementation's module extends
 * this class with a way to connect (the embedded store, the network client), and every test runs
 * against each.
 */
public abstract class AsyncTableContract {

    protected static final byte[] F = utf8("f");
    protected static final byte[] G = utf8("g");

    protected Connection connection;
    protected AsyncTable table;

    /** A connection to a fresh, empty store. */
    protected abstract Connection connect() throws Exception;

    @BeforeEach
    void createTable() throws Exception {
        connection = connect();
        await(connection.admin().createTable(new TableDescriptor("t", List.of(
                FamilyDescriptor.of("f").withMaxVersions(3), FamilyDescriptor.of("g")))));
        table = connection.table("t");
    }

    @AfterEach
    void closeConnection() {
        if (connection != null) {
            connection.close();
        }
    }

    protected static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    protected static String str(byte[] b) {
        return b == null ? null : new String(b, StandardCharsets.UTF_8);
    }

    protected static <T> T await(CompletableFuture<T> future) throws Exception {
        try {
            return future.get(30, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof Exception cause) {
                throw cause;
            }
            throw e;
        }
    }

    protected void put(String row, String family, String qualifier, long ts, String value) throws Exception {
        await(table.put(new Put(utf8(row)).addColumn(utf8(family), utf8(qualifier), ts, utf8(value))));
    }

    protected String value(String row, String family, String qualifier) throws Exception {
        return str(await(table.get(Get.of(row))).value(family, qualifier));
    }

    protected List<String> rows(Scan scan) throws Exception {
        List<String> rows = new ArrayList<>();
        for (Result r : await(table.scanAll(scan))) {
            rows.add(str(r.row()));
        }
        return rows;
    }

    // ------------------------------------------------------------------ put and get

    @Test
    void getReturnsWhatWasPut() throws Exception {
        await(table.put(Put.of("r1").addColumn("f", "a", "1").addColumn("g", "b", "2")));

        Result result = await(table.get(Get.of("r1")));

        assertThat(str(result.row())).isEqualTo("r1");
        assertThat(str(result.value("f", "a"))).isEqualTo("1");
        assertThat(str(result.value("g", "b"))).isEqualTo("2");
        assertThat(result.cells()).extracting(c -> str(c.familyBytes()) + ":" + str(c.qualifierBytes()))
                .containsExactly("f:a", "g:b");
    }

    @Test
    void getOfAMissingRowIsEmpty() throws Exception {
        Result result = await(table.get(Get.of("nope")));
        assertThat(result.isEmpty()).isTrue();
        assertThat(result.row()).isNull();
    }

    @Test
    void putWithoutTimestampGetsTheStoresClock() throws Exception {
        long before = System.currentTimeMillis();
        await(table.put(Put.of("r").addColumn("f", "a", "v")));
        long ts = await(table.get(Get.of("r"))).cells().getFirst().timestamp();
        assertThat(ts).isBetween(before - 1000, System.currentTimeMillis() + 1000);
    }

    @Test
    void laterWriteOfTheSameVersionWins() throws Exception {
        put("r", "f", "a", 5, "old");
        put("r", "f", "a", 5, "new");
        assertThat(value("r", "f", "a")).isEqualTo("new");
        assertThat(await(table.get(Get.of("r").readAllVersions())).cells()).hasSize(1);
    }

    @Test
    void getSelectsFamiliesAndColumns() throws Exception {
        await(table.put(Put.of("r").addColumn("f", "a", "1").addColumn("f", "b", "2").addColumn("g", "c", "3")));

        assertThat(await(table.get(Get.of("r").addFamily(G))).cells()).extracting(c -> str(c.valueBytes()))
                .containsExactly("3");
        assertThat(await(table.get(Get.of("r").addColumn(F, utf8("b")))).cells()).extracting(c -> str(c.valueBytes()))
                .containsExactly("2");
    }

    @Test
    void versionsAreNewestFirstAndBoundedByTheFamily() throws Exception {
        for (int ts = 1; ts <= 5; ts++) {
            put("r", "f", "a", ts, "v" + ts);
        }
        Result all = await(table.get(Get.of("r").readAllVersions()));
        assertThat(all.cells()).extracting(Cell::timestamp).containsExactly(5L, 4L, 3L);
        assertThat(await(table.get(Get.of("r").readVersions(2))).cells()).extracting(Cell::timestamp)
                .containsExactly(5L, 4L);
        assertThat(value("r", "f", "a")).isEqualTo("v5");
    }

    @Test
    void timeRangeSelectsVersions() throws Exception {
        for (int ts = 1; ts <= 3; ts++) {
            put("r", "f", "a", ts, "v" + ts);
        }
        Result result = await(table.get(Get.of("r").setTimeRange(new TimeRange(1, 3)).readAllVersions()));
        assertThat(result.cells()).extracting(Cell::timestamp).containsExactly(2L, 1L);
    }

    // ------------------------------------------------------------------ deletes

    @Test
    void deleteOfOneVersionLeavesTheOthers() throws Exception {
        put("r", "f", "a", 1, "v1");
        put("r", "f", "a", 2, "v2");
        await(table.delete(Delete.of("r").addColumn(F, utf8("a"), 2)));
        assertThat(value("r", "f", "a")).isEqualTo("v1");
    }

    @Test
    void deleteOfTheLatestVersionFindsIt() throws Exception {
        put("r", "f", "a", 1, "v1");
        put("r", "f", "a", 2, "v2");
        await(table.delete(Delete.of("r").addColumn(F, utf8("a"))));
        assertThat(value("r", "f", "a")).isEqualTo("v1");
    }

    @Test
    void deleteColumnRemovesEveryVersionAtOrBelowItsTimestamp() throws Exception {
        put("r", "f", "a", 1, "v1");
        put("r", "f", "a", 2, "v2");
        put("r", "f", "a", 3, "v3");
        await(table.delete(new Delete(utf8("r"), 2).addColumns(F, utf8("a"))));
        assertThat(await(table.get(Get.of("r").readAllVersions())).cells()).extracting(Cell::timestamp)
                .containsExactly(3L);
    }

    @Test
    void deleteFamilyRemovesOnlyThatFamily() throws Exception {
        await(table.put(Put.of("r").addColumn("f", "a", "1").addColumn("g", "b", "2")));
        await(table.delete(Delete.of("r").addFamily(F)));
        Result result = await(table.get(Get.of("r")));
        assertThat(result.cells()).extracting(c -> str(c.familyBytes())).containsExactly("g");
    }

    @Test
    void deleteOfTheWholeRowRemovesEverything() throws Exception {
        await(table.put(Put.of("r").addColumn("f", "a", "1").addColumn("g", "b", "2")));
        await(table.put(Put.of("other").addColumn("f", "a", "1")));
        await(table.delete(Delete.of("r")));
        assertThat(await(table.get(Get.of("r"))).isEmpty()).isTrue();
        assertThat(value("other", "f", "a")).isEqualTo("1");
    }

    @Test
    void putAfterADeleteIsVisibleEvenWithAnOlderTimestamp() throws Exception {
        put("r", "f", "a", 10, "old");
        await(table.delete(new Delete(utf8("r"), 20).addColumns(F, utf8("a"))));
        put("r", "f", "a", 5, "rewritten");
        assertThat(value("r", "f", "a")).isEqualTo("rewritten");
    }

    // ------------------------------------------------------------------ batch, check-and-mutate, increment

    @Test
    void batchGivesEachMutationItsOwnOutcome() throws Exception {
        List<Mutation> mutations = List.of(
                Put.of("a").addColumn("f", "q", "1"),
                new Put(utf8("b")).addColumn(utf8("nosuch"), utf8("q"), utf8("x")),
                Increment.of("c").addColumn(F, utf8("n"), 5));
        List<CompletableFuture<Object>> futures = table.batch(mutations);

        assertThat(futures).hasSize(3);
        assertThat(await(futures.get(0))).isNull();
        assertThatThrownBy(() -> await(futures.get(1))).isInstanceOf(NoSuchFamilyException.class)
                .hasMessageContaining("nosuch");
        assertThat(Increment.decode(((Result) await(futures.get(2))).cells().getFirst().value())).isEqualTo(5);
        assertThat(value("a", "f", "q")).isEqualTo("1");
        assertThat(await(table.get(Get.of("b"))).isEmpty()).isTrue();
    }

    @Test
    void checkAndMutateAppliesOnlyWhenTheValueMatches() throws Exception {
        put("r", "f", "a", 1, "expected");
        CheckAndMutate wrong = CheckAndMutate.onRow(utf8("r")).ifEquals(F, utf8("a"), utf8("other"))
                .then(Put.of("r").addColumn("f", "b", "no"));
        CheckAndMutate right = CheckAndMutate.onRow(utf8("r")).ifEquals(F, utf8("a"), utf8("expected"))
                .then(Put.of("r").addColumn("f", "b", "yes"), Delete.of("r").addColumns(F, utf8("a")));

        assertThat(await(table.checkAndMutate(wrong))).isFalse();
        assertThat(value("r", "f", "b")).isNull();
        assertThat(await(table.checkAndMutate(right))).isTrue();
        assertThat(value("r", "f", "b")).isEqualTo("yes");
        assertThat(value("r", "f", "a")).isNull();
    }

    @Test
    void checkAndMutateOnAbsenceActsOnce() throws Exception {
        CheckAndMutate create = CheckAndMutate.onRow(utf8("r")).ifAbsent(F, utf8("lock"))
                .then(Put.of("r").addColumn("f", "lock", "mine"));
        assertThat(await(table.checkAndMutate(create))).isTrue();
        assertThat(await(table.checkAndMutate(create))).isFalse();
    }

    @Test
    void checkAndMutateComparesWithTheGivenValueOnTheLeftAsHBaseDoes() throws Exception {
        put("r", "f", "n", 1, "5");
        for (var c : List.of(
                new Object[] {io.basalt.client.filter.CompareOperator.GREATER, "7", true},
                new Object[] {io.basalt.client.filter.CompareOperator.GREATER, "3", false},
                new Object[] {io.basalt.client.filter.CompareOperator.LESS, "3", true},
                new Object[] {io.basalt.client.filter.CompareOperator.LESS_OR_EQUAL, "5", true},
                new Object[] {io.basalt.client.filter.CompareOperator.GREATER_OR_EQUAL, "4", false},
                new Object[] {io.basalt.client.filter.CompareOperator.NOT_EQUAL, "5", false},
                new Object[] {io.basalt.client.filter.CompareOperator.NOT_EQUAL, "6", true})) {
            CheckAndMutate check = CheckAndMutate.onRow(utf8("r"))
                    .ifMatches(F, utf8("n"), (io.basalt.client.filter.CompareOperator) c[0], utf8((String) c[1]))
                    .then(Put.of("r").addColumn("f", "seen", c[0] + " " + c[1]));
            assertThat(await(table.checkAndMutate(check))).as("%s %s 5", c[1], c[0]).isEqualTo(c[2]);
        }
        CheckAndMutate missing = CheckAndMutate.onRow(utf8("r"))
                .ifMatches(F, utf8("none"), io.basalt.client.filter.CompareOperator.NOT_EQUAL, utf8("x"))
                .then(Put.of("r").addColumn("f", "b", "no"));
        assertThat(await(table.checkAndMutate(missing))).isFalse();
    }

    @Test
    void checkAndMutateConditionsSeeOnlyTheirTimeRange() throws Exception {
        put("r", "f", "a", 10, "new");
        put("r", "f", "a", 5, "old");
        CheckAndMutate old = CheckAndMutate.onRow(utf8("r")).ifEquals(F, utf8("a"), utf8("old"))
                .timeRange(new TimeRange(0, 10)).then(Put.of("r").addColumn("f", "b", "1"));
        assertThat(await(table.checkAndMutate(old))).isTrue();
        CheckAndMutate absent = CheckAndMutate.onRow(utf8("r")).ifAbsent(F, utf8("a"))
                .timeRange(new TimeRange(20, 30)).then(Put.of("r").addColumn("f", "c", "1"));
        assertThat(await(table.checkAndMutate(absent))).isTrue();
        assertThat(value("r", "f", "c")).isEqualTo("1");
    }

    @Test
    void checkAndMutateTakesAFilterAsItsCondition() throws Exception {
        put("r", "f", "state", 1, "open");
        var isOpen = new io.basalt.client.filter.SingleColumnValueFilter(F, utf8("state"),
                io.basalt.client.filter.CompareOperator.EQUAL, new io.basalt.client.filter.BinaryComparator(utf8("open")),
                true, true);
        CheckAndMutate close = CheckAndMutate.onRow(utf8("r")).ifMatches(isOpen)
                .then(new RowMutations(utf8("r")).add(Put.of("r").addColumn("f", "state", "closed"))
                        .add(Delete.of("r").addColumns(G, utf8("lease"))));
        put("r", "g", "lease", 1, "x");
        assertThat(await(table.checkAndMutate(close))).isTrue();
        assertThat(value("r", "f", "state")).isEqualTo("closed");
        assertThat(value("r", "g", "lease")).isNull();
        assertThat(await(table.checkAndMutate(close))).isFalse();
        CheckAndMutate parsed = CheckAndMutate.onRow(utf8("r"))
                .ifMatches(io.basalt.client.filter.Filter.parse("ValueFilter(=, 'binary:closed')"))
                .then(Put.of("r").addColumn("f", "seen", "yes"));
        assertThat(await(table.checkAndMutate(parsed))).isTrue();
    }

    @Test
    void mutateRowAppliesPutsAndDeletesTogether() throws Exception {
        put("r", "f", "a", 1, "1");
        await(table.mutateRow(new RowMutations(utf8("r")).add(Delete.of("r").addColumns(F, utf8("a")))
                .add(Put.of("r").addColumn("f", "b", "2")).add(Put.of("r").addColumn("g", "c", "3"))));
        Result r = await(table.get(Get.of("r")));
        assertThat(r.value(F, utf8("a"))).isNull();
        assertThat(str(r.value(F, utf8("b")))).isEqualTo("2");
        assertThat(str(r.value(G, utf8("c")))).isEqualTo("3");
        assertThatThrownBy(() -> await(table.mutateRow(new RowMutations(utf8("r"))
                .add(Put.of("r").addColumn("f", "x", "1")).add(new Put(utf8("r")).addColumn(utf8("nope"), utf8("x"), utf8("1"))))))
                .hasMessageContaining("nope");
        assertThat(value("r", "f", "x")).as("nothing of a failed row mutation applies").isNull();
        assertThatThrownBy(() -> new RowMutations(utf8("r")).add(Put.of("s").addColumn("f", "a", "1")))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("got a mutation of row s");
        assertThatThrownBy(() -> new RowMutations(utf8("r")).add(Increment.of("r").addColumn(F, utf8("n"), 1)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("not increments");
    }

    @Test
    void rawScansReturnDeleteMarkersAndTheCellsTheyMask() throws Exception {
        put("r", "f", "a", 1, "old");
        put("r", "f", "a", 3, "new");
        await(table.delete(new Delete(utf8("r")).addColumns(F, utf8("a"), 2)));
        put("r", "g", "x", 1, "gx");
        await(table.delete(new Delete(utf8("r")).addFamily(G, 5)));
        put("s", "f", "b", 1, "kept");
        await(table.delete(new Delete(utf8("s")).addColumns(F, utf8("b"), 1)));

        assertThat(await(table.scanAll(new Scan().readAllVersions()))).hasSize(1); // s is all deleted
        List<String> raw = new ArrayList<>();
        for (Result r : await(table.scanAll(new Scan().setRaw(true).readAllVersions()))) {
            for (Cell c : r.cells()) {
                raw.add(str(c.rowBytes()) + "/" + str(c.familyBytes()) + ":" + str(c.qualifierBytes()) + "@"
                        + c.timestamp() + " " + c.type() + (c.type() == io.basalt.cell.CellType.PUT ? " " + str(c.valueBytes()) : ""));
            }
        }
        assertThat(raw).containsExactly("r/f:a@3 PUT new", "r/f:a@2 DELETE_COLUMN", "r/f:a@1 PUT old",
                "r/g:@5 DELETE_FAMILY", "r/g:x@1 PUT gx", "s/f:b@1 DELETE_COLUMN", "s/f:b@1 PUT kept");
        assertThat(await(table.scanAll(new Scan().setRaw(true).addColumn(F, utf8("a"))))).singleElement()
                .satisfies(r -> assertThat(r.cells()).hasSize(2)); // one put (one version) and the marker
        assertThatThrownBy(() -> await(table.scanAll(new Scan().setRaw(true)
                .setFilter(new io.basalt.client.filter.KeyOnlyFilter())))).hasMessageContaining("raw scan takes no filter");
    }

    // ------------------------------------------------------------------ alter

    @Test
    void alterAddsModifiesAndDropsFamiliesOnline() throws Exception {
        put("r", "f", "a", 1, "v1");
        put("r", "f", "a", 2, "v2");
        put("r", "g", "x", 1, "gx");
        Admin admin = connection.admin();

        await(admin.modifyColumnFamily("t", FamilyDescriptor.of("f").withMaxVersions(1)));
        assertThat(await(table.get(Get.of("r").readAllVersions())).columnCells(F, utf8("a"))).hasSize(1);
        assertThat(await(admin.describeTable("t")).family("f").orElseThrow().maxVersions()).isEqualTo(1);

        await(admin.addColumnFamily("t", FamilyDescriptor.of("h")));
        put("r", "h", "y", 1, "hy");
        assertThat(value("r", "h", "y")).isEqualTo("hy");

        await(admin.deleteColumnFamily("t", "g"));
        assertThat(await(table.get(Get.of("r"))).cells()).extracting(c -> str(c.familyBytes())).containsOnly("f", "h");
        assertThatThrownBy(() -> put("r", "g", "x", 2, "again")).isInstanceOf(NoSuchFamilyException.class);
        assertThat(await(admin.describeTable("t")).families()).extracting(FamilyDescriptor::name).containsExactly("f", "h");

        await(admin.addColumnFamily("t", FamilyDescriptor.of("g")));
        assertThat(value("r", "g", "x")).as("a family dropped and added again starts empty").isNull();
        assertThat(value("r", "f", "a")).isEqualTo("v2");
    }

    @Test
    void aDisabledTableRefusesReadsAndWritesUntilEnabled() throws Exception {
        put("r", "f", "a", 1, "v");
        Admin admin = connection.admin();
        assertThat(await(admin.isTableDisabled("t"))).isFalse();
        await(admin.disableTable("t"));
        await(admin.disableTable("t")); // again: no change
        assertThat(await(admin.isTableDisabled("t"))).isTrue();
        assertThatThrownBy(() -> value("r", "f", "a")).isInstanceOf(TableDisabledException.class)
                .hasMessageContaining("table 't' is disabled");
        assertThatThrownBy(() -> put("r", "f", "b", 1, "w")).isInstanceOf(TableDisabledException.class);
        assertThatThrownBy(() -> rows(new Scan())).isInstanceOf(TableDisabledException.class);
        assertThat(await(admin.describeTable("t")).name()).as("admin operations still work").isEqualTo("t");
        await(admin.enableTable("t"));
        assertThat(value("r", "f", "a")).isEqualTo("v");
        assertThat(value("r", "f", "b")).as("the refused write did not happen").isNull();
        assertThatThrownBy(() -> await(admin.isTableDisabled("missing"))).isInstanceOf(TableNotFoundException.class);
    }

    @Test
    void alterRefusesWhatItCannotDo() throws Exception {
        Admin admin = connection.admin();
        assertThatThrownBy(() -> await(admin.addColumnFamily("t", FamilyDescriptor.of("f"))))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("already has column family 'f'");
        assertThatThrownBy(() -> await(admin.deleteColumnFamily("t", "nope"))).isInstanceOf(NoSuchFamilyException.class);
        assertThatThrownBy(() -> await(admin.modifyTable(TableDescriptor.of("missing", "f"))))
                .isInstanceOf(TableNotFoundException.class);
        await(admin.deleteColumnFamily("t", "g"));
        assertThatThrownBy(() -> await(admin.deleteColumnFamily("t", "f")))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("the last of table t");
    }

    @Test
    void incrementsAddUpAndStartFromZero() throws Exception {
        Result first = await(table.increment(Increment.of("c").addColumn(F, utf8("n"), 2)));
        assertThat(Increment.decode(first.cells().getFirst().value())).isEqualTo(2);
        await(table.increment(Increment.of("c").addColumn(F, utf8("n"), 40)));
        assertThat(Increment.decode(await(table.get(Get.of("c"))).latest(F, utf8("n")).value())).isEqualTo(42);
    }

    @Test
    void incrementOfANonCounterFailsAndChangesNothing() throws Exception {
        put("c", "f", "n", 1, "text");
        assertThatThrownBy(() -> await(table.increment(Increment.of("c").addColumn(F, utf8("n"), 1))))
                .isInstanceOf(BasaltException.class).hasMessageContaining("is not a counter");
        assertThat(value("c", "f", "n")).isEqualTo("text");
    }

    @Test
    void appendsAddSuffixesAndStartFromEmpty() throws Exception {
        Result first = await(table.append(Append.of("a").addColumn("f", "s", "ab")));
        assertThat(str(first.value(F, utf8("s")))).isEqualTo("ab");
        put("a", "g", "t", 7, "x");
        Result both = await(table.append(Append.of("a").addColumn("f", "s", "cd").addColumn("g", "t", "y")
                .addColumn("f", "s", "e")));
        assertThat(str(both.value(F, utf8("s")))).isEqualTo("abcde");
        assertThat(str(both.value(G, utf8("t")))).isEqualTo("xy");
        assertThat(value("a", "f", "s")).isEqualTo("abcde");
        assertThat(value("a", "g", "t")).isEqualTo("xy");
        assertThat(await(table.get(Get.of("a").readAllVersions())).columnCells(F, utf8("s")))
                .extracting(c -> str(c.valueBytes())).first().isEqualTo("abcde");
    }

    @Test
    void concurrentAppendsToOneColumnAllLand() throws Exception {
        List<CompletableFuture<Result>> appends = new ArrayList<>();
        for (int i = 0; i < 50; i++) {
            appends.add(table.append(Append.of("a").addColumn("f", "s", Integer.toString(i % 10))));
        }
        for (CompletableFuture<Result> a : appends) {
            await(a);
        }
        assertThat(value("a", "f", "s")).hasSize(50);
    }

    @Test
    void appendsAreRefusedWhereTheyDoNotBelong() throws Exception {
        assertThatThrownBy(() -> await(table.append(Append.of("a").addColumn("nope", "s", "x"))))
                .hasMessageContaining("nope");
        assertThatThrownBy(() -> CheckAndMutate.onRow(utf8("a")).ifAbsent(F, utf8("s"))
                .then(Append.of("a").addColumn("f", "s", "x")))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("not appends");
        assertThat(await(table.get(Get.of("a"))).isEmpty()).isTrue();
    }

    // ------------------------------------------------------------------ scans

    private void fiveRows() throws Exception {
        for (String row : List.of("a", "b", "c", "d", "e")) {
            await(table.put(Put.of(row).addColumn("f", "q", row.toUpperCase())));
        }
    }

    @Test
    void scanReturnsRowsInOrderWithinItsBounds() throws Exception {
        fiveRows();
        assertThat(rows(new Scan())).containsExactly("a", "b", "c", "d", "e");
        assertThat(rows(new Scan().withStartRow(utf8("b")).withStopRow(utf8("d")))).containsExactly("b", "c");
        assertThat(rows(new Scan().withStartRow(utf8("b"), false).withStopRow(utf8("d"), true)))
                .containsExactly("c", "d");
    }

    @Test
    void reversedScanRunsFromStartDownToStop() throws Exception {
        fiveRows();
        assertThat(rows(new Scan().setReversed(true))).containsExactly("e", "d", "c", "b", "a");
        assertThat(rows(new Scan().setReversed(true).withStartRow(utf8("d")).withStopRow(utf8("b"))))
                .containsExactly("d", "c");
        assertThat(rows(new Scan().setReversed(true).withStartRow(utf8("d"), false).withStopRow(utf8("b"), true)))
                .containsExactly("c", "b");
    }

    @Test
    void scanLimitStopsAfterThatManyRows() throws Exception {
        fiveRows();
        assertThat(rows(new Scan().setLimit(2))).containsExactly("a", "b");
        assertThat(rows(new Scan().setReversed(true).setLimit(2))).containsExactly("e", "d");
    }

    @Test
    void scanSkipsDeletedRowsAndSelectsColumns() throws Exception {
        fiveRows();
        await(table.put(Put.of("c").addColumn("g", "x", "gx")));
        await(table.delete(Delete.of("b")));
        assertThat(rows(new Scan())).containsExactly("a", "c", "d", "e");
        assertThat(rows(new Scan().addFamily(G))).containsExactly("c");
    }

    @Test
    void scannerIteratesAndCloses() throws Exception {
        fiveRows();
        List<String> seen = new ArrayList<>();
        try (ResultScanner scanner = table.scanner(new Scan().withStartRow(utf8("c")))) {
            for (Result r : scanner) {
                seen.add(str(r.row()));
            }
        }
        assertThat(seen).containsExactly("c", "d", "e");
    }

    @Test
    void scannerSeesOneSnapshotWhileWritesGoOn() throws Exception {
        fiveRows();
        try (ResultScanner scanner = table.scanner(new Scan())) {
            assertThat(str(scanner.next().row())).isEqualTo("a");
            await(table.put(Put.of("bb").addColumn("f", "q", "new")));
            await(table.delete(Delete.of("d")));
            List<String> rest = new ArrayList<>();
            for (Result r = scanner.next(); r != null; r = scanner.next()) {
                rest.add(str(r.row()));
            }
            assertThat(rest).containsExactly("b", "c", "d", "e");
        }
        assertThat(rows(new Scan())).containsExactly("a", "b", "bb", "c", "e");
    }

    /** A consumer that records what it is given, for the consumer-style scan. */
    private static final class Recorder implements ScanConsumer {
        final List<String> rows = java.util.Collections.synchronizedList(new ArrayList<>());
        final CompletableFuture<Void> done = new CompletableFuture<>();
        final java.util.function.BiConsumer<Result, ScanController> onRow;

        Recorder(java.util.function.BiConsumer<Result, ScanController> onRow) {
            this.onRow = onRow;
        }

        @Override
        public void onNext(Result row, ScanController controller) {
            rows.add(str(row.row()));
            onRow.accept(row, controller);
        }

        @Override
        public void onError(Throwable error) {
            done.completeExceptionally(error);
        }

        @Override
        public void onComplete() {
            done.complete(null);
        }
    }

    @Test
    void scanConsumerGetsEveryRowInOrderThenCompletes() throws Exception {
        fiveRows();
        Recorder r = new Recorder((_, _) -> { });
        table.scan(new Scan().setCaching(2), r);
        await(r.done);
        assertThat(r.rows).containsExactly("a", "b", "c", "d", "e");
    }

    @Test
    void scanConsumerThatSuspendsGetsNothingUntilItResumes() throws Exception {
        fiveRows();
        java.util.concurrent.BlockingQueue<ScanController.Resumer> resumers =
                new java.util.concurrent.LinkedBlockingQueue<>();
        Recorder r = new Recorder((_, c) -> resumers.add(c.suspend()));
        table.scan(new Scan().setCaching(1), r);
        for (int delivered = 1; delivered <= 5; delivered++) {
            ScanController.Resumer resumer = resumers.poll(30, TimeUnit.SECONDS);
            assertThat(resumer).as("row %d was delivered and suspended the scan", delivered).isNotNull();
            assertThat(r.rows).hasSize(delivered);
            assertThat(r.done).isNotDone();
            resumer.resume();
            resumer.resume(); // idempotent
        }
        await(r.done);
        assertThat(r.rows).containsExactly("a", "b", "c", "d", "e");
    }

    @Test
    void scanConsumerCanTerminateEarly() throws Exception {
        fiveRows();
        Recorder r = new Recorder((row, c) -> {
            if (str(row.row()).equals("b")) {
                c.terminate();
            }
        });
        table.scan(new Scan(), r);
        await(r.done);
        assertThat(r.rows).containsExactly("a", "b");
    }

    @Test
    void scanConsumerHearsOfAFailure() {
        Recorder r = new Recorder((_, _) -> { });
        connection.table("missing").scan(new Scan(), r);
        assertThatThrownBy(() -> await(r.done)).isInstanceOf(TableNotFoundException.class);
    }

    @Test
    void aRowWiderThanMaxResultSizeComesWholeUnlessPartialsAreAllowed() throws Exception {
        Put wide = Put.of("w");
        for (int i = 0; i < 50; i++) {
            wide.addColumn("f", String.format("q%02d", i), "value-" + i);
        }
        await(table.put(wide));
        put("x", "f", "q", 1, "after");
        List<Result> whole = await(table.scanAll(new Scan().setMaxResultSize(100)));
        assertThat(whole).hasSize(2);
        assertThat(whole.getFirst().size()).isEqualTo(50);
        assertThat(whole.getFirst().isPartial()).isFalse();
        List<String> viaScanner = new ArrayList<>();
        try (ResultScanner s = table.scanner(new Scan().setMaxResultSize(100))) {
            for (Result r : s) {
                assertThat(r.isPartial()).isFalse();
                viaScanner.add(str(r.row()) + ":" + r.size());
            }
        }
        assertThat(viaScanner).containsExactly("w:50", "x:1");

        List<Result> parts = await(table.scanAll(new Scan().setMaxResultSize(100).setAllowPartialResults(true)));
        List<Cell> cells = new ArrayList<>();
        for (Result r : parts.subList(0, parts.size() - 1)) {
            assertThat(str(r.row())).isEqualTo("w");
            cells.addAll(r.cells());
        }
        assertThat(cells).hasSize(50);
        assertThat(str(parts.getLast().row())).isEqualTo("x");
    }

    @Test
    void bufferedMutatorFromTheConnectionWritesThroughOnFlushAndClose() throws Exception {
        BufferedMutator mutator = connection.bufferedMutator("t").build();
        CompletableFuture<Void> first = mutator.mutate(Put.of("m1").addColumn("f", "q", "one"));
        await(mutator.flush());
        assertThat(first).isCompleted();
        assertThat(value("m1", "f", "q")).isEqualTo("one");
        CompletableFuture<Void> second = mutator.mutate(Put.of("m2").addColumn("f", "q", "two"));
        await(mutator.closeAsync());
        assertThat(second).isCompleted();
        assertThat(value("m2", "f", "q")).isEqualTo("two");
    }

    // ------------------------------------------------------------------ errors

    @Test
    void unknownTableIsNamed() {
        assertThatThrownBy(() -> await(connection.table("missing").get(Get.of("r"))))
                .isInstanceOf(TableNotFoundException.class).hasMessage("table 'missing' does not exist");
    }

    @Test
    void unknownFamilyIsNamedAndNothingIsWritten() throws Exception {
        Put put = Put.of("r").addColumn("f", "a", "1").addColumn("nosuch", "b", "2");
        assertThatThrownBy(() -> await(table.put(put))).isInstanceOf(NoSuchFamilyException.class)
                .hasMessage("table 't' has no column family 'nosuch'");
        assertThat(await(table.get(Get.of("r"))).isEmpty()).isTrue();
    }

    @Test
    void creatingATableTwiceFails() {
        assertThatThrownBy(() -> await(connection.admin().createTable(TableDescriptor.of("t", "f"))))
                .isInstanceOf(TableExistsException.class).hasMessage("table 't' already exists");
    }

    @Test
    void droppedTableIsGoneAndItsNameReusable() throws Exception {
        await(table.put(Put.of("r").addColumn("f", "a", "1")));
        await(connection.admin().dropTable("t"));
        assertThatThrownBy(() -> await(table.get(Get.of("r")))).isInstanceOf(TableNotFoundException.class);
        await(connection.admin().createTable(TableDescriptor.of("t", "f")));
        assertThat(await(connection.table("t").get(Get.of("r"))).isEmpty()).isTrue();
    }

    @Test
    void adminListsAndDescribesTables() throws Exception {
        await(connection.admin().createTable(TableDescriptor.of("a-first", "x")));
        assertThat(await(connection.admin().listTables())).extracting(TableDescriptor::name)
                .containsExactly("a-first", "t");
        TableDescriptor t = await(connection.admin().describeTable("t"));
        assertThat(t.family("f")).get().extracting(FamilyDescriptor::maxVersions).isEqualTo(3);
    }

    @Test
    void emptyRowIsRejectedBeforeAnythingIsSent() {
        assertThatThrownBy(() -> new Put(Bytes.EMPTY)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("row is 0 bytes");
    }

    @Test
    void dataSurvivesFlushAndCompaction() throws Exception {
        fiveRows();
        await(connection.admin().flush("t"));
        put("a", "f", "q", 1, "older");
        await(table.delete(Delete.of("c")));
        await(connection.admin().flush("t"));
        await(connection.admin().compact("t"));
        assertThat(rows(new Scan())).containsExactly("a", "b", "d", "e");
        assertThat(value("a", "f", "q")).isEqualTo("A");
    }

    /** Unwraps what {@link CompletableFuture#join()} would wrap, for tests that use join. */
    protected static Throwable cause(Throwable t) {
        return t instanceof CompletionException && t.getCause() != null ? t.getCause() : t;
    }
}
