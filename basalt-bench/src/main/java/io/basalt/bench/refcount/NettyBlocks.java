package io.basalt.bench.refcount;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.util.ResourceLeakDetector;

/**
 * {@code netty}: direct {@link ByteBuf}s of the block size from Netty's
 * {@link PooledByteBufAllocator#DEFAULT}, read through {@link ByteBuf#getLong(int)} with Netty's
 * defaults: bounds and accessibility checked on every call ({@code io.netty.buffer.checkBounds} and
 * {@code checkAccessible} true; the accessibility check is a plain read since netty#8895) and
 * sampled leak detection ({@code SIMPLE}) unless switched off.
 */
final class NettyBlocks implements PooledBlocks {

    private final ByteBuf[] blocks;

    NettyBlocks(int blocks, int blockSize, boolean leakDetection) {
        if (!leakDetection) {
            ResourceLeakDetector.setLevel(ResourceLeakDetector.Level.DISABLED);
        }
        this.blocks = new ByteBuf[blocks];
        for (int b = 0; b < blocks; b++) {
            ByteBuf block = PooledByteBufAllocator.DEFAULT.directBuffer(blockSize, blockSize);
            for (int i = 0; i < blockSize; i += Long.BYTES) {
                block.setLong(i, PooledBlocks.valueAt(b, i, blockSize));
            }
            this.blocks[b] = block;
        }
    }

    @Override
    public long scan() {
        long sum = 0;
        for (ByteBuf block : blocks) {
            int size = block.capacity();
            for (int i = 0; i < size; i += Long.BYTES) {
                sum += block.getLong(i);
            }
        }
        return sum;
    }

    @Override
    public void retainRelease() {
        ByteBuf block = blocks[0];
        block.retain();
        block.release();
    }

    @Override
    public int refCount() {
        return blocks[0].refCnt();
    }

    @Override
    public void close() {
        for (ByteBuf block : blocks) {
            block.release();
        }
    }
}
