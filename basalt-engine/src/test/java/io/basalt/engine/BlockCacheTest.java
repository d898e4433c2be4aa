package io.basalt.engine;

import static org.assertj.core.api.Assertions.assertThat;

import io.basalt.cell.Cell;
import io.basalt.client.FamilyDescriptor;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class BlockCacheTest {

    @TempDir
    Path dir;

    /** Room for two 64 KiB blocks. */
    private final BlockCache cache = new BlockCache(2 * BlockCache.CHUNK_SIZE, "test");
    private SSTableReader file;

    @AfterEach
    void close() {
        if (file != null) {
            file.release();
        }
        cache.close();
    }

    /** A file of 64 KiB blocks, each one chunk. */
    private SSTableReader sixBlocks() throws Exception {
        Path path = dir.resolve("t.sst");
        try (SSTableWriter writer = new SSTableWriter(path, FamilyDescriptor.of("f"), 6000)) {
            for (int i = 0; i < 6000; i++) {
                writer.add(Cell.put(String.format("row%06d", i), "f", "q", 1, "v".repeat(50)), i + 1);
            }
            writer.finish();
        }
        file = SSTableReader.open(1, path, cache);
        assertThat(file.blockCount()).isGreaterThanOrEqualTo(6);
        return file;
    }

    private static byte[] contentOf(Block block) {
        byte[] bytes = new byte[block.size()];
        block.copyTo(0, bytes, 0, bytes.length);
        return bytes;
    }

    @Test
    void evictionNeverFreesABlockAReaderHolds() throws Exception {
        SSTableReader f = sixBlocks();
        Block pinned = cache.get(f, 0);
        byte[] expected = f.loadDataBlock(0);
        for (int i = 1; i < f.blockCount(); i++) {
            cache.get(f, i).release();
        }
        assertThat(cache.bytes()).isLessThanOrEqualTo(2L * BlockCache.CHUNK_SIZE);
        assertThat(contentOf(pinned)).as("still the block's bytes after it was evicted").isEqualTo(expected);
        int inUse = cache.poolMetrics().chunksInUse();
        pinned.release();
        assertThat(cache.poolMetrics().chunksInUse()).as("the last release recycles the chunk").isEqualTo(inUse - 1);
    }

    @Test
    void hitsServeTheSameBytesWithoutReadingTheFile() throws Exception {
        SSTableReader f = sixBlocks();
        Block first = cache.get(f, 2);
        long misses = cache.misses();
        Block second = cache.get(f, 2);
        assertThat(cache.misses()).isEqualTo(misses);
        assertThat(cache.hits()).isEqualTo(1);
        assertThat(contentOf(second)).isEqualTo(contentOf(first)).isEqualTo(f.loadDataBlock(2));
        first.release();
        second.release();
    }

    @Test
    void aFullPoolOfPinnedBlocksServesFromTheHeap() throws Exception {
        SSTableReader f = sixBlocks();
        BlockCache tiny = new BlockCache(BlockCache.CHUNK_SIZE, "tiny");
        SSTableReader g = SSTableReader.open(2, f.path(), tiny);
        try {
            Block[] held = new Block[3];
            for (int i = 0; i < held.length; i++) {
                held[i] = tiny.get(g, i);
            }
            assertThat(tiny.uncached()).isPositive();
            for (int i = 0; i < held.length; i++) {
                assertThat(contentOf(held[i])).isEqualTo(g.loadDataBlock(i));
                held[i].release();
            }
        } finally {
            g.release();
            tiny.close();
        }
    }

    @Test
    void defaultBlocksFitOneChunk() throws Exception {
        SSTableReader f = sixBlocks();
        for (int i = 0; i < f.blockCount(); i++) {
            assertThat(f.loadDataBlock(i).length).isLessThanOrEqualTo(FamilyDescriptor.DEFAULT_BLOCK_SIZE);
        }
    }
}
