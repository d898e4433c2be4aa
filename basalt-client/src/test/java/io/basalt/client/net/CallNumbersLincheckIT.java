package io.basalt.client.net;

import static org.assertj.core.api.Assertions.assertThat;

import io.basalt.protocol.CallId;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicLong;
import org.jetbrains.kotlinx.lincheck.LinChecker;
import org.jetbrains.kotlinx.lincheck.annotations.Operation;
import org.jetbrains.kotlinx.lincheck.strategy.managed.modelchecking.ModelCheckingOptions;
import org.jetbrains.kotlinx.lincheck.strategy.stress.StressOptions;
import org.junit.jupiter.api.Test;

/**
 * Call numbering for exactly-once writes: a call's completed-below mark must never pass a call
 * that is still outstanding, or the cluster refuses that call as a replay. Lincheck checks the
 * numbering is linearizable (each {@code next} sees every earlier one counted); the stress test
 * checks the mark against the calls retired before each number was taken.
 */
public class CallNumbersLincheckIT {

    private final CallNumbers numbers = new CallNumbers(7);
    private final ConcurrentLinkedQueue<Long> issued = new ConcurrentLinkedQueue<>();

    /** Numbers a call: its id and its completed-below mark. */
    @Operation
    public List<Long> next() {
        CallId id = numbers.next();
        return List.of(id.callId(), id.completedBelow());
    }

    /** Retires the oldest outstanding call; returns it, or -1 when none is. */
    @Operation
    public long completeOldest() {
        synchronized (numbers) {
            Long oldest = numbers.oldest();
            if (oldest == null) {
                return -1;
            }
            numbers.done(oldest);
            return oldest;
        }
    }

    @Test
    void modelChecking() {
        LinChecker.check(CallNumbersLincheckIT.class, new ModelCheckingOptions()
                .iterations(30)
                .invocationsPerIteration(200)
                .threads(3)
                .actorsPerThread(3)
                .actorsBefore(1));
    }

    @Test
    void stress() {
        LinChecker.check(CallNumbersLincheckIT.class, new StressOptions()
                .iterations(10)
                .invocationsPerIteration(1000)
                .threads(3)
                .actorsPerThread(3));
    }

    /**
     * Threads take numbers and retire them in any order; each retirement and each number gets a
     * stamp from one counter. A mark {@code m} on a number taken at stamp {@code s} is right only if
     * every call below {@code m} was retired before {@code s}.
     */
    @Test
    void aMarkNeverPassesAnOutstandingCall() throws Exception {
        CallNumbers n = new CallNumbers(9);
        AtomicLong clock = new AtomicLong();
        int threads = 4;
        int perThread = 20_000;
        long[] retiredAt = new long[threads * perThread + 1];
        java.util.Arrays.fill(retiredAt, Long.MAX_VALUE);
        List<long[]> taken = java.util.Collections.synchronizedList(new ArrayList<>()); // {mark, stamp}
        List<Thread> workers = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            workers.add(Thread.ofPlatform().start(() -> {
                java.util.ArrayDeque<Long> mine = new java.util.ArrayDeque<>();
                java.util.SplittableRandom random = new java.util.SplittableRandom(Thread.currentThread().threadId());
                for (int i = 0; i < perThread; i++) {
                    CallId id = n.next();
                    taken.add(new long[] {id.completedBelow(), clock.incrementAndGet()});
                    mine.add(id.callId());
                    if (mine.size() > 3 || random.nextBoolean()) {
                        long done = random.nextBoolean() ? mine.pollFirst() : mine.pollLast();
                        retiredAt[(int) done] = clock.incrementAndGet();
                        n.done(done);
                    }
                }
                for (Long done : mine) {
                    retiredAt[(int) (long) done] = clock.incrementAndGet();
                    n.done(done);
                }
            }));
        }
        for (Thread w : workers) {
            w.join();
        }
        long[] maxRetiredBelow = new long[retiredAt.length + 1]; // max retirement stamp of calls 1..i-1
        for (int i = 2; i < maxRetiredBelow.length; i++) {
            maxRetiredBelow[i] = Math.max(maxRetiredBelow[i - 1], retiredAt[i - 1]);
        }
        for (long[] t : taken) {
            assertThat(maxRetiredBelow[(int) t[0]]).as("a call below mark %s retired before the number was taken",
                    t[0]).isLessThan(t[1]);
        }
    }
}
