package io.basalt.bytes;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * Unsigned lexicographic comparison and printing of byte strings, on heap arrays and on memory
 * segments.
 *
 * <p>Keys in Basalt sort as unsigned bytes, first differing byte wins, a proper prefix sorts first
 * (the order HBase, LevelDB and RocksDB use). Both paths delegate to the JDK's vectorised
 * mismatch ({@link Arrays#compareUnsigned(byte[], int, int, byte[], int, int)} and
 * {@link MemorySegment#mismatch(MemorySegment, long, long, MemorySegment, long, long)}), which
 * compare eight or more bytes per step instead of one.
 */
public final class Bytes {

    /** The empty byte string; use it instead of allocating {@code new byte[0]}. */
    public static final byte[] EMPTY = new byte[0];

    private Bytes() {}

    /** Compares two whole arrays as unsigned byte strings. */
    public static int compare(byte[] a, byte[] b) {
        return Arrays.compareUnsigned(a, b);
    }

    /** Compares {@code a[aOffset, aOffset+aLength)} with {@code b[bOffset, bOffset+bLength)}. */
    public static int compare(byte[] a, int aOffset, int aLength, byte[] b, int bOffset, int bLength) {
        return Arrays.compareUnsigned(a, aOffset, aOffset + aLength, b, bOffset, bOffset + bLength);
    }

    /** Compares two whole segments as unsigned byte strings. */
    public static int compare(MemorySegment a, MemorySegment b) {
        return compare(a, 0, a.byteSize(), b, 0, b.byteSize());
    }

    /**
     * Compares {@code a[aOffset, aOffset+aLength)} with {@code b[bOffset, bOffset+bLength)} as
     * unsigned byte strings. Returns a negative number, zero or a positive number.
     */
    public static int compare(MemorySegment a, long aOffset, long aLength,
                              MemorySegment b, long bOffset, long bLength) {
        long at = MemorySegment.mismatch(a, aOffset, aOffset + aLength, b, bOffset, bOffset + bLength);
        if (at < 0) {
            return 0;
        }
        if (at == aLength) {
            return -1;
        }
        if (at == bLength) {
            return 1;
        }
        return Byte.toUnsignedInt(a.get(ValueLayout.JAVA_BYTE, aOffset + at))
                - Byte.toUnsignedInt(b.get(ValueLayout.JAVA_BYTE, bOffset + at));
    }

    /** True when both ranges hold the same bytes. */
    public static boolean equals(MemorySegment a, long aOffset, long aLength,
                                 MemorySegment b, long bOffset, long bLength) {
        return aLength == bLength
                && MemorySegment.mismatch(a, aOffset, aOffset + aLength, b, bOffset, bOffset + bLength) < 0;
    }

    /** Encodes a string as UTF-8. */
    public static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    /**
     * Renders bytes for people: printable ASCII as is, everything else as {@code \xHH}. The
     * same style HBase's shell prints, so keys read the same in both tools.
     */
    public static String toStringBinary(byte[] bytes) {
        return toStringBinary(MemorySegment.ofArray(bytes));
    }

    /** {@link #toStringBinary(byte[])} for a segment. */
    public static String toStringBinary(MemorySegment bytes) {
        StringBuilder out = new StringBuilder((int) Math.min(bytes.byteSize() * 2, 1 << 20));
        for (long i = 0; i < bytes.byteSize(); i++) {
            int b = Byte.toUnsignedInt(bytes.get(ValueLayout.JAVA_BYTE, i));
            if (b >= ' ' && b <= '~' && b != '\\') {
                out.append((char) b);
            } else {
                out.append(String.format("\\x%02X", b));
            }
        }
        return out.toString();
    }
}
