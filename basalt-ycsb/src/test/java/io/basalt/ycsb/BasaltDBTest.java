package io.basalt.ycsb;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.basalt.client.Basalt;
import io.basalt.client.Connection;
import io.basalt.client.TableDescriptor;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.Vector;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import site.ycsb.ByteIterator;
import site.ycsb.DBException;
import site.ycsb.Status;
import site.ycsb.StringByteIterator;

/** Each method of YCSB's DB interface against an embedded store, and the binding's properties. */
class BasaltDBTest {

    @TempDir
    Path dir;

    private final List<BasaltDB> open = new java.util.ArrayList<>();

    @AfterEach
    void closeAll() throws DBException {
        for (BasaltDB db : open) {
            db.cleanup();
        }
        assertThat(SharedConnections.openCount()).as("every shared connection closed").isZero();
    }

    private BasaltDB db(String... extra) throws DBException {
        Properties p = new Properties();
        p.setProperty(BindingOptions.URI, dir.resolve("store").toString());
        for (int i = 0; i < extra.length; i += 2) {
            p.setProperty(extra[i], extra[i + 1]);
        }
        BasaltDB db = new BasaltDB();
        db.setProperties(p);
        db.init();
        open.add(db);
        return db;
    }

    private static Map<String, ByteIterator> fields(String... pairs) {
        Map<String, ByteIterator> values = new LinkedHashMap<>();
        for (int i = 0; i < pairs.length; i += 2) {
            values.put(pairs[i], new StringByteIterator(pairs[i + 1]));
        }
        return values;
    }

    private static Map<String, String> strings(Map<String, ByteIterator> values) {
        Map<String, String> out = new TreeMap<>();
        values.forEach((k, v) -> out.put(k, new String(v.toArray(), StandardCharsets.UTF_8)));
        return out;
    }

    @Test
    void insertThenReadAllOrSomeFields() throws DBException {
        BasaltDB db = db();
        assertThat(db.insert("usertable", "user1", fields("field0", "a", "field1", "b", "field2", "c")))
                .isEqualTo(Status.OK);

        Map<String, ByteIterator> all = new HashMap<>();
        assertThat(db.read("usertable", "user1", null, all)).isEqualTo(Status.OK);
        assertThat(strings(all)).isEqualTo(Map.of("field0", "a", "field1", "b", "field2", "c"));

        Map<String, ByteIterator> some = new HashMap<>();
        assertThat(db.read("usertable", "user1", Set.of("field1", "field9"), some)).isEqualTo(Status.OK);
        assertThat(strings(some)).isEqualTo(Map.of("field1", "b"));
    }

    /**
     * Fields are handed to YCSB read in place from the cells' arrays (a memtable's slab, a file
     * block's copy): each must be exactly its value, never a neighbour's bytes. Records here are
     * read from memtables, from files (a small memtable flushes every few records), and from the
     * row cache (a third read), and the values differ in length.
     */
    @Test
    void valuesReadInPlaceAreExactlyTheirBytesFromMemtablesFilesAndTheRowCache() throws DBException {
        BasaltDB db = db(BindingOptions.MEMTABLE_FLUSH_SIZE, String.valueOf(64 * 1024));
        Map<String, Map<String, String>> written = new TreeMap<>();
        for (int i = 0; i < 300; i++) {
            String key = String.format("user%03d", i);
            Map<String, String> record = new TreeMap<>();
            for (int f = 0; f < 10; f++) {
                record.put("field" + f, ("v" + i + "-" + f + "-").repeat(1 + (i + f) % 7));
            }
            Map<String, ByteIterator> values = new LinkedHashMap<>();
            record.forEach((k, v) -> values.put(k, new StringByteIterator(v)));
            assertThat(db.insert("usertable", key, values)).isEqualTo(Status.OK);
            written.put(key, record);
        }
        for (int round = 0; round < 3; round++) { // the third read of each is the row cache's
            for (var e : written.entrySet()) {
                Map<String, ByteIterator> read = new HashMap<>();
                assertThat(db.read("usertable", e.getKey(), null, read)).isEqualTo(Status.OK);
                for (var field : read.entrySet()) {
                    assertThat(field.getValue().bytesLeft()).isEqualTo(e.getValue().get(field.getKey()).length());
                }
                assertThat(strings(read)).as(e.getKey()).isEqualTo(e.getValue());
            }
        }
        Vector<HashMap<String, ByteIterator>> rows = new Vector<>();
        assertThat(db.scan("usertable", "user000", 300, null, rows)).isEqualTo(Status.OK);
        assertThat(rows).hasSize(300);
        int i = 0;
        for (var e : written.entrySet()) {
            assertThat(strings(rows.get(i++))).as(e.getKey()).isEqualTo(e.getValue());
        }
        io.basalt.engine.StoreMetrics m = BasaltDB.embeddedMetrics(dir.resolve("store").toString()).orElseThrow();
        assertThat(m.rowCacheHits()).as("some reads were the row cache's").isPositive();
    }

    @Test
    void theSharedEmbeddedStoresMetricsShowItsCaches() throws DBException {
        String uri = dir.resolve("store").toString();
        assertThat(BasaltDB.embeddedMetrics(uri)).as("nothing open yet").isEmpty();
        BasaltDB db = db();
        assertThat(db.insert("usertable", "user1", fields("field0", "a"))).isEqualTo(Status.OK);
        for (int i = 0; i < 3; i++) { // remembered, kept, then answered by the row cache
            assertThat(db.read("usertable", "user1", null, new HashMap<>())).isEqualTo(Status.OK);
        }
        io.basalt.engine.StoreMetrics m = BasaltDB.embeddedMetrics(uri).orElseThrow();
        assertThat(m.rowCacheHits()).isEqualTo(1);
        assertThat(m.rowCacheMisses()).isEqualTo(2);
        assertThat(BasaltDB.embeddedMetrics(dir.resolve("other").toString())).isEmpty();
    }

    @Test
    void aMissingRecordIsNotFound() throws DBException {
        BasaltDB db = db();
        Map<String, ByteIterator> none = new HashMap<>();
        assertThat(db.read("usertable", "nobody", null, none)).isEqualTo(Status.NOT_FOUND);
        assertThat(none).isEmpty();
    }

    @Test
    void updateOverwritesOnlyTheGivenFields() throws DBException {
        BasaltDB db = db();
        db.insert("usertable", "user1", fields("field0", "a", "field1", "b"));
        assertThat(db.update("usertable", "user1", fields("field1", "B"))).isEqualTo(Status.OK);
        Map<String, ByteIterator> row = new HashMap<>();
        db.read("usertable", "user1", null, row);
        assertThat(strings(row)).isEqualTo(Map.of("field0", "a", "field1", "B"));
    }

    @Test
    void scanReadsRecordCountRowsFromTheStartKeyInOrder() throws DBException {
        BasaltDB db = db();
        for (int i = 0; i < 20; i++) {
            db.insert("usertable", String.format("user%02d", i), fields("field0", "v" + i, "field1", "w" + i));
        }
        Vector<HashMap<String, ByteIterator>> rows = new Vector<>();
        assertThat(db.scan("usertable", "user05", 4, null, rows)).isEqualTo(Status.OK);
        assertThat(rows).hasSize(4);
        for (int i = 0; i < 4; i++) {
            assertThat(strings(rows.get(i))).isEqualTo(Map.of("field0", "v" + (5 + i), "field1", "w" + (5 + i)));
        }

        Vector<HashMap<String, ByteIterator>> onlyField1 = new Vector<>();
        assertThat(db.scan("usertable", "user18", 100, Set.of("field1"), onlyField1)).isEqualTo(Status.OK);
        assertThat(onlyField1).hasSize(2);
        assertThat(strings(onlyField1.get(0))).isEqualTo(Map.of("field1", "w18"));
    }

    @Test
    void deleteRemovesTheRecord() throws DBException {
        BasaltDB db = db();
        db.insert("usertable", "user1", fields("field0", "a"));
        assertThat(db.delete("usertable", "user1")).isEqualTo(Status.OK);
        assertThat(db.read("usertable", "user1", null, new HashMap<>())).isEqualTo(Status.NOT_FOUND);
    }

    @Test
    void bufferedWritesAreBatchedAndDurableWhenTheThreadEnds() throws DBException {
        BasaltDB writer = db(BindingOptions.CLIENT_BUFFERING, "true", BindingOptions.WRITE_BUFFER_SIZE, "1000000");
        BasaltDB reader = db();
        for (int i = 0; i < 50; i++) {
            assertThat(writer.insert("usertable", "user" + i, fields("field0", "x" + i))).isEqualTo(Status.BATCHED_OK);
        }
        // A buffer of a million bytes holds all fifty: none has been sent yet.
        assertThat(reader.read("usertable", "user0", null, new HashMap<>())).isEqualTo(Status.NOT_FOUND);
        writer.cleanup();
        open.remove(writer);
        for (int i = 0; i < 50; i++) {
            Map<String, ByteIterator> row = new HashMap<>();
            assertThat(reader.read("usertable", "user" + i, null, row)).isEqualTo(Status.OK);
            assertThat(strings(row)).isEqualTo(Map.of("field0", "x" + i));
        }
    }

    @Test
    void instancesShareOneStoreAndTheLastClosesIt() throws Exception {
        BasaltDB one = db();
        BasaltDB two = db();
        one.insert("usertable", "user1", fields("field0", "a"));
        assertThat(SharedConnections.openCount()).isEqualTo(1);
        one.cleanup();
        open.remove(one);
        assertThat(two.read("usertable", "user1", null, new HashMap<>())).isEqualTo(Status.OK);
        two.cleanup();
        open.remove(two);
        assertThat(SharedConnections.openCount()).isZero();
        // The store's lock is released: this process can open it again directly.
        try (Connection c = Basalt.open(dir.resolve("store"))) {
            assertThat(c.table("usertable").get(io.basalt.client.Get.of("user1")).get(10, TimeUnit.SECONDS).isEmpty())
                    .isFalse();
        }
    }

    @Test
    void aMissingTableIsCreatedWithTheFamilyUnlessTurnedOff() throws Exception {
        BasaltDB refusing = db(BindingOptions.CREATE_TABLE, "false");
        assertThat(refusing.insert("other", "k", fields("field0", "a"))).isEqualTo(Status.ERROR);
        BasaltDB creating = db(BindingOptions.FAMILY, "cf", BindingOptions.BLOCK_SIZE, "4096",
                BindingOptions.BLOOM_BITS_PER_KEY, "12");
        assertThat(creating.insert("other", "k", fields("field0", "a"))).isEqualTo(Status.OK);
        // Created with the asked family, block size and bloom bits.
        creating.cleanup();
        refusing.cleanup();
        open.clear();
        try (Connection c = Basalt.open(dir.resolve("store"))) {
            TableDescriptor other = c.admin().listTables().get().stream().filter(t -> t.name().equals("other"))
                    .findFirst().orElseThrow();
            assertThat(other.family("cf")).hasValueSatisfying(f -> assertThat(f.blockSize()).isEqualTo(4096));
            assertThat(other.family("cf")).hasValueSatisfying(f -> assertThat(f.bloomBitsPerKey()).isEqualTo(12));
        }
        assertThatThrownBy(() -> BindingOptions.from(props(BindingOptions.URI, "/tmp/x",
                BindingOptions.BLOOM_BITS_PER_KEY, "40"))).hasMessageContaining(BindingOptions.BLOOM_BITS_PER_KEY)
                .hasMessageContaining("outside 2..32");
    }

    @Test
    void aTableWithoutTheFamilyFailsEveryOperation() throws Exception {
        try (Connection c = Basalt.open(dir.resolve("store"))) {
            c.admin().createTable(TableDescriptor.of("usertable", "elsewhere")).get();
        }
        BasaltDB db = db();
        assertThat(db.insert("usertable", "k", fields("field0", "a"))).isEqualTo(Status.ERROR);
        assertThat(db.read("usertable", "k", null, new HashMap<>())).isEqualTo(Status.ERROR);
    }

    @Test
    void badPropertiesAreRefusedByName() {
        assertThatThrownBy(() -> BindingOptions.from(new Properties()))
                .hasMessageContaining("basalt.uri is not set");
        assertThatThrownBy(() -> BindingOptions.from(props(BindingOptions.URI, "/tmp/x", "basalt.durabilty", "SYNC")))
                .hasMessageContaining("unknown property [basalt.durabilty]");
        assertThatThrownBy(() -> BindingOptions.from(props(BindingOptions.URI, "/tmp/x", BindingOptions.DURABILITY,
                "sometimes"))).hasMessageContaining("expected SYNC or ASYNC");
        assertThatThrownBy(() -> BindingOptions.from(props(BindingOptions.URI, "basalt://127.0.0.1:1",
                BindingOptions.BLOCK_CACHE_SIZE, "1000"))).hasMessageContaining("configures an embedded store");
        assertThatThrownBy(() -> BindingOptions.from(props(BindingOptions.URI, "/tmp/x", BindingOptions.TIMEOUT,
                "soon"))).hasMessageContaining("basalt.timeout=soon is not a whole number");
        assertThatThrownBy(() -> BindingOptions.from(props(BindingOptions.URI, "/tmp/x", BindingOptions.FAMILY,
                "a/b"))).hasMessageContaining("column family name 'a/b'");
        // and init() turns them into YCSB's DBException, naming the binding
        BasaltDB db = new BasaltDB();
        db.setProperties(new Properties());
        assertThatThrownBy(db::init).isInstanceOf(DBException.class).hasMessageStartingWith("basalt-ycsb: basalt.uri");
    }

    @Test
    void aServersBindingSpreadsItsThreadsOverTheConfiguredConnections() throws Exception {
        assertThat(BindingOptions.from(props(BindingOptions.URI, "basalt://h:1")).connections()).isEqualTo(2);
        assertThatThrownBy(() -> BindingOptions.from(props(BindingOptions.URI, "basalt://h:1",
                BindingOptions.CONNECTIONS, "0"))).hasMessageContaining("basalt.connections=0 must be between 1 and 64");
        io.basalt.server.ServerConfig config = io.basalt.server.ServerConfig.builder().port(0).httpPort(-1)
                .dataDir(dir.resolve("server")).build();
        try (io.basalt.server.BasaltServer server = io.basalt.server.BasaltServer.start(config)) {
            String uri = "basalt://127.0.0.1:" + server.address().getPort();
            for (int connections : new int[] {1, 3}) {
                Properties p = props(BindingOptions.URI, uri, BindingOptions.CONNECTIONS, String.valueOf(connections));
                BasaltDB db = new BasaltDB();
                db.setProperties(p);
                db.init();
                try {
                    for (int i = 0; i < 10; i++) { // requests go round the connections, each opened on first use
                        assertThat(db.insert("usertable", "k" + i, fields("f", "v" + i))).isEqualTo(Status.OK);
                    }
                    Map<String, ByteIterator> row = new HashMap<>();
                    assertThat(db.read("usertable", "k3", null, row)).isEqualTo(Status.OK);
                    assertThat(strings(row)).isEqualTo(Map.of("f", "v3"));
                    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
                    while (server.connections() != connections && System.nanoTime() < deadline) {
                        Thread.sleep(10);
                    }
                    assertThat(server.connections()).isEqualTo(connections);
                } finally {
                    db.cleanup();
                }
            }
        }
    }

    @Test
    void storePropertiesReachTheEmbeddedStore() {
        BindingOptions options = BindingOptions.from(props(BindingOptions.URI, "/tmp/x",
                BindingOptions.DURABILITY, "async", BindingOptions.BLOCK_CACHE_SIZE, "1048576",
                BindingOptions.ROW_CACHE_SIZE, "2097152", BindingOptions.MEMTABLE_FLUSH_SIZE, "4194304", BindingOptions.MEMTABLE_MEMORY_LIMIT, "8388608",
                BindingOptions.READ_COMPACTION_BYTES, "0", BindingOptions.HBASE_FAMILY, "cf"));
        assertThat(options.store().durability()).isEqualTo(io.basalt.client.Durability.ASYNC);
        assertThat(options.store().readCompactionBytes()).isZero();
        assertThat(BindingOptions.from(props(BindingOptions.URI, "/tmp/x")).store().readCompactionBytes())
                .isEqualTo(io.basalt.client.StoreOptions.DEFAULT_READ_COMPACTION_BYTES);
        assertThat(options.store().blockCacheSize()).isEqualTo(1 << 20);
        assertThat(options.store().rowCacheSize()).isEqualTo(2 << 20);
        assertThat(options.store().memtableFlushSize()).isEqualTo(4 << 20);
        assertThat(options.store().memtableMemoryLimit()).isEqualTo(8 << 20);
        assertThat(options.family()).isEqualTo("cf");
        assertThat(BindingOptions.from(props(BindingOptions.URI, "basalt://h:1")).store()).isNull();
    }

    @Test
    void regionSplitSizeReachesTheStoreAndIsChecked() {
        assertThat(BindingOptions.from(props(BindingOptions.URI, "/tmp/x", BindingOptions.REGION_SPLIT_SIZE, "1073741824"))
                .store().regionSplitSize()).isEqualTo(1L << 30);
        assertThat(BindingOptions.from(props(BindingOptions.URI, "/tmp/x")).store().regionSplitSize())
                .isEqualTo(io.basalt.client.StoreOptions.DEFAULT_REGION_SPLIT_SIZE);
        assertThatThrownBy(() -> BindingOptions.from(props(BindingOptions.URI, "/tmp/x",
                BindingOptions.REGION_SPLIT_SIZE, "-1"))).hasMessageContaining("basalt.regionsplitsize")
                .hasMessageContaining("regionSplitSize -1 is negative");
        assertThatThrownBy(() -> BindingOptions.from(props(BindingOptions.URI, "basalt://127.0.0.1:1",
                BindingOptions.REGION_SPLIT_SIZE, "1048576"))).hasMessageContaining("configures an embedded store");
    }

    @Test
    void compactionTriggerAndStallReachTheStoreAndAreChecked() {
        BindingOptions options = BindingOptions.from(props(BindingOptions.URI, "/tmp/x",
                BindingOptions.COMPACTION_TRIGGER, "3", BindingOptions.WRITE_STALL_FILES, "12"));
        assertThat(options.store().compactionTrigger()).isEqualTo(3);
        assertThat(options.store().writeStallFiles()).isEqualTo(12);
        // a trigger above the default stall raises the stall with it, as the store requires
        assertThat(BindingOptions.from(props(BindingOptions.URI, "/tmp/x", BindingOptions.COMPACTION_TRIGGER, "30"))
                .store().writeStallFiles()).isEqualTo(31);
        assertThatThrownBy(() -> BindingOptions.from(props(BindingOptions.URI, "/tmp/x",
                BindingOptions.COMPACTION_TRIGGER, "1"))).hasMessageContaining("basalt.compactiontrigger")
                .hasMessageContaining("compactionTrigger 1 must be at least 2");
        assertThatThrownBy(() -> BindingOptions.from(props(BindingOptions.URI, "/tmp/x",
                BindingOptions.COMPACTION_TRIGGER, "6", BindingOptions.WRITE_STALL_FILES, "5")))
                .hasMessageContaining("writeStallFiles 5 must exceed compactionTrigger 6");
        assertThatThrownBy(() -> BindingOptions.from(props(BindingOptions.URI, "basalt://127.0.0.1:1",
                BindingOptions.COMPACTION_TRIGGER, "3"))).hasMessageContaining("configures an embedded store");
    }

    private static Properties props(String... pairs) {
        Properties p = new Properties();
        for (int i = 0; i < pairs.length; i += 2) {
            p.setProperty(pairs[i], pairs[i + 1]);
        }
        return p;
    }
}
