package io.basalt.buffer;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.util.Objects;

/**
 * A reference-counted view of bytes from a {@link BufferPool}: one chunk of a slab, several
 * chunks, or (when the pool falls back) a heap array.
 *
 * <p>All access is absolute, by index from 0 to {@link #capacity()}; there is no cursor. Ints and
 * longs are big-endian, the byte order of every Basalt format. A new buffer's bytes are whatever
 * the chunk held before. {@link #slice} and {@link #duplicate} make views of the same memory that
 * share this buffer's reference count: a {@link #retain} or {@link #release} through any view
 * counts for all of them, and the release that takes the count to zero gives the memory back to
 * the pool, exactly once.
 *
 * <h2>Cost of the liveness check (HBASE-27730)</h2>
 * Every access first checks that the buffer is still live with one plain field read, the
 * seed's "null out the recycler" (see {@code RefCount}), then checks the index against the
 * capacity. The first is loop-invariant and the second a range check, which the JIT hoists and
 * eliminates, so summing a buffer runs as fast as summing a raw {@code MemorySegment}: the
 * {@code refcount} benchmark suite measures it against raw segments, HBase 2.6.4's
 * {@code SingleByteBuff} and Netty's pooled direct {@code ByteBuf} ({@code docs/benchmarks.md}).
 * Made volatile, as HBase's is, the same check cost the scan about 4×.
 *
 * <h2>What is guaranteed after release</h2>
 * <ul>
 *   <li>{@code retain} and {@code release} are atomic. A retain or release after the count
 *       reached zero always throws {@link IllegalStateException}, from any thread, however it
 *       races: the count can never come back to life, and the memory is recycled exactly once.</li>
 *   <li>Every access (get, put, copy, slice, duplicate) on a released buffer throws
 *       {@link IllegalStateException} in the thread that made the final release, and in every
 *       thread for which that release <em>happens-before</em> the access in the Java memory
 *       model sense: a thread that got the buffer through a queue, a future, a lock or
 *       {@code Thread.join} after the release. This covers every correct hand-off, so a use after
 *       release by code that owns no reference is caught wherever the release was ordered before
 *       it.</li>
 *   <li>Not guaranteed: an access racing the final release in another thread with no ordering
 *       between them (that thread held no reference of its own: the bug itself) may see the
 *       buffer still live, and then reads bytes the pool may already have handed to a new owner, or
 *       writes into them. It never crashes the JVM: pool memory stays mapped until the pool is
 *       closed, every access stays within the chunk's bounds, and after close the access fails
 *       with {@code IllegalStateException}. Making this case throw too would need a volatile read
 *       per access, the cost HBASE-27730 removes.</li>
 *   <li>Out-of-range access throws {@link IndexOutOfBoundsException} naming the operation, index,
 *       length and capacity, and touches nothing.</li>
 * </ul>
 *
 * <p>Views are thread-safe in the sense of {@code MemorySegment}: concurrent accesses to disjoint
 * bytes are fine, concurrent writes to the same bytes need the caller's own synchronisation.
 */
public abstract sealed class Buffer permits SingleChunkBuffer, MultiChunkBuffer {

    static final ValueLayout.OfInt INT = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);

    /** Shared by every view of the allocation. */
    final RefCount refCount;

    final int capacity;

    Buffer(RefCount refCount, int capacity) {
        this.refCount = refCount;
        this.capacity = capacity;
    }

    /** Bytes in this view. */
    public final int capacity() {
        return capacity;
    }

    public abstract byte getByte(int index);

    public abstract Buffer putByte(int index, byte value);

    /** Four bytes at {@code index}, big-endian. */
    public abstract int getInt(int index);

    /** Writes four bytes at {@code index}, big-endian. */
    public abstract Buffer putInt(int index, int value);

    /** Eight bytes at {@code index}, big-endian. */
    public abstract long getLong(int index);

    /** Writes eight bytes at {@code index}, big-endian. */
    public abstract Buffer putLong(int index, long value);

    /** Copies {@code length} bytes from {@code index} into {@code dst[dstOffset ...]}. */
    public final void getBytes(int index, byte[] dst, int dstOffset, int length) {
        checkLive("getBytes");
        checkRange("getBytes", index, length);
        Objects.checkFromIndexSize(dstOffset, length, dst.length);
        copyOut(index, MemorySegment.ofArray(dst), dstOffset, length);
    }

    /** Copies {@code src[srcOffset ...]} ({@code length} bytes) to {@code index}. */
    public final Buffer putBytes(int index, byte[] src, int srcOffset, int length) {
        checkLive("putBytes");
        checkRange("putBytes", index, length);
        Objects.checkFromIndexSize(srcOffset, length, src.length);
        copyIn(MemorySegment.ofArray(src), srcOffset, index, length);
        return this;
    }

    /** Copies {@code length} bytes from {@code index} into {@code dst} at {@code dstOffset}. */
    public final void getBytes(int index, MemorySegment dst, long dstOffset, int length) {
        checkLive("getBytes");
        checkRange("getBytes", index, length);
        Objects.checkFromIndexSize(dstOffset, length, dst.byteSize());
        copyOut(index, dst, dstOffset, length);
    }

    /** Copies {@code length} bytes of {@code src} from {@code srcOffset} to {@code index}. */
    public final Buffer putBytes(int index, MemorySegment src, long srcOffset, int length) {
        checkLive("putBytes");
        checkRange("putBytes", index, length);
        Objects.checkFromIndexSize(srcOffset, length, src.byteSize());
        copyIn(src, srcOffset, index, length);
        return this;
    }

    /**
     * Copies {@code length} bytes from {@code index} to {@code dst} at {@code dstIndex}. Works for
     * overlapping views of the same memory too: the result is as if the bytes went through a
     * temporary array.
     */
    public final void copyTo(int index, Buffer dst, int dstIndex, int length) {
        checkLive("copyTo");
        dst.checkLive("copyTo");
        checkRange("copyTo", index, length);
        dst.checkRange("copyTo", dstIndex, length);
        if (dst.refCount == refCount) {
            byte[] through = new byte[length];
            copyOut(index, MemorySegment.ofArray(through), 0, length);
            dst.copyIn(MemorySegment.ofArray(through), 0, dstIndex, length);
            return;
        }
        switch (dst) {
            case SingleChunkBuffer single -> copyOut(index, single.segment, dstIndex, length);
            case MultiChunkBuffer multi -> multi.forEachPiece(dstIndex, length,
                    (chunk, at, done, n) -> copyOut(index + done, chunk, at, n));
        }
    }

    /**
     * A view of {@code [index, index + length)} that shares this buffer's reference count (it does
     * not add a reference: retain it to hand it to an owner of its own).
     */
    public abstract Buffer slice(int index, int length);

    /** A view of the same bytes that shares this buffer's reference count, as {@code slice(0, capacity())}. */
    public abstract Buffer duplicate();

    /**
     * Bytes {@code [index, index + length)} as a NIO buffer for one bulk transfer, such as a file
     * read straight into a buffer just allocated; null for a buffer of several chunks. The view carries no
     * liveness check of its own: use it only while holding a reference, and not after.
     */
    public abstract java.nio.ByteBuffer nioBuffer(int index, int length);

    /**
     * Adds one reference, for a second owner who will {@link #release} it.
     *
     * @throws IllegalStateException when the count already reached zero
     */
    public final Buffer retain() {
        refCount.retain();
        return this;
    }

    /**
     * Drops one reference. The release that drops the last one gives the memory back to the pool;
     * after it, every use of this buffer and its views fails (see the class comment for the
     * guarantee across threads).
     *
     * @return true when this call gave the memory back
     * @throws IllegalStateException when the count already reached zero (a double release)
     */
    public final boolean release() {
        return refCount.release();
    }

    /** References held on this buffer's memory; 0 once released. */
    public final int refCount() {
        return refCount.count();
    }

    @Override
    public String toString() {
        return "Buffer[capacity=" + capacity + ", refCount=" + refCount() + "]";
    }

    /** Copies out without checks: the caller checked liveness and both ranges. */
    abstract void copyOut(long index, MemorySegment dst, long dstOffset, long length);

    /** Copies in without checks: the caller checked liveness and both ranges. */
    abstract void copyIn(MemorySegment src, long srcOffset, long index, long length);

    /** The per-access liveness check: one plain read, which the JIT hoists out of loops. */
    final void checkLive(String operation) {
        if (refCount.recycler == null) {
            throw RefCount.released(operation);
        }
    }

    final void checkRange(String operation, int index, int length) {
        if (index < 0 || length < 0 || index > capacity - length) {
            throw outOfBounds(operation, index, length);
        }
    }

    final IndexOutOfBoundsException outOfBounds(String operation, long index, long length) {
        return new IndexOutOfBoundsException(operation + " of " + length + " bytes at index " + index
                + " is outside the buffer's " + capacity + " bytes");
    }
}
