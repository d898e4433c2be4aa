package io.basalt.engine;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * A bloom filter over row keys: "is this row maybe in the file?". Ten bits per row and seven
 * probes give about 1% false positives, sixteen and eleven (the family default,
 * {@code FamilyDescriptor.bloomBitsPerKey}) about 0.05%; the file records its probes and bits, so
 * a reader needs no setting. Probes are derived from one 64-bit hash by double hashing
 * (Kirsch and Mitzenmacher), so a lookup hashes the row once.
 */
final class BloomFilter {

    static final int BITS_PER_KEY = 10;
    static final int PROBES = 7;

    private final byte[] bits;
    private final int probes;
    /** The number of bits, the modulus of every probe. */
    private final long bitCount;
    /**
     * {@link #bitCount}'s reciprocal for {@link #reduce}, or 0 when there are 2^32 bits or more (a
     * probe, below 2^32, is then its own position).
     */
    private final long reciprocal;

    private BloomFilter(byte[] bits, int probes) {
        this.bits = bits;
        this.probes = probes;
        this.bitCount = (long) bits.length * 8;
        this.reciprocal = bitCount < (1L << 32) ? Long.divideUnsigned(-1L, bitCount) + 1 : 0;
    }

    /**
     * {@code x % bitCount} for {@code 0 <= x < 2^32} without a division, which cost a read a
     * division per probe and file: Lemire's fastmod (the low 64 bits of {@code x} times the
     * rounded-up reciprocal, multiplied back by the divisor, keep the remainder in their high
     * word). Exact for 32-bit operands; the probes' positions, and so the file format, are the
     * same as with {@code %}.
     */
    private long reduce(long x) {
        if (reciprocal == 0) {
            return x;
        }
        return Math.unsignedMultiplyHigh(reciprocal * x, bitCount);
    }

    /** A filter sized for {@code keys} rows at {@link #BITS_PER_KEY}. */
    static BloomFilter forKeys(long keys) {
        return forKeys(keys, BITS_PER_KEY);
    }

    /**
     * A filter sized for {@code keys} rows at {@code bitsPerKey} bits each, probing {@code bitsPerKey
     * × ln 2} times (rounded; 7 for 10 bits), the count that makes false positives fewest.
     */
    static BloomFilter forKeys(long keys, int bitsPerKey) {
        long bitCount = Math.max(64, Math.min(keys * bitsPerKey, (long) Integer.MAX_VALUE - 8 << 3));
        return new BloomFilter(new byte[(int) ((bitCount + 7) / 8)], probesFor(bitsPerKey));
    }

    /** The probes for {@code bitsPerKey}: {@code round(bitsPerKey × ln 2)}, at least one. */
    static int probesFor(int bitsPerKey) {
        return (int) Math.max(1, Math.round(bitsPerKey * Math.log(2)));
    }

    /** A filter read back from its serialized form ({@link #probes()}, then {@link #bits()}). */
    static BloomFilter of(int probes, byte[] bits) {
        return new BloomFilter(bits, probes);
    }

    void add(MemorySegment row) {
        addHash(hash(row));
    }

    /** Adds a row by its {@link #hash}. */
    void addHash(long h) {
        int h1 = (int) h;
        int h2 = (int) (h >>> 32);
        for (int i = 0; i < probes; i++) {
            long bit = reduce(Integer.toUnsignedLong(h1 + i * h2));
            bits[(int) (bit >>> 3)] |= (byte) (1 << (bit & 7));
        }
    }

    boolean mightContain(MemorySegment row) {
        return mightContain(hash(row));
    }

    /** {@link #mightContain(MemorySegment)} for a row's {@link #hash}: a get hashes its row once for every file. */
    boolean mightContain(long h) {
        int h1 = (int) h;
        int h2 = (int) (h >>> 32);
        for (int i = 0; i < probes; i++) {
            long bit = reduce(Integer.toUnsignedLong(h1 + i * h2));
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

    /** {@link #hash(MemorySegment)} of {@code length} bytes at {@code offset} of {@code bytes}. */
    static long hash(byte[] bytes, int offset, int length) {
        return hash(MemorySegment.ofArray(bytes), offset, length);
    }

    /** FNV-1a over the bytes, then a 64-bit finalizer so every input bit reaches every output bit. */
    static long hash(MemorySegment bytes) {
        return hash(bytes, 0, bytes.byteSize());
    }

    private static final ValueLayout.OfLong LITTLE_ENDIAN_WORD =
            ValueLayout.JAVA_LONG_UNALIGNED.withOrder(java.nio.ByteOrder.LITTLE_ENDIAN);
    private static final long FNV_PRIME = 0x100000001b3L;

    /**
     * {@link #hash(MemorySegment)} of {@code length} bytes at {@code offset}, without slicing.
     *
     * <p>The bytes are fed in order, as FNV-1a defines (the filters on disk depend on it), but read
     * eight at a time: one checked read of the segment per byte made this a twentieth of the
     * load's samples, hashing every row and every key of a write.
     */
    static long hash(MemorySegment segment, long offset, long length) {
        long h = 0xcbf29ce484222325L;
        long end = offset + length;
        long i = offset;
        for (; i + Long.BYTES <= end; i += Long.BYTES) {
            long w = segment.get(LITTLE_ENDIAN_WORD, i); // byte i in the low bits
            h = (h ^ (w & 0xFF)) * FNV_PRIME;
            h = (h ^ ((w >>> 8) & 0xFF)) * FNV_PRIME;
            h = (h ^ ((w >>> 16) & 0xFF)) * FNV_PRIME;
            h = (h ^ ((w >>> 24) & 0xFF)) * FNV_PRIME;
            h = (h ^ ((w >>> 32) & 0xFF)) * FNV_PRIME;
            h = (h ^ ((w >>> 40) & 0xFF)) * FNV_PRIME;
            h = (h ^ ((w >>> 48) & 0xFF)) * FNV_PRIME;
            h = (h ^ (w >>> 56)) * FNV_PRIME;
        }
        for (; i < end; i++) {
            h = (h ^ (segment.get(ValueLayout.JAVA_BYTE, i) & 0xFF)) * FNV_PRIME;
        }
        return finish(h);
    }

    /** The 64-bit finalizer after FNV-1a, so that every input bit reaches every output bit. */
    static long finish(long h) {
        h ^= h >>> 33;
        h *= 0xff51afd7ed558ccdL;
        h ^= h >>> 33;
        h *= 0xc4ceb9fe1a85ec53L;
        h ^= h >>> 33;
        return h;
    }
}
