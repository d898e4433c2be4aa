package io.basalt.engine;

import io.basalt.buffer.Buffer;
import java.util.Arrays;
import java.util.function.Consumer;

/**
 * One block-cache shard's blocks: an open-addressing hash table keyed by file and block packed in
 * one {@code long}, with the entries also on a list in the order they came in, for eviction by
 * second chance (a block used since it came in, or since its last chance, goes to the back once
 * instead of out). Not thread-safe: the shard's lock guards it.
 *
 * <p>Why not a {@code LinkedHashMap} in access order, as before: a hit there allocated a key,
 * followed the bucket to a node and the node to the key object (three loads that miss the CPU
 * cache in a table of a few thousand blocks), then relinked the node at the head, writing to its
 * two neighbours; a profile of YCSB's C had the map at 7% of the samples. Here a hit reads the key
 * from the table's own array and sets one flag, and eviction unlinks by index without an iterator.
 *
 * <p>Removal shifts the later entries of a probe run back into the hole (no tombstones, so a
 * lookup's run never grows with churn), relinking the list at the entry that moved.
 */
final class BlockTable {

    private static final long EMPTY = 0;

    private final long[] keys;
    private final Buffer[] buffers;
    private final boolean[] used;
    /** The order list: slot indexes, the sentinel at {@code keys.length}; next of the sentinel is the oldest. */
    private final int[] prev;
    private final int[] next;
    private final int mask;
    private final int sentinel;
    private int size;

    /**
     * A table for {@code entries} blocks at most three quarters full ({@link #full}): the smallest
     * power of two of at least 32 slots and {@code entries * 4 / 3 + 1}.
     */
    BlockTable(int entries) {
        int wanted = (int) Math.min(1 << 30, Math.max(32L, entries * 4L / 3 + 1));
        int length = Integer.highestOneBit(wanted - 1) << 1;
        keys = new long[length];
        buffers = new Buffer[length];
        used = new boolean[length];
        prev = new int[length + 1];
        next = new int[length + 1];
        mask = length - 1;
        sentinel = length;
        prev[sentinel] = sentinel;
        next[sentinel] = sentinel;
    }

    /** The key of block {@code block} of the file with cache id {@code fileId} (never 0: ids start at 1). */
    static long key(int fileId, int block) {
        return (long) fileId << 32 | (block & 0xFFFF_FFFFL);
    }

    static int fileId(long key) {
        return (int) (key >>> 32);
    }

    /** A hash of the key whose every bit depends on every bit of it (MurmurHash3's finalizer). */
    static long mix(long key) {
        long h = key;
        h ^= h >>> 33;
        h *= 0xFF51AFD7ED558CCDL;
        h ^= h >>> 33;
        h *= 0xC4CEB9FE1A85EC53L;
        return h ^ (h >>> 33);
    }

    int size() {
        return size;
    }

    /** Whether one more entry would make the table more than three quarters full. */
    boolean full() {
        return (size + 1) * 4L > keys.length * 3L;
    }

    /** The slot of {@code key}, or -1. */
    int find(long key) {
        int i = (int) mix(key) & mask;
        while (true) {
            long k = keys[i];
            if (k == key) {
                return i;
            }
            if (k == EMPTY) {
                return -1;
            }
            i = (i + 1) & mask;
        }
    }

    Buffer buffer(int slot) {
        return buffers[slot];
    }

    long keyAt(int slot) {
        return keys[slot];
    }

    /** Marks the block in {@code slot} used (written only when it was not, so hits rarely dirty a line) and returns it. */
    Buffer use(int slot) {
        if (!used[slot]) {
            used[slot] = true;
        }
        return buffers[slot];
    }

    /** Adds {@code key}, which must not be here, at the back of the order; the caller made room ({@link #full}). */
    void put(long key, Buffer buffer) {
        if (key == EMPTY || full()) {
            throw new IllegalStateException(key == EMPTY ? "key 0 is reserved" : "table full: evict first");
        }
        int i = (int) mix(key) & mask;
        while (keys[i] != EMPTY) {
            i = (i + 1) & mask;
        }
        keys[i] = key;
        buffers[i] = buffer;
        used[i] = false;
        linkLast(i);
        size++;
    }

    /**
     * The slot of the entry to evict: the oldest not used since it came in or since it was last
     * passed over; each used entry passed over loses its mark and goes to the back. Needs {@code size > 0}.
     */
    int victim() {
        if (size == 0) {
            throw new IllegalStateException("empty");
        }
        while (true) {
            int i = next[sentinel];
            if (!used[i]) {
                return i;
            }
            used[i] = false;
            unlink(i);
            linkLast(i);
        }
    }

    /** Removes the entry in {@code slot} and returns its buffer. */
    Buffer removeAt(int slot) {
        Buffer removed = buffers[slot];
        unlink(slot);
        int hole = slot;
        int j = slot;
        while (true) {
            j = (j + 1) & mask;
            long k = keys[j];
            if (k == EMPTY) {
                break;
            }
            int home = (int) mix(k) & mask;
            // The entry at j stays unless the hole lies on its probe path, between its home and j.
            boolean stays = hole <= j ? hole < home && home <= j : hole < home || home <= j;
            if (!stays) {
                move(j, hole);
                hole = j;
            }
        }
        keys[hole] = EMPTY;
        buffers[hole] = null;
        used[hole] = false;
        size--;
        return removed;
    }

    /** Every key of the file with cache id {@code fileId}. */
    long[] keysOf(int fileId) {
        long[] found = new long[8];
        int count = 0;
        for (long k : keys) {
            if (k != EMPTY && fileId(k) == fileId) {
                if (count == found.length) {
                    found = Arrays.copyOf(found, count * 2);
                }
                found[count++] = k;
            }
        }
        return Arrays.copyOf(found, count);
    }

    /** Hands every buffer to {@code action} and empties the table. */
    void drain(Consumer<Buffer> action) {
        for (int i = 0; i < keys.length; i++) {
            if (keys[i] != EMPTY) {
                action.accept(buffers[i]);
                keys[i] = EMPTY;
                buffers[i] = null;
                used[i] = false;
            }
        }
        prev[sentinel] = sentinel;
        next[sentinel] = sentinel;
        size = 0;
    }

    /** Keys from oldest to newest in the order list (for tests). */
    long[] order() {
        long[] out = new long[size];
        int n = 0;
        for (int i = next[sentinel]; i != sentinel; i = next[i]) {
            out[n++] = keys[i];
        }
        return out;
    }

    private void move(int from, int to) {
        keys[to] = keys[from];
        buffers[to] = buffers[from];
        used[to] = used[from];
        int p = prev[from];
        int n = next[from];
        prev[to] = p;
        next[to] = n;
        next[p] = to;
        prev[n] = to;
    }

    private void linkLast(int i) {
        int last = prev[sentinel];
        prev[i] = last;
        next[i] = sentinel;
        next[last] = i;
        prev[sentinel] = i;
    }

    private void unlink(int i) {
        int p = prev[i];
        int n = next[i];
        next[p] = n;
        prev[n] = p;
    }
}
