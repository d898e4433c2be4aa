package io.basalt.engine;

import static org.assertj.core.api.Assertions.assertThat;

import io.basalt.client.Connection;
import io.basalt.client.Delete;
import io.basalt.client.Get;
import io.basalt.client.Put;
import io.basalt.client.Result;
import io.basalt.client.ResultScanner;
import io.basalt.client.Scan;
import io.basalt.client.StoreOptions;
import io.basalt.client.TableDescriptor;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A flush writes only what a reader can still see: surplus versions go, the version an open
 * scanner's read point needs stays, and delete markers stay (they mask older files).
 */
class FlushPruningTest {

    @TempDir
    Path dir;

    private final AtomicLong clock = new AtomicLong(1_000_000);

    private Connection open() throws Exception {
        return new EmbeddedConnection(Store.open(dir, StoreOptions.defaults(), clock::get, new StripedRegionLocks()));
    }

    private static <T> T await(CompletableFuture<T> f) throws Exception {
        return f.get(30, TimeUnit.SECONDS);
    }

    private static long entriesOnDisk(Connection c) {
        Region region = ((EmbeddedConnection) c).store().table("t").regions().getFirst();
        return region.view().files().get("f").stream().mapToLong(SSTableReader::entries).sum();
    }

    private static String value(Connection c, String row) throws Exception {
        Result r = await(c.table("t").get(Get.of(row)));
        return r.isEmpty() ? null : new String(r.value("f", "q"), StandardCharsets.UTF_8);
    }

    /** The memtable after a flush has its row index sized for as many rows as the one flushed. */
    @Test
    void theNextMemtableIsSizedForTheRowsOfTheLast() throws Exception {
        try (Connection c = open()) {
            await(c.admin().createTable(TableDescriptor.of("t", "f")));
            Region region = ((EmbeddedConnection) c).store().table("t").regions().getFirst();
            assertThat(region.view().active().expectedRows()).isEqualTo(16);
            for (int i = 0; i < 3000; i++) {
                await(c.table("t").put(Put.of("row" + i).addColumn("f", "q", "v")));
            }
            assertThat(region.view().active().rowCount()).isEqualTo(3000);
            await(c.admin().flush("t"));
            assertThat(region.view().active().expectedRows()).isEqualTo(3000);
        }
    }

    @Test
    void surplusVersionsAreLeftOutOfTheFlush() throws Exception {
        try (Connection c = open()) {
            await(c.admin().createTable(TableDescriptor.of("t", "f")));
            for (int i = 0; i < 50; i++) {
                clock.incrementAndGet();
                await(c.table("t").put(Put.of("hot").addColumn("f", "q", "v" + i)));
            }
            await(c.table("t").put(Put.of("cold").addColumn("f", "q", "c")));
            await(c.admin().flush("t"));
            assertThat(entriesOnDisk(c)).as("one version of hot, one of cold").isEqualTo(2);
            assertThat(value(c, "hot")).isEqualTo("v49");
        }
    }

    /**
     * The flush and the compaction copy in batches ({@link Compaction#BATCH} entries a call); a
     * row's versions that straddle two batches are still judged as one row: the surplus ones go.
     */
    @Test
    void surplusVersionsAcrossCopyBatchesAreLeftOut() throws Exception {
        int versions = Compaction.BATCH * 2 + Compaction.BATCH / 2;
        try (Connection c = open()) {
            await(c.admin().createTable(TableDescriptor.of("t", "f")));
            await(c.table("t").put(Put.of("a").addColumn("f", "q", "a")));
            for (int i = 0; i < versions; i++) {
                clock.incrementAndGet();
                await(c.table("t").put(Put.of("hot").addColumn("f", "q", "v" + i)));
            }
            await(c.table("t").put(Put.of("z").addColumn("f", "q", "z")));
            await(c.admin().flush("t"));
            assertThat(entriesOnDisk(c)).as("one version each of a, hot and z after the flush").isEqualTo(3);

            // Versions a scanner's read point predates stay through flushes; once it is closed,
            // the compaction of those files drops all but the newest.
            try (ResultScanner scanner = c.table("t").scanner(new Scan().setCaching(1))) {
                assertThat(scanner.next()).isNotNull();
                for (int file = 0; file < 2; file++) {
                    for (int i = 0; i < versions / 2; i++) {
                        clock.incrementAndGet();
                        await(c.table("t").put(Put.of("hot").addColumn("f", "q", "w" + file + "-" + i)));
                    }
                    await(c.admin().flush("t"));
                }
                assertThat(entriesOnDisk(c)).as("the scanner's read point kept every version")
                        .isEqualTo(3 + 2L * (versions / 2));
            }
            await(c.admin().compact("t"));
            assertThat(entriesOnDisk(c)).as("one version each of a, hot and z after the compaction").isEqualTo(3);
            assertThat(value(c, "hot")).isEqualTo("w1-" + (versions / 2 - 1));
            assertThat(value(c, "z")).isEqualTo("z");
        }
    }

    @Test
    void aScannersReadPointKeepsTheVersionItSees() throws Exception {
        try (Connection c = open()) {
            await(c.admin().createTable(TableDescriptor.of("t", "f")));
            await(c.table("t").put(Put.of("a").addColumn("f", "q", "old")));
            await(c.table("t").put(Put.of("b").addColumn("f", "q", "old")));
            try (ResultScanner scanner = c.table("t").scanner(new Scan().setCaching(1))) {
                Result first = scanner.next(); // the scanner's read point is now fixed
                assertThat(new String(first.value("f".getBytes(), "q".getBytes()), StandardCharsets.UTF_8))
                        .isEqualTo("old");
                for (int i = 0; i < 5; i++) {
                    clock.incrementAndGet();
                    await(c.table("t").put(Put.of("b").addColumn("f", "q", "new" + i)));
                }
                await(c.admin().flush("t"));
                Result second = scanner.next();
                assertThat(new String(second.value("f".getBytes(), "q".getBytes()), StandardCharsets.UTF_8))
                        .as("the scanner still sees its snapshot").isEqualTo("old");
            }
            assertThat(value(c, "b")).isEqualTo("new4");
            assertThat(entriesOnDisk(c)).as("b's old version stayed for the scanner").isGreaterThan(2);
        }
    }

    @Test
    void deleteMarkersStayAndKeepMaskingOlderFiles() throws Exception {
        try (Connection c = open()) {
            await(c.admin().createTable(TableDescriptor.of("t", "f")));
            await(c.table("t").put(Put.of("r").addColumn("f", "q", "1")));
            await(c.admin().flush("t"));
            clock.incrementAndGet();
            await(c.table("t").delete(Delete.of("r")));
            await(c.admin().flush("t"));
            assertThat(value(c, "r")).as("the marker in the second file masks the first").isNull();
        }
        try (Connection c = open()) {
            assertThat(value(c, "r")).isNull();
        }
    }
}
