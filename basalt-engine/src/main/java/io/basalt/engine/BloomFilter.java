package io.basalt.engine;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * A bloom filter over row keys: "is this row maybe in the file?". Ten bits per row and seven
 * probes give about 1% false positives. Probes are derived from one 64-bit hash by double hashing
 * (Kirsch and Mitzenmacher), so a lookup hashes the row once.
 */
final class BloomFilter {

    static final int BITS_PER_KEY = 10;
    static final int PROBES = 7;

    private final byte[] bits;
    private final int probes;

    private BloomFilter(byte[] bits, int probes) {
        this.bits = bits;
        this.probes = probes;
    }

    /** A filter sized for {@code keys} rows. */
    static BloomFilter forKeys(long keys) {
        long bitCount = Math.max(64, Math.min(keys * BITS_PER_KEY, (long) Integer.MAX_VALUE - 8 << 3));
        return new BloomFilter(new byte[(int) ((bitCount + 7) / 8)], PROBES);
    }

    /** A filter read back from its serialized form ({@link #probes()}, then {@link #bits()}). */
    static BloomFilter of(int probes, byte[] bits) {
        return new BloomFilter(bits, probes);
    }

    void add(MemorySegment row) {
        long h = hash(row);
        long bitCount = (long) bits.length * 8;
        int h1 = (int) h;
        int h2 = (int) (h >>> 32);
        for (int i = 0; i < probes; i++) {
            long bit = Integer.toUnsignedLong(h1 + i * h2) % bitCount;
            bits[(int) (bit >>> 3)] |= (byte) (1 << (bit & 7));
        }
    }

    boolean mightContain(MemorySegment row) {
        long h = hash(row);
        long bitCount = (long) bits.length * 8;
        int h1 = (int) h;
        int h2 = (int) (h >>> 32);
        for (int i = 0; i < probes; i++) {
            long bit = Integer.toUnsignedLong(h1 + i * h2) % bitCount;
            if ((bits[(int) (bit >>> 3)] & (1 << (bit & 7))) == 0) {
                return false;
            }
        }
        return true;
    }

    int probes() {
        return probes;
    }

    byte[] bits() {
        return bits;
    }

    /** FNV-1a over the bytes, then a 64-bit finalizer so every input bit reaches every output bit. */
    static long hash(MemorySegment bytes) {
        return hash(bytes, 0, bytes.byteSize());
    }

    /** {@link #hash(MemorySegment)} of {@code length} bytes at {@code offset}, without slicing. */
    static long hash(MemorySegment segment, long offset, long length) {
        long h = 0xcbf29ce484222325L;
        for (long i = offset; i < offset + length; i++) {
            h ^= segment.get(ValueLayout.JAVA_BYTE, i) & 0xFF;
            h *= 0x100000001b3L;
        }
        h ^= h >>> 33;
        h *= 0xff51afd7ed558ccdL;
        h ^= h >>> 33;
        h *= 0xc4ceb9fe1a85ec53L;
        h ^= h >>> 33;
        return h;
    }
}
