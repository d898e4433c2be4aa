package io.basalt.lock;

import static io.basalt.lock.LockLevel.ROW;
import static io.basalt.lock.LockLevel.TABLE;
import static io.basalt.lock.LockManagerTest.k;
import static io.basalt.lock.LockMode.READ;
import static io.basalt.lock.LockMode.WRITE;
import static org.assertj.core.api.Assertions.assertThat;

import io.basalt.testkit.IgnoreInvariants;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** Per-level metrics, the diagnostics API, and the "no lock is held" test invariant. */
class LockMetricsTest {

    private final LockManager locks = LockManager.builder().level(TABLE, 16, true).level(ROW, 64, false).build();

    @Test
    void acquisitionsAreCountedPerLevelButReentrantRetakesAreNot() {
        for (int i = 0; i < 1_000; i++) {
            try (LockHandle _ = locks.lock(TABLE, k("t"), READ);
                 LockHandle _ = locks.lock(TABLE, k("t"), READ);
                 LockHandle _ = locks.lock(ROW, k("r" + i), WRITE)) {
                assertThat(locks.held()).hasSize(2);
            }
        }
        var metrics = locks.metrics();
        assertThat(metrics.get(TABLE).acquisitions()).isEqualTo(1_000);
        assertThat(metrics.get(ROW).acquisitions()).isEqualTo(1_000);
        assertThat(metrics.get(TABLE).contended()).isZero();
        assertThat(metrics.get(ROW).waitNanos().getTotalCount()).isZero();
    }

    @Test
    void heldTimeIsSampledOneAcquisitionInSixtyFour() {
        for (int i = 0; i < 64 * 10; i++) {
            try (LockHandle _ = locks.lock(ROW, k("r"), WRITE)) {
                Thread.onSpinWait();
            }
        }
        assertThat(locks.metrics().get(ROW).heldNanos().getTotalCount()).isEqualTo(10);
    }

    @Test
    void aWaitIsCountedAsContendedAndItsTimeRecorded() throws Exception {
        try (Background holder = new Background("holder")) {
            LockHandle held = holder.call(() -> locks.lock(ROW, k("r"), WRITE));
            CompletableFuture<Boolean> waited = CompletableFuture.supplyAsync(() -> {
                try (LockHandle _ = locks.lock(ROW, k("r"), READ)) {
                    return true;
                }
            });
            while (locks.metrics().get(ROW).contended() == 0) {
                Thread.onSpinWait();
            }
            Thread.sleep(5);
            holder.call(() -> {
                held.close();
                return null;
            });
            assertThat(waited.get(30, TimeUnit.SECONDS)).isTrue();
        }
        var row = locks.metrics().get(ROW);
        assertThat(row.contended()).isEqualTo(1);
        assertThat(row.waitNanos().getTotalCount()).isEqualTo(1);
        assertThat(row.waitNanos().getMaxValue()).isGreaterThanOrEqualTo(TimeUnit.MILLISECONDS.toNanos(5));
    }

    @Test
    void aWriterWaitingForBiasedReadersIsContendedToo() throws Exception {
        try (Background reader = new Background("reader")) {
            LockHandle read = reader.call(() -> locks.lock(TABLE, k("t"), READ));
            assertThat(locks.metrics().get(TABLE).contended()).isZero();
            CompletableFuture<Boolean> writer = CompletableFuture.supplyAsync(() -> {
                try (LockHandle _ = locks.lock(TABLE, k("t"), WRITE)) {
                    return true;
                }
            });
            while (locks.metrics().get(TABLE).contended() == 0) {
                Thread.onSpinWait();
            }
            reader.call(() -> {
                read.close();
                return null;
            });
            assertThat(writer.get(30, TimeUnit.SECONDS)).isTrue();
        }
        assertThat(locks.metrics().get(TABLE).waitNanos().getTotalCount()).isEqualTo(1);
    }

    @Test
    void countsOfEndedThreadsSurviveTheirFolding() throws Exception {
        // Registering the 64th thread folds the ended ones away; their counts must stay.
        int threads = 150;
        for (int i = 0; i < threads; i++) {
            Thread t = Thread.ofVirtual().start(() -> {
                try (LockHandle _ = locks.lock(ROW, k("r"), WRITE)) {
                    Thread.onSpinWait();
                }
            });
            t.join();
        }
        assertThat(locks.metrics().get(ROW).acquisitions()).isEqualTo(threads);
    }

    @Test
    @IgnoreInvariants(value = NoLockHeldInvariant.NAME, because = "a thread that ends holding a lock is what held() must show")
    void heldListsOtherThreadsAndMarksThoseThatEndedHoldingALock() throws Exception {
        Thread leaker = Thread.ofPlatform().name("leaker").start(() -> locks.lock(ROW, k("forgotten"), WRITE));
        leaker.join();
        try (LockHandle _ = locks.lock(TABLE, k("mine"), READ)) {
            List<HeldLock> held = locks.held();
            assertThat(held).hasSize(2);
            HeldLock leaked = held.stream().filter(h -> !h.threadAlive()).findFirst().orElseThrow();
            assertThat(leaked.toString()).isEqualTo("row 'forgotten' (stripe " + locks.stripeOf(ROW, k("forgotten"))
                    + ") WRITE×1 by 'leaker' (ended)");
            HeldLock mine = held.stream().filter(HeldLock::threadAlive).findFirst().orElseThrow();
            assertThat(mine.mode()).isEqualTo(READ);
            assertThat(mine.thread()).isEqualTo("'" + Thread.currentThread().getName() + "'");
        }
        assertThat(LockManager.instances()).contains(locks);
    }

    @Test
    void theInvariantReportsALeakOnceWithWhoHoldsWhat() {
        NoLockHeldInvariant invariant = new NoLockHeldInvariant();
        invariant.beforeEach("leak");
        LockHandle leaked = locks.lock(ROW, k("leaked-row"), WRITE);
        List<String> reports = new ArrayList<>();
        try {
            reports.add(invariant.violation("leak"));
            reports.add(invariant.violation("next"));
        } finally {
            leaked.close();
        }
        assertThat(reports.get(0)).contains("locks still held after the test")
                .contains("row 'leaked-row'").contains("WRITE×1 by '" + Thread.currentThread().getName() + "'");
        assertThat(reports.get(1)).isNull();
        LockManager fresh = LockManager.builder().level(ROW, 8, false).build();
        invariant.beforeEach("clean");
        try (LockHandle _ = fresh.lock(ROW, k("r"), READ)) {
            assertThat(fresh.held()).hasSize(1);
        }
        assertThat(invariant.violation("clean")).isNull();
    }
}
