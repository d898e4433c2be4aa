package io.basalt.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.basalt.bytes.Bytes;
import io.basalt.cell.Cell;
import io.basalt.client.Append;
import io.basalt.client.AsyncTable;
import io.basalt.client.CheckAndMutate;
import io.basalt.client.Connection;
import io.basalt.client.Delete;
import io.basalt.client.FamilyDescriptor;
import io.basalt.client.Get;
import io.basalt.client.Increment;
import io.basalt.client.Mutation;
import io.basalt.client.Put;
import io.basalt.client.Result;
import io.basalt.client.StoreOptions;
import io.basalt.client.TableDescriptor;
import io.basalt.client.TimeRange;
import io.basalt.client.filter.KeyOnlyFilter;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The row cache answers repeated gets of a row, and never an answer a write has made stale:
 * every kind of write, an alter and a truncate are seen by the next get. Its read-point rule is
 * checked on its own; its concurrency in {@code RowCacheStressTest} and {@code RowCacheLincheckIT}.
 */
class RowCacheTest {

    private static final byte[] F = Bytes.utf8("f");
    private static final byte[] G = Bytes.utf8("g");

    @TempDir
    Path dir;

    private final AtomicLong clock = new AtomicLong(1_000_000);
    private Store store;

    private Connection open(StoreOptions options) throws Exception {
        store = Store.open(dir, options.withRegionSplitSize(0), clock::get, new StripedRegionLocks());
        return new EmbeddedConnection(store);
    }

    private Connection open() throws Exception {
        return open(StoreOptions.defaults());
    }

    private static <T> T await(CompletableFuture<T> f) throws Exception {
        return f.get(30, TimeUnit.SECONDS);
    }

    private static String value(Result r, String family, String qualifier) {
        byte[] v = r.value(family, qualifier);
        return v == null ? null : new String(v, StandardCharsets.UTF_8);
    }

    @Test
    void aRepeatedGetIsAnsweredFromTheCacheWithTheSameCells() throws Exception {
        try (Connection c = open()) {
            await(c.admin().createTable(TableDescriptor.of("t", "f")));
            AsyncTable t = c.table("t");
            await(t.put(Put.of("r").addColumn("f", "a", "1").addColumn("f", "b", "2")));
            await(c.admin().flush("t"));
            Result first = await(t.get(Get.of("r")));
            long hits = store.rowCache().hits();
            assertThat(await(t.get(Get.of("r"))).size()).isEqualTo(first.size());
            assertThat(store.rowCache().hits()).as("a row's first miss is only remembered; its second keeps it")
                    .isEqualTo(hits);
            Result second = await(t.get(Get.of("r")));
            assertThat(store.rowCache().hits()).isEqualTo(hits + 1);
            assertThat(second.cells()).hasSameSizeAs(first.cells());
            for (int i = 0; i < first.size(); i++) {
                assertThat(second.cells().get(i)).isEqualTo(first.cells().get(i));
            }
            assertThat(second.row()).isEqualTo(Bytes.utf8("r")).isNotSameAs(await(t.get(Get.of("r"))).row());
            assertThat(store.rowCache().bytes()).isPositive();
        }
    }

    @Test
    void aCachedAnswerCannotBeChangedByTheCallerThatGotIt() throws Exception {
        try (Connection c = open()) {
            await(c.admin().createTable(TableDescriptor.of("t", "f")));
            AsyncTable t = c.table("t");
            await(t.put(Put.of("r").addColumn("f", "a", "1")));
            await(t.get(Get.of("r")));
            await(t.get(Get.of("r")));
            Result cached = await(t.get(Get.of("r")));
            assertThat(store.rowCache().hits()).isEqualTo(1);
            Cell cell = cached.cells().getFirst();
            // A view of the cache's array, which readers may read in place (as a memtable's
            // cells) but not write through the cell.
            assertThat(((io.basalt.cell.EncodedCell) cell).array()).isNotNull();
            assertThatThrownBy(() -> cell.value().set(ValueLayout.JAVA_BYTE, 0, (byte) '9'))
                    .isInstanceOf(IllegalArgumentException.class);
            assertThatThrownBy(() -> cached.cells().add(cell)).isInstanceOf(UnsupportedOperationException.class);
            cached.row()[0] = 'x';
            assertThat(value(await(t.get(Get.of("r"))), "f", "a")).isEqualTo("1");
            assertThat(await(t.get(Get.of("r"))).row()).isEqualTo(Bytes.utf8("r"));
        }
    }

    /** Reads row r until the cache answers it, applies {@code write}, and returns the next read. */
    private Result afterWrite(AsyncTable t, Consumer<AsyncTable> write) throws Exception {
        long hits = store.rowCache().hits();
        for (int i = 0; i < 3; i++) { // remembered, kept, answered from the cache
            await(t.get(Get.of("r")));
        }
        assertThat(store.rowCache().hits()).as("the cache answered").isGreaterThan(hits);
        clock.incrementAndGet(); // each write a version of its own
        write.accept(t);
        return await(t.get(Get.of("r")));
    }

    private static void join(CompletableFuture<?> f) {
        f.join();
    }

    @Test
    void everyKindOfWriteIsSeenByTheNextGet() throws Exception {
        try (Connection c = open()) {
            await(c.admin().createTable(new TableDescriptor("t", List.of(FamilyDescriptor.of("f").withMaxVersions(3)))));
            AsyncTable t = c.table("t");
            await(t.put(Put.of("r").addColumn("f", "a", "1").addColumn(F, Bytes.utf8("n"), Increment.encode(5))));
            await(c.admin().flush("t"));

            Result r = afterWrite(t, x -> join(x.put(Put.of("r").addColumn("f", "a", "2"))));
            assertThat(value(r, "f", "a")).isEqualTo("2");

            r = afterWrite(t, x -> join(x.batch(List.of(Put.of("r").addColumn("f", "a", "3"),
                    Put.of("s").addColumn("f", "a", "x"))).getFirst()));
            assertThat(value(r, "f", "a")).isEqualTo("3");

            r = afterWrite(t, x -> join(x.increment(Increment.of("r").addColumn(F, Bytes.utf8("n"), 2))));
            assertThat(Increment.decode(r.latest(F, Bytes.utf8("n")).value())).isEqualTo(7);

            r = afterWrite(t, x -> join(x.append(Append.of("r").addColumn("f", "a", "+"))));
            assertThat(value(r, "f", "a")).isEqualTo("3+");

            r = afterWrite(t, x -> join(x.checkAndMutate(CheckAndMutate.onRow(Bytes.utf8("r"))
                    .ifEquals(F, Bytes.utf8("a"), Bytes.utf8("3+")).then(Put.of("r").addColumn("f", "a", "4")))));
            assertThat(value(r, "f", "a")).isEqualTo("4");

            r = afterWrite(t, x -> join(x.delete(Delete.of("r").addColumn(F, Bytes.utf8("a")))));
            assertThat(value(r, "f", "a")).isEqualTo("3+"); // the newest version gone, the one before shows

            r = afterWrite(t, x -> join(x.delete(Delete.of("r").addColumns(F, Bytes.utf8("a")))));
            assertThat(value(r, "f", "a")).isNull();

            r = afterWrite(t, x -> join(x.delete(Delete.of("r"))));
            assertThat(r.isEmpty()).isTrue();

            r = afterWrite(t, x -> join(x.put(Put.of("r").addColumn("f", "z", "back"))));
            assertThat(value(r, "f", "z")).isEqualTo("back");
            assertThat(r.size()).isEqualTo(1);
        }
    }

    @Test
    void aCheckThatFailsWritesNothingAndTheAnswerStays() throws Exception {
        try (Connection c = open()) {
            await(c.admin().createTable(TableDescriptor.of("t", "f")));
            AsyncTable t = c.table("t");
            await(t.put(Put.of("r").addColumn("f", "a", "1")));
            Result r = afterWrite(t, x -> assertThat(x.checkAndMutate(CheckAndMutate.onRow(Bytes.utf8("r"))
                    .ifEquals(F, Bytes.utf8("a"), Bytes.utf8("0")).then(Put.of("r").addColumn("f", "a", "2"))).join())
                    .isFalse());
            assertThat(value(r, "f", "a")).isEqualTo("1");
        }
    }

    /** A replica's writes come from its replicated log, not from clients: they raise the marks too. */
    @Test
    void aReplicasLoggedWritesAreSeenByTheNextGet() throws Exception {
        store = Store.openReplica(dir, StoreOptions.defaults(), clock::get, new StripedRegionLocks(), LocalDisk.INSTANCE);
        try (Connection c = new EmbeddedConnection(store)) {
            await(c.admin().createTable(TableDescriptor.of("t", "f")));
            store.applyLogged("t", 1, 100, Put.of("r").addColumn("f", "a", "1"));
            long hits = store.rowCache().hits();
            for (int i = 0; i < 3; i++) {
                assertThat(value(await(c.table("t").get(Get.of("r"))), "f", "a")).isEqualTo("1");
            }
            assertThat(store.rowCache().hits()).as("the cache answered").isGreaterThan(hits);
            store.applyLogged("t", 2, 101, Put.of("r").addColumn("f", "a", "2"));
            assertThat(value(await(c.table("t").get(Get.of("r"))), "f", "a")).isEqualTo("2");
            store.applyLogged("t", 3, 102, Increment.of("r").addColumn(F, Bytes.utf8("n"), 4));
            Result r = await(c.table("t").get(Get.of("r")));
            assertThat(Increment.decode(r.latest(F, Bytes.utf8("n")).value())).isEqualTo(4);
            store.applyLogged("t", 4, 103, new Delete(Bytes.utf8("r")));
            assertThat(await(c.table("t").get(Get.of("r"))).isEmpty()).isTrue();
        }
    }

    @Test
    void getsOfOtherShapesAreNeitherKeptNorAnswered() throws Exception {
        try (Connection c = open()) {
            await(c.admin().createTable(new TableDescriptor("t", List.of(FamilyDescriptor.of("f").withMaxVersions(3),
                    FamilyDescriptor.of("e").withTimeToLive(Duration.ofHours(1))))));
            AsyncTable t = c.table("t");
            await(t.put(Put.of("r").addColumn("f", "a", "1")));
            clock.incrementAndGet();
            await(t.put(Put.of("r").addColumn("f", "a", "2")));
            await(t.put(Put.of("r").addColumn("e", "a", "1")));
            List<Get> gets = List.of(new Get(Bytes.utf8("r")).addColumn(F, Bytes.utf8("a")),
                    new Get(Bytes.utf8("r")).addFamily(F).readVersions(2),
                    new Get(Bytes.utf8("r")).addFamily(F).setTimeRange(new TimeRange(0, Long.MAX_VALUE - 1)),
                    new Get(Bytes.utf8("r")).addFamily(F).setFilter(new KeyOnlyFilter()),
                    new Get(Bytes.utf8("r")).addFamily(Bytes.utf8("e")),
                    Get.of("r")); // every family, one of which expires
            for (Get get : gets) {
                await(t.get(get));
                await(t.get(get));
            }
            assertThat(store.rowCache().hits() + store.rowCache().misses()).as("lookups").isZero();
            assertThat(store.rowCache().bytes()).isZero();
            assertThat(await(t.get(new Get(Bytes.utf8("r")).addFamily(F).readVersions(2))).size()).isEqualTo(2);
        }
    }

    @Test
    void familiesAreKeptApart() throws Exception {
        try (Connection c = open()) {
            await(c.admin().createTable(TableDescriptor.of("t", "f", "g")));
            AsyncTable t = c.table("t");
            await(t.put(Put.of("r").addColumn("f", "a", "1").addColumn("g", "a", "2")));
            long hits = 0;
            for (int i = 0; i < 3; i++) {
                hits = store.rowCache().hits();
                assertThat(await(t.get(Get.of("r"))).size()).isEqualTo(2);
                assertThat(await(t.get(new Get(Bytes.utf8("r")).addFamily(F))).cells())
                        .singleElement().satisfies(cell -> assertThat(cell.familyBytes()).isEqualTo(F));
                assertThat(await(t.get(new Get(Bytes.utf8("r")).addFamily(G))).cells())
                        .singleElement().satisfies(cell -> assertThat(cell.familyBytes()).isEqualTo(G));
            }
            assertThat(store.rowCache().hits()).as("the last round, from the cache").isEqualTo(hits + 3);
        }
    }

    @Test
    void anAlterThatAddsATimeToLiveIsNotAnsweredFromBefore() throws Exception {
        try (Connection c = open()) {
            await(c.admin().createTable(TableDescriptor.of("t", "f")));
            AsyncTable t = c.table("t");
            await(t.put(Put.of("r").addColumn("f", "a", "1")));
            await(t.get(Get.of("r")));
            await(t.get(Get.of("r")));
            await(c.admin().modifyColumnFamily("t", FamilyDescriptor.of("f").withTimeToLive(Duration.ofSeconds(10))));
            clock.addAndGet(60_000);
            assertThat(await(t.get(Get.of("r"))).isEmpty()).as("expired under the new time to live").isTrue();
        }
    }

    @Test
    void aDeletedFamilyLeavesTheAnswer() throws Exception {
        try (Connection c = open()) {
            await(c.admin().createTable(TableDescriptor.of("t", "f", "g")));
            AsyncTable t = c.table("t");
            await(t.put(Put.of("r").addColumn("f", "a", "1").addColumn("g", "a", "2")));
            await(t.get(Get.of("r")));
            await(t.get(Get.of("r")));
            await(c.admin().deleteColumnFamily("t", "g"));
            assertThat(await(t.get(Get.of("r"))).cells()).singleElement()
                    .satisfies(cell -> assertThat(cell.familyBytes()).isEqualTo(F));
        }
    }

    @Test
    void aTruncatedTableAnswersEmpty() throws Exception {
        try (Connection c = open()) {
            await(c.admin().createTable(TableDescriptor.of("t", "f")));
            AsyncTable t = c.table("t");
            await(t.put(Put.of("r").addColumn("f", "a", "1")));
            await(t.get(Get.of("r")));
            await(t.get(Get.of("r")));
            await(c.admin().disableTable("t"));
            await(c.admin().truncateTable("t", true));
            assertThat(await(t.get(Get.of("r"))).isEmpty()).isTrue();
        }
    }

    @Test
    void aRowMovedBySplitAndWrittenIsReadNew() throws Exception {
        try (Connection c = open()) {
            await(c.admin().createTable(TableDescriptor.of("t", "f")));
            AsyncTable t = c.table("t");
            await(t.put(Put.of("r").addColumn("f", "a", "1")));
            await(t.put(Put.of("b").addColumn("f", "a", "1")));
            await(t.get(Get.of("r")));
            await(t.get(Get.of("r")));
            await(c.admin().split("t", Bytes.utf8("m")));
            await(t.put(Put.of("r").addColumn("f", "a", "2")));
            assertThat(value(await(t.get(Get.of("r"))), "f", "a")).isEqualTo("2");
        }
    }

    @Test
    void theCacheStaysWithinItsSize() throws Exception {
        long capacity = 256 * 1024;
        try (Connection c = open(StoreOptions.defaults().withRowCacheSize(capacity))) {
            await(c.admin().createTable(TableDescriptor.of("t", "f")));
            AsyncTable t = c.table("t");
            byte[] big = new byte[1000];
            List<CompletableFuture<Void>> puts = new ArrayList<>();
            for (int i = 0; i < 500; i++) {
                puts.add(t.put(new Put(Bytes.utf8("row" + i)).addColumn(F, Bytes.utf8("a"), big)));
            }
            for (CompletableFuture<Void> p : puts) {
                await(p);
            }
            for (int round = 0; round < 3; round++) {
                for (int i = 0; i < 500; i++) {
                    assertThat(await(t.get(Get.of("row" + i))).value(F, Bytes.utf8("a"))).hasSize(1000);
                }
            }
            assertThat(store.rowCache().bytes()).isPositive().isLessThanOrEqualTo(capacity);
            assertThat(store.rowCache().evictions()).isPositive();
        }
    }

    @Test
    void noCacheWhenItsSizeIsZero() throws Exception {
        try (Connection c = open(StoreOptions.defaults().withRowCacheSize(0))) {
            await(c.admin().createTable(TableDescriptor.of("t", "f")));
            await(c.table("t").put(Put.of("r").addColumn("f", "a", "1")));
            assertThat(value(await(c.table("t").get(Get.of("r"))), "f", "a")).isEqualTo("1");
            assertThat(store.rowCache()).isNull();
        }
        assertThatThrownBy(() -> StoreOptions.defaults().withRowCacheSize(-1))
                .hasMessageContaining("rowCacheSize -1 is negative");
    }

    @Test
    void aRowIsKeptOnItsSecondMiss() throws Exception {
        try (Connection c = open()) {
            await(c.admin().createTable(TableDescriptor.of("t", "f")));
            Region region = store.table("t").regionArray()[0];
            RowCache cache = new RowCache(1 << 20);
            long a = MemTable.rowHash(Bytes.utf8("a"));
            long b = MemTable.rowHash(Bytes.utf8("b"));
            assertThat(cache.admit(region, a)).isFalse();
            assertThat(cache.admit(region, b)).isFalse();
            assertThat(cache.admit(region, a)).isTrue();
            assertThat(cache.admit(region, a)).isTrue();
            int i = 0;
            do { // fills it until it is cleared
                cache.admit(region, MemTable.rowHash(Bytes.utf8("row" + i++)));
            } while (cache.remembered() > 0);
            assertThat(i).isGreaterThanOrEqualTo(Doorkeeper.BITS / 8);
            assertThat(cache.admit(region, a)).as("forgotten when the doorkeeper was cleared").isFalse();
        }
    }

    /** The read-point rule on its own: an entry read at 10, the stripe's mark moved by hand. */
    @Test
    void anEntryServesOnlyReadersThatWouldReadTheSame() throws Exception {
        try (Connection c = open()) {
            await(c.admin().createTable(TableDescriptor.of("t", "f")));
            Region region = store.table("t").regionArray()[0];
            RowCache cache = new RowCache(1 << 20);
            byte[] row = Bytes.utf8("r");
            long hash = MemTable.rowHash(row);
            List<Cell> cells = List.of(Cell.put(row, F, Bytes.utf8("a"), 1, Bytes.utf8("v")));
            cache.written(region, hash, 5);
            cache.store(region, row, hash, 1, 10, cells);
            assertThat(cache.lookup(region, row, hash, 1, 20)).as("later reader, no write since").isNotNull();
            assertThat(cache.lookup(region, row, hash, 1, 8)).as("earlier reader, no write in (8, 10]").isNotNull();
            assertThat(cache.lookup(region, row, hash, 2, 20)).as("other families").isNull();
            cache.written(region, hash, 9);
            assertThat(cache.lookup(region, row, hash, 1, 20)).as("the write at 9 is in the entry").isNotNull();
            assertThat(cache.lookup(region, row, hash, 1, 8)).as("the entry holds 9, which 8 must not see").isNull();
            cache.written(region, hash, 7); // marks never go down
            assertThat(cache.lookup(region, row, hash, 1, 8)).isNull();
            cache.written(region, hash, 11);
            assertThat(cache.lookup(region, row, hash, 1, 20)).as("the write at 11 is not in the entry").isNull();
            cache.store(region, row, hash, 1, 10, cells); // older than the write at 11: not kept
            assertThat(cache.lookup(region, row, hash, 1, 20)).isNull();
            cache.store(region, row, hash, 1, 12, cells);
            assertThat(cache.lookup(region, row, hash, 1, 20)).isNotNull();
        }
    }
    /**
     * Eviction is a clock: of the rows a full shard holds, one read since the hand last passed it
     * goes round again, and the oldest one not read goes (in insertion order alone, the read row
     * would have gone first).
     */
    @Test
    void aRowReadLatelyOutlivesOlderRowsThatWereNot() throws Exception {
        try (Connection c = open()) {
            await(c.admin().createTable(TableDescriptor.of("t", "f")));
            Region region = store.table("t").regionArray()[0];
            List<byte[]> rows = new ArrayList<>(); // six rows of one shard, rows of equal length
            for (int i = 100; rows.size() < 6; i++) {
                byte[] row = Bytes.utf8("row" + i);
                if (RowCache.shardOf(region, MemTable.rowHash(row), 1) == 0) {
                    rows.add(row);
                }
            }
            List<List<Cell>> answers = new ArrayList<>();
            for (byte[] row : rows) {
                answers.add(List.of(Cell.put(row, F, Bytes.utf8("a"), 1, new byte[100])));
            }
            long charge = io.basalt.cell.CellLayout.encodedLength(answers.getFirst().getFirst())
                    + RowCache.ENTRY_OVERHEAD + 2L * rows.getFirst().length;
            RowCache cache = new RowCache(RowCache.SHARDS * (5 * charge + charge / 2)); // five fit a shard
            for (int i = 0; i < 5; i++) {
                cache.store(region, rows.get(i), MemTable.rowHash(rows.get(i)), 1, 10, answers.get(i));
            }
            assertThat(cache.evictions()).isZero();
            assertThat(cache.lookup(region, rows.get(0), MemTable.rowHash(rows.get(0)), 1, 10)).isNotNull();
            cache.store(region, rows.get(5), MemTable.rowHash(rows.get(5)), 1, 10, answers.get(5));
            assertThat(cache.evictions()).isEqualTo(1);
            assertThat(cache.lookup(region, rows.get(0), MemTable.rowHash(rows.get(0)), 1, 10))
                    .as("read since it was kept").isNotNull();
            assertThat(cache.lookup(region, rows.get(1), MemTable.rowHash(rows.get(1)), 1, 10))
                    .as("the oldest not read").isNull();
            for (int i = 2; i < 6; i++) {
                assertThat(cache.lookup(region, rows.get(i), MemTable.rowHash(rows.get(i)), 1, 10)).isNotNull();
            }
        }
    }
}
