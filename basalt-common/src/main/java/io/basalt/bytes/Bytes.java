package io.basalt.bytes;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Objects;

/**
 * Unsigned lexicographic comparison and printing of byte strings, on heap arrays and on memory
 * segments.
 *
 * <p>Keys in Basalt sort as unsigned bytes, first differing byte wins, a proper prefix sorts first
 * (the order HBase, LevelDB and RocksDB use). Arrays and long segment ranges go to the JDK's
 * vectorised mismatch ({@link Arrays#compareUnsigned(byte[], int, int, byte[], int, int)} and
 * {@link MemorySegment#mismatch(MemorySegment, long, long, MemorySegment, long, long)}); short
 * segment ranges, the keys' parts, are compared a word at a time here (see
 * {@link #SHORT_COMPARE}).
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
        int common = Math.min(aLength, bLength);
        if (common <= SHORT_COMPARE) {
            Objects.checkFromIndexSize(aOffset, aLength, a.length);
            Objects.checkFromIndexSize(bOffset, bLength, b.length);
            int c = compareShort(a, aOffset, b, bOffset, common);
            return c != 0 ? c : Integer.compare(aLength, bLength);
        }
        return Arrays.compareUnsigned(a, aOffset, aOffset + aLength, b, bOffset, bOffset + bLength);
    }

    /** True when {@code a[aOffset, aOffset+aLength)} and {@code b[bOffset, bOffset+bLength)} hold the same bytes. */
    public static boolean equals(byte[] a, int aOffset, int aLength, byte[] b, int bOffset, int bLength) {
        if (aLength != bLength) {
            return false;
        }
        if (aLength <= SHORT_COMPARE) {
            Objects.checkFromIndexSize(aOffset, aLength, a.length);
            Objects.checkFromIndexSize(bOffset, bLength, b.length);
            return equalsShort(a, aOffset, b, bOffset, aLength);
        }
        return Arrays.equals(a, aOffset, aOffset + aLength, b, bOffset, bOffset + bLength);
    }

    /**
     * Array views for {@link #compareShort(byte[], int, byte[], int, int)}: on heap arrays the
     * word reads compile to plain loads. The segment versions below go through the memory
     * access API, whose checks the compiler leaves in when a call site sees heap and native
     * segments both (a short-scan profile had a fifth of its samples in them); cells read from
     * files and memtables are on the heap, so their rows, families and qualifiers compare here.
     */
    private static final VarHandle ARRAY_LONG_BE = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.BIG_ENDIAN);
    private static final VarHandle ARRAY_INT_BE = MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.BIG_ENDIAN);
    private static final VarHandle ARRAY_LONG = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.nativeOrder());
    private static final VarHandle ARRAY_INT = MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.nativeOrder());

    private static final VarHandle ARRAY_SHORT_BE = MethodHandles.byteArrayViewVarHandle(short[].class, ByteOrder.BIG_ENDIAN);

    /** The big-endian long at {@code offset} of {@code a} (a cell's timestamp), bounds-checked. */
    public static long longBE(byte[] a, int offset) {
        return (long) ARRAY_LONG_BE.get(a, offset);
    }

    /** The big-endian unsigned short at {@code offset} of {@code a} (a cell's row length), bounds-checked. */
    public static int unsignedShortBE(byte[] a, int offset) {
        return Short.toUnsignedInt((short) ARRAY_SHORT_BE.get(a, offset));
    }

    /** {@link #compareShort(MemorySegment, long, MemorySegment, long, long)} on arrays; ranges checked by the caller. */
    private static int compareShort(byte[] a, int aOffset, byte[] b, int bOffset, int length) {
        if (length >= Long.BYTES) {
            int i = 0;
            for (; i + Long.BYTES <= length; i += Long.BYTES) {
                long x = (long) ARRAY_LONG_BE.get(a, aOffset + i);
                long y = (long) ARRAY_LONG_BE.get(b, bOffset + i);
                if (x != y) {
                    return Long.compareUnsigned(x, y);
                }
            }
            if (i < length) {
                long x = (long) ARRAY_LONG_BE.get(a, aOffset + length - Long.BYTES);
                long y = (long) ARRAY_LONG_BE.get(b, bOffset + length - Long.BYTES);
                if (x != y) {
                    return Long.compareUnsigned(x, y);
                }
            }
            return 0;
        }
        if (length >= Integer.BYTES) {
            int x = (int) ARRAY_INT_BE.get(a, aOffset);
            int y = (int) ARRAY_INT_BE.get(b, bOffset);
            if (x == y) {
                x = (int) ARRAY_INT_BE.get(a, aOffset + length - Integer.BYTES);
                y = (int) ARRAY_INT_BE.get(b, bOffset + length - Integer.BYTES);
            }
            return Integer.compareUnsigned(x, y);
        }
        for (int i = 0; i < length; i++) {
            int x = Byte.toUnsignedInt(a[aOffset + i]);
            int y = Byte.toUnsignedInt(b[bOffset + i]);
            if (x != y) {
                return x - y;
            }
        }
        return 0;
    }

    /** Equality of two short array ranges, a word at a time in native order (no byte swaps). */
    private static boolean equalsShort(byte[] a, int aOffset, byte[] b, int bOffset, int length) {
        if (length >= Long.BYTES) {
            int i = 0;
            for (; i + Long.BYTES <= length; i += Long.BYTES) {
                if ((long) ARRAY_LONG.get(a, aOffset + i) != (long) ARRAY_LONG.get(b, bOffset + i)) {
                    return false;
                }
            }
            return i == length || (long) ARRAY_LONG.get(a, aOffset + length - Long.BYTES)
                    == (long) ARRAY_LONG.get(b, bOffset + length - Long.BYTES);
        }
        if (length >= Integer.BYTES) {
            return (int) ARRAY_INT.get(a, aOffset) == (int) ARRAY_INT.get(b, bOffset)
                    && (int) ARRAY_INT.get(a, aOffset + length - Integer.BYTES)
                    == (int) ARRAY_INT.get(b, bOffset + length - Integer.BYTES);
        }
        for (int i = 0; i < length; i++) {
            if (a[aOffset + i] != b[bOffset + i]) {
                return false;
            }
        }
        return true;
    }

    /** Compares two whole segments as unsigned byte strings. */
    public static int compare(MemorySegment a, MemorySegment b) {
        return compare(a, 0, a.byteSize(), b, 0, b.byteSize());
    }

    /**
     * Ranges up to this long are compared eight bytes at a time here rather than by
     * {@link MemorySegment#mismatch}: its fixed cost (bounds, overlap and session checks on both
     * segments, then the vectorised loop) was a third of a read-only YCSB profile, where nearly
     * every comparison is of a row, family or qualifier of 1 to 30 bytes.
     */
    static final int SHORT_COMPARE = 64;

    private static final ValueLayout.OfLong BIG_ENDIAN_LONG =
            ValueLayout.JAVA_LONG_UNALIGNED.withOrder(java.nio.ByteOrder.BIG_ENDIAN);

    /**
     * Compares {@code a[aOffset, aOffset+aLength)} with {@code b[bOffset, bOffset+bLength)} as
     * unsigned byte strings. Returns a negative number, zero or a positive number.
     */
    public static int compare(MemorySegment a, long aOffset, long aLength,
                              MemorySegment b, long bOffset, long bLength) {
        long common = Math.min(aLength, bLength);
        if (common <= SHORT_COMPARE) {
            int c = compareShort(a, aOffset, b, bOffset, common);
            return c != 0 ? c : Long.compare(aLength, bLength);
        }
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

    private static final ValueLayout.OfInt BIG_ENDIAN_INT =
            ValueLayout.JAVA_INT_UNALIGNED.withOrder(java.nio.ByteOrder.BIG_ENDIAN);

    /**
     * Compares {@code length} bytes of each, at most {@link #SHORT_COMPARE}: eight at a time, and a
     * tail of one to seven bytes as one word that overlaps bytes already found equal (or, below
     * eight bytes in all, two overlapping ints), so no range costs more than a few reads.
     */
    private static int compareShort(MemorySegment a, long aOffset, MemorySegment b, long bOffset, long length) {
        if (length >= Long.BYTES) {
            long i = 0;
            for (; i + Long.BYTES <= length; i += Long.BYTES) {
                long x = a.get(BIG_ENDIAN_LONG, aOffset + i);
                long y = b.get(BIG_ENDIAN_LONG, bOffset + i);
                if (x != y) {
                    return Long.compareUnsigned(x, y);
                }
            }
            if (i < length) {
                long x = a.get(BIG_ENDIAN_LONG, aOffset + length - Long.BYTES);
                long y = b.get(BIG_ENDIAN_LONG, bOffset + length - Long.BYTES);
                if (x != y) {
                    return Long.compareUnsigned(x, y);
                }
            }
            return 0;
        }
        if (length >= Integer.BYTES) {
            int x = a.get(BIG_ENDIAN_INT, aOffset);
            int y = b.get(BIG_ENDIAN_INT, bOffset);
            if (x == y) {
                x = a.get(BIG_ENDIAN_INT, aOffset + length - Integer.BYTES);
                y = b.get(BIG_ENDIAN_INT, bOffset + length - Integer.BYTES);
            }
            return Integer.compareUnsigned(x, y);
        }
        for (long i = 0; i < length; i++) {
            int x = Byte.toUnsignedInt(a.get(ValueLayout.JAVA_BYTE, aOffset + i));
            int y = Byte.toUnsignedInt(b.get(ValueLayout.JAVA_BYTE, bOffset + i));
            if (x != y) {
                return x - y;
            }
        }
        return 0;
    }

    /** True when both ranges hold the same bytes. */
    public static boolean equals(MemorySegment a, long aOffset, long aLength,
                                 MemorySegment b, long bOffset, long bLength) {
        if (aLength != bLength) {
            return false;
        }
        if (aLength <= SHORT_COMPARE) {
            return compareShort(a, aOffset, b, bOffset, aLength) == 0;
        }
        return MemorySegment.mismatch(a, aOffset, aOffset + aLength, b, bOffset, bOffset + bLength) < 0;
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

    /**
     * Eight bytes of {@code s[offset, offset+length)} starting {@code from} bytes in, big-endian,
     * zero-padded past the range's end. When two ranges' words at the same {@code from} differ
     * (and their earlier words were equal), their unsigned order is the ranges' order: a padding
     * zero can only stand against a real byte that differs from it, which then ends the shorter
     * range. Sorted structures keep such words beside their keys so that most comparisons of a
     * search are of two longs instead of two byte strings behind pointers.
     */
    public static long word(MemorySegment s, long offset, long length, int from) {
        if (length >= from + Long.BYTES) {
            return s.get(BIG_ENDIAN_LONG, offset + from);
        }
        long word = 0;
        for (int i = from; i < from + Long.BYTES; i++) {
            word = word << 8 | (i < length ? s.get(ValueLayout.JAVA_BYTE, offset + i) & 0xFF : 0);
        }
        return word;
    }
}
