package io.basalt.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.basalt.client.BasaltException;
import io.basalt.client.Connection;
import io.basalt.client.Delete;
import io.basalt.client.FamilyDescriptor;
import io.basalt.client.Get;
import io.basalt.client.Put;
import io.basalt.client.Result;
import io.basalt.client.Scan;
import io.basalt.client.StoreOptions;
import io.basalt.client.TableDescriptor;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;

class StoreTest {

    @TempDir
    Path dir;

    private final AtomicLong clock = new AtomicLong(1_000_000);

    private Connection open(StoreOptions options) throws Exception {
        return new EmbeddedConnection(Store.open(dir, options, clock::get, new StripedRegionLocks()));
    }

    private Connection open() throws Exception {
        return open(StoreOptions.defaults());
    }

    private static <T> T await(CompletableFuture<T> f) throws Exception {
        return f.get(30, TimeUnit.SECONDS);
    }

    private static Store store(Connection c) {
        return ((EmbeddedConnection) c).store();
    }

    private List<Path> files(String suffix) throws Exception {
        try (Stream<Path> walk = Files.walk(dir)) {
            return walk.filter(p -> p.toString().endsWith(suffix)).sorted().toList();
        }
    }

    private static void load(Connection c, int from, int to) throws Exception {
        List<CompletableFuture<Void>> writes = new ArrayList<>();
        for (int i = from; i < to; i++) {
            writes.add(c.table("t").put(Put.of(String.format("row%06d", i)).addColumn("f", "q", "value-" + i)));
        }
        await(CompletableFuture.allOf(writes.toArray(CompletableFuture[]::new)));
    }

    private static int count(Connection c) throws Exception {
        return await(c.table("t").scanAll(new Scan())).size();
    }

    @Test
    void dataAndTablesSurviveCloseAndReopen() throws Exception {
        try (Connection c = open()) {
            await(c.admin().createTable(TableDescriptor.of("t", "f")));
            load(c, 0, 500);
        }
        try (Connection c = open()) {
            assertThat(await(c.admin().listTables())).extracting(TableDescriptor::name).containsExactly("t");
            assertThat(count(c)).isEqualTo(500);
            assertThat(files(".sst")).as("close flushes").isNotEmpty();
        }
    }

    @Test
    void unflushedWritesAreReplayedFromTheLog() throws Exception {
        try (Connection c = open()) {
            await(c.admin().createTable(TableDescriptor.of("t", "f")));
            load(c, 0, 100);
            await(c.admin().flush("t"));
            load(c, 100, 200);
            // Simulate a crash: stop the log, release the directory, but do not flush.
            Store store = store(c);
            store.wal().close();
            List<WalRecordLayout.Entry> logged = new ArrayList<>();
            WriteAheadLog.replay(dir.resolve("wal"), StoreOptions.WalCorruptionPolicy.REFUSE, logged::add);
            assertThat(logged).hasSizeGreaterThanOrEqualTo(100);
        } catch (BasaltException | java.io.IOException expected) {
            // close() fails to flush through the stopped log: exactly what a crash leaves behind
        }
        try (Connection c = open()) {
            assertThat(count(c)).isEqualTo(200);
        }
    }

    @Test
    void flushRetiresLogSegments() throws Exception {
        try (Connection c = open(StoreOptions.defaults().withWalSegmentSize(64 * 1024))) {
            await(c.admin().createTable(TableDescriptor.of("t", "f")));
            load(c, 0, 3000);
            int before = files(".wal").size();
            await(c.admin().flush("t"));
            assertThat(before).as("150 KiB of records roll 64 KiB segments at least once").isGreaterThanOrEqualTo(2);
            assertThat(files(".wal")).hasSize(1);
        }
    }

    @Test
    void memtablesFlushByThemselvesAndCompactionsMergeFiles() throws Exception {
        StoreOptions small = StoreOptions.defaults().withMemtableFlushSize(64 * 1024).withCompaction(3, 40);
        try (Connection c = open(small)) {
            await(c.admin().createTable(TableDescriptor.of("t", "f")));
            load(c, 0, 10_000);
            await(c.admin().flush("t"));
            assertThat(count(c)).isEqualTo(10_000);
            await(c.admin().compact("t"));
            assertThat(files(".sst")).hasSize(1);
            assertThat(count(c)).isEqualTo(10_000);
        }
    }

    @Test
    void majorCompactionDropsDeletedAndSurplusVersions() throws Exception {
        try (Connection c = open()) {
            await(c.admin().createTable(new TableDescriptor("t", List.of(FamilyDescriptor.of("f").withMaxVersions(2)))));
            for (int ts = 1; ts <= 5; ts++) {
                await(c.table("t").put(new Put("a".getBytes()).addColumn("f".getBytes(), "q".getBytes(), ts,
                        ("v" + ts).getBytes())));
            }
            await(c.table("t").put(Put.of("b").addColumn("f", "q", "gone")));
            await(c.admin().flush("t"));
            await(c.table("t").delete(Delete.of("b")));
            await(c.admin().compact("t"));
            SSTableReader only = store(c).table("t").regions().getFirst().view().files().get("f").getFirst();
            assertThat(only.entries()).as("two versions of a, nothing of b, no markers").isEqualTo(2);
            Result a = await(c.table("t").get(Get.of("a").readAllVersions()));
            assertThat(a.cells()).extracting(io.basalt.cell.Cell::timestamp).containsExactly(5L, 4L);
        }
    }

    @Test
    void cellsExpireAfterTheirTimeToLive() throws Exception {
        try (Connection c = open()) {
            await(c.admin().createTable(new TableDescriptor("t",
                    List.of(FamilyDescriptor.of("f").withTimeToLive(Duration.ofSeconds(10))))));
            await(c.table("t").put(Put.of("r").addColumn("f", "q", "v")));
            clock.addAndGet(9_000);
            assertThat(await(c.table("t").get(Get.of("r"))).isEmpty()).isFalse();
            clock.addAndGet(2_000);
            assertThat(await(c.table("t").get(Get.of("r"))).isEmpty()).isTrue();
            await(c.admin().compact("t"));
            assertThat(files(".sst")).as("compaction dropped the expired cell and wrote nothing").isEmpty();
        }
    }

    @Test
    void secondOpenOfTheSameDirectoryIsRefused() throws Exception {
        try (Connection _ = open()) {
            assertThatThrownBy(this::open).isInstanceOf(BasaltException.class)
                    .hasMessageContaining("is already open in this process");
        }
    }

    @Test
    void damagedSSTableIsReportedAtOpen() throws Exception {
        try (Connection c = open()) {
            await(c.admin().createTable(TableDescriptor.of("t", "f")));
            load(c, 0, 100);
        }
        Path sst = files(".sst").getFirst();
        byte[] bytes = Files.readAllBytes(sst);
        bytes[bytes.length - 20] ^= 0x40;
        Files.write(sst, bytes);
        assertThatThrownBy(this::open).isInstanceOf(CorruptFileException.class).hasMessageContaining(sst.toString());
    }

    @Test
    void filesTheManifestDoesNotListAreDeletedAtOpen() throws Exception {
        try (Connection c = open()) {
            await(c.admin().createTable(TableDescriptor.of("t", "f")));
            load(c, 0, 10);
        }
        Path sst = files(".sst").getFirst();
        Path orphan = sst.resolveSibling("999999.sst");
        Files.copy(sst, orphan);
        try (Connection c = open()) {
            assertThat(Files.exists(orphan)).isFalse();
            assertThat(count(c)).isEqualTo(10);
        }
    }

    @Test
    void droppedTableFilesAreDeleted() throws Exception {
        try (Connection c = open()) {
            await(c.admin().createTable(TableDescriptor.of("t", "f")));
            load(c, 0, 10);
            await(c.admin().flush("t"));
            assertThat(files(".sst")).isNotEmpty();
            await(c.admin().dropTable("t"));
            assertThat(files(".sst")).isEmpty();
        }
        try (Connection c = open()) {
            assertThat(await(c.admin().listTables())).isEmpty();
        }
    }

    @Test
    void concurrentIncrementsOfOneRowAreNeverLost() throws Exception {
        try (Connection c = open()) {
            await(c.admin().createTable(TableDescriptor.of("t", "f")));
            int threads = 8;
            int each = 200;
            java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newFixedThreadPool(threads);
            try {
                List<java.util.concurrent.Future<?>> done = new ArrayList<>();
                for (int t = 0; t < threads; t++) {
                    done.add(pool.submit(() -> {
                        for (int i = 0; i < each; i++) {
                            await(c.table("t").increment(io.basalt.client.Increment.of("counter")
                                    .addColumn("f".getBytes(), "n".getBytes(), 1)));
                        }
                        return null;
                    }));
                }
                for (var f : done) {
                    f.get(120, TimeUnit.SECONDS);
                }
            } finally {
                pool.shutdownNow();
            }
            Result result = await(c.table("t").get(Get.of("counter")));
            assertThat(io.basalt.client.Increment.decode(result.latest("f".getBytes(), "n".getBytes()).value()))
                    .isEqualTo((long) threads * each);
        }
    }

    @Test
    void scanKeepsItsFilesAcrossACompaction() throws Exception {
        try (Connection c = open()) {
            await(c.admin().createTable(TableDescriptor.of("t", "f")));
            load(c, 0, 100);
            await(c.admin().flush("t"));
            load(c, 100, 200);
            await(c.admin().flush("t"));
            try (var scanner = c.table("t").scanner(new Scan())) {
                scanner.next();
                await(c.admin().compact("t"));
                int rest = 0;
                while (scanner.next() != null) {
                    rest++;
                }
                assertThat(rest).isEqualTo(199);
            }
            assertThat(files(".sst")).hasSize(1);
        }
    }

    /**
     * A batch of puts is logged as one record with one sequence number (one log append, one MVCC
     * write, one completion for all of them), as HBase's mini-batch; it survives a reopen whole.
     */
    @Test
    void aBatchOfPutsIsOneLoggedWrite() throws Exception {
        try (Connection c = open()) {
            await(c.admin().createTable(TableDescriptor.of("t", "f")));
            long before = store(c).wal().lastSequence();
            List<Put> puts = new ArrayList<>();
            for (int i = 0; i < 100; i++) {
                puts.add(Put.of(String.format("row%03d", i)).addColumn("f", "q", "value-" + i));
            }
            List<CompletableFuture<Object>> futures = c.table("t").batch(puts);
            assertThat(futures).hasSize(100);
            await(CompletableFuture.allOf(futures.toArray(CompletableFuture[]::new)));
            assertThat(store(c).wal().lastSequence()).isEqualTo(before + 1);
            assertThat(count(c)).isEqualTo(100);
        }
        try (Connection c = open()) {
            assertThat(count(c)).isEqualTo(100);
            assertThat(await(c.table("t").get(Get.of("row042"))).value("f", "q")).isEqualTo("value-42".getBytes());
        }
    }

    @Test
    void aPutNamingAnUnknownFamilyFailsAloneInABatchOfPuts() throws Exception {
        try (Connection c = open()) {
            await(c.admin().createTable(TableDescriptor.of("t", "f")));
            List<CompletableFuture<Object>> futures = c.table("t").batch(List.of(
                    Put.of("a").addColumn("f", "q", "1"), Put.of("b").addColumn("nope", "q", "2"),
                    Put.of("c").addColumn("f", "q", "3")));
            assertThat(await(futures.get(0))).isNull();
            assertThatThrownBy(() -> await(futures.get(1))).hasCauseInstanceOf(io.basalt.client.NoSuchFamilyException.class);
            assertThat(await(futures.get(2))).isNull();
            assertThat(count(c)).isEqualTo(2);
        }
    }

    private static byte[] b(String s) {
        return s.getBytes(java.nio.charset.StandardCharsets.UTF_8);
    }

    /** One sequence number for the batch: of two cells with the same key, the later one must win. */
    @Test
    void ofTwoPutsOfTheSameCellInABatchTheLaterWins() throws Exception {
        try (Connection c = open()) {
            await(c.admin().createTable(new TableDescriptor("t", List.of(FamilyDescriptor.of("f").withMaxVersions(3)))));
            List<CompletableFuture<Object>> futures = c.table("t").batch(List.of(
                    Put.of("r").addColumn(b("f"), b("q"), 5, b("first")), Put.of("other").addColumn("f", "q", "x"),
                    Put.of("r").addColumn(b("f"), b("q"), 5, b("second")), Put.of("r").addColumn("f", "latest", "one"),
                    Put.of("r").addColumn("f", "latest", "two")));
            await(CompletableFuture.allOf(futures.toArray(CompletableFuture[]::new)));
            Result row = await(c.table("t").get(Get.of("r").readAllVersions()));
            assertThat(row.value("f", "q")).isEqualTo("second".getBytes());
            assertThat(row.columnCells("f".getBytes(), "q".getBytes())).hasSize(1);
            assertThat(row.value("f", "latest")).isEqualTo("two".getBytes());
            assertThat(row.columnCells("f".getBytes(), "latest".getBytes())).hasSize(1);
        }
    }

    /**
     * One put naming a column twice, among many others: its cells share one array and one
     * sequence, and the later value is the one kept, whatever the number of cells.
     */
    @Test
    void ofTwoCellsOfTheSameColumnInOnePutTheLaterWins() throws Exception {
        try (Connection c = open()) {
            await(c.admin().createTable(new TableDescriptor("t", List.of(FamilyDescriptor.of("f").withMaxVersions(3)))));
            for (int columns : new int[] {2, 10, 300}) {
                Put put = Put.of("r" + columns);
                for (int q = 0; q < columns; q++) {
                    put.addColumn("f", "q" + q, "v" + q);
                }
                put.addColumn("f", "q0", "later");
                await(c.table("t").put(put));
                Result row = await(c.table("t").get(Get.of("r" + columns).readAllVersions()));
                assertThat(row.value("f", "q0")).isEqualTo(b("later"));
                assertThat(row.columnCells(b("f"), b("q0"))).hasSize(1);
                for (int q = 1; q < columns; q++) {
                    assertThat(row.value("f", "q" + q)).isEqualTo(b("v" + q));
                }
                assertThat(row.size()).isEqualTo(columns);
            }
        }
    }

    /** At sizes on both sides of the pairwise comparison and the hash table. */
    @ParameterizedTest
    @org.junit.jupiter.params.provider.ValueSource(ints = {2, 10, Region.SMALL_WRITE - 1, Region.SMALL_WRITE + 1, 1000})
    void distinctKeysAnswersFromHashesAndNeverMissesARepeat(int size) {
        java.util.List<io.basalt.cell.EncodedCell> cells = new java.util.ArrayList<>();
        for (int q = 0; q < size - 1; q++) {
            cells.add(io.basalt.cell.EncodedCell.decode(io.basalt.cell.CellLayout.encode(io.basalt.cell.Cell.of(
                    b("row"), b("f"), b("q" + q), 7, io.basalt.cell.CellType.PUT, b("v"))), 0));
        }
        // the same key with another timestamp or type is no repeat; with another value it is
        cells.add(io.basalt.cell.EncodedCell.decode(io.basalt.cell.CellLayout.encode(io.basalt.cell.Cell.of(
                b("row"), b("f"), b("q0"), 8, io.basalt.cell.CellType.PUT, b("v"))), 0));
        assertThat(cells).hasSize(size);
        assertThat(Region.distinctKeys(cells)).isTrue();
        cells.add(io.basalt.cell.EncodedCell.decode(io.basalt.cell.CellLayout.encode(io.basalt.cell.Cell.of(
                b("row"), b("f"), b("q" + (size - 2)), 7, io.basalt.cell.CellType.PUT, b("other"))), 0));
        assertThat(Region.distinctKeys(cells)).isFalse();
    }
}
