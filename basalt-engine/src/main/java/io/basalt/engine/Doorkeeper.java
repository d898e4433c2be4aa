package io.basalt.engine;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * Remembers, a bit per key hash, which keys were missed once lately, so that a cache can keep an
 * entry only on its key's second miss: keys read once, most of a scrambled Zipfian key space, then
 * never push out keys read often (TinyLFU's doorkeeper). Cleared whenever an eighth of its bits
 * were set since the last clear, so that it remembers a window of recent misses. Two keys sharing
 * a bit admit each other early; nothing depends on it but the hit rate.
 */
final class Doorkeeper {

    /** Bits (128 KiB). */
    static final int BITS = 1 << 20;

    private final AtomicLongArray bits = new AtomicLongArray(BITS / 64);
    private final AtomicInteger set = new AtomicInteger();

    /** True when {@code hash}'s key was missed before since the last clear; otherwise remembers it. */
    boolean admit(long hash) {
        int bit = (int) ((hash * 0x9E3779B97F4A7C15L) >>> 44); // the top 20 bits
        int word = bit >>> 6;
        long mask = 1L << (bit & 63);
        if ((bits.get(word) & mask) != 0) {
            return true;
        }
        bits.getAndAccumulate(word, mask, (a, b) -> a | b);
        if (set.incrementAndGet() >= BITS / 8) {
            set.set(0);
            for (int i = 0; i < bits.length(); i++) {
                bits.set(i, 0);
            }
        }
        return false;
    }

    /** Keys remembered since the last clear (for tests). */
    int remembered() {
        return set.get();
    }
}
