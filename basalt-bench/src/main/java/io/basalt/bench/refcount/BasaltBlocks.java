package io.basalt.bench.refcount;

import io.basalt.buffer.Buffer;
import io.basalt.buffer.BufferPool;
import io.basalt.buffer.BufferPoolConfig;

/**
 * {@code basalt}: {@link Buffer}s from a {@link BufferPool} with 4 MiB slabs and chunks of the
 * block size, read through {@link Buffer#getLong}, which checks liveness (one plain read) and
 * bounds on every call. Leak detection is the production default (sampled) unless switched off.
 */
final class BasaltBlocks implements PooledBlocks {

    private final BufferPool pool;
    private final Buffer[] blocks;

    BasaltBlocks(int blocks, int blockSize, boolean leakDetection) {
        int slabSize = Math.max(RawBlocks.SLAB_SIZE, blockSize);
        long maxMemory = ((long) blocks * blockSize + slabSize - 1) / slabSize * slabSize;
        BufferPoolConfig config = BufferPoolConfig.defaults().withName("refcount-bench")
                .withSizes(slabSize, blockSize, maxMemory);
        if (!leakDetection) {
            config = config.withLeakDetection(BufferPoolConfig.LeakDetection.OFF, 1);
        }
        pool = BufferPool.create(config);
        this.blocks = new Buffer[blocks];
        for (int b = 0; b < blocks; b++) {
            Buffer block = pool.allocate(blockSize);
            for (int i = 0; i < blockSize; i += Long.BYTES) {
                block.putLong(i, PooledBlocks.valueAt(b, i, blockSize));
            }
            this.blocks[b] = block;
        }
    }

    @Override
    public long scan() {
        long sum = 0;
        for (Buffer block : blocks) {
            int size = block.capacity();
            for (int i = 0; i < size; i += Long.BYTES) {
                sum += block.getLong(i);
            }
        }
        return sum;
    }

    @Override
    public void retainRelease() {
        Buffer block = blocks[0];
        block.retain();
        block.release();
    }

    @Override
    public int refCount() {
        return blocks[0].refCount();
    }

    @Override
    public void close() {
        for (Buffer block : blocks) {
            block.release();
        }
        pool.close();
    }
}
