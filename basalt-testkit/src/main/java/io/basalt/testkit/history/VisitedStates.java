package io.basalt.testkit.history;

import java.util.Arrays;

/**
 * The set of search configurations already explored, each a short array of longs. Keys live packed in large
 * chunks of one shared arena and the hash table holds only their positions, which keeps a state near 50 bytes
 * instead of the 150 or so a {@code HashSet} of boxed keys would need; millions of states are common.
 */
final class VisitedStates {

    private static final int CHUNK_BITS = 20;
    private static final int CHUNK_SIZE = 1 << CHUNK_BITS;
    private static final int OFFSET_MASK = CHUNK_SIZE - 1;
    private static final int MAX_CHUNKS = 1 << (31 - CHUNK_BITS);

    private long[][] chunks = new long[4][];
    private int chunkCount;
    /** Next free position in the newest chunk. Position 0 of every chunk stays unused, so no handle is 0. */
    private int used = CHUNK_SIZE;

    /** Handles (chunk number and offset) of the stored keys; 0 marks a free slot. */
    private int[] slots = new int[1 << 10];
    private int[] hashes = new int[1 << 10];
    private int size;

    /** Adds the key held in {@code key[0, length)}; returns false if it was already present. */
    boolean add(long[] key, int length) {
        int hash = hash(key, length);
        int mask = slots.length - 1;
        int slot = hash & mask;
        while (slots[slot] != 0) {
            if (hashes[slot] == hash && storedEquals(slots[slot], key, length)) {
                return false;
            }
            slot = (slot + 1) & mask;
        }
        slots[slot] = store(key, length);
        hashes[slot] = hash;
        size++;
        if (size * 2 > slots.length) {
            grow();
        }
        return true;
    }

    int size() {
        return size;
    }

    private int store(long[] key, int length) {
        if (length + 1 > CHUNK_SIZE - 1) {
            throw new IllegalStateException("search state of " + length + " words is too large");
        }
        if (used + length + 1 > CHUNK_SIZE) {
            if (chunkCount == MAX_CHUNKS) {
                throw new IllegalStateException("too many search states to remember");
            }
            if (chunkCount == chunks.length) {
                chunks = Arrays.copyOf(chunks, chunks.length * 2);
            }
            chunks[chunkCount++] = new long[CHUNK_SIZE];
            used = 1;
        }
        long[] chunk = chunks[chunkCount - 1];
        int offset = used;
        chunk[offset] = length;
        System.arraycopy(key, 0, chunk, offset + 1, length);
        used += length + 1;
        return ((chunkCount - 1) << CHUNK_BITS) | offset;
    }

    private boolean storedEquals(int handle, long[] key, int length) {
        long[] chunk = chunks[handle >>> CHUNK_BITS];
        int offset = handle & OFFSET_MASK;
        return chunk[offset] == length
                && Arrays.equals(chunk, offset + 1, offset + 1 + length, key, 0, length);
    }

    private void grow() {
        int[] oldSlots = slots;
        int[] oldHashes = hashes;
        slots = new int[oldSlots.length * 2];
        hashes = new int[oldSlots.length * 2];
        int mask = slots.length - 1;
        for (int i = 0; i < oldSlots.length; i++) {
            if (oldSlots[i] != 0) {
                int slot = oldHashes[i] & mask;
                while (slots[slot] != 0) {
                    slot = (slot + 1) & mask;
                }
                slots[slot] = oldSlots[i];
                hashes[slot] = oldHashes[i];
            }
        }
    }

    private static int hash(long[] key, int length) {
        long h = length;
        for (int i = 0; i < length; i++) {
            h = (h ^ key[i]) * 0x9E3779B97F4A7C15L;
            h ^= h >>> 29;
        }
        return (int) (h ^ (h >>> 32));
    }
}
