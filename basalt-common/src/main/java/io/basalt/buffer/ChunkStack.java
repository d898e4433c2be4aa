package io.basalt.buffer;

import java.util.concurrent.atomic.AtomicLong;

/**
 * The free chunks of a pool: a lock-free stack of chunk indexes (a Treiber stack), safe for any
 * number of threads pushing and popping at once.
 *
 * <p>Links live in one {@code int[]} indexed by chunk, so the stack allocates nothing after
 * construction. The head packs a 32-bit version with the top index into one {@code long}; every
 * successful push or pop bumps the version. Without it a pop could suffer ABA: read top {@code a}
 * and its successor {@code b}, stall while others pop {@code a}, pop {@code b}, push {@code a}
 * back, then CAS {@code a → b} and hand {@code b} out a second time. With it the stalled CAS
 * fails, because the version moved on (it would have to wrap all 2^32 values during the stall to
 * be fooled).
 *
 * <p>The links are plain {@code int}s: a pusher writes its link before the CAS that publishes it,
 * and a popper that reads a link another thread is rewriting also finds the head changed and
 * retries. Most recently freed chunks are reused first, which keeps them warm in the caches.
 */
final class ChunkStack {

    static final int EMPTY = -1;

    private final int[] next;
    private final AtomicLong head = new AtomicLong(pack(0, EMPTY));

    ChunkStack(int capacity) {
        next = new int[capacity];
    }

    /** Takes a free chunk, or returns {@link #EMPTY}. */
    int pop() {
        for (;;) {
            long h = head.get();
            int top = index(h);
            if (top == EMPTY) {
                return EMPTY;
            }
            int below = next[top];
            if (head.compareAndSet(h, pack(version(h) + 1, below))) {
                return top;
            }
        }
    }

    /** Gives back one chunk, which the caller owns. */
    void push(int chunk) {
        for (;;) {
            long h = head.get();
            next[chunk] = index(h);
            if (head.compareAndSet(h, pack(version(h) + 1, chunk))) {
                return;
            }
        }
    }

    /** Gives back several chunks, which the caller owns, with one successful CAS. */
    void pushAll(int[] chunks) {
        for (int i = 0; i < chunks.length - 1; i++) {
            next[chunks[i]] = chunks[i + 1];
        }
        pushChain(chunks[0], chunks[chunks.length - 1]);
    }

    /** Gives back the chunks {@code from, from + 1, ..., to - 1}, which the caller owns. */
    void pushRange(int from, int to) {
        for (int i = from; i < to - 1; i++) {
            next[i] = i + 1;
        }
        pushChain(from, to - 1);
    }

    private void pushChain(int first, int last) {
        for (;;) {
            long h = head.get();
            next[last] = index(h);
            if (head.compareAndSet(h, pack(version(h) + 1, first))) {
                return;
            }
        }
    }

    private static long pack(int version, int index) {
        return ((long) version << 32) | (index & 0xFFFF_FFFFL);
    }

    private static int version(long head) {
        return (int) (head >>> 32);
    }

    private static int index(long head) {
        return (int) head;
    }
}
