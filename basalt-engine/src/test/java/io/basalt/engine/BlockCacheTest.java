package io.basalt.engine;

import static org.assertj.core.api.Assertions.assertThat;

import io.basalt.cell.Cell;
import io.basalt.client.FamilyDescriptor;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class BlockCacheTest {

    @TempDir
    Path dir;

    private static final int BLOCK = 64 * 1024;

    /** Room for two 64 KiB blocks. */
    private final BlockCache cache = new BlockCache(2 * BLOCK, "test");
    private SSTableReader file;

    @AfterEach
    void close() {
        if (file != null) {
            file.release();
        }
        cache.close();
    }

    /** A file of 64 KiB blocks, sixteen chunks each. */
    private SSTableReader sixBlocks() throws Exception {
        Path path = dir.resolve("t.sst");
        writeRows(path, FamilyDescriptor.of("f").withBlockSize(BLOCK), 6000);
        file = SSTableReader.open(1, path, cache);
        assertThat(file.blockCount()).isGreaterThanOrEqualTo(6);
        return file;
    }

    /** A file of {@code rows} rows of one 50-byte cell each. */
    private static void writeRows(Path path, FamilyDescriptor family, int rows) throws Exception {
        try (SSTableWriter writer = new SSTableWriter(path, family, rows)) {
            for (int i = 0; i < rows; i++) {
                writer.add(Cell.put(String.format("row%06d", i), "f", "q", 1, "v".repeat(50)), i + 1);
            }
            writer.finish();
        }
    }

    private static byte[] encoding(io.basalt.cell.EncodedCell cell) {
        return cell.segment().asSlice(cell.offset(), cell.encodedLength()).toArray(java.lang.foreign.ValueLayout.JAVA_BYTE);
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
        assertThat(cache.bytes()).isLessThanOrEqualTo(2L * BLOCK);
        assertThat(cache.evictions()).as("six blocks through a cache of two").isGreaterThanOrEqualTo(4);
        assertThat(cache.misses()).isGreaterThanOrEqualTo(6);
        assertThat(contentOf(pinned)).as("still the block's bytes after it was evicted").isEqualTo(expected);
        int inUse = cache.poolMetrics().chunksInUse();
        pinned.release();
        assertThat(cache.poolMetrics().chunksInUse()).as("the last release recycles the block's chunks")
                .isEqualTo(inUse - BlockCache.charge(expected.length) / BlockCache.CHUNK_SIZE);
    }

    @Test
    void anIteratorPinsNoCachedBlockBetweenCallsAndReadsOnAfterItsEviction() throws Exception {
        SSTableReader f = sixBlocks();
        int idle = cache.poolMetrics().chunksInUse();
        List<byte[]> read = new java.util.ArrayList<>();
        try (SSTableIterator it = new SSTableIterator(f)) {
            for (int i = 0; i < 3 && it.valid(); i++, it.next()) {
                read.add(it.cell().rowBytes());
            }
            // Every block of the file through a cache of two: the iterator's block is evicted.
            for (int i = 0; i < f.blockCount(); i++) {
                cache.get(f, i).release();
            }
            cache.evictFile(f);
            assertThat(cache.poolMetrics().chunksInUse()).as("no block held for the open iterator").isEqualTo(idle);
            for (; it.valid(); it.next()) {
                read.add(it.cell().rowBytes());
            }
        }
        assertThat(read).hasSize(6000);
        for (int i = 0; i < read.size(); i++) {
            assertThat(new String(read.get(i), java.nio.charset.StandardCharsets.UTF_8)).isEqualTo(String.format("row%06d", i));
        }
    }

    @Test
    void blockArraysAreReusedPerThreadAndBigEnough() {
        byte[] first = SSTableIterator.BlockArrays.take(10_000, null);
        assertThat(first.length).isGreaterThanOrEqualTo(10_000);
        SSTableIterator.BlockArrays.give(first);
        assertThat(SSTableIterator.BlockArrays.take(9_000, null)).as("the spare given back").isSameAs(first);
        SSTableIterator.BlockArrays.give(first);
        byte[] bigger = SSTableIterator.BlockArrays.take(first.length + 1, null);
        assertThat(bigger).isNotSameAs(first);
        assertThat(bigger.length).isGreaterThan(first.length);
        assertThat(SSTableIterator.BlockArrays.take(100, null)).as("the small spare is still there").isSameAs(first);
        byte[] huge = SSTableIterator.BlockArrays.take(SSTableIterator.BlockArrays.MAX_KEPT_BYTES + 1, null);
        assertThat(huge).hasSize(SSTableIterator.BlockArrays.MAX_KEPT_BYTES + 1);
        SSTableIterator.BlockArrays.give(huge);
        assertThat(SSTableIterator.BlockArrays.take(10, null)).as("a huge array is not kept").isNotSameAs(huge);
    }

    @Test
    void aScanOverEightFilesReusesEveryArray() throws Exception {
        // A scan holds one iterator per file of its region at once: eight given back are eight
        // taken again, on a thread of its own so other tests' spares do not count.
        java.util.Set<byte[]> again = java.util.Collections.newSetFromMap(new java.util.IdentityHashMap<>());
        java.util.Set<byte[]> first = java.util.Collections.newSetFromMap(new java.util.IdentityHashMap<>());
        Thread thread = Thread.ofPlatform().start(() -> {
            byte[][] arrays = new byte[8][];
            for (int i = 0; i < arrays.length; i++) {
                arrays[i] = SSTableIterator.BlockArrays.take(8192, null);
                first.add(arrays[i]);
            }
            for (byte[] array : arrays) {
                SSTableIterator.BlockArrays.give(array);
            }
            for (int i = 0; i < arrays.length; i++) {
                again.add(SSTableIterator.BlockArrays.take(8192, null));
            }
        });
        thread.join();
        assertThat(first).hasSize(8);
        assertThat(again).hasSize(8);
        assertThat(again.stream().filter(first::contains).count()).as("arrays taken again that were given back (by identity)")
                .isEqualTo(8);
    }

    @Test
    void aVirtualThreadKeepsNoBlockArrays() throws Exception {
        byte[][] taken = new byte[2][];
        Thread.ofVirtual().start(() -> {
            byte[] first = SSTableIterator.BlockArrays.take(1000, null);
            SSTableIterator.BlockArrays.give(first);
            taken[0] = first;
            taken[1] = SSTableIterator.BlockArrays.take(1000, null);
        }).join();
        assertThat(taken[1]).isNotNull().isNotSameAs(taken[0]);
    }

    @Test
    void aCompactionsReadsLeaveTheCacheAloneAndStillSeeEveryCell() throws Exception {
        SSTableReader f = sixBlocks();
        Block pinned = cache.get(f, 3);
        long misses = cache.misses();
        long hits = cache.hits();
        long bytes = cache.bytes();
        InternalIterator through = f.newIterator();
        InternalIterator uncached = f.newCompactionIterator();
        int cells = 0;
        try {
            while (uncached.valid()) {
                assertThat(through.valid()).isTrue();
                assertThat(encoding(uncached.cell())).isEqualTo(encoding(through.cell()));
                assertThat(uncached.sequence()).isEqualTo(through.sequence());
                cells++;
                uncached.next();
                through.next();
            }
            assertThat(through.valid()).as("both passes end together").isFalse();
        } finally {
            through.close();
            uncached.close();
        }
        assertThat(cells).isEqualTo(6000);
        // Now only the uncached pass, over a cache the first pass filled as far as it could.
        misses = cache.misses();
        hits = cache.hits();
        bytes = cache.bytes();
        long evictions = cache.evictions();
        InternalIterator again = f.newCompactionIterator();
        try {
            int n = 0;
            while (again.valid()) {
                n++;
                again.next();
            }
            assertThat(n).isEqualTo(6000);
        } finally {
            again.close();
        }
        assertThat(cache.misses()).as("a compaction's reads are not the cache's misses").isEqualTo(misses);
        assertThat(cache.hits()).as("nor its hits").isEqualTo(hits);
        assertThat(cache.evictions()).as("and evict nothing").isEqualTo(evictions);
        assertThat(cache.bytes()).isEqualTo(bytes);
        pinned.release();
        // A block the cache holds is taken from it; one it does not is read into the scratch.
        Block cached = cache.get(f, 1);
        cached.release();
        Block fromCache = f.dataBlockUncached(1, new SSTableReader.Scratch());
        Block fromFile = f.dataBlockUncached(5, new SSTableReader.Scratch());
        try {
            assertThat(fromCache).isInstanceOf(Block.Pooled.class);
            assertThat(fromFile).isInstanceOf(Block.Borrowed.class);
            assertThat(contentOf(fromCache)).isEqualTo(f.loadDataBlock(1));
            assertThat(contentOf(fromFile)).isEqualTo(f.loadDataBlock(5));
        } finally {
            fromCache.release();
            fromFile.release();
        }
    }

    /**
     * A default (8 KiB) block lies on disk, trailer included, within one chunk, so a miss reads it
     * straight into a pooled buffer: the block served is pooled and holds the file's bytes, and a
     * compressed family's blocks (decompressed on the heap first) read the same.
     */
    @Test
    void missesOfDefaultBlocksReadStraightIntoThePool() throws Exception {
        try (BlockCache big = new BlockCache(4L << 20, "direct")) {
            for (FamilyDescriptor family : List.of(FamilyDescriptor.of("f"),
                    FamilyDescriptor.of("f").withCompression(io.basalt.client.Compression.LZ4))) {
                Path path = dir.resolve("d-" + family.compression() + ".sst");
                writeRows(path, family, 3000);
                SSTableReader f = SSTableReader.open(7, path, big);
                try {
                    assertThat(f.blockCount()).isGreaterThan(3);
                    for (int i = 0; i < f.blockCount(); i++) {
                        if (family.compression() == io.basalt.client.Compression.NONE) {
                            assertThat(f.blockDiskSize(i)).as("block %d on disk", i)
                                    .isLessThanOrEqualTo(BlockCache.CHUNK_SIZE);
                        }
                        long misses = big.misses();
                        Block block = big.get(f, i);
                        try {
                            assertThat(big.misses()).isEqualTo(misses + 1);
                            assertThat(block).isInstanceOf(Block.Pooled.class);
                            assertThat(contentOf(block)).isEqualTo(f.loadDataBlock(i));
                        } finally {
                            block.release();
                        }
                        Block again = big.get(f, i);
                        assertThat(big.misses()).as("cached").isEqualTo(misses + 1);
                        again.release();
                    }
                } finally {
                    f.release();
                }
            }
        }
    }

    /**
     * A compressed block cannot be cached as read, so a miss that tried the pool first read it
     * twice; after a file's first compressed block its misses go straight to the heap path: one
     * file read per miss from then on.
     */
    @Test
    void aCompressedFilesMissesReadEachBlockOnceAfterTheFirst() throws Exception {
        Path path = dir.resolve("lz4.sst");
        writeRows(path, FamilyDescriptor.of("f").withCompression(io.basalt.client.Compression.LZ4), 3000);
        java.util.concurrent.atomic.AtomicInteger reads = new java.util.concurrent.atomic.AtomicInteger();
        Disk counting = (Disk) java.lang.reflect.Proxy.newProxyInstance(Disk.class.getClassLoader(),
                new Class<?>[] {Disk.class}, (proxy, method, args) -> {
                    Object answer = method.invoke(LocalDisk.INSTANCE, args);
                    if (!method.getName().equals("open")) {
                        return answer;
                    }
                    Disk.ReadableFile real = (Disk.ReadableFile) answer;
                    return java.lang.reflect.Proxy.newProxyInstance(Disk.class.getClassLoader(),
                            new Class<?>[] {Disk.ReadableFile.class}, (p2, m2, a2) -> {
                                if (m2.getName().equals("read")) {
                                    reads.incrementAndGet();
                                }
                                try {
                                    return m2.invoke(real, a2);
                                } catch (java.lang.reflect.InvocationTargetException e) {
                                    throw e.getCause();
                                }
                            });
                });
        try (BlockCache big = new BlockCache(4L << 20, "lz4")) {
            SSTableReader f = SSTableReader.open(10, path, big, counting);
            try {
                assertThat(f.blockCount()).isGreaterThan(3);
                big.get(f, 0).release();
                assertThat(f.compressedBlocks()).isTrue();
                for (int i = 1; i < f.blockCount(); i++) {
                    int before = reads.get();
                    Block block = big.get(f, i);
                    try {
                        assertThat(reads.get() - before).as("file reads for the miss of block %d", i).isEqualTo(1);
                        assertThat(contentOf(block)).isEqualTo(f.loadDataBlock(i));
                    } finally {
                        block.release();
                    }
                }
            } finally {
                f.release();
            }
        }
    }

    /**
     * A bit flipped anywhere in an uncompressed file's data blocks is reported by a read through a
     * pooled cache (the direct path checks the block where it landed), and the buffer it was read
     * into goes back to the pool: after every failure no chunk is left in use.
     */
    @Test
    void damageReadStraightIntoThePoolIsReportedAndItsBufferReturned() throws Exception {
        damageIsReportedAndTheBufferReturned(false);
    }

    /** The same through reads that do not wait, as a server's event loop makes them. */
    @Test
    void damageReadWithoutWaitingIsReportedAndItsBufferReturned() throws Exception {
        org.junit.jupiter.api.Assumptions.assumeTrue(NowaitReads.available(), "no reads that do not wait here");
        damageIsReportedAndTheBufferReturned(true);
    }

    private void damageIsReportedAndTheBufferReturned(boolean withoutWaiting) throws Exception {
        Path path = dir.resolve("clean.sst");
        writeRows(path, FamilyDescriptor.of("f"), 1500);
        byte[] original = java.nio.file.Files.readAllBytes(path);
        long dataEnd;
        try (BlockCache probe = new BlockCache(0, "probe")) {
            SSTableReader clean = SSTableReader.open(8, path, probe);
            dataEnd = 0;
            for (int i = 0; i < clean.blockCount(); i++) {
                dataEnd += clean.blockDiskSize(i);
            }
            clean.release();
        }
        java.util.Random random = new java.util.Random(3);
        Path damaged = dir.resolve("damaged.sst");
        for (int n = 0; n < 60; n++) {
            int at = random.nextInt((int) dataEnd);
            byte[] bytes = original.clone();
            bytes[at] ^= (byte) (1 << random.nextInt(8));
            java.nio.file.Files.write(damaged, bytes);
            try (BlockCache pooled = new BlockCache(4L << 20, "damaged")) {
                SSTableReader reader = SSTableReader.open(9, damaged, pooled);
                try {
                    int position = at;
                    Runnable readAll = () -> {
                        for (int i = 0; i < reader.blockCount(); i++) {
                            pooled.get(reader, i).release();
                        }
                    };
                    // The file was just written, so the OS holds it: a read that does not wait reads it.
                    org.assertj.core.api.Assertions.assertThatThrownBy(() -> {
                        if (withoutWaiting) {
                            io.basalt.client.spi.MemoryOnlyReads.attempt(0, () -> {
                                readAll.run();
                                return null;
                            });
                        } else {
                            readAll.run();
                        }
                    }).as("flip at byte %d", position).isInstanceOf(CorruptFileException.class)
                            .hasMessageContaining(damaged.toString());
                    pooled.evictFile(reader);
                    assertThat(pooled.poolMetrics().chunksInUse()).as("chunks in use after the failure").isZero();
                } finally {
                    reader.release();
                }
            }
        }
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
        BlockCache tiny = new BlockCache(BLOCK, "tiny");
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
    void defaultBlocksAreChargedNoMoreThanTheirSize() throws Exception {
        Path path = dir.resolve("small.sst");
        writeRows(path, FamilyDescriptor.of("f"), 2000);
        SSTableReader small = SSTableReader.open(3, path, cache);
        try {
            assertThat(small.blockCount()).isGreaterThan(5);
            for (int i = 0; i < small.blockCount(); i++) {
                int size = small.loadDataBlock(i).length;
                assertThat(size).isLessThanOrEqualTo(FamilyDescriptor.DEFAULT_BLOCK_SIZE);
                assertThat(BlockCache.charge(size)).isLessThanOrEqualTo(FamilyDescriptor.DEFAULT_BLOCK_SIZE)
                        .isGreaterThanOrEqualTo(size).isLessThan(size + BlockCache.CHUNK_SIZE);
            }
        } finally {
            small.release();
        }
    }

    /** A file of 4 KiB blocks read through the test's cache; the caller releases it. */
    private SSTableReader fourKiBBlocks(long fileNumber) throws Exception {
        Path path = dir.resolve("small.sst");
        writeRows(path, FamilyDescriptor.of("f").withBlockSize(4096), 6000);
        return SSTableReader.open(fileNumber, path, cache);
    }

    @Test
    void blocksAreChargedTheirWholeChunksAndTheCacheNeverHoldsMore() throws Exception {
        SSTableReader small = fourKiBBlocks(4);
        try {
            for (int i = 0; i < small.blockCount(); i++) {
                small.dataBlock(i).release();
                assertThat(cache.bytes()).isLessThanOrEqualTo(2L * BLOCK);
            }
            // The cache holds as many 4 KiB blocks as it has chunks; the last that many are hits.
            assertThat(cache.bytes()).isEqualTo(2L * BLOCK);
            long misses = cache.misses();
            int last = small.blockCount();
            int held = (int) (2L * BLOCK / BlockCache.CHUNK_SIZE);
            assertThat(cache.evictions()).as("once full, each miss evicts one block").isEqualTo(last - held);
            for (int i = last - held; i < last; i++) {
                small.dataBlock(i).release();
            }
            assertThat(cache.misses()).isEqualTo(misses);
            small.dataBlock(0).release();
            assertThat(cache.misses()).isEqualTo(misses + 1);
        } finally {
            small.release();
        }
    }

    /**
     * Eviction gives a block used since it came in a second chance: with the cache full, a miss
     * evicts the oldest block nobody used again, not the oldest block, and the used one goes on
     * being a hit.
     */
    @Test
    void aBlockUsedAgainOutlivesOlderAndNewerBlocksThatWereNot() throws Exception {
        SSTableReader small = fourKiBBlocks(5);
        try {
            int held = (int) (2L * BLOCK / BlockCache.CHUNK_SIZE);
            assertThat(small.blockCount()).isGreaterThan(held + 2);
            for (int i = 0; i < held; i++) {
                small.dataBlock(i).release();
            }
            small.dataBlock(0).release(); // a hit: block 0 is used again
            long misses = cache.misses();
            small.dataBlock(held).release(); // a miss into a full cache: evicts block 1, not 0
            small.dataBlock(held + 1).release(); // and then block 2
            assertThat(cache.misses()).isEqualTo(misses + 2);
            small.dataBlock(0).release();
            assertThat(cache.misses()).as("block 0 was kept").isEqualTo(misses + 2);
            small.dataBlock(3).release();
            assertThat(cache.misses()).as("block 3 too").isEqualTo(misses + 2);
            small.dataBlock(1).release();
            assertThat(cache.misses()).as("block 1 went first").isEqualTo(misses + 3);
        } finally {
            small.release();
        }
    }

    @Test
    void largeCachesAreShardedAndEachShardStillHoldsLargeBlocks() {
        assertThat(cache.shardCount()).isEqualTo(1);
        try (BlockCache big = new BlockCache(256L << 20, "big")) {
            assertThat(big.shardCount()).isEqualTo(BlockCache.MAX_SHARDS);
        }
        try (BlockCache middle = new BlockCache(12L << 20, "middle")) {
            assertThat(middle.shardCount()).isEqualTo(2);
        }
    }

    @Test
    void concurrentReadersOfEveryShardSeeTheFilesBytes() throws Exception {
        Path path = dir.resolve("many.sst");
        writeRows(path, FamilyDescriptor.of("f").withBlockSize(4096), 20000);
        try (BlockCache sharded = new BlockCache(16L << 20, "sharded")) {
            SSTableReader many = SSTableReader.open(5, path, sharded);
            try {
                byte[][] expected = new byte[many.blockCount()][];
                for (int i = 0; i < expected.length; i++) {
                    expected[i] = many.loadDataBlock(i);
                }
                java.util.List<Thread> readers = new java.util.ArrayList<>();
                java.util.concurrent.atomic.AtomicReference<Throwable> failure = new java.util.concurrent.atomic.AtomicReference<>();
                for (int t = 0; t < 4; t++) {
                    int seed = t;
                    readers.add(Thread.ofPlatform().start(() -> {
                        java.util.SplittableRandom random = new java.util.SplittableRandom(seed);
                        try {
                            for (int n = 0; n < 5000; n++) {
                                int i = random.nextInt(expected.length);
                                Block block = many.dataBlock(i);
                                try {
                                    assertThat(contentOf(block)).isEqualTo(expected[i]);
                                } finally {
                                    block.release();
                                }
                            }
                        } catch (Throwable e) {
                            failure.compareAndSet(null, e);
                        }
                    }));
                }
                for (Thread r : readers) {
                    r.join();
                }
                assertThat(failure.get()).isNull();
                assertThat(sharded.shardCount()).isEqualTo(4);
                assertThat(sharded.hits()).isPositive();
            } finally {
                many.release();
            }
        }
    }
}
