package io.basalt.bench.refcount;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.openjdk.jmh.annotations.Param;

class PooledBlocksTest {

    private static final int BLOCKS = 6;
    private static final int BLOCK_SIZE = RefcountBenchmark.BLOCK_SIZE;

    private static List<String> impls() throws NoSuchFieldException {
        return List.of(RefcountBenchmark.class.getField("impl").getAnnotation(Param.class).value());
    }

    @Test
    void everyImplementationSumsTheSameLongs() throws Exception {
        long expected = 0;
        for (int b = 0; b < BLOCKS; b++) {
            for (int i = 0; i < BLOCK_SIZE; i += Long.BYTES) {
                expected += PooledBlocks.valueAt(b, i, BLOCK_SIZE);
            }
        }
        assertThat(expected).isNotZero();
        assertThat(impls()).containsExactly("raw", "basalt", "hbase-2.6.4", "netty");
        for (String impl : impls()) {
            try (PooledBlocks blocks = PooledBlocks.of(impl, BLOCKS, BLOCK_SIZE, true)) {
                assertThat(blocks.scan()).as(impl).isEqualTo(expected);
            }
        }
    }

    @Test
    void retainReleaseLeavesEveryImplementationsBufferLiveWithOneReference() throws Exception {
        for (String impl : impls()) {
            try (PooledBlocks blocks = PooledBlocks.of(impl, 1, BLOCK_SIZE, false)) {
                assertThat(blocks.refCount()).as(impl).isEqualTo(1);
                for (int i = 0; i < 1000; i++) {
                    blocks.retainRelease();
                }
                assertThat(blocks.refCount()).as(impl).isEqualTo(1);
                assertThat(blocks.scan()).as(impl).isEqualTo(firstBlockSum());
            }
        }
    }

    private static long firstBlockSum() {
        long sum = 0;
        for (int i = 0; i < BLOCK_SIZE; i += Long.BYTES) {
            sum += PooledBlocks.valueAt(0, i, BLOCK_SIZE);
        }
        return sum;
    }
}
