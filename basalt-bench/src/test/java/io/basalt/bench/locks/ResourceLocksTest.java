package io.basalt.bench.locks;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Every adapter of the locks suite really locks, so the benchmark measures what it claims. */
class ResourceLocksTest {

    private static final byte[] KEY = "hot-table".getBytes(StandardCharsets.US_ASCII);

    @ParameterizedTest
    @ValueSource(strings = {"basalt", "basalt-plain", "dynamic-table", "guava-striped"})
    void aWriteLockBlocksAReaderUntilReleased(String impl) throws Exception {
        ResourceLocks locks = ResourceLocks.of(impl, LockBenchmark.STRIPES);
        Object write = locks.lock(KEY, true);
        Thread[] reader = new Thread[1];
        CompletableFuture<Boolean> read = new CompletableFuture<>();
        reader[0] = Thread.ofPlatform().name("reader").start(() -> {
            Object token = locks.lock(KEY, false);
            locks.unlock(KEY, token, false);
            read.complete(true);
        });
        awaitParked(reader[0]);
        assertThat(read).isNotDone();
        locks.unlock(KEY, write, true);
        assertThat(read.get(30, TimeUnit.SECONDS)).isTrue();
        reader[0].join();
    }

    @ParameterizedTest
    @ValueSource(strings = {"basalt", "basalt-plain", "dynamic-table", "guava-striped"})
    void readersShareAndWritersWaitForThem(String impl) throws Exception {
        ResourceLocks locks = ResourceLocks.of(impl, LockBenchmark.STRIPES);
        Object read = locks.lock(KEY, false);
        CompletableFuture<Boolean> otherRead = CompletableFuture.supplyAsync(() -> {
            Object token = locks.lock(KEY, false);
            locks.unlock(KEY, token, false);
            return true;
        });
        assertThat(otherRead.get(30, TimeUnit.SECONDS)).isTrue();
        CompletableFuture<Boolean> written = new CompletableFuture<>();
        Thread writer = Thread.ofPlatform().name("writer").start(() -> {
            Object token = locks.lock(KEY, true);
            locks.unlock(KEY, token, true);
            written.complete(true);
        });
        awaitParked(writer);
        assertThat(written).isNotDone();
        locks.unlock(KEY, read, false);
        assertThat(written.get(30, TimeUnit.SECONDS)).isTrue();
        writer.join();
    }

    @ParameterizedTest
    @ValueSource(strings = {"basalt", "basalt-plain", "dynamic-table", "guava-striped"})
    void everyBenchmarkMethodRunsAndLeavesNothingLocked(String impl) {
        LockBenchmark bench = new LockBenchmark();
        bench.impl = impl;
        bench.setUp();
        LockBenchmark.Draw draw = new LockBenchmark.Draw();
        for (int i = 0; i < 10_000; i++) {
            assertThat(bench.hotRead()).isNotNull();
            assertThat(bench.uniformRead(draw)).isNotNull();
            assertThat(bench.mixed(draw)).isNotNull();
        }
        if (bench.locks() instanceof ResourceLocks.Basalt basalt) {
            assertThat(basalt.manager().held()).isEmpty();
            assertThat(basalt.manager().metrics().values().iterator().next().acquisitions()).isEqualTo(30_000);
        }
        if (bench.locks() instanceof ResourceLocks.DynamicTable table) {
            // The model really removes entries at zero users, as the pre-fix design did.
            assertThat(table.size()).isZero();
        }
    }

    @org.junit.jupiter.api.Test
    void aPlainBasaltStripeIsSmallerThanAGuavaStripe() {
        double basalt = StripeFootprint.perStripe(n -> io.basalt.lock.LockManager.builder()
                .level(io.basalt.lock.LockLevel.ROW, n, false).build());
        double guava = StripeFootprint.perStripe(com.google.common.util.concurrent.Striped::readWriteLock);
        assertThat(basalt).isPositive().isLessThan(guava);
    }

    /** Waits (generously) until {@code t} parks: it is blocked on the lock, not just slow. */
    static void awaitParked(Thread t) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (t.getState() != Thread.State.WAITING && t.getState() != Thread.State.TIMED_WAITING) {
            assertThat(System.nanoTime()).as(t.getName() + " never blocked").isLessThan(deadline);
            assertThat(t.isAlive()).as(t.getName() + " finished without blocking").isTrue();
            Thread.sleep(1);
        }
    }
}
