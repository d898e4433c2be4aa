package io.basalt.buffer;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * A buffer whose bytes lie in one segment: a request of at most one chunk, a slice within one
 * chunk, or heap memory.
 *
 * <p>The hot path of the {@code refcount} benchmark: each accessor is the liveness check (one
 * plain read, see {@link RefCount}) followed by a {@code MemorySegment} access whose own bounds
 * check is the buffer's, since the segment is exactly the buffer's bytes. That check's exception
 * is replaced by one that speaks of the buffer; the {@code try} costs nothing until it fires.
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
        try {
            return segment.get(ValueLayout.JAVA_BYTE, index);
        } catch (IndexOutOfBoundsException e) {
            throw outOfBounds("getByte", index, Byte.BYTES);
        }
    }

    @Override
    public Buffer putByte(int index, byte value) {
        checkLive("putByte");
        try {
            segment.set(ValueLayout.JAVA_BYTE, index, value);
        } catch (IndexOutOfBoundsException e) {
            throw outOfBounds("putByte", index, Byte.BYTES);
        }
        return this;
    }

    @Override
    public int getInt(int index) {
        checkLive("getInt");
        try {
            return segment.get(INT, index);
        } catch (IndexOutOfBoundsException e) {
            throw outOfBounds("getInt", index, Integer.BYTES);
        }
    }

    @Override
    public Buffer putInt(int index, int value) {
        checkLive("putInt");
        try {
            segment.set(INT, index, value);
        } catch (IndexOutOfBoundsException e) {
            throw outOfBounds("putInt", index, Integer.BYTES);
        }
        return this;
    }

    @Override
    public long getLong(int index) {
        checkLive("getLong");
        try {
            return segment.get(LONG, index);
        } catch (IndexOutOfBoundsException e) {
            throw outOfBounds("getLong", index, Long.BYTES);
        }
    }

    @Override
    public Buffer putLong(int index, long value) {
        checkLive("putLong");
        try {
            segment.set(LONG, index, value);
        } catch (IndexOutOfBoundsException e) {
            throw outOfBounds("putLong", index, Long.BYTES);
        }
        return this;
    }

    @Override
    public Buffer slice(int index, int length) {
        checkLive("slice");
        checkRange("slice", index, length);
        return new SingleChunkBuffer(segment.asSlice(index, length), refCount);
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
