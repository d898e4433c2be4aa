package io.basalt.client.net;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class PendingRequestsTest {

    @Test
    void aValueIsFoundUnderItsIdOnceAndThenGone() {
        PendingRequests<String> table = new PendingRequests<>(8);
        table.put(1, "one");
        table.put(2, "two");
        assertThat(table.size()).isEqualTo(2);
        assertThat(table.remove(1)).isEqualTo("one");
        assertThat(table.remove(1)).isNull();
        assertThat(table.remove(3)).isNull();
        assertThat(table.remove(2)).isEqualTo("two");
        assertThat(table.size()).isZero();
    }

    @Test
    void aRequestStillWaitingWhenItsSlotComesRoundAgainIsKeptAside() {
        PendingRequests<String> table = new PendingRequests<>(4);
        table.put(1, "slow");
        for (long id = 2; id <= 20; id++) { // ids 5, 9, 13, 17 need the slow one's slot
            table.put(id, "r" + id);
            if (id % 4 != 1) {
                assertThat(table.remove(id)).isEqualTo("r" + id);
            }
        }
        assertThat(table.size()).isEqualTo(5);
        for (long id : new long[] {5, 9, 13, 17}) {
            assertThat(table.remove(id)).isEqualTo("r" + id);
        }
        assertThat(table.remove(1)).isEqualTo("slow");
        assertThat(table.size()).isZero();
    }

    @Test
    void removingOnlyTheValueGivenLeavesANewerOne() {
        PendingRequests<String> table = new PendingRequests<>(2);
        String old = "old";
        table.put(1, old);
        table.put(3, "other"); // same slot: overflows
        assertThat(table.remove(1, "not it")).isFalse();
        assertThat(table.remove(3, "not it")).isFalse();
        assertThat(table.remove(1, old)).isTrue();
        assertThat(table.remove(1, old)).isFalse();
        assertThat(table.remove(3)).isEqualTo("other");
    }

    @Test
    void forEachSeesEveryEntryInTheRingAndAside() {
        PendingRequests<Long> table = new PendingRequests<>(4);
        Map<Long, Long> expected = new HashMap<>();
        for (long id = 1; id <= 10; id++) {
            table.put(id, id * 10);
            expected.put(id, id * 10);
        }
        Map<Long, Long> seen = new HashMap<>();
        table.forEach(seen::put);
        assertThat(seen).isEqualTo(expected);
    }

    @Test
    void theRingMustBeAPowerOfTwo() {
        assertThatThrownBy(() -> new PendingRequests<>(6)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("6");
        assertThatThrownBy(() -> new PendingRequests<>(0)).isInstanceOf(IllegalArgumentException.class);
    }

    /**
     * Many senders and responders, a small ring so that ids often find their slot taken, and a
     * sweeper removing with {@code remove(id, value)} meanwhile: every request is taken out
     * exactly once (by its response or by the sweep), and the table ends empty.
     */
    @Test
    void underManyThreadsEveryRequestIsRemovedExactlyOnce() throws Exception {
        int senders = 8;
        int perSender = 50_000;
        PendingRequests<Long> table = new PendingRequests<>(64);
        AtomicLong ids = new AtomicLong();
        int total = senders * perSender;
        AtomicIntegerArray removed = new AtomicIntegerArray(total + 1);
        ConcurrentLinkedQueue<Long> inFlight = new ConcurrentLinkedQueue<>();
        CountDownLatch sent = new CountDownLatch(senders);
        List<Thread> threads = new ArrayList<>();
        for (int s = 0; s < senders; s++) {
            threads.add(Thread.ofPlatform().start(() -> {
                for (int i = 0; i < perSender; i++) {
                    long id = ids.incrementAndGet();
                    table.put(id, id);
                    inFlight.add(id);
                }
                sent.countDown();
            }));
        }
        for (int r = 0; r < 2; r++) { // responders: answer in a scrambled order, some late
            threads.add(Thread.ofPlatform().start(() -> {
                ThreadLocalRandom random = ThreadLocalRandom.current();
                List<Long> held = new ArrayList<>();
                while (sent.getCount() > 0 || !inFlight.isEmpty() || !held.isEmpty()) {
                    Long id = inFlight.poll();
                    if (id != null) {
                        held.add(id);
                    }
                    if (!held.isEmpty() && (id == null || held.size() > 200 || random.nextInt(4) == 0)) {
                        long answer = held.remove(random.nextInt(held.size()));
                        if (table.remove(answer) != null) {
                            removed.incrementAndGet((int) answer);
                        }
                    }
                }
            }));
        }
        threads.add(Thread.ofPlatform().start(() -> { // the deadline sweep
            while (sent.getCount() > 0) {
                table.forEach((id, value) -> {
                    if (id % 97 == 0 && table.remove(id, value)) {
                        removed.incrementAndGet(id.intValue());
                    }
                });
            }
        }));
        for (Thread t : threads) {
            t.join();
        }
        for (int id = 1; id <= total; id++) {
            assertThat(removed.get(id)).as("removals of request %d", id).isEqualTo(1);
        }
        assertThat(table.size()).isZero();
    }
}
