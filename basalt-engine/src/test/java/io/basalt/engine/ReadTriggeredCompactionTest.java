package io.basalt.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.basalt.client.Connection;
import io.basalt.client.Get;
import io.basalt.client.Put;
import io.basalt.client.Result;
import io.basalt.client.StoreOptions;
import io.basalt.client.TableDescriptor;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Read-triggered compaction ({@link StoreOptions#readCompactionBytes()}): gets that find a row in
 * several files of a family are charged for the extra files, and a region whose charges pass its
 * files' bytes divided by the option has its files merged, with nothing lost.
 */
class ReadTriggeredCompactionTest {

    @TempDir
    Path dir;

    /** Tiers never form (trigger 10), the row cache is off: every get reads the files. */
    private static StoreOptions options(long readCompactionBytes) {
        return StoreOptions.defaults().withCompaction(10, 40).withRowCacheSize(0)
                .withReadCompactionBytes(readCompactionBytes);
    }

    private final FaultyDisk disk = new FaultyDisk();

    private Connection open(long readCompactionBytes) throws Exception {
        return new EmbeddedConnection(Store.open(dir, options(readCompactionBytes)
                .withBackgroundRetries(3, java.time.Duration.ofMillis(10)), System::currentTimeMillis,
                new StripedRegionLocks(), disk));
    }

    /** Gets of r, a bounded number, until the region is down to one file. */
    private static void getUntilMerged(Connection c) throws Exception {
        for (int i = 0; i < 50_000 && files(c) > 1; i++) {
            getR(c);
            if (i % 1_000 == 999) {
                drainCompactor(c);
            }
        }
        drainCompactor(c);
    }

    private static <T> T await(CompletableFuture<T> f) throws Exception {
        return f.get(30, TimeUnit.SECONDS);
    }

    private static Store store(Connection c) {
        return ((EmbeddedConnection) c).store();
    }

    private static Region region(Connection c) {
        return store(c).table("t").regions().getFirst();
    }

    private static int files(Connection c) {
        return region(c).view().files().get("f").size();
    }

    /** Waits until everything queued on the compactor before now has run. */
    private static void drainCompactor(Connection c) throws Exception {
        await(store(c).onCompactor(() -> null));
    }

    /** Row {@code r} with column {@code q<i>} in file {@code i}, three files; row {@code s} in the first only. */
    private static void threeFiles(Connection c) throws Exception {
        await(c.admin().createTable(TableDescriptor.of("t", "f")));
        for (int i = 0; i < 3; i++) {
            await(c.table("t").put(Put.of("r").addColumn("f", "q" + i, "v" + i)));
            if (i == 0) {
                await(c.table("t").put(Put.of("s").addColumn("f", "q", "alone")));
            }
            await(c.admin().flush("t"));
        }
        assertThat(files(c)).isEqualTo(3);
    }

    private static void getR(Connection c) throws Exception {
        Result r = await(c.table("t").get(Get.of("r")));
        assertThat(r.cells()).hasSize(3);
        for (int i = 0; i < 3; i++) {
            assertThat(r.value("f", "q" + i)).asString().isEqualTo("v" + i);
        }
    }

    /** What the budget divides: the region's part of its files. */
    private static long fileBytes(Connection c) {
        return region(c).sizeBytes();
    }

    @Test
    void getsOfARowSpreadOverFilesMergeThemOnceTheyPaidForIt() throws Exception {
        try (Connection c = open(1)) {
            threeFiles(c);
            // Budget: the files' bytes divided by 1 byte per read, each get of r reading two extra files.
            long budget = fileBytes(c);
            long below = budget / 2 - 10;
            for (long i = 0; i < below; i++) {
                getR(c);
            }
            drainCompactor(c);
            assertThat(region(c).extraFileReads.sum()).isEqualTo(2 * below);
            assertThat(files(c)).as("the reads have not yet paid for the merge").isEqualTo(3);
            getUntilMerged(c);
            assertThat(files(c)).as("merged once the charges passed the budget").isEqualTo(1);
            long afterMerge = region(c).extraFileReads.sum();
            assertThat(afterMerge).as("counted afresh after the merge (but for the get that read the old files as it committed)")
                    .isLessThanOrEqualTo(2);
            for (int i = 0; i < 100; i++) {
                getR(c);
            }
            assertThat(await(c.table("t").get(Get.of("s"))).value("f", "q")).asString().isEqualTo("alone");
            assertThat(region(c).extraFileReads.sum()).as("one file: no extra reads").isEqualTo(afterMerge);
        }
    }

    @Test
    void aMergeOfAnyKindStartsTheCountAgain() throws Exception {
        try (Connection c = open(1)) {
            threeFiles(c);
            for (int i = 0; i < 10; i++) {
                getR(c);
            }
            assertThat(region(c).extraFileReads.sum()).isEqualTo(20);
            await(c.admin().compact("t"));
            assertThat(files(c)).isEqualTo(1);
            assertThat(region(c).extraFileReads.sum()).as("charges for files that are gone").isZero();
            getR(c);
            assertThat(region(c).extraFileReads.sum()).isZero();
        }
    }

    /**
     * A merge whose write fails (an I/O error: retried; an {@code Error}: the task ends) leaves the
     * inputs, and the region is merged later all the same: the flag that keeps one request queued
     * is released whatever was thrown.
     */
    @ParameterizedTest
    @EnumSource(value = FaultyDisk.Fault.class, names = {"IO_ERROR", "ERROR"})
    void aMergeThatFailsLosesNothingAndIsMergedLater(FaultyDisk.Fault fault) throws Exception {
        try (Connection c = open(1)) {
            threeFiles(c);
            disk.failNext(FaultyDisk.Place.COMPACTION, fault);
            getUntilMerged(c);
            assertThat(disk.injected(FaultyDisk.Place.COMPACTION)).isEqualTo(1);
            assertThat(files(c)).as("merged after the failure").isEqualTo(1);
            assertThat(region(c).readCompactionQueued.get()).isFalse();
            getR(c);
            await(c.table("t").put(Put.of("s").addColumn("f", "q", "still writable")));
        }
    }

    @Test
    void zeroTurnsItOff() throws Exception {
        try (Connection c = open(0)) {
            threeFiles(c);
            for (int i = 0; i < 5_000; i++) {
                getR(c);
            }
            drainCompactor(c);
            assertThat(files(c)).isEqualTo(3);
            assertThat(region(c).extraFileReads.sum()).isZero();
        }
    }

    @Test
    void aRowInOneFileIsNeverCharged() throws Exception {
        try (Connection c = open(Long.MAX_VALUE)) {
            threeFiles(c);
            for (int i = 0; i < 5_000; i++) {
                assertThat(await(c.table("t").get(Get.of("s"))).value("f", "q")).asString().isEqualTo("alone");
            }
            drainCompactor(c);
            assertThat(region(c).extraFileReads.sum()).isZero();
            assertThat(files(c)).as("a budget of zero bytes, and still nothing to pay for").isEqualTo(3);
        }
    }

    @Test
    void aNegativeSettingIsRefused() {
        assertThatThrownBy(() -> StoreOptions.defaults().withReadCompactionBytes(-1))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("readCompactionBytes -1 is negative");
    }
}
