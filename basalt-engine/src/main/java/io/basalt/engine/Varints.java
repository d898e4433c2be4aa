package io.basalt.engine;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * Unsigned LEB128 integers for the engine's file formats (the same encoding as cell lengths in
 * {@link io.basalt.cell.CellLayout}), with bounds-checked reads that report damage instead of
 * reading past the end.
 */
final class Varints {

    private Varints() {}

    static int size(long value) {
        int n = 1;
        while ((value & ~0x7FL) != 0) {
            value >>>= 7;
            n++;
        }
        return n;
    }

    /** Writes {@code value} (treated as unsigned) at {@code offset}; returns bytes written. */
    static int write(byte[] out, int offset, long value) {
        int n = 0;
        while ((value & ~0x7FL) != 0) {
            out[offset + n++] = (byte) ((value & 0x7F) | 0x80);
            value >>>= 7;
        }
        out[offset + n++] = (byte) value;
        return n;
    }

    /**
     * A cursor that reads varints and raw bytes from a segment within {@code [position, limit)},
     * throwing {@link Damage} when a value would run past the limit or is too long.
     */
    static final class Reader {
        final MemorySegment data;
        long position;
        final long limit;

        Reader(MemorySegment data, long position, long limit) {
            this.data = data;
            this.position = position;
            this.limit = limit;
        }

        long readLong() {
            long value = 0;
            for (int shift = 0; shift < 64; shift += 7) {
                if (position >= limit) {
                    throw new Damage("varint runs past the end at " + position);
                }
                byte b = data.get(ValueLayout.JAVA_BYTE, position++);
                value |= (long) (b & 0x7F) << shift;
                if (b >= 0) {
                    return value;
                }
            }
            throw new Damage("varint longer than 10 bytes before " + position);
        }

        /** A varint that must fit {@code 0..max}. */
        int readInt(int max, String what) {
            long value = readLong();
            if (value < 0 || value > max) {
                throw new Damage(what + " " + value + " is outside 0.." + max);
            }
            return (int) value;
        }

        /** Checks that {@code n} more bytes are there, and skips them; returns where they start. */
        long take(long n, String what) {
            if (n < 0 || n > limit - position) {
                throw new Damage(what + " of " + n + " bytes runs past the end (" + (limit - position) + " left)");
            }
            long at = position;
            position += n;
            return at;
        }

        boolean hasMore() {
            return position < limit;
        }
    }

    /** A structural problem found while decoding; callers turn it into {@link CorruptFileException}. */
    static final class Damage extends RuntimeException {
        private static final long serialVersionUID = 1L;

        Damage(String message) {
            super(message, null, false, false);
        }
    }
}
