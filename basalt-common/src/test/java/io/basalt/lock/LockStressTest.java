package io.basalt.lock;

import static io.basalt.lock.LockLevel.ROW;
import static io.basalt.lock.LockLevel.TABLE;
import static io.basalt.lock.LockManagerTest.k;
import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Future;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicIntegerArray;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Many threads at once: exclusion holds, no update is lost, and bulk requests over random
 * overlapping key sets all finish (no deadlock). Each run is a fixed amount of work; the time
 * limits are only there so that a deadlock fails the test instead of hanging the build.
 */
class LockStressTest {

    private static final int THREADS = 8;
    private static final Duration NO_DEADLOCK = Duration.ofSeconds(20);

    /**
     * Few stripes and few slots, so that keys collide, threads share indicator slots, and
     * revocations and queueing happen all the time.
     */
    private static LockManager contended(boolean fair) {
        return LockManager.builder().level(TABLE, 4, true).level(ROW, 8, false).readerSlots(2).fair(fair).build();
    }

    /**
     * One write in {@code writeEvery} operations. Frequent writes keep the biased level's stripes
     * unbiased most of the time (queue path); rare writes let the stripes re-bias between writes,
     * so that nearly every write revokes a bias while readers are on the fast path.
     */
    @ParameterizedTest(name = "level={0}, fair={1}, one write in {2}")
    @CsvSource({"table, false, 5", "table, false, 200", "row, false, 5", "table, true, 5", "table, true, 200",
        "row, true, 5"})
    void writersExcludeEveryoneAndReadersExcludeWriters(String levelName, boolean fair, int writeEvery)
            throws Exception {
        LockManager locks = contended(fair);
        LockLevel level = levelName.equals("table") ? TABLE : ROW;
        int keys = 16;
        int stripes = locks.stripes(level);
        AtomicIntegerArray writersIn = new AtomicIntegerArray(stripes);
        AtomicIntegerArray readersIn = new AtomicIntegerArray(stripes);
        int[] value = new int[keys];
        int[] shadow = new int[keys];
        int[] writesDone = new int[THREADS];
        ConcurrentLinkedQueue<String> violations = new ConcurrentLinkedQueue<>();
        runAll(THREADS, t -> {
            SplittableRandom random = new SplittableRandom(t);
            for (int i = 0; i < 20_000; i++) {
                int key = random.nextInt(keys);
                byte[] name = k("key-" + key);
                int s = locks.stripeOf(level, name);
                if (random.nextInt(writeEvery) == 0) {
                    try (LockHandle _ = locks.lock(level, name, LockMode.WRITE, NO_DEADLOCK)) {
                        if (writersIn.incrementAndGet(s) != 1 || readersIn.get(s) != 0) {
                            violations.add("writer on stripe " + s + " not alone");
                        }
                        value[key]++;
                        for (int spin = 0; spin < 20; spin++) {
                            Thread.onSpinWait();
                        }
                        shadow[key]++;
                        writersIn.decrementAndGet(s);
                    }
                    writesDone[t]++;
                } else {
                    try (LockHandle _ = locks.lock(level, name, LockMode.READ, NO_DEADLOCK)) {
                        readersIn.incrementAndGet(s);
                        if (writersIn.get(s) != 0) {
                            violations.add("reader on stripe " + s + " with a writer");
                        }
                        if (value[key] != shadow[key]) {
                            violations.add("reader saw a half-done write on key " + key);
                        }
                        readersIn.decrementAndGet(s);
                    }
                }
            }
        });
        assertThat(violations).isEmpty();
        int total = 0;
        for (int key = 0; key < keys; key++) {
            assertThat(value[key]).isEqualTo(shadow[key]);
            total += value[key];
        }
        int expected = 0;
        for (int w : writesDone) {
            expected += w;
        }
        assertThat(total).as("no write lost").isEqualTo(expected);
        assertThat(locks.metrics().get(level).acquisitions()).isEqualTo(THREADS * 20_000L);
    }

    @ParameterizedTest(name = "level={0}")
    @CsvSource({"table", "row"})
    void bulkRequestsOverRandomOverlappingKeySetsAllFinish(String levelName) throws Exception {
        LockManager locks = contended(false);
        LockLevel level = levelName.equals("table") ? TABLE : ROW;
        int keys = 64;
        int[] value = new int[keys];
        int[] commits = new int[THREADS];
        runAll(THREADS, t -> {
            SplittableRandom random = new SplittableRandom(100 + t);
            for (int i = 0; i < 1_500; i++) {
                int n = 1 + random.nextInt(12);
                List<byte[]> set = new ArrayList<>();
                List<Integer> ids = new ArrayList<>();
                for (int j = 0; j < n; j++) {
                    int id = random.nextInt(keys);
                    set.add(k("key-" + id));
                    ids.add(id);
                }
                boolean write = random.nextInt(3) != 0;
                // A deadlock would leave some request waiting here until its limit and fail.
                try (LockHandle _ = locks.lockAll(level, set, write ? LockMode.WRITE : LockMode.READ, NO_DEADLOCK)) {
                    if (write) {
                        for (int id : ids.stream().distinct().toList()) {
                            value[id]++;
                        }
                        commits[t] += (int) ids.stream().distinct().count();
                    }
                }
                if (random.nextInt(4) == 0) {
                    // Single locks of the same level mixed in, in stripe order as the rules ask.
                    try (LockHandle _ = locks.lock(level, set.getFirst(), LockMode.WRITE, NO_DEADLOCK)) {
                        value[ids.getFirst()]++;
                        commits[t]++;
                    }
                }
            }
        });
        int total = 0;
        for (int v : value) {
            total += v;
        }
        int expected = 0;
        for (int c : commits) {
            expected += c;
        }
        assertThat(total).as("no write lost").isEqualTo(expected);
        assertThat(locks.held()).isEmpty();
    }

    interface Worker {
        void run(int thread) throws Exception;
    }

    /** Runs {@code worker} on {@code n} threads started together and rethrows the first failure. */
    static void runAll(int n, Worker worker) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(n);
        try {
            CountDownLatch start = new CountDownLatch(1);
            List<Future<?>> futures = new ArrayList<>();
            for (int t = 0; t < n; t++) {
                int thread = t;
                futures.add(pool.submit(() -> {
                    start.await();
                    worker.run(thread);
                    return null;
                }));
            }
            start.countDown();
            for (Future<?> f : futures) {
                f.get(2, TimeUnit.MINUTES);
            }
        } finally {
            pool.shutdownNow();
            assertThat(pool.awaitTermination(30, TimeUnit.SECONDS)).isTrue();
        }
    }
}
