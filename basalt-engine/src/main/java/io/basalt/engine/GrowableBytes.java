package io.basalt.engine;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Arrays;

/** A growable byte array with the encoders the engine's formats need. Not thread-safe. */
final class GrowableBytes {

    byte[] bytes;
    int length;

    GrowableBytes(int capacity) {
        bytes = new byte[Math.max(16, capacity)];
    }

    private void ensure(long more) {
        if (length + more > bytes.length) {
            long size = Math.max((long) bytes.length * 2, length + more);
            if (size > Integer.MAX_VALUE - 8) {
                throw new IllegalStateException("block larger than 2 GiB");
            }
            bytes = Arrays.copyOf(bytes, (int) size);
        }
    }

    void varint(long value) {
        ensure(10);
        length += Varints.write(bytes, length, value);
    }

    void u32(int value) {
        ensure(4);
        MemorySegment.ofArray(bytes).set(RecordLogLayout.U32, length, value);
        length += 4;
    }

    void u64(long value) {
        ensure(8);
        MemorySegment.ofArray(bytes).set(RecordLogLayout.U64, length, value);
        length += 8;
    }

    void bytes(byte[] src, int from, int count) {
        ensure(count);
        System.arraycopy(src, from, bytes, length, count);
        length += count;
    }

    /** Reserves {@code count} bytes for the caller to fill; returns where they start in {@link #bytes}. */
    int reserve(int count) {
        ensure(count);
        int at = length;
        length += count;
        return at;
    }

    void segment(MemorySegment src, long from, long count) {
        ensure(count);
        MemorySegment.copy(src, ValueLayout.JAVA_BYTE, from, bytes, length, (int) count);
        length += (int) count;
    }
}
