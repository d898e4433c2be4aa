package io.basalt.protocol;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/** {@link SpinYieldLock}: mutual exclusion under many threads, each waiting phase, interrupts. */
class SpinYieldLockTest {

    private final SpinYieldLock lock = new SpinYieldLock();
    /** Plain fields, guarded by the lock only: a lost update or an overlap shows here. */
    private long counter;
    private int inside;

    @Test
    void manyThreadsIncrementingUnderTheLockLoseNoUpdateAndNeverOverlap() throws Exception {
        int threads = 16;
        int rounds = 50_000;
        CyclicBarrier start = new CyclicBarrier(threads);
        AtomicInteger overlaps = new AtomicInteger();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        List<Thread> all = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            all.add(Thread.ofPlatform().start(() -> {
                try {
                    start.await();
                    for (int i = 0; i < rounds; i++) {
                        lock.lock();
                        try {
                            if (inside++ != 0) {
                                overlaps.incrementAndGet();
                            }
                            counter++;
                            inside--;
                        } finally {
                            lock.unlock();
                        }
                    }
                } catch (Throwable e) {
                    failure.set(e);
                }
            }));
        }
        for (Thread t : all) {
            t.join(TimeUnit.MINUTES.toMillis(2));
            assertThat(t.isAlive()).as("a locking thread is stuck").isFalse();
        }
        assertThat(failure.get()).isNull();
        assertThat(overlaps.get()).isZero();
        lock.lock();
        try {
            assertThat(counter).isEqualTo((long) threads * rounds);
        } finally {
            lock.unlock();
        }
        assertThat(lock.tryLock()).as("free once every thread is done").isTrue();
        lock.unlock();
    }

    @Test
    void waitersPastTheSpinAndYieldPhasesGetTheLockOnlyAfterItsRelease() throws Exception {
        lock.lock();
        int waiters = 4;
        CountDownLatch started = new CountDownLatch(waiters);
        AtomicInteger early = new AtomicInteger();
        AtomicInteger acquired = new AtomicInteger();
        AtomicInteger released = new AtomicInteger();
        List<Thread> all = new ArrayList<>();
        for (int i = 0; i < waiters; i++) {
            all.add(Thread.ofPlatform().start(() -> {
                started.countDown();
                lock.lock();
                try {
                    if (released.get() == 0) {
                        early.incrementAndGet();
                    }
                    acquired.incrementAndGet();
                } finally {
                    lock.unlock();
                }
            }));
        }
        started.await();
        Thread.sleep(100); // far past the spins and yields: the waiters are in their parking phase
        assertThat(acquired.get()).isZero();
        released.set(1);
        lock.unlock();
        for (Thread t : all) {
            t.join(TimeUnit.SECONDS.toMillis(30));
            assertThat(t.isAlive()).as("a waiter never got the released lock").isFalse();
        }
        assertThat(early.get()).isZero();
        assertThat(acquired.get()).isEqualTo(waiters);
    }

    @Test
    void theHolderAskingAgainFailsInsteadOfWaitingForItself() throws Exception {
        lock.lock();
        try {
            assertThat(lock.tryLock()).isFalse();
            org.assertj.core.api.Assertions.assertThatThrownBy(lock::lock)
                    .isInstanceOf(IllegalStateException.class).hasMessageContaining("not reentrant");
            AtomicReference<Boolean> takenByAnother = new AtomicReference<>();
            Thread other = Thread.ofPlatform().start(() -> {
                boolean taken = lock.tryLock();
                if (taken) {
                    lock.unlock();
                }
                takenByAnother.set(taken);
            });
            other.join(TimeUnit.SECONDS.toMillis(30));
            assertThat(takenByAnother.get()).as("still held by its holder").isFalse();
        } finally {
            lock.unlock();
        }
        assertThat(lock.tryLock()).isTrue();
        lock.unlock();
    }

    @Test
    void anInterruptedWaiterStillTakesTheLockAndKeepsItsInterruptStatus() throws Exception {
        lock.lock();
        AtomicReference<Boolean> interruptedAfter = new AtomicReference<>();
        Thread waiter = Thread.ofPlatform().start(() -> {
            lock.lock();
            try {
                interruptedAfter.set(Thread.currentThread().isInterrupted());
            } finally {
                lock.unlock();
            }
        });
        Thread.sleep(20);
        waiter.interrupt();
        Thread.sleep(20);
        assertThat(interruptedAfter.get()).as("took a held lock").isNull();
        lock.unlock();
        waiter.join(TimeUnit.SECONDS.toMillis(30));
        assertThat(waiter.isAlive()).isFalse();
        assertThat(interruptedAfter.get()).isTrue();
    }
}
