package io.basalt.engine;

import io.basalt.buffer.Buffer;
import io.basalt.buffer.BufferPool;
import io.basalt.buffer.BufferPoolConfig;
import io.basalt.buffer.BufferPoolExhaustedException;
import io.basalt.buffer.BufferPoolMetrics;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Recently read SSTable data blocks, off-heap in a {@link BufferPool} of the cache's size, least
 * recently used evicted first.
 *
 * <p><b>Pinning.</b> The cache holds one reference to each cached buffer; every reader that gets a
 * block takes its own ({@link Buffer#retain()}) and gives it back with {@link Block#release()}.
 * Eviction drops only the cache's reference, so a block a reader still holds stays valid and its
 * chunks return to the pool when the last reader lets go (the count reaching zero recycles them
 * exactly once). Reading a cached block costs a plain field read per access on top of the bounds
 * check (see {@code io.basalt.buffer.Buffer} and the {@code refcount} benchmark).
 *
 * <p><b>Size.</b> The pool holds the cache's capacity, in 64 KiB chunks: the default block size
 * (SSTable blocks are cut so their content never exceeds the family's block size), so a default
 * block is one single-segment buffer. Cached blocks are bounded by the capacity in bytes; evicted
 * blocks that readers still pin keep their chunks until released, within the same pool. When the
 * pool has no room, least recently used blocks are evicted until it has; a block that still cannot
 * be placed (every chunk pinned by readers) is served from the heap, uncached. A family with small
 * blocks still takes a whole chunk per cached block.
 */
final class BlockCache implements AutoCloseable {

    static final int CHUNK_SIZE = 64 * 1024;
    static final int SLAB_SIZE = 4 * 1024 * 1024;

    private record Key(SSTableReader file, int block) {}

    private final long capacity;
    private final BufferPool pool;
    private final LinkedHashMap<Key, Buffer> blocks = new LinkedHashMap<>(1024, 0.75f, true);
    private long bytes;
    private boolean closed;
    private final AtomicLong hits = new AtomicLong();
    private final AtomicLong misses = new AtomicLong();
    private final AtomicLong uncached = new AtomicLong();

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
    }

    /** The block, pinned for the caller; from the cache or read from the file. */
    Block get(SSTableReader file, int block) {
        Key key = new Key(file, block);
        if (pool != null) {
            synchronized (this) {
                Buffer cached = blocks.get(key);
                if (cached != null) {
                    hits.incrementAndGet();
                    return new Block.Pooled(cached.retain());
                }
            }
        }
        misses.incrementAndGet();
        byte[] content;
        try {
            content = file.loadDataBlock(block);
        } catch (IOException e) {
            throw new UncheckedIOException("reading block " + block + " of " + file.path() + ": " + e.getMessage(), e);
        }
        if (pool == null || content.length > capacity) {
            uncached.incrementAndGet();
            return new Block.Heap(content);
        }
        synchronized (this) {
            if (closed) {
                return new Block.Heap(content);
            }
            Buffer raced = blocks.get(key);
            if (raced != null) {
                return new Block.Pooled(raced.retain());
            }
            Buffer buffer = allocate(content.length);
            if (buffer == null) {
                uncached.incrementAndGet();
                return new Block.Heap(content);
            }
            buffer.putBytes(0, content, 0, content.length);
            blocks.put(key, buffer); // the cache's own reference
            bytes += content.length;
            evictOver(capacity);
            return new Block.Pooled(buffer.retain());
        }
    }

    /** A buffer from the pool, evicting to make room; null when even that cannot free enough. */
    private Buffer allocate(int size) {
        while (true) {
            try {
                return pool.allocate(size);
            } catch (BufferPoolExhaustedException e) {
                if (blocks.isEmpty()) {
                    return null;
                }
                evictOne();
            }
        }
    }

    private void evictOver(long limit) {
        while (bytes > limit && !blocks.isEmpty()) {
            evictOne();
        }
    }

    private void evictOne() {
        Iterator<Map.Entry<Key, Buffer>> eldest = blocks.entrySet().iterator();
        Buffer buffer = eldest.next().getValue();
        eldest.remove();
        bytes -= buffer.capacity();
        buffer.release();
    }

    /** Drops every block of a file that is being closed. */
    synchronized void evictFile(SSTableReader file) {
        Iterator<Map.Entry<Key, Buffer>> it = blocks.entrySet().iterator();
        while (it.hasNext()) {
            Map.Entry<Key, Buffer> e = it.next();
            if (e.getKey().file() == file) {
                it.remove();
                bytes -= e.getValue().capacity();
                e.getValue().release();
            }
        }
    }

    long hits() {
        return hits.get();
    }

    long misses() {
        return misses.get();
    }

    /** Blocks served from the heap because the cache is off, full of pinned blocks, or too small. */
    long uncached() {
        return uncached.get();
    }

    synchronized long bytes() {
        return bytes;
    }

    /** The pool's counters, or {@code null} when caching is off. */
    BufferPoolMetrics poolMetrics() {
        return pool == null ? null : pool.metrics();
    }

    /** Releases every cached block and the pool; readers must be done by now. */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        for (Buffer buffer : blocks.values()) {
            buffer.release();
        }
        blocks.clear();
        bytes = 0;
        if (pool != null) {
            pool.close();
        }
    }
}
