package io.basalt.buffer;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * A buffer whose bytes span several chunks, which need not be adjacent in memory: chunk
 * {@code i} holds the buffer's bytes from {@code i × chunkSize - offset}. Ints and longs that
 * straddle two chunks are assembled byte by byte; everything else is one segment access or one
 * bulk copy per chunk.
 */
final class MultiChunkBuffer extends Buffer {

    /** Every chunk of the allocation, each a segment of exactly {@code 1 << shift} bytes. */
    private final MemorySegment[] chunks;
    /** Where index 0 lies in the chunks laid end to end. */
    private final long offset;
    private final int shift;
    private final long mask;

    MultiChunkBuffer(MemorySegment[] chunks, long offset, int capacity, int shift, RefCount refCount) {
        super(refCount, capacity);
        this.chunks = chunks;
        this.offset = offset;
        this.shift = shift;
        this.mask = (1L << shift) - 1;
    }

    /** Receives the pieces of a range, chunk by chunk. */
    @FunctionalInterface
    interface Piece {
        /**
         * @param chunk the chunk's segment
         * @param at where the piece starts in the chunk
         * @param done bytes of the range before this piece
         * @param length bytes in this piece
         */
        void accept(MemorySegment chunk, long at, long done, long length);
    }

    /** Walks {@code [index, index + length)}, already checked, one chunk at a time. */
    void forEachPiece(long index, long length, Piece piece) {
        long pos = offset + index;
        long done = 0;
        while (done < length) {
            long at = pos & mask;
            long n = Math.min(length - done, mask + 1 - at);
            piece.accept(chunks[(int) (pos >>> shift)], at, done, n);
            pos += n;
            done += n;
        }
    }

    @Override
    public byte getByte(int index) {
        checkLive("getByte");
        checkRange("getByte", index, Byte.BYTES);
        return byteAt(offset + index);
    }

    @Override
    public Buffer putByte(int index, byte value) {
        checkLive("putByte");
        checkRange("putByte", index, Byte.BYTES);
        setByteAt(offset + index, value);
        return this;
    }

    @Override
    public int getInt(int index) {
        checkLive("getInt");
        checkRange("getInt", index, Integer.BYTES);
        long pos = offset + index;
        long at = pos & mask;
        if (at <= mask + 1 - Integer.BYTES) {
            return chunks[(int) (pos >>> shift)].get(INT, at);
        }
        return (int) assemble(pos, Integer.BYTES);
    }

    @Override
    public Buffer putInt(int index, int value) {
        checkLive("putInt");
        checkRange("putInt", index, Integer.BYTES);
        long pos = offset + index;
        long at = pos & mask;
        if (at <= mask + 1 - Integer.BYTES) {
            chunks[(int) (pos >>> shift)].set(INT, at, value);
        } else {
            scatter(pos, Integer.BYTES, value);
        }
        return this;
    }

    @Override
    public long getLong(int index) {
        checkLive("getLong");
        checkRange("getLong", index, Long.BYTES);
        long pos = offset + index;
        long at = pos & mask;
        if (at <= mask + 1 - Long.BYTES) {
            return chunks[(int) (pos >>> shift)].get(LONG, at);
        }
        return assemble(pos, Long.BYTES);
    }

    @Override
    public Buffer putLong(int index, long value) {
        checkLive("putLong");
        checkRange("putLong", index, Long.BYTES);
        long pos = offset + index;
        long at = pos & mask;
        if (at <= mask + 1 - Long.BYTES) {
            chunks[(int) (pos >>> shift)].set(LONG, at, value);
        } else {
            scatter(pos, Long.BYTES, value);
        }
        return this;
    }

    @Override
    public java.nio.ByteBuffer nioBuffer(int index, int length) {
        checkLive("nioBuffer");
        checkRange("nioBuffer", index, length);
        return null; // a caller that needs contiguous bytes copies through its own buffer
    }

    @Override
    public Buffer slice(int index, int length) {
        checkLive("slice");
        checkRange("slice", index, length);
        long pos = offset + index;
        if (length == 0) {
            return new SingleChunkBuffer(chunks[0].asSlice(0, 0), refCount);
        }
        int first = (int) (pos >>> shift);
        if (first == (int) ((pos + length - 1) >>> shift)) {
            return new SingleChunkBuffer(chunks[first].asSlice(pos & mask, length), refCount);
        }
        return new MultiChunkBuffer(chunks, pos, length, shift, refCount);
    }

    @Override
    public Buffer duplicate() {
        checkLive("duplicate");
        return new MultiChunkBuffer(chunks, offset, capacity, shift, refCount);
    }

    @Override
    void copyOut(long index, MemorySegment dst, long dstOffset, long length) {
        forEachPiece(index, length, (chunk, at, done, n) -> MemorySegment.copy(chunk, at, dst, dstOffset + done, n));
    }

    @Override
    void copyIn(MemorySegment src, long srcOffset, long index, long length) {
        forEachPiece(index, length, (chunk, at, done, n) -> MemorySegment.copy(src, srcOffset + done, chunk, at, n));
    }

    private byte byteAt(long pos) {
        return chunks[(int) (pos >>> shift)].get(ValueLayout.JAVA_BYTE, pos & mask);
    }

    private void setByteAt(long pos, byte value) {
        chunks[(int) (pos >>> shift)].set(ValueLayout.JAVA_BYTE, pos & mask, value);
    }

    /** Reads {@code size} bytes from {@code pos} across a chunk boundary, big-endian. */
    private long assemble(long pos, int size) {
        long value = 0;
        for (int i = 0; i < size; i++) {
            value = (value << 8) | (byteAt(pos + i) & 0xFF);
        }
        return value;
    }

    /** Writes the low {@code size} bytes of {@code value} from {@code pos} across a chunk boundary, big-endian. */
    private void scatter(long pos, int size, long value) {
        for (int i = 0; i < size; i++) {
            setByteAt(pos + i, (byte) (value >>> (8 * (size - 1 - i))));
        }
    }
}
