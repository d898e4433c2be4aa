package io.basalt.lock;

import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.openjdk.jcstress.infra.results.IIII_Result;
import org.openjdk.jcstress.infra.results.II_Result;

/**
 * The stripes the jcstress tests race on: each test state takes the next stripe of one of two
 * shared managers (a reader-biased level and a plain one) and brings it into the state its test
 * needs.
 *
 * <p>jcstress builds a fresh state for every sample, up to a few hundred thousand a second. A
 * manager per state (with its recorders, and a thread-local registration per actor thread) would
 * cap that at about 14,000 a second; a shared manager keeps the actors on the warm path production
 * threads take. jcstress keeps at most {@code strideSize × strideCount} states alive (10,240 in the
 * modes used here) and builds the next ones only after both actors are done with them, so with
 * {@value #COUNT} stripes handed out round-robin no two live states share a stripe, and a state
 * can put its stripe into any state (biased, revoked) before the actors start.
 */
final class Stripes {

    static final LockLevel LEVEL = LockLevel.TABLE;
    private static final int COUNT = 16_384;
    /** Long enough never to expire in a correct lock, short enough that a hang fails the fork. */
    private static final Duration TIMEOUT = Duration.ofSeconds(10);

    private static final LockManager BIASED = LockManager.builder().level(LEVEL, COUNT, true)
            .defaultTimeout(TIMEOUT).build();
    private static final LockManager PLAIN = LockManager.builder().level(LEVEL, COUNT, false)
            .defaultTimeout(TIMEOUT).build();
    /** A key of every stripe (both managers hash alike). */
    private static final byte[][] KEYS = keyOfEveryStripe();
    private static final AtomicInteger NEXT = new AtomicInteger();

    /** Spin-wait hints a critical section stays for, between its two accesses (about 0.1-1 µs). */
    private static final int DWELL_SPINS = 16;

    private Stripes() {}

    /**
     * Stays a little inside a critical section, between its two accesses: two threads wrongly
     * inside at once then overlap long enough for the outcome to show it, where two back-to-back
     * accesses would mostly slip past each other.
     */
    static void dwell() {
        for (int i = 0; i < DWELL_SPINS; i++) {
            Thread.onSpinWait();
        }
    }

    /** The next stripe of the reader-biased level, with its bias up (as a fresh stripe's is). */
    static Stripe biased() {
        Stripe s = new Stripe(BIASED, KEYS[NEXT.getAndIncrement() & (COUNT - 1)]);
        s.rebias();
        return s;
    }

    /**
     * The next stripe of the reader-biased level with its bias revoked by a write and then
     * {@code queuedReads} reads taken through the queue (fewer than the
     * {@value LevelLocks#REBIAS_AFTER_QUEUED_READS} that raise it again).
     */
    static Stripe revoked(int queuedReads) {
        Stripe s = biased();
        try (LockHandle _ = s.write()) {
            // revokes the bias; no reader is inside, so it does not wait
        }
        for (int i = 0; i < queuedReads; i++) {
            try (LockHandle _ = s.read()) {
                // one queued-path read towards re-biasing the stripe
            }
        }
        return s;
    }

    /** The next stripe of a level without reader bias: every read goes through the queue. */
    static Stripe plain() {
        return new Stripe(PLAIN, KEYS[NEXT.getAndIncrement() & (COUNT - 1)]);
    }

    private static byte[][] keyOfEveryStripe() {
        byte[][] keys = new byte[COUNT][];
        int found = 0;
        for (int i = 0; found < COUNT; i++) {
            byte[] key = ByteBuffer.allocate(Integer.BYTES).putInt(i).array();
            int s = BIASED.stripeOf(LEVEL, key);
            if (keys[s] == null) {
                keys[s] = key;
                found++;
            }
        }
        return keys;
    }

    /** One stripe of a shared manager, named by a key that maps to it. */
    record Stripe(LockManager locks, byte[] key) {

        LockHandle read() {
            return locks.lock(LEVEL, key, LockMode.READ);
        }

        LockHandle write() {
            return locks.lock(LEVEL, key, LockMode.WRITE);
        }

        /**
         * Raises the stripe's bias if a write revoked it: after a revocation the
         * {@value LevelLocks#REBIAS_AFTER_QUEUED_READS}th queued-path read raises it; on a biased
         * stripe these reads take the fast path and change nothing.
         */
        void rebias() {
            for (int i = 0; i < LevelLocks.REBIAS_AFTER_QUEUED_READS; i++) {
                try (LockHandle _ = read()) {
                    // one read
                }
            }
        }
    }

    /**
     * Two fields guarded by a stripe: the writer stores {@code y} then {@code x}, the reader loads
     * {@code x} then {@code y}, each dwelling between its two accesses. Exclusion allows a reader
     * to see {@code (0, 0)} or {@code (1, 1)}; any overlap of the two critical sections shows as
     * {@code (0, 1)} (the reader loaded {@code x} before the writer's last store and {@code y}
     * after its first), a write seen half as {@code (1, 0)}.
     */
    static final class Pair {

        private final Stripe stripe;
        private int x;
        private int y;

        Pair(Stripe stripe) {
            this.stripe = stripe;
        }

        void write() {
            try (LockHandle _ = stripe.write()) {
                y = 1;
                dwell();
                x = 1;
            }
        }

        void read(II_Result r) {
            try (LockHandle _ = stripe.read()) {
                r.r1 = x;
                dwell();
                r.r2 = y;
            }
        }

        /** Two reads, one after the other: the first into {@code r1, r2}, the second into {@code r3, r4}. */
        void readTwice(IIII_Result r) {
            try (LockHandle _ = stripe.read()) {
                r.r1 = x;
                dwell();
                r.r2 = y;
            }
            try (LockHandle _ = stripe.read()) {
                r.r3 = x;
                dwell();
                r.r4 = y;
            }
        }
    }
}
