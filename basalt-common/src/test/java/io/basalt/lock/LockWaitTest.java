package io.basalt.lock;

import static io.basalt.lock.LockLevel.ROW;
import static io.basalt.lock.LockLevel.TABLE;
import static io.basalt.lock.LockMode.READ;
import static io.basalt.lock.LockMode.WRITE;
import static io.basalt.lock.LockManagerTest.k;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

/** Waiting: time limits, interruption, fairness and writer progress, on biased and plain levels. */
class LockWaitTest {

    private final LockManager locks = LockManager.builder()
            .level(LockLevel.NAMESPACE, 8, false)
            .level(TABLE, 64, true)
            .level(ROW, 64, false)
            .build();
    private final Background holder = new Background("holder");
    private final Background waiter = new Background("waiter");

    @AfterEach
    void stopThreads() {
        holder.close();
        waiter.close();
    }

    static LockLevel level(boolean biased) {
        return biased ? TABLE : ROW;
    }

    // ---- time limits ----

    @ParameterizedTest(name = "biased={0}")
    @ValueSource(booleans = {true, false})
    void aReadBlockedByAWriterTimesOutNamingTheResourceTheWaitAndTheHolder(boolean biased) throws Exception {
        LockLevel level = level(biased);
        byte[] key = k("users");
        LockHandle held = holder.call(() -> locks.lock(level, key, WRITE));
        try {
            Duration limit = Duration.ofMillis(30);
            assertThatThrownBy(() -> locks.lock(level, key, READ, limit))
                    .isInstanceOfSatisfying(LockTimeoutException.class,
                            e -> assertThat(e.waited()).isGreaterThanOrEqualTo(limit))
                    .hasMessageContaining("timed out after")
                    .hasMessageContaining("waiting for a READ lock on " + level.name() + " 'users' (stripe "
                            + locks.stripeOf(level, key) + " of 64)")
                    .hasMessageContaining("held for WRITE by 'holder'")
                    .hasMessageContaining("this thread holds nothing");
            assertThat(locks.held()).singleElement().satisfies(h -> assertThat(h.thread()).isEqualTo("'holder'"));
        } finally {
            holder.call(() -> {
                held.close();
                return null;
            });
        }
        try (LockHandle _ = locks.lock(level, key, WRITE, Duration.ZERO)) {
            assertThat(locks.held()).hasSize(1);
        }
    }

    @ParameterizedTest(name = "biased={0}")
    @ValueSource(booleans = {true, false})
    void aWriteBlockedByAReaderTimesOutAndLeavesTheStripeUsable(boolean biased) throws Exception {
        // On the biased level the writer takes the stripe lock, revokes the bias and then waits
        // for the reader's indicator to drain: the timeout must release what it took.
        LockLevel level = level(biased);
        byte[] key = k("users");
        LockHandle read = holder.call(() -> locks.lock(level, key, READ));
        try (LockHandle _ = locks.lock(LockLevel.NAMESPACE, k("other"), READ)) {
            assertThatThrownBy(() -> locks.lock(level, key, WRITE, Duration.ofMillis(30)))
                    .isInstanceOf(LockTimeoutException.class)
                    .hasMessageContaining("waiting for a WRITE lock on " + level.name() + " 'users'")
                    .hasMessageContaining("held for READ by 1 reader(s)")
                    .hasMessageContaining("this thread holds [namespace 'other'");
            assertThat(holder.call(() -> {
                try (LockHandle _ = locks.lock(level, key, READ, Duration.ZERO)) {
                    return true;
                }
            })).isTrue();
        } finally {
            holder.call(() -> {
                read.close();
                return null;
            });
        }
        try (LockHandle _ = locks.lock(level, key, WRITE, Duration.ZERO)) {
            assertThat(locks.held()).hasSize(1);
        }
    }

    @Test
    void aZeroTimeoutNeverWaits() throws Exception {
        LockHandle held = holder.call(() -> locks.lock(ROW, k("r"), WRITE));
        try {
            assertThatThrownBy(() -> locks.lock(ROW, k("r"), READ, Duration.ZERO)).isInstanceOf(LockTimeoutException.class);
        } finally {
            holder.call(() -> {
                held.close();
                return null;
            });
        }
    }

    @Test
    void theDefaultLimitBoundsCallsWithoutATimeout() throws Exception {
        LockManager impatient = LockManager.builder().level(ROW, 8, false).defaultTimeout(Duration.ofMillis(20)).build();
        LockHandle held = holder.call(() -> impatient.lock(ROW, k("r"), WRITE));
        try {
            assertThatThrownBy(() -> impatient.lock(ROW, k("r"), WRITE)).isInstanceOf(LockTimeoutException.class);
            assertThatThrownBy(() -> impatient.lockAll(ROW, List.of(k("r")), READ))
                    .isInstanceOf(LockTimeoutException.class);
        } finally {
            holder.call(() -> {
                held.close();
                return null;
            });
        }
    }

    @Test
    void negativeTimeoutsAreRejected() {
        assertThatThrownBy(() -> locks.lock(ROW, k("r"), READ, Duration.ofMillis(-1)))
                .isInstanceOf(IllegalArgumentException.class);
    }

    // ---- interruption ----

    @ParameterizedTest(name = "biased={0}, waitFor={1}")
    @org.junit.jupiter.params.provider.CsvSource({"true, WRITE", "false, WRITE", "true, READ", "false, READ"})
    void anInterruptedWaitGivesUpAndKeepsTheInterruptStatus(boolean biased, LockMode heldMode) throws Exception {
        // Waiting for a writer (queue) and, on the biased level, a writer waiting for a biased
        // reader to leave (drain) are both interruptible.
        LockLevel level = level(biased);
        byte[] key = k("users");
        LockMode asked = heldMode == WRITE ? READ : WRITE;
        LockHandle held = holder.call(() -> locks.lock(level, key, heldMode));
        try {
            CompletableFuture<String> outcome = waiter.submit(() -> {
                try (LockHandle _ = locks.lock(level, key, asked, Duration.ofSeconds(60))) {
                    return "granted";
                } catch (LockInterruptedException e) {
                    return "interrupted:" + Thread.currentThread().isInterrupted() + ":" + e.getMessage();
                } finally {
                    Thread.interrupted();
                }
            });
            waiter.awaitBlocked();
            waiter.thread().interrupt();
            assertThat(outcome.get(30, TimeUnit.SECONDS))
                    .startsWith("interrupted:true:interrupted after")
                    .contains("waiting for a " + asked + " lock on " + level.name() + " 'users'");
        } finally {
            holder.call(() -> {
                held.close();
                return null;
            });
        }
        assertThat(waiter.call(() -> {
            try (LockHandle _ = locks.lock(level, key, WRITE, Duration.ZERO)) {
                return true;
            }
        })).isTrue();
    }

    @Test
    void aRequestThatNeedsNoWaitIsGrantedToAnInterruptedThread() {
        Thread.currentThread().interrupt();
        try (LockHandle _ = locks.lock(ROW, k("r"), WRITE)) {
            assertThat(Thread.currentThread().isInterrupted()).isTrue();
        } finally {
            Thread.interrupted();
        }
    }

    // ---- fairness ----

    @Test
    void aFairWriterDoesNotTakeAFreeStripeAheadOfAQueuedThread() throws Exception {
        LockManager fair = LockManager.builder().level(ROW, 8, false).fair(true).build();
        byte[] key = k("r");
        LockHandle first = fair.lock(ROW, key, WRITE);
        CountDownLatch done = new CountDownLatch(1);
        CompletableFuture<Boolean> queued = waiter.submit(() -> {
            try (LockHandle _ = fair.lock(ROW, key, WRITE)) {
                return done.await(30, TimeUnit.SECONDS);
            }
        });
        waiter.awaitBlocked();
        first.close();
        // The queued writer is first in line: still queued, or already holding the stripe.
        assertThatThrownBy(() -> fair.lock(ROW, key, WRITE, Duration.ZERO)).isInstanceOf(LockTimeoutException.class);
        done.countDown();
        assertThat(queued.get(30, TimeUnit.SECONDS)).isTrue();
    }

    @ParameterizedTest(name = "biased={0}")
    @ValueSource(booleans = {true, false})
    void aNewReaderQueuesBehindAWaitingWriterEvenWhileTheStripeIsReadLocked(boolean biased) throws Exception {
        // The rule that bounds a writer's wait: no reader overtakes it once it is queued (on the
        // biased level: once it has revoked the bias and waits for the readers inside).
        LockLevel level = level(biased);
        byte[] key = k("users");
        LockHandle read = holder.call(() -> locks.lock(level, key, READ));
        CompletableFuture<Boolean> writer = waiter.submit(() -> {
            try (LockHandle _ = locks.lock(level, key, WRITE)) {
                return true;
            }
        });
        try {
            waiter.awaitBlocked();
            assertThatThrownBy(() -> locks.lock(level, key, READ, Duration.ofMillis(10)))
                    .isInstanceOf(LockTimeoutException.class);
        } finally {
            holder.call(() -> {
                read.close();
                return null;
            });
        }
        assertThat(writer.get(30, TimeUnit.SECONDS)).isTrue();
    }

    @ParameterizedTest(name = "biased={0}")
    @ValueSource(booleans = {true, false})
    void aReaderDoesNotWaitBehindQueuedReadersWhenNoWriterWaits(boolean biased) throws Exception {
        // A writer held the stripe and a reader queued behind it. The writer lets go and the
        // queued reader is being woken; no writer waits, so a new reader takes its hold at once
        // rather than queue behind the one being woken (with more threads than cores such queues
        // made convoys). Before, a reader that found anyone queued queued too: a zero-limit read
        // then failed whenever it came before the woken reader had run, most of these rounds.
        LockLevel level = level(biased);
        byte[] key = k("t");
        for (int round = 0; round < 100; round++) {
            LockHandle write = holder.call(() -> locks.lock(level, key, WRITE));
            CompletableFuture<Boolean> queued = waiter.submit(() -> {
                try (LockHandle _ = locks.lock(level, key, READ)) {
                    return true;
                }
            });
            waiter.awaitBlocked();
            holder.call(() -> {
                write.close();
                return null;
            });
            try (LockHandle read = locks.lock(level, key, READ, Duration.ZERO)) {
                assertThat(read).as("round %d", round).isNotNull();
            }
            assertThat(queued.get(30, TimeUnit.SECONDS)).isTrue();
        }
    }

    // ---- writer progress ----

    @ParameterizedTest(name = "biased={0}")
    @ValueSource(booleans = {true, false})
    void writersProgressUnderAReaderFlood(boolean biased) throws Exception {
        // Four readers hold the stripe in turns that overlap, so it is never free of readers;
        // a writer would starve if readers could keep entering while it waits. Each write must
        // be granted within its (generous) limit: a starved writer times out and fails the test.
        LockLevel level = level(biased);
        byte[] key = k("hot-table");
        AtomicBoolean stop = new AtomicBoolean();
        AtomicLong reads = new AtomicLong();
        List<Thread> readers = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            readers.add(Thread.ofPlatform().name("reader-" + i).start(() -> {
                while (!stop.get()) {
                    try (LockHandle _ = locks.lock(level, key, READ, Duration.ofSeconds(60))) {
                        reads.incrementAndGet();
                        long until = System.nanoTime() + 200_000;
                        while (System.nanoTime() < until) {
                            Thread.onSpinWait();
                        }
                    }
                }
            }));
        }
        try {
            while (reads.get() < 100) {
                Thread.onSpinWait();
            }
            for (int w = 0; w < 20; w++) {
                try (LockHandle _ = locks.lock(level, key, WRITE, Duration.ofSeconds(20))) {
                    long before = reads.get();
                    Thread.sleep(1);
                    assertThat(reads.get()).as("no read completes while the write lock is held").isEqualTo(before);
                }
                long resume = reads.get() + 4;
                while (reads.get() < resume) {
                    Thread.onSpinWait();
                }
            }
        } finally {
            stop.set(true);
            for (Thread t : readers) {
                t.join();
            }
        }
        assertThat(locks.metrics().get(level).contended()).isPositive();
    }
}
