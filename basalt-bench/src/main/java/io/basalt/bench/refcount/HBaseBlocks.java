package io.basalt.bench.refcount;

import org.apache.hadoop.hbase.io.ByteBuffAllocator;
import org.apache.hadoop.hbase.nio.SingleByteBuff;
import org.apache.hbase.thirdparty.io.netty.util.ResourceLeakDetector;

/**
 * {@code hbase-2.6.4}: HBase's {@link ByteBuffAllocator} with its reservoir (pool) on, handing out
 * direct {@code ByteBuffer}s of the block size as {@link SingleByteBuff}s, read through
 * {@link SingleByteBuff#getLong(int)}, which calls {@code checkRefCount()} (a volatile read of the
 * count) on every call: the cost HBASE-27730 describes. The allocator is built with its own
 * constructor (what {@code ByteBuffAllocator.create(conf, true)} ends up calling) so that no Hadoop
 * {@code Configuration} is needed.
 */
final class HBaseBlocks implements PooledBlocks {

    private final ByteBuffAllocator allocator;
    private final SingleByteBuff[] blocks;

    HBaseBlocks(int blocks, int blockSize, boolean leakDetection) {
        if (!leakDetection) {
            // HBase's RefCnt tracks through its shaded copy of Netty's detector; a sampled RefCnt
            // records a stack trace on every retain and release.
            ResourceLeakDetector.setLevel(ResourceLeakDetector.Level.DISABLED);
        }
        // reservoirEnabled, maxBufCount, bufSize, minSizeForReservoirUse (HBase's default: bufSize / 6)
        allocator = new ByteBuffAllocator(true, blocks, blockSize, blockSize / 6) {};
        this.blocks = new SingleByteBuff[blocks];
        for (int b = 0; b < blocks; b++) {
            SingleByteBuff block = allocator.allocateOneBuffer();
            if (block.hasArray()) {
                throw new IllegalStateException("HBase's allocator fell back to the heap; the pool is too small");
            }
            for (int i = 0; i < blockSize; i += Long.BYTES) {
                block.putLong(PooledBlocks.valueAt(b, i, blockSize));
            }
            block.rewind();
            this.blocks[b] = block;
        }
    }

    @Override
    public long scan() {
        long sum = 0;
        for (SingleByteBuff block : blocks) {
            int size = block.capacity();
            for (int i = 0; i < size; i += Long.BYTES) {
                sum += block.getLong(i);
            }
        }
        return sum;
    }

    @Override
    public void retainRelease() {
        SingleByteBuff block = blocks[0];
        block.retain();
        block.release();
    }

    @Override
    public int refCount() {
        return blocks[0].refCnt();
    }

    @Override
    public void close() {
        for (SingleByteBuff block : blocks) {
            block.release();
        }
        allocator.clean();
    }
}
