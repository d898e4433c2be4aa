package io.basalt.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** The per-connection table of request start times ({@link RequestTimes}). */
class RequestTimesTest {

    @Test
    void eachStartIsFoundOnceByItsId() {
        RequestTimes t = new RequestTimes(4);
        assertThat(t.capacity()).isEqualTo(8);
        assertThat(t.start(7, 100)).isTrue();
        assertThat(t.start(-3, 200)).isTrue();
        assertThat(t.finish(99)).isEqualTo(RequestTimes.UNKNOWN);
        assertThat(t.finish(-3)).isEqualTo(200);
        assertThat(t.finish(-3)).as("taken once").isEqualTo(RequestTimes.UNKNOWN);
        assertThat(t.finish(7)).isEqualTo(100);
    }

    @Test
    void collidingIdsAreFoundPastEmptiedSlots() {
        RequestTimes t = new RequestTimes(4);
        // ids 0, 8, 16... all land near each other once masked; remove the first, find the rest
        for (int i = 0; i < 8; i++) {
            assertThat(t.start(i * 8L, i)).isTrue();
        }
        assertThat(t.start(1000, 1)).as("full").isFalse();
        assertThat(t.finish(0)).isZero();
        for (int i = 1; i < 8; i++) {
            assertThat(t.finish(i * 8L)).isEqualTo(i);
        }
    }

    @Test
    void aDuplicatedIdIsTimedTwice() {
        RequestTimes t = new RequestTimes(4);
        t.start(5, 10);
        t.start(5, 20);
        long first = t.finish(5);
        long second = t.finish(5);
        assertThat(List.of(first, second)).containsExactlyInAnyOrder(10L, 20L);
        assertThat(t.finish(5)).isEqualTo(RequestTimes.UNKNOWN);
    }

    @Test
    void theSentinelIdIsNeverRecorded() {
        RequestTimes t = new RequestTimes(4);
        assertThat(t.start(RequestTimes.EMPTY, 1)).isFalse();
        assertThat(t.finish(RequestTimes.EMPTY)).isEqualTo(RequestTimes.UNKNOWN);
    }

    /**
     * One inserting thread (the event loop) and three finishing threads, as a connection has them:
     * every request's start comes back exactly once, to whichever thread finishes it. Bounded:
     * 200,000 requests, at most 64 executing.
     */
    @Test
    void startsFromOneThreadAndFinishesFromOthersNeverLoseOrSwapATime() throws Exception {
        int maxInFlight = 64;
        int total = 200_000;
        RequestTimes t = new RequestTimes(maxInFlight);
        BlockingQueue<Long> executing = new ArrayBlockingQueue<>(maxInFlight);
        AtomicLong wrong = new AtomicLong();
        AtomicLong done = new AtomicLong();
        List<Thread> finishers = new ArrayList<>();
        for (int f = 0; f < 3; f++) {
            finishers.add(Thread.ofPlatform().start(() -> {
                try {
                    while (true) {
                        Long id = executing.poll(10, TimeUnit.SECONDS);
                        if (id == null || id < 0) {
                            return;
                        }
                        if (t.finish(id) != id * 3 + 1) { // the start recorded for it
                            wrong.incrementAndGet();
                        }
                        done.incrementAndGet();
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }));
        }
        for (long id = 0; id < total; id++) {
            // the event loop starts a request only while fewer than maxInFlight execute
            while (!t.start(id, id * 3 + 1)) {
                Thread.onSpinWait();
            }
            executing.put(id);
        }
        for (int f = 0; f < finishers.size(); f++) {
            executing.put(-1L);
        }
        for (Thread f : finishers) {
            f.join(TimeUnit.SECONDS.toMillis(60));
        }
        assertThat(done.get()).isEqualTo(total);
        assertThat(wrong.get()).isZero();
    }
}
