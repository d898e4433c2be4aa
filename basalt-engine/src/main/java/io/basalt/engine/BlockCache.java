package io.basalt.engine;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.foreign.MemorySegment;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Recently read SSTable data blocks, bounded in bytes, least recently used evicted first.
 *
 * <p>Every block handed out is pinned: eviction removes a block from the cache but its memory
 * stays valid until the last reader releases it. Hits and misses are counted for the metrics.
 */
final class BlockCache {

    private record Key(SSTableReader file, int block) {}

    /** A cached block: its content and a count of readers plus one for the cache itself. */
    private static final class Entry implements Block {
        final MemorySegment content;
        final AtomicLong pins = new AtomicLong(1); // the reader that loaded it

        Entry(MemorySegment content) {
            this.content = content;
        }

        @Override
        public MemorySegment content() {
            return content;
        }

        @Override
        public void release() {
            if (pins.decrementAndGet() < 0) {
                throw new IllegalStateException("block released more often than pinned");
            }
        }
    }

    private final long capacity;
    private final LinkedHashMap<Key, Entry> blocks = new LinkedHashMap<>(1024, 0.75f, true);
    private long bytes;
    private final AtomicLong hits = new AtomicLong();
    private final AtomicLong misses = new AtomicLong();

    BlockCache(long capacity) {
        this.capacity = capacity;
    }

    /** The block, pinned; from the cache or read from the file. */
    Block get(SSTableReader file, int block) {
        Key key = new Key(file, block);
        synchronized (this) {
            Entry entry = blocks.get(key);
            if (entry != null) {
                entry.pins.incrementAndGet();
                hits.incrementAndGet();
                return entry;
            }
        }
        misses.incrementAndGet();
        byte[] content;
        try {
            content = file.loadDataBlock(block);
        } catch (IOException e) {
            throw new UncheckedIOException("reading block " + block + " of " + file.path() + ": " + e.getMessage(), e);
        }
        Entry loaded = new Entry(MemorySegment.ofArray(content));
        if (capacity > 0 && content.length <= capacity) {
            synchronized (this) {
                if (blocks.putIfAbsent(key, loaded) == null) {
                    loaded.pins.incrementAndGet(); // the cache's own pin, dropped on eviction
                    bytes += content.length;
                    evict();
                }
            }
        }
        return loaded;
    }

    private void evict() {
        Iterator<Map.Entry<Key, Entry>> eldest = blocks.entrySet().iterator();
        while (bytes > capacity && eldest.hasNext()) {
            Entry entry = eldest.next().getValue();
            eldest.remove();
            bytes -= entry.content.byteSize();
            entry.release();
        }
    }

    /** Drops every block of a closed file. */
    synchronized void evictFile(SSTableReader file) {
        Iterator<Map.Entry<Key, Entry>> it = blocks.entrySet().iterator();
        while (it.hasNext()) {
            Map.Entry<Key, Entry> e = it.next();
            if (e.getKey().file() == file) {
                it.remove();
                bytes -= e.getValue().content.byteSize();
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

    synchronized long bytes() {
        return bytes;
    }
}
