package io.basalt.buffer;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * A buffer whose bytes lie in one segment: a request of at most one chunk, a slice within one
 * chunk, or heap memory.
 *
 * <p>The hot path of the {@code refcount} benchmark: each accessor is the liveness check (one
 * plain read, see {@link RefCount}), a range check against the capacity, then a
 * {@code MemorySegment} access. In a loop the JIT hoists the first and folds the second and the
 * segment's own bounds check into one range check it eliminates; the scan measured the same as a
 * raw segment's with this check, with none of our own, and with the segment's exception caught
 * and reworded instead (all three within 3% of raw, run to run noise), so the clearest one stays.
 */
final class SingleChunkBuffer extends Buffer {

    final MemorySegment segment;

    SingleChunkBuffer(MemorySegment segment, RefCount refCount) {
        super(refCount, Math.toIntExact(segment.byteSize()));
        this.segment = segment;
    }

    @Override
    public byte getByte(int index) {
        checkLive("getByte");
        checkRange("getByte", index, Byte.BYTES);
        return segment.get(ValueLayout.JAVA_BYTE, index);
    }

    @Override
    public Buffer putByte(int index, byte value) {
        checkLive("putByte");
        checkRange("putByte", index, Byte.BYTES);
        segment.set(ValueLayout.JAVA_BYTE, index, value);
        return this;
    }

    @Override
    public int getInt(int index) {
        checkLive("getInt");
        checkRange("getInt", index, Integer.BYTES);
        return segment.get(INT, index);
    }

    @Override
    public Buffer putInt(int index, int value) {
        checkLive("putInt");
        checkRange("putInt", index, Integer.BYTES);
        segment.set(INT, index, value);
        return this;
    }

    @Override
    public long getLong(int index) {
        checkLive("getLong");
        checkRange("getLong", index, Long.BYTES);
        return segment.get(LONG, index);
    }

    @Override
    public Buffer putLong(int index, long value) {
        checkLive("putLong");
        checkRange("putLong", index, Long.BYTES);
        segment.set(LONG, index, value);
        return this;
    }

    @Override
    public Buffer slice(int index, int length) {
        checkLive("slice");
        checkRange("slice", index, length);
        return new SingleChunkBuffer(segment.asSlice(index, length), refCount);
    }

    @Override
    public java.nio.ByteBuffer nioBuffer(int index, int length) {
        checkLive("nioBuffer");
        checkRange("nioBuffer", index, length);
        return segment.asSlice(index, length).asByteBuffer();
    }

    @Override
    public Buffer duplicate() {
        checkLive("duplicate");
        return new SingleChunkBuffer(segment, refCount);
    }

    @Override
    void copyOut(long index, MemorySegment dst, long dstOffset, long length) {
        MemorySegment.copy(segment, index, dst, dstOffset, length);
    }

    @Override
    void copyIn(MemorySegment src, long srcOffset, long index, long length) {
        MemorySegment.copy(src, srcOffset, segment, index, length);
    }
}
