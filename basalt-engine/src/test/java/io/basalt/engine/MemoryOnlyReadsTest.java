package io.basalt.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.basalt.client.AsyncTable;
import io.basalt.client.Basalt;
import io.basalt.client.Connection;
import io.basalt.client.FamilyDescriptor;
import io.basalt.client.Get;
import io.basalt.client.Put;
import io.basalt.client.Result;
import io.basalt.client.StoreOptions;
import io.basalt.client.TableDescriptor;
import io.basalt.client.spi.MemoryOnlyReads;
import java.io.IOException;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The embedded store keeps {@link MemoryOnlyReads}' contract: under an attempt a get answers from
 * memory, or fails with {@code WouldWait} before it reads the disk or past its blocks, holding
 * nothing afterwards (the testkit's invariants check the buffers after each test), and the same
 * get then answers in full outside the attempt.
 */
class MemoryOnlyReadsTest {

    @TempDir
    Path dir;

    private static <T> T await(CompletableFuture<T> f) throws Exception {
        return f.get(30, TimeUnit.SECONDS);
    }

    /** {@code get} under an attempt of {@code blocks}: the result, or null when it would wait. */
    private static Result attempt(AsyncTable t, Get get, int blocks) {
        CompletableFuture<Result> f = MemoryOnlyReads.attempt(blocks, () -> t.get(get));
        try {
            return f.join();
        } catch (CompletionException e) {
            if (e.getCause() instanceof MemoryOnlyReads.WouldWait) {
                return null;
            }
            throw e;
        } finally {
            assertThat(MemoryOnlyReads.active()).as("the mark is gone after the attempt").isFalse();
        }
    }

    @Test
    void aGetFromTheMemtableIsAnsweredInMemory() throws Exception {
        try (Connection c = Basalt.open(dir)) {
            await(c.admin().createTable(TableDescriptor.of("t", "f")));
            AsyncTable t = c.table("t");
            await(t.put(Put.of("r").addColumn("f", "a", "1").addColumn("f", "b", "2")));
            Result r = attempt(t, Get.of("r"), 0);
            assertThat(r).isNotNull();
            assertThat(r.value("f", "a")).isEqualTo("1".getBytes());
            assertThat(r.value("f", "b")).isEqualTo("2".getBytes());
        }
    }

    /** Asks the OS to drop every SSTable's pages from its cache; false where it cannot be asked. */
    private boolean dropPages() throws IOException {
        try (var files = java.nio.file.Files.walk(dir)) {
            boolean dropped = true;
            for (Path p : files.filter(p -> p.toString().endsWith(".sst")).toList()) {
                dropped &= NowaitReads.dropCached(p);
            }
            return dropped;
        }
    }

    @Test
    void aGetThatMissesTheCacheWouldWaitAndThenReadsTheDiskOutsideTheAttempt() throws Exception {
        try (Connection c = Basalt.open(dir)) {
            await(c.admin().createTable(TableDescriptor.of("t", "f")));
            AsyncTable t = c.table("t");
            await(t.put(Put.of("r").addColumn("f", "a", "1")));
            await(c.admin().flush("t"));
        }
        try (Connection c = Basalt.open(dir)) {
            AsyncTable t = c.table("t");
            // reopened: nothing of the file is in the block cache, and (where it can be asked) the
            // OS holds none of its pages either (dropped after the open read the file's index, which
            // shares the block's page)
            boolean dropped = dropPages();
            if (!dropped) {
                // Without reads that do not wait, every block-cache miss would wait. With them, a
                // system that cannot drop pages cannot show the disk-only case; the next test shows
                // the page-cache one.
                org.junit.jupiter.api.Assumptions.assumeFalse(NowaitReads.available());
            }
            long misses = c.admin().serverStatus().get(30, TimeUnit.SECONDS).blockCacheMisses();
            assertThat(attempt(t, Get.of("r"), 16)).as("the block is on disk only").isNull();
            assertThat(c.admin().serverStatus().get(30, TimeUnit.SECONDS).blockCacheMisses())
                    .as("the attempt read nothing, so counted no miss").isEqualTo(misses);
            assertThat(await(t.get(Get.of("r"))).value("f", "a")).isEqualTo("1".getBytes());
            Result cached = attempt(t, Get.of("r"), 16);
            assertThat(cached).as("the get above cached the block").isNotNull();
            assertThat(cached.value("f", "a")).isEqualTo("1".getBytes());
        }
    }

    @Test
    void aBlockTheOsHoldsIsReadInTheAttemptAndCached() throws Exception {
        org.junit.jupiter.api.Assumptions.assumeTrue(NowaitReads.available(), "no reads that do not wait here");
        try (Connection c = Basalt.open(dir, StoreOptions.defaults().withRowCacheSize(0))) {
            await(c.admin().createTable(TableDescriptor.of("t", "f")));
            AsyncTable t = c.table("t");
            await(t.put(Put.of("r").addColumn("f", "a", "1")));
            await(c.admin().flush("t"));
        }
        try (var files = java.nio.file.Files.walk(dir)) { // the OS holds every page of the files
            for (Path p : files.filter(p -> p.toString().endsWith(".sst")).toList()) {
                java.nio.file.Files.readAllBytes(p);
            }
        }
        try (Connection c = Basalt.open(dir, StoreOptions.defaults().withRowCacheSize(0))) {
            AsyncTable t = c.table("t");
            long misses = c.admin().serverStatus().get(30, TimeUnit.SECONDS).blockCacheMisses();
            Result r = attempt(t, Get.of("r"), 16);
            assertThat(r).as("the block was not in the block cache, but in the OS's memory").isNotNull();
            assertThat(r.value("f", "a")).isEqualTo("1".getBytes());
            assertThat(c.admin().serverStatus().get(30, TimeUnit.SECONDS).blockCacheMisses())
                    .as("the read counts as the block cache's miss").isEqualTo(misses + 1);
            assertThat(attempt(t, Get.of("r"), 16)).as("now from the block cache").isNotNull();
            assertThat(c.admin().serverStatus().get(30, TimeUnit.SECONDS).blockCacheMisses()).isEqualTo(misses + 1);
        }
    }

    @Test
    void aStoreWithoutACacheAlwaysWouldWaitForAFile() throws Exception {
        try (Connection c = Basalt.open(dir, StoreOptions.defaults().withBlockCacheSize(0).withRowCacheSize(0))) {
            await(c.admin().createTable(TableDescriptor.of("t", "f")));
            AsyncTable t = c.table("t");
            await(t.put(Put.of("r").addColumn("f", "a", "1")));
            await(c.admin().flush("t"));
            for (int i = 0; i < 3; i++) {
                assertThat(attempt(t, Get.of("r"), 16)).isNull();
                assertThat(await(t.get(Get.of("r"))).value("f", "a")).isEqualTo("1".getBytes());
            }
        }
    }

    @Test
    void aRowWiderThanTheAttemptsBlocksWouldWaitEvenWhenCached() throws Exception {
        try (Connection c = Basalt.open(dir, StoreOptions.defaults().withRowCacheSize(0))) {
            await(c.admin().createTable(new TableDescriptor("t", java.util.List.of(
                    FamilyDescriptor.of("f").withBlockSize(FamilyDescriptor.MIN_BLOCK_SIZE)))));
            AsyncTable t = c.table("t");
            Put wide = Put.of("r");
            for (int i = 0; i < 200; i++) {
                wide.addColumn("f", String.format("q%04d", i), "v".repeat(100));
            }
            await(t.put(wide));
            await(c.admin().flush("t"));
            assertThat(await(t.get(Get.of("r"))).size()).isEqualTo(200); // caches every block
            assertThat(attempt(t, Get.of("r"), 4)).as("the row spans about twenty 1 KiB blocks").isNull();
            Result r = attempt(t, Get.of("r"), 64);
            assertThat(r).as("enough blocks, all cached").isNotNull();
            assertThat(r.size()).isEqualTo(200);
        }
    }

    @Test
    void aRowTheRowCacheHoldsIsAnsweredWithoutABlock() throws Exception {
        try (Connection c = Basalt.open(dir, StoreOptions.defaults().withBlockCacheSize(0))) {
            await(c.admin().createTable(TableDescriptor.of("t", "f")));
            AsyncTable t = c.table("t");
            await(t.put(Put.of("r").addColumn("f", "a", "1")));
            await(c.admin().flush("t"));
            assertThat(attempt(t, Get.of("r"), 16)).as("the row is in a file, and no block is cached").isNull();
            for (int i = 0; i < 2; i++) { // a row is kept on its second miss
                assertThat(await(t.get(Get.of("r"))).value("f", "a")).isEqualTo("1".getBytes());
            }
            Result r = attempt(t, Get.of("r"), 0);
            assertThat(r).as("the gets above left the row in the row cache").isNotNull();
            assertThat(r.value("f", "a")).isEqualTo("1".getBytes());
        }
    }

    @Test
    void attemptsDoNotNestAndCountBlocksNotNegatives() {
        assertThatThrownBy(() -> MemoryOnlyReads.attempt(-1, () -> null)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> MemoryOnlyReads.attempt(1, () -> MemoryOnlyReads.attempt(1, () -> null)))
                .isInstanceOf(IllegalStateException.class);
        assertThat(MemoryOnlyReads.active()).isFalse();
        // outside an attempt the store's calls are no-ops
        MemoryOnlyReads.beforeBlock();
        MemoryOnlyReads.beforeDiskRead();
        assertThatThrownBy(() -> MemoryOnlyReads.attempt(0, () -> {
            MemoryOnlyReads.beforeBlock();
            return null;
        })).isSameAs(MemoryOnlyReads.WOULD_WAIT);
        assertThat(MemoryOnlyReads.attempt(2, () -> {
            MemoryOnlyReads.beforeBlock();
            MemoryOnlyReads.beforeBlock();
            return "two";
        })).isEqualTo("two");
    }
}
