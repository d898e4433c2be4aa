package io.basalt.buffer;

import io.basalt.buffer.BufferPoolConfig.Exhaustion;

/** Small pools for tests: chunks of a few bytes make several-chunk buffers and chunk boundaries cheap. */
final class TestPools {

    private TestPools() {}

    /** A pool of {@code chunkSize}-byte chunks, four per slab, at most {@code maxChunks} (a multiple of 4). */
    static BufferPool pool(int chunkSize, int maxChunks) {
        return BufferPool.create(config(chunkSize, maxChunks));
    }

    static BufferPoolConfig config(int chunkSize, int maxChunks) {
        return BufferPoolConfig.defaults().withName("test-" + chunkSize)
                .withSizes(chunkSize * 4, chunkSize, (long) chunkSize * maxChunks)
                .withExhaustion(Exhaustion.FAIL, 0);
    }

    /** The shapes a buffer can take, for tests that run against each. */
    enum Shape {
        /** 200 bytes in one 256-byte chunk. */
        ONE_CHUNK(256, 200, 0),
        /** 200 bytes over thirteen 16-byte chunks, the last one partly used. */
        SEVERAL_CHUNKS(16, 200, 0),
        /** A 200-byte slice starting mid-chunk of a 300-byte several-chunk buffer. */
        SLICE_OF_SEVERAL_CHUNKS(16, 300, 37),
        /** A 200-byte slice of a one-chunk buffer. */
        SLICE_OF_ONE_CHUNK(512, 300, 37);

        static final int CAPACITY = 200;

        final int chunkSize;
        final int allocation;
        final int sliceAt;

        Shape(int chunkSize, int allocation, int sliceAt) {
            this.chunkSize = chunkSize;
            this.allocation = allocation;
            this.sliceAt = sliceAt;
        }

        Fixture make() {
            BufferPool pool = pool(chunkSize, 64);
            Buffer allocated = pool.allocate(allocation);
            Buffer view = allocation == CAPACITY ? allocated : allocated.slice(sliceAt, CAPACITY);
            return new Fixture(pool, view);
        }
    }

    /** A buffer and its pool; closing releases what the test left and closes the pool. */
    record Fixture(BufferPool pool, Buffer buffer) implements AutoCloseable {
        @Override
        public void close() {
            while (buffer.refCount() > 0) {
                buffer.release();
            }
            pool.close();
        }
    }
}
