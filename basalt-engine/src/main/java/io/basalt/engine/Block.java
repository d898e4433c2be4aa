package io.basalt.engine;

import io.basalt.buffer.Buffer;
import java.lang.foreign.MemorySegment;

/**
 * A data block's content pinned for a reader: valid until {@link #release()}. The block cache
 * keeps blocks off-heap in pooled {@link Buffer}s; a block that could not be cached lives on the
 * heap. Either way a reader copies the content out ({@link SSTableIterator} takes the whole block
 * at once) and releases it, and the block cache never recycles the memory of a block that a
 * reader still holds.
 */
interface Block {

    int size();

    void copyTo(int index, byte[] dst, int dstOffset, int length);

    /** Lets go of the block; call exactly once. */
    void release();

    /** A pin on a pooled buffer: the reader's own reference, released with the block. */
    record Pooled(Buffer buffer) implements Block {
        @Override
        public int size() {
            return buffer.capacity();
        }

        @Override
        public void copyTo(int index, byte[] dst, int dstOffset, int length) {
            buffer.getBytes(index, dst, dstOffset, length);
        }

        @Override
        public void release() {
            buffer.release();
        }
    }

    /** Content on the heap, for a block the cache could not (or need not) keep. */
    record Heap(byte[] content) implements Block {
        @Override
        public int size() {
            return content.length;
        }

        @Override
        public void copyTo(int index, byte[] dst, int dstOffset, int length) {
            System.arraycopy(content, index, dst, dstOffset, length);
        }

        @Override
        public void release() {
            // Heap memory: the collector takes it when the reader drops it.
        }
    }

    /**
     * Content in memory the reader owns and reuses (a compaction input's own read buffer): valid
     * until the reader reads its next block, which is after it has released this one.
     */
    record Borrowed(MemorySegment content) implements Block {
        @Override
        public int size() {
            return (int) content.byteSize();
        }

        @Override
        public void copyTo(int index, byte[] dst, int dstOffset, int length) {
            MemorySegment.copy(content, java.lang.foreign.ValueLayout.JAVA_BYTE, index, dst, dstOffset, length);
        }

        @Override
        public void release() {
            // The reader's own buffer: nothing to give back.
        }
    }
}
