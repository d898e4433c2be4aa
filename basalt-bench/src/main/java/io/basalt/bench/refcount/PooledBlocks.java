package io.basalt.bench.refcount;

/**
 * Blocks of pooled off-heap memory from one implementation, all filled with the same longs: the
 * adapter per {@code impl} of the {@code refcount} suite. Each adapter reads its blocks the way a
 * user of that library would, with that library's own checks.
 */
public interface PooledBlocks extends AutoCloseable {

    /** The sum of every long of every block, read big-endian through the implementation's accessor. */
    long scan();

    /** One retain and one release of the first block, which stays live (its count goes 1, 2, 1). */
    void retainRelease();

    /** The first block's reference count. */
    int refCount();

    /** Releases every block and frees the pool's memory. */
    @Override
    void close();

    /**
     * {@code blocks} blocks of {@code blockSize} bytes (a multiple of 8) for an {@code impl}
     * parameter value. With {@code leakDetection} each library keeps its production default
     * (Basalt, HBase and Netty all sample 1 buffer in 128); without it, each library's leak
     * detector is off, so that what is measured does not depend on whether the one buffer a
     * retain/release benchmark uses happened to be sampled.
     */
    static PooledBlocks of(String impl, int blocks, int blockSize, boolean leakDetection) {
        return switch (impl) {
            case "raw" -> new RawBlocks(blocks, blockSize);
            case "basalt" -> new BasaltBlocks(blocks, blockSize, leakDetection);
            case "hbase-2.6.4" -> new HBaseBlocks(blocks, blockSize, leakDetection);
            case "netty" -> new NettyBlocks(blocks, blockSize, leakDetection);
            default -> throw new IllegalArgumentException("unknown impl " + impl);
        };
    }

    /** The long every implementation stores at byte {@code index} of block {@code block}. */
    static long valueAt(int block, int index, int blockSize) {
        long position = (long) block * blockSize + index;
        return position * 0x9E37_79B9_7F4A_7C15L;
    }
}
