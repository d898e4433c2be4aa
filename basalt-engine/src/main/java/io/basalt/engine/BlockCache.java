package io.basalt.engine;

import io.basalt.buffer.Buffer;
import io.basalt.buffer.BufferPool;
import io.basalt.buffer.BufferPoolConfig;
import io.basalt.buffer.BufferPoolMetrics;
import io.basalt.client.spi.MemoryOnlyReads;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;

/**
 * Recently read SSTable data blocks, off-heap in a {@link BufferPool} of the cache's size, evicted
 * by second chance: the oldest block not used since it came in (or since it was last passed over)
 * goes first ({@link BlockTable}).
 *
 * <p><b>Pinning.</b> The cache holds one reference to each cached buffer; every reader that gets a
 * block takes its own ({@link Buffer#retain()}) and gives it back with {@link Block#release()}.
 * Eviction drops only the cache's reference, so a block a reader still holds stays valid and its
 * chunks return to the pool when the last reader lets go (the count reaching zero recycles them
 * exactly once). Reading a cached block costs a plain field read per access on top of the bounds
 * check (see {@code io.basalt.buffer.Buffer} and the {@code refcount} benchmark).
 *
 * <p><b>Size.</b> The pool holds the cache's capacity in chunks of the default block size (8 KiB):
 * SSTable blocks are cut before their content passes the family's block size, so a default block
 * is one chunk, a single-segment buffer (the fast shape to read; when chunks were a quarter of the
 * default block, a block spanned four, and the multi-chunk accessors took a tenth of a read-only
 * run). A 64 KiB block takes eight chunks; a 4 KiB block still takes a whole chunk. Each block is charged its chunks, so
 * the bytes the cache holds never exceed the memory it was given. Evicted blocks that readers still pin keep their chunks until released, within the
 * same pool. When the pool has no room, blocks are evicted until it has; a
 * block that still cannot be placed (every chunk pinned by readers) is served from the heap,
 * uncached.
 *
 * <p><b>Shards.</b> Every hit marks its block used, a write under a lock (it moved the block to
 * the head of an LRU list until the thirteenth session). One lock for the whole cache made readers queue behind each other (YCSB's read-only workload at
 * 8 threads spent a fifth of its samples in the cache); the cache is split into up to
 * {@link #MAX_SHARDS} shards by block, each with its own lock, table and share of the capacity, as
 * RocksDB's LRU cache is. Small caches (under 4 MiB per shard) have fewer shards, so one large
 * block still fits one.
 */
final class BlockCache implements AutoCloseable {

    static final int CHUNK_SIZE = io.basalt.client.FamilyDescriptor.DEFAULT_BLOCK_SIZE;
    static final int SLAB_SIZE = 4 * 1024 * 1024;
    static final int MAX_SHARDS = 16;
    /** The least capacity a shard gets, so a large block (64 KiB and more) still has room. */
    static final long MIN_SHARD_CAPACITY = 4L << 20;

    /** Cache ids of files ({@link #newFileId}): unique in the JVM, so a key never names two files. */
    private static final AtomicInteger FILE_IDS = new AtomicInteger();

    /**
     * One lock's worth of the cache: its blocks and the bytes they are charged. Every block is
     * charged at least a chunk, so the shard holds at most its capacity in chunks, plus one block
     * per miss placed while another made room; the table is sized for that with room to spare,
     * and an insert into a table three quarters full evicts first all the same.
     */
    private static final class Shard {
        final BlockTable blocks;
        final long capacity;
        long bytes;

        Shard(long capacity) {
            this.capacity = capacity;
            this.blocks = new BlockTable((int) Math.min(1 << 28, capacity / CHUNK_SIZE + 64));
        }
    }

    /** A cache id for a newly opened file: never 0 (a key's file part is never 0, the table's empty mark). */
    static int newFileId() {
        int id;
        do {
            id = FILE_IDS.incrementAndGet();
        } while (id == 0);
        return id;
    }

    private final long capacity;
    private final BufferPool pool;
    private final Shard[] shards;
    private volatile boolean closed;
    // Counted on every read: adders, so readers on different cores never share a counter's line.
    private final LongAdder hits = new LongAdder();
    private final LongAdder misses = new LongAdder();
    private final LongAdder uncached = new LongAdder();
    /** Written under a shard's lock; the shards' own, so evicting never shares a line across shards. */
    private final LongAdder evictions = new LongAdder();
    /** Misses reading straight into a pooled buffer outside any lock; {@link #close()} waits for them before it frees the pool. */
    private final java.util.concurrent.atomic.AtomicInteger directReads = new java.util.concurrent.atomic.AtomicInteger();

    /** A cache of {@code capacity} bytes (0 turns caching off: every read goes to the file). */
    BlockCache(long capacity, String name) {
        this.capacity = capacity;
        // The pool holds exactly the capacity (in whole chunks): cached blocks plus evicted blocks
        // that readers still pin never take more memory than the cache was given.
        long chunks = Math.max(1, (capacity + CHUNK_SIZE - 1) / CHUNK_SIZE);
        int slab = (int) Math.min(SLAB_SIZE, chunks * CHUNK_SIZE);
        long memory = (chunks * CHUNK_SIZE + slab - 1) / slab * slab;
        this.pool = capacity == 0 ? null : BufferPool.create(BufferPoolConfig.defaults().withName(name)
                .withSizes(slab, CHUNK_SIZE, memory));
        int count = (int) Math.max(1, Math.min(MAX_SHARDS, capacity / MIN_SHARD_CAPACITY));
        count = Integer.highestOneBit(count);
        this.shards = new Shard[count];
        for (int i = 0; i < count; i++) {
            shards[i] = new Shard(capacity / count);
        }
    }

    /** How many shards the cache has (for tests). */
    int shardCount() {
        return shards.length;
    }

    private Shard shardOf(long key) {
        // Bits from 32 up choose the shard; a table's slot comes from the low bits of the same
        // hash (a table has at most 2^30 slots), so the two choices are independent.
        return shards[(int) (BlockTable.mix(key) >>> 32) & (shards.length - 1)];
    }

    /** What a block of {@code size} bytes is charged: its whole chunks. */
    static long charge(int size) {
        return (long) Math.max(1, (size + CHUNK_SIZE - 1) / CHUNK_SIZE) * CHUNK_SIZE;
    }

    /**
     * The block pinned for the caller when the cache holds it, else null; counts neither a hit
     * nor a miss (the cache's hit rate is the gets' and scans'), and does not mark the block used
     * (a compaction's read gives it no second chance). Compactions read their inputs this way:
     * the blocks of a file being compacted leave the cache when the file closes.
     */
    Block getIfCached(SSTableReader file, int block) {
        if (pool == null) {
            return null;
        }
        long key = BlockTable.key(file.cacheId(), block);
        Shard shard = shardOf(key);
        synchronized (shard) {
            int slot = shard.blocks.find(key);
            return slot < 0 ? null : new Block.Pooled(shard.blocks.buffer(slot).retain());
        }
    }

    /** The block, pinned for the caller; from the cache or read from the file. */
    Block get(SSTableReader file, int block) {
        long key = BlockTable.key(file.cacheId(), block);
        Shard shard = shardOf(key);
        if (pool != null) {
            synchronized (shard) {
                int slot = shard.blocks.find(key);
                if (slot >= 0) {
                    hits.increment();
                    return new Block.Pooled(shard.blocks.use(slot).retain());
                }
            }
        }
        boolean direct = pool != null && file.blockDiskSize(block) <= CHUNK_SIZE && !file.compressedBlocks();
        if (MemoryOnlyReads.active()) {
            // A thread that must not wait reads the block only if the OS holds it (NowaitReads).
            Block read = direct ? readIntoPool(file, block, key, shard, true) : null;
            if (read == null) {
                MemoryOnlyReads.beforeDiskRead(); // throws: a worker reads it, and counts the miss
            }
            misses.increment();
            return read;
        }
        misses.increment();
        if (direct) {
            Block read = readIntoPool(file, block, key, shard, false);
            if (read != null) {
                return read;
            }
        }
        MemorySegment content; // valid until this thread reads another block
        try {
            content = file.loadDataBlockScratch(block);
        } catch (IOException e) {
            throw new UncheckedIOException("reading block " + block + " of " + file.path() + ": " + e.getMessage(), e);
        }
        int length = (int) content.byteSize();
        long charge = charge(length);
        if (pool == null || charge > shard.capacity) {
            uncached.increment();
            return new Block.Heap(content.toArray(ValueLayout.JAVA_BYTE));
        }
        synchronized (shard) {
            if (closed) {
                return new Block.Heap(content.toArray(ValueLayout.JAVA_BYTE));
            }
            int raced = shard.blocks.find(key);
            if (raced >= 0) {
                return new Block.Pooled(shard.blocks.use(raced).retain());
            }
            // Room first: with every shard at its share the pool is full, and allocating before
            // evicting failed (an exception with its stack trace) on every miss of a full cache.
            evictOver(shard, shard.capacity - charge);
            Buffer buffer = allocate(shard, length);
            if (buffer == null) {
                uncached.increment();
                return new Block.Heap(content.toArray(ValueLayout.JAVA_BYTE));
            }
            buffer.putBytes(0, content, 0, length);
            makeSlot(shard);
            shard.blocks.put(key, buffer); // the cache's own reference
            shard.bytes += charge;
            return new Block.Pooled(buffer.retain());
        }
    }

    /**
     * The miss path for a block whose payload and trailer fit one chunk: reads it from the file
     * straight into a pooled buffer, checks it there and caches it, pinned for the caller; null
     * when it could not (no room, a compressed block, the cache closed), and the caller reads it
     * the other way.
     *
     * <p>Why: through the thread's scratch buffer, every miss copied its block once more, under
     * the shard's lock; in YCSB's read-only workload that copy was about a tenth of the samples.
     * The lock is now held only to make room and to insert, not across the read.
     *
     * <p>{@code ifCached}: read the block only if the OS holds it in memory
     * ({@link SSTableReader#readIfCached}), returning null when it does not.
     */
    private Block readIntoPool(SSTableReader file, int block, long key, Shard shard, boolean ifCached) {
        int onDisk = file.blockDiskSize(block);
        Buffer raw;
        synchronized (shard) {
            if (closed) {
                return null;
            }
            evictOver(shard, shard.capacity - CHUNK_SIZE);
            raw = allocate(shard, onDisk);
            if (raw == null) {
                return null;
            }
            directReads.incrementAndGet(); // under the lock, before close can pass this shard
        }
        try {
            return readIntoPool(file, block, key, shard, raw, onDisk, ifCached);
        } finally {
            directReads.decrementAndGet();
        }
    }

    private Block readIntoPool(SSTableReader file, int block, long key, Shard shard, Buffer raw, int onDisk,
                               boolean ifCached) {
        Buffer content;
        try {
            java.nio.ByteBuffer target = raw.nioBuffer(0, onDisk);
            int length = target == null ? -1
                    : ifCached ? file.readIfCached(block, target) : file.readChecked(block, target);
            int payload = onDisk - SSTableLayout.BLOCK_TRAILER_SIZE;
            if (length != payload || raw.getByte(payload) != SSTableLayout.COMPRESSION_NONE) {
                raw.release(); // compressed (decompressed through the heap instead, once per file: see compressedBlocks), or not in the OS's memory
                return null;
            }
            content = raw.slice(0, payload);
        } catch (IOException e) {
            raw.release();
            throw new UncheckedIOException("reading block " + block + " of " + file.path() + ": " + e.getMessage(), e);
        } catch (RuntimeException | Error e) {
            raw.release();
            throw e;
        }
        synchronized (shard) {
            if (closed) {
                content.release();
                return null; // the caller reads it onto the heap
            }
            int raced = shard.blocks.find(key);
            if (raced >= 0) {
                content.release();
                return new Block.Pooled(shard.blocks.use(raced).retain());
            }
            makeSlot(shard);
            shard.blocks.put(key, content); // the cache's own reference: the allocation's
            shard.bytes += charge(content.capacity());
            return new Block.Pooled(content.retain());
        }
    }

    /**
     * A buffer from the pool, evicting the shard's blocks to make room; null when that cannot free
     * enough. The pool can be full while this shard is under its share: blocks evicted while
     * readers pinned them, and other shards' misses reading outside their locks, hold chunks no
     * shard is charged for. Under a scan-heavy load that was most misses, and each failed try
     * threw (thousands of exceptions a second), so the pool is asked without one.
     */
    private Buffer allocate(Shard shard, int size) {
        while (true) {
            Buffer buffer = pool.tryAllocate(size);
            if (buffer != null || shard.blocks.size() == 0) {
                return buffer;
            }
            evictOne(shard);
        }
    }

    /** Evicts the shard's blocks, oldest unused first, until it is charged at most {@code limit}. */
    private void evictOver(Shard shard, long limit) {
        while (shard.bytes > limit && shard.blocks.size() > 0) {
            evictOne(shard);
        }
    }

    /** Evicts until the shard's table takes one more block (rarely needed: see {@link Shard}). */
    private void makeSlot(Shard shard) {
        while (shard.blocks.full()) {
            evictOne(shard);
        }
    }

    private void evictOne(Shard shard) {
        evictions.increment();
        Buffer buffer = shard.blocks.removeAt(shard.blocks.victim());
        shard.bytes -= charge(buffer.capacity());
        buffer.release();
    }

    /** Drops every block of a file that is being closed. */
    void evictFile(SSTableReader file) {
        for (Shard shard : shards) {
            synchronized (shard) {
                for (long key : shard.blocks.keysOf(file.cacheId())) {
                    Buffer buffer = shard.blocks.removeAt(shard.blocks.find(key));
                    shard.bytes -= charge(buffer.capacity());
                    buffer.release();
                }
            }
        }
    }

    long hits() {
        return hits.sum();
    }

    long misses() {
        return misses.sum();
    }

    /** Blocks evicted to make room (not those dropped with their file). */
    long evictions() {
        return evictions.sum();
    }

    /** The bytes the cache may hold. */
    long capacity() {
        return capacity;
    }


    /** Blocks served from the heap because the cache is off, full of pinned blocks, or too small. */
    long uncached() {
        return uncached.sum();
    }

    /** Bytes the cached blocks are charged (whole chunks), all shards together. */
    long bytes() {
        long sum = 0;
        for (Shard shard : shards) {
            synchronized (shard) {
                sum += shard.bytes;
            }
        }
        return sum;
    }

    /** The pool's counters, or {@code null} when caching is off. */
    BufferPoolMetrics poolMetrics() {
        return pool == null ? null : pool.metrics();
    }

    /** Releases every cached block and the pool; readers must be done by now. */
    @Override
    public void close() {
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
        }
        // A reader checks the flag under its shard's lock: one that placed a block before this
        // loop reached its shard has it released here, one after sees the flag and keeps it on the heap.
        for (Shard shard : shards) {
            synchronized (shard) {
                shard.blocks.drain(Buffer::release);
                shard.bytes = 0;
            }
        }
        if (pool != null) {
            // A miss reading into a pooled buffer holds no lock while it reads; it registered
            // under its shard's lock before the loop above passed it, so after the loop none
            // starts, and the pool's memory is freed only once those reading are done.
            long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(10);
            while (directReads.get() > 0 && System.nanoTime() < deadline) {
                Thread.onSpinWait();
                Thread.yield();
            }
            pool.close();
        }
    }
}
