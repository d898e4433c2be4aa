package io.basalt.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.basalt.client.BasaltException;
import io.basalt.client.CheckAndMutate;
import io.basalt.client.Connection;
import io.basalt.client.Delete;
import io.basalt.client.Get;
import io.basalt.client.Increment;
import io.basalt.client.NoSuchFamilyException;
import io.basalt.client.Put;
import io.basalt.client.Result;
import io.basalt.client.Scan;
import io.basalt.client.StoreOptions;
import io.basalt.client.TableDescriptor;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Replica stores (issue 19, step 1): a store without a log of its own, written only by entries of
 * a replicated log, applied in sequence order at the log's clock time.
 */
class ReplicaStoreTest {

    @TempDir
    Path dir;

    private final AtomicLong clock = new AtomicLong(1_000_000);

    private Store openReplica(Path directory, Disk disk) throws Exception {
        return Store.openReplica(directory, StoreOptions.defaults(), clock::get, new StripedRegionLocks(), disk);
    }

    private static <T> T await(CompletableFuture<T> f) throws Exception {
        return f.get(30, TimeUnit.SECONDS);
    }

    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static String value(Connection c, String row) throws Exception {
        Result r = await(c.table("t").get(Get.of(row)));
        return r.isEmpty() ? null : new String(r.value("f", "q"), StandardCharsets.UTF_8);
    }

    @Test
    void entriesApplyInOrderWithTheirOutcomesAndClientWritesAreRefused() throws Exception {
        Store store = openReplica(dir, LocalDisk.INSTANCE);
        try (Connection c = new EmbeddedConnection(store)) {
            await(c.admin().createTable(TableDescriptor.of("t", "f")));
            assertThat(store.applyLogged("t", 1, 100, Put.of("a").addColumn("f", "q", "1"))).isNull();
            Object counter = store.applyLogged("t", 2, 100, Increment.of("n").addColumn(b("f"), b("c"), 5));
            assertThat(Increment.decode(java.lang.foreign.MemorySegment.ofArray(((Result) counter).value(b("f"), b("c"))))).isEqualTo(5);
            assertThat(store.applyLogged("t", 3, 100, CheckAndMutate.onRow(b("a")).ifEquals(b("f"), b("q"), b("1"))
                    .then(Put.of("a").addColumn("f", "q", "2")))).isEqualTo(Boolean.TRUE);
            assertThat(store.applyLogged("t", 4, 100, CheckAndMutate.onRow(b("a")).ifEquals(b("f"), b("q"), b("1"))
                    .then(Put.of("a").addColumn("f", "q", "3")))).isEqualTo(Boolean.FALSE);
            assertThat(store.applyLogged("t", 5, 100, Put.of("b").addColumn("x", "q", "1")))
                    .as("an unknown family fails the entry's operation alike on every replica")
                    .isInstanceOf(NoSuchFamilyException.class);
            assertThat(store.applyLogged("t", 6, 100, new Delete(b("zz")))).isNull();
            assertThat(store.applyLogged("t", 3, 100, Put.of("a").addColumn("f", "q", "old")))
                    .as("a sequence applied before").isSameAs(Store.ALREADY_APPLIED);

            assertThat(value(c, "a")).isEqualTo("2");
            Result a = await(c.table("t").get(Get.of("a")));
            assertThat(a.latest(b("f"), b("q")).timestamp()).as("stamped with the log's clock").isEqualTo(100);
            assertThat(store.appliedSequence()).isEqualTo(6);

            assertThatThrownBy(() -> await(c.table("t").put(Put.of("c").addColumn("f", "q", "1"))))
                    .hasCauseInstanceOf(BasaltException.class).hasMessageContaining("replica");
            assertThatThrownBy(() -> await(c.admin().createTable(TableDescriptor.of("u", "f"))))
                    .hasMessageContaining("one region of one table");
            assertThatThrownBy(() -> await(c.admin().split("t", b("m")))).hasMessageContaining("through its log");
            assertThat(dir.resolve("wal")).doesNotExist();
        }
    }

    /**
     * After a crash the store holds what it flushed; its applied sequence says where the log
     * resumes, and applying the log again from there rebuilds exactly what was there, increments
     * included (an increment applied twice would count twice).
     */
    @Test
    void afterACrashTheLogAppliesAgainFromTheFlushedSequence() throws Exception {
        List<Object> log = new ArrayList<>();
        for (int i = 0; i < 40; i++) {
            log.add(i % 4 == 0 ? Increment.of("n").addColumn(b("f"), b("c"), 1)
                    : Put.of("r" + (i % 7)).addColumn("f", "q", "v" + i));
        }
        FaultyDisk disk = new FaultyDisk();
        Path crashed = dir.resolve("crashed");
        Store store = openReplica(crashed, disk);
        Connection c = new EmbeddedConnection(store);
        await(c.admin().createTable(TableDescriptor.of("t", "f")));
        for (int i = 0; i < 25; i++) {
            store.applyLogged("t", i + 1, 100 + i, log.get(i));
            if (i == 14) {
                await(c.admin().flush("t"));
            }
        }
        disk.crash();
        try {
            c.close();
        } catch (RuntimeException e) {
            // the disk is gone
        }
        disk.loseUnsynced(new SplittableRandom(1));

        Store reopened = openReplica(crashed, LocalDisk.INSTANCE);
        try (Connection again = new EmbeddedConnection(reopened)) {
            assertThat(reopened.appliedSequence()).as("what the flush holds").isEqualTo(15);
            for (int i = 0; i < log.size(); i++) {
                reopened.applyLogged("t", i + 1, 100 + i, log.get(i));
            }
            Store fresh = openReplica(dir.resolve("fresh"), LocalDisk.INSTANCE);
            try (Connection reference = new EmbeddedConnection(fresh)) {
                await(reference.admin().createTable(TableDescriptor.of("t", "f")));
                for (int i = 0; i < log.size(); i++) {
                    fresh.applyLogged("t", i + 1, 100 + i, log.get(i));
                }
                assertThat(rows(again)).as("replayed after the crash = applied once").isEqualTo(rows(reference));
                Result counter = await(again.table("t").get(Get.of("n")));
                assertThat(Increment.decode(java.lang.foreign.MemorySegment.ofArray(counter.value(b("f"), b("c"))))).isEqualTo(10);
            }
        }
    }

    /**
     * The operations of one entry keep sequences of their own, in order: a delete then a put of a
     * row in one entry leaves the put, a put then a delete leaves nothing. After a crash the entry
     * the store was in the middle of is applied again from its start, its applied operations
     * skipped, and the result equals applying the log once.
     */
    @Test
    void operationsOfOneEntryAreOrderedAndAnEntryCutByACrashIsAppliedAgain() throws Exception {
        List<List<Object>> entries = new ArrayList<>();
        for (int e = 0; e < 12; e++) {
            List<Object> ops = new ArrayList<>();
            for (int i = 0; i < 5; i++) {
                String row = "r" + ((e + i) % 4);
                ops.add(switch (i % 3) {
                    case 0 -> Put.of(row).addColumn("f", "q", "v" + e + "-" + i);
                    case 1 -> Increment.of("n").addColumn(b("f"), b("c"), 1);
                    default -> new Delete(b(row));
                });
            }
            entries.add(ops);
        }
        entries.add(List.of(new Delete(b("x")), Put.of("x").addColumn("f", "q", "after-delete")));
        entries.add(List.of(Put.of("y").addColumn("f", "q", "before-delete"), new Delete(b("y"))));

        Store reference = openReplica(dir.resolve("reference"), LocalDisk.INSTANCE);
        List<String> expected;
        try (Connection c = new EmbeddedConnection(reference)) {
            await(c.admin().createTable(TableDescriptor.of("t", "f")));
            for (int e = 0; e < entries.size(); e++) {
                reference.applyEntry("t", e + 1, 100 + e, entries.get(e));
            }
            assertThat(value(c, "x")).isEqualTo("after-delete");
            assertThat(value(c, "y")).isNull();
            expected = rows(c);
        }

        FaultyDisk disk = new FaultyDisk();
        Path crashed = dir.resolve("crashed");
        Store store = openReplica(crashed, disk);
        Connection c = new EmbeddedConnection(store);
        await(c.admin().createTable(TableDescriptor.of("t", "f")));
        for (int e = 0; e < 7; e++) {
            store.applyEntry("t", e + 1, 100 + e, entries.get(e));
        }
        store.applyLogged("t", (8L << Store.OPERATION_BITS), 107, entries.get(7).get(0)); // entry 8, in part
        await(c.admin().flush("t"));
        disk.crash();
        try {
            c.close();
        } catch (RuntimeException e) {
            // the disk is gone
        }
        disk.loseUnsynced(new SplittableRandom(2));
        Store reopened = openReplica(crashed, LocalDisk.INSTANCE);
        try (Connection again = new EmbeddedConnection(reopened)) {
            long from = reopened.appliedIndex();
            assertThat(from).as("entry 8 was cut: counted out").isEqualTo(7);
            for (int e = (int) from; e < entries.size(); e++) {
                List<Object> outcomes = reopened.applyEntry("t", e + 1, 100 + e, entries.get(e));
                if (e == 7) {
                    assertThat(outcomes.getFirst()).as("its flushed operation").isSameAs(Store.ALREADY_APPLIED);
                }
            }
            assertThat(rows(again)).isEqualTo(expected);
        }
        assertThatThrownBy(() -> reference.applyEntry("t", 99, 1, java.util.Collections.nCopies(
                Store.MAX_OPERATIONS_PER_ENTRY + 1, Put.of("z").addColumn("f", "q", "1"))))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("at most");
    }

    private static List<String> rows(Connection c) throws Exception {
        List<String> out = new ArrayList<>();
        for (Result r : await(c.table("t").scanAll(new Scan().readAllVersions()))) {
            out.add(r.toString());
        }
        return out;
    }

    @Test
    void aStoreWithItsOwnLogIsNotOpenedAsAReplica() throws Exception {
        try (Connection c = new EmbeddedConnection(Store.open(dir, StoreOptions.defaults(), clock::get,
                new StripedRegionLocks()))) {
            await(c.admin().createTable(TableDescriptor.of("t", "f")));
            await(c.table("t").put(Put.of("a").addColumn("f", "q", "1")));
            assertThatThrownBy(() -> ((EmbeddedConnection) c).store().applyLogged("t", 1, 1, Put.of("b")
                    .addColumn("f", "q", "1"))).isInstanceOf(IllegalStateException.class);
        }
        assertThatThrownBy(() -> openReplica(dir, LocalDisk.INSTANCE)).hasMessageContaining("write-ahead log");
    }

    /**
     * A split's daughter starts from a copy of its parent's whole store and narrows it: it reads,
     * writes and keeps only its own range, after a restart, in its checkpoints, and after a
     * compaction too (the other rows' cells are gone from its files, not only hidden).
     */
    @Test
    void aNarrowedReplicaHoldsOnlyItsRange() throws Exception {
        Path parent = dir.resolve("parent");
        Path seed = dir.resolve("seed");
        try (ReplicaStore p = ReplicaStore.open(parent, StoreOptions.defaults(), clock::get)) {
            await(p.connection().admin().createTable(TableDescriptor.of("t", "f")));
            List<Object> puts = new ArrayList<>();
            for (char ch = 'a'; ch <= 'z'; ch++) {
                puts.add(Put.of(String.valueOf(ch)).addColumn("f", "q", "v" + ch));
            }
            assertThat(p.applyEntry("t", 1, 100, puts)).allMatch(o -> o == null);
            p.checkpoint(seed);
        }
        Path daughter = dir.resolve("daughter");
        ReplicaStore.restore(seed, daughter);
        try (ReplicaStore d = ReplicaStore.open(daughter, StoreOptions.defaults(), clock::get)) {
            assertThatThrownBy(() -> d.narrow("t", b("m"), b("f")))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("not inside");
            d.narrow("t", b("f"), b("m"));
            assertThat(d.range("t")).isDeepEqualTo(new byte[][] {b("f"), b("m")});
            assertThat(d.holds("t", b("f"))).isTrue();
            assertThat(d.holds("t", b("m"))).isFalse();
            assertThat(d.holds("t", b("a"))).isFalse();
            assertThat(rowKeys(d.connection())).containsExactly("f", "g", "h", "i", "j", "k", "l");
            List<Object> outcomes = d.applyEntry("t", 2, 200, List.of(Put.of("g").addColumn("f", "q", "new"),
                    Put.of("z").addColumn("f", "q", "new")));
            assertThat(outcomes.get(0)).isNull();
            assertThat(outcomes.get(1)).as("a row outside the range is refused, alike on every replica")
                    .isInstanceOf(io.basalt.client.UnavailableException.class);
            assertThat(value(d.connection(), "g")).isEqualTo("new");
        }
        try (ReplicaStore d = ReplicaStore.open(daughter, StoreOptions.defaults(), clock::get)) {
            assertThat(d.range("t")).as("after a restart").isDeepEqualTo(new byte[][] {b("f"), b("m")});
            assertThat(rowKeys(d.connection())).containsExactly("f", "g", "h", "i", "j", "k", "l");
            await(d.connection().admin().compact("t"));
            assertThat(rowKeys(d.connection())).containsExactly("f", "g", "h", "i", "j", "k", "l");
            Path copy = dir.resolve("copy");
            d.checkpoint(copy);
            assertThat(cellsInFiles(copy)).as("the compacted files hold only the range's rows")
                    .isNotEmpty().allMatch(r -> r.compareTo("f") >= 0 && r.compareTo("m") < 0);
        }
    }

    /**
     * The two halves of a merge: a split's daughters, written on apart (one deletes a row and
     * compacts it away), then one absorbs a copy of the other. The wide replica holds exactly both
     * halves' rows (the deleted row does not come back from the file the split shared), reads at
     * the later half's sequences, takes the next index, keeps all of it across a checkpoint and a
     * restart, and its own files are not leaked.
     */
    @Test
    void aReplicaAbsorbsItsNeighbourForAMerge() throws Exception {
        Path seed = dir.resolve("seed");
        try (ReplicaStore p = ReplicaStore.open(dir.resolve("parent"), StoreOptions.defaults(), clock::get)) {
            await(p.connection().admin().createTable(TableDescriptor.of("t", "f")));
            List<Object> puts = new ArrayList<>();
            for (char ch = 'a'; ch <= 'z'; ch++) {
                puts.add(Put.of(String.valueOf(ch)).addColumn("f", "q", "v" + ch));
            }
            p.applyEntry("t", 1, 100, puts);
            p.checkpoint(seed);
        }
        Path left = dir.resolve("left");
        Path right = dir.resolve("right");
        ReplicaStore.restore(seed, left);
        ReplicaStore.restore(seed, right);
        Path rightCopy = dir.resolve("right-copy");
        try (ReplicaStore r = ReplicaStore.open(right, StoreOptions.defaults(), clock::get)) {
            r.narrow("t", b("m"), new byte[0]);
            for (long i = 2; i <= 40; i++) { // the right half's log runs further than the left's
                r.applyEntry("t", i, 100 + i, List.of(Put.of("q").addColumn("f", "q", "r" + i)));
            }
            r.applyEntry("t", 41, 200, List.of(new Delete(b("p"))));
            await(r.connection().admin().compact("t"));
            r.checkpoint(rightCopy);
        }
        Path wideCopy = dir.resolve("wide-copy");
        try (ReplicaStore l = ReplicaStore.open(left, StoreOptions.defaults(), clock::get)) {
            l.narrow("t", new byte[0], b("m"));
            l.applyEntry("t", 2, 300, List.of(Put.of("c").addColumn("f", "q", "left"), new Delete(b("d"))));
            Path work = dir.resolve("work");
            ReplicaStore.restore(rightCopy, work);
            try (ReplicaStore other = ReplicaStore.open(work, StoreOptions.defaults(), clock::get)) {
                try (ReplicaStore far = ReplicaStore.open(dir.resolve("far"), StoreOptions.defaults(), clock::get)) {
                    await(far.connection().admin().createTable(TableDescriptor.of("t", "f")));
                    far.narrow("t", b("x"), new byte[0]);
                    assertThatThrownBy(() -> l.absorb("t", far)).isInstanceOf(IllegalArgumentException.class)
                            .hasMessageContaining("not adjacent");
                }
                l.absorb("t", other);
            }
            assertThat(l.range("t")).isDeepEqualTo(new byte[][] {new byte[0], new byte[0]});
            List<String> expected = new ArrayList<>();
            for (char ch = 'a'; ch <= 'z'; ch++) {
                if (ch != 'd' && ch != 'p') {
                    expected.add(String.valueOf(ch));
                }
            }
            assertThat(rowKeys(l.connection())).as("both halves, without the rows either deleted")
                    .isEqualTo(expected);
            assertThat(value(l.connection(), "c")).isEqualTo("left");
            assertThat(value(l.connection(), "q")).as("the right half's writes, at its later sequences")
                    .isEqualTo("r40");
            assertThat(l.appliedIndex()).as("the later half's log position counts").isGreaterThanOrEqualTo(40);
            assertThat(l.applyEntry("t", 41, 400, List.of(Put.of("z").addColumn("f", "q", "stale"))).getFirst())
                    .as("an index the wider half applied").isSameAs(ReplicaStore.ALREADY_APPLIED);
            assertThat(l.applyEntry("t", 42, 400, List.of(Put.of("z").addColumn("f", "q", "merged"),
                    Put.of("a").addColumn("f", "q", "merged")))).containsOnlyNulls();
            l.checkpoint(wideCopy);
        }
        try (ReplicaStore again = ReplicaStore.open(left, StoreOptions.defaults(), clock::get)) {
            assertThat(value(again.connection(), "z")).as("after a restart").isEqualTo("merged");
            assertThat(value(again.connection(), "q")).isEqualTo("r40");
            assertThat(value(again.connection(), "p")).isNull();
            await(again.connection().admin().compact("t"));
            assertThat(rowKeys(again.connection())).hasSize(24);
            try (var walk = java.nio.file.Files.walk(left.resolve("tables"))) {
                assertThat(walk.filter(f -> f.toString().endsWith(".sst")).count())
                        .as("after a full compaction, the files taken over are released and deleted too")
                        .isEqualTo(1);
            }
        }
        Path restored = dir.resolve("restored");
        ReplicaStore.restore(wideCopy, restored);
        try (ReplicaStore copy = ReplicaStore.open(restored, StoreOptions.defaults(), clock::get)) {
            assertThat(rowKeys(copy.connection())).hasSize(24);
            assertThat(value(copy.connection(), "a")).isEqualTo("merged");
        }
    }

    private static List<String> rowKeys(Connection c) throws Exception {
        List<String> out = new ArrayList<>();
        for (Result r : await(c.table("t").scanAll(new Scan()))) {
            out.add(new String(r.row(), StandardCharsets.UTF_8));
        }
        return out;
    }

    /** Every row key in the SSTables under {@code directory}, read from the files themselves. */
    private static List<String> cellsInFiles(Path directory) throws Exception {
        List<String> out = new ArrayList<>();
        List<Path> files;
        try (var walk = java.nio.file.Files.walk(directory)) {
            files = walk.filter(f -> f.toString().endsWith(".sst")).toList();
        }
        for (Path f : files) {
            SSTableReader reader = SSTableReader.open(0, f, new BlockCache(BlockCache.CHUNK_SIZE, "test"));
            try {
                out.add(new String(reader.firstKey().rowBytes(), StandardCharsets.UTF_8));
                out.add(new String(reader.lastKey().rowBytes(), StandardCharsets.UTF_8));
            } finally {
                reader.release();
            }
        }
        return out;
    }
}
