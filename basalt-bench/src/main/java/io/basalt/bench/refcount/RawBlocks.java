package io.basalt.bench.refcount;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;

/**
 * {@code raw}: the physical limit. Blocks are plain {@link MemorySegment}s cut from 4 MiB slabs of
 * one shared arena, laid out as Basalt's pool lays them out, read with no liveness check at all
 * (only the segment's own bounds check). Its "reference count" is the least any count can cost:
 * one atomic add up and one down, with no check.
 */
final class RawBlocks implements PooledBlocks {

    static final int SLAB_SIZE = 4 << 20;
    private static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    private static final VarHandle COUNT;

    static {
        try {
            COUNT = MethodHandles.lookup().findVarHandle(RawBlocks.class, "count", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final Arena arena = Arena.ofShared();
    private final MemorySegment[] blocks;
    @SuppressWarnings("unused")
    private volatile int count = 1;

    RawBlocks(int blocks, int blockSize) {
        this.blocks = new MemorySegment[blocks];
        int perSlab = Math.max(1, SLAB_SIZE / blockSize);
        MemorySegment slab = null;
        for (int b = 0; b < blocks; b++) {
            if (b % perSlab == 0) {
                slab = arena.allocate((long) perSlab * blockSize, Long.BYTES);
            }
            MemorySegment block = slab.asSlice((long) (b % perSlab) * blockSize, blockSize);
            for (int i = 0; i < blockSize; i += Long.BYTES) {
                block.set(LONG, i, PooledBlocks.valueAt(b, i, blockSize));
            }
            this.blocks[b] = block;
        }
    }

    @Override
    public long scan() {
        long sum = 0;
        for (MemorySegment block : blocks) {
            int size = (int) block.byteSize();
            for (int i = 0; i < size; i += Long.BYTES) {
                sum += block.get(LONG, i);
            }
        }
        return sum;
    }

    @Override
    public void retainRelease() {
        COUNT.getAndAdd(this, 1);
        COUNT.getAndAdd(this, -1);
    }

    @Override
    public int refCount() {
        return count;
    }

    @Override
    public void close() {
        arena.close();
    }
}
