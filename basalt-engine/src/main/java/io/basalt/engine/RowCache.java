package io.basalt.engine;

import io.basalt.cell.Cell;
import io.basalt.cell.CellLayout;
import io.basalt.cell.EncodedCell;
import io.basalt.client.Result;
import java.lang.foreign.MemorySegment;
import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.LongAdder;

/**
 * Whole rows as recent gets returned them, so that a hot row is answered without positioning and
 * merging every source that holds a version of it (the memtables and each file flushed since the
 * row was last compacted: after updates, most of a get's time).
 *
 * <p><b>What is cached.</b> The answer of a get without a filter, over all time, of the newest
 * version, of whole families none of which expires (time to live makes an answer depend on the
 * clock), keyed by the region object, the row and the set of families read. The cells are copied
 * into one array that nothing writes again, and a hit hands out new views of it (whose {@link
 * EncodedCell#array()} readers may read in place, and must not write, as a memtable's).
 *
 * <p>Why one array and views made per hit, not views kept: a row of ten cells kept as an array,
 * its segment and a view per cell was fourteen objects that lived until evicted, and under
 * YCSB's reads, where the cache turns over every few seconds, each young collection copied
 * them; a hit's views die young. The views' charge also let a quarter fewer rows fit.
 *
 * <p><b>Why an answer stays right.</b> Every write to a row raises its stripe's mark, {@link
 * #written}, to the write's sequence number <em>before</em> the write can become visible (before
 * its cells enter the memtable, so before MVCC completes it). An entry is tagged with a read
 * point {@code Re} taken before its get collected its sources, so that every write up to
 * {@code Re} is in the answer (a write completed by then had its row in the memtable's row filter
 * already); the get's own, later read point may cover a write it missed. A reader at read point
 * {@code R} may take the entry when its stripe's mark is at most {@code min(Re, R)}:
 * <ul>
 *   <li>{@code Re <= R}: a write of the row with a sequence in {@code (Re, R]} is visible at
 *       {@code R}, so it raised the mark above {@code Re} before the reader read {@code R} (the
 *       read point only passes a sequence after its write completed); none did, so the row at
 *       {@code R} is the row at {@code Re}.</li>
 *   <li>{@code Re > R}: the entry may hold a write in {@code (R, Re]} that the reader must not
 *       see; such a write raised the mark above {@code R} before the entry was read. None did.</li>
 * </ul>
 * Nothing else changes what a get of this shape returns: compaction and flushes keep every
 * answer (see {@link Visibility}), expiry is excluded, and an alter, split, merge or truncate
 * makes new region objects, which start with no entries. Marks are per stripe, not per row: two
 * rows sharing a stripe only cost each other a miss.
 *
 * <p><b>Size.</b> Entries are charged their bytes plus an estimate of their objects; the cache
 * is split into shards by row. A shard's entries are a concurrent map that gets read without a
 * lock, and a queue in insertion order that its lock guards, which eviction walks as a clock:
 * an entry read since the hand last passed it goes round again, one not read goes.
 *
 * <p>Why a clock and not an LRU list: a lookup in an access-ordered {@code LinkedHashMap} takes
 * the shard's lock and relinks the entry, and in YCSB's read-only workload that was a tenth of
 * the samples for a cache that answers about a third of the gets. A hit now writes one flag, and
 * only if it is not set already.
 */
final class RowCache {

    /** Stripes of write marks: 512 KiB, so that even at 100,000 writes a second a stripe sees few. */
    static final int STRIPES = 1 << 16;
    static final int SHARDS = 16;
    /** Bytes charged per entry beyond its cells: key, entry, list, map node. */
    static final int ENTRY_OVERHEAD = 160;

    private record Key(Region region, byte[] row, int families, int hash) {
        @Override
        public boolean equals(Object o) {
            return o instanceof Key k && k.region == region && k.families == families && Arrays.equals(k.row, row);
        }

        @Override
        public int hashCode() {
            return hash;
        }
    }

    /** {@code count} cells encoded back to back in {@code cells} (null when none). */
    private static final class Entry {
        final long readPoint;
        final byte[] cells;
        final int count;
        final long charge;
        /** Read since the clock's hand last passed: set by lookups, racy on purpose (a lost set costs an early eviction). */
        boolean referenced;

        Entry(long readPoint, byte[] cells, int count, long charge) {
            this.readPoint = readPoint;
            this.cells = cells;
            this.count = count;
            this.charge = charge;
        }
    }

    private static final class Shard {
        final ConcurrentHashMap<Key, Entry> entries = new ConcurrentHashMap<>(256);
        /** Every key of {@link #entries}, once, oldest first; the clock's hand is its head. Guarded by this. */
        final ArrayDeque<Key> clock = new ArrayDeque<>();
        /** Guarded by this. */
        long bytes;
    }

    private final long shardCapacity;
    private final Shard[] shards = new Shard[SHARDS];
    private final AtomicLongArray marks = new AtomicLongArray(STRIPES);
    /** Rows missed once lately: an answer is kept on its row's second miss. */
    private final Doorkeeper doorkeeper = new Doorkeeper();
    private final LongAdder hits = new LongAdder();
    private final LongAdder misses = new LongAdder();
    private final LongAdder evictions = new LongAdder();

    /** A cache of about {@code capacity} bytes; must be positive (a store with none makes no cache). */
    RowCache(long capacity) {
        if (capacity <= 0) {
            throw new IllegalArgumentException("row cache capacity " + capacity + " must be positive");
        }
        this.shardCapacity = Math.max(1, capacity / SHARDS);
        for (int i = 0; i < SHARDS; i++) {
            shards[i] = new Shard();
        }
    }

    private static int stripe(Region region, long rowHash) {
        long h = (rowHash ^ (region.id() * 0x9E3779B97F4A7C15L)) * 0xBF58476D1CE4E5B9L;
        return (int) (h >>> 48) & (STRIPES - 1);
    }

    private static int shardOf(int keyHash) {
        return (keyHash & 0x7fffffff) % SHARDS;
    }

    /** The shard a get of {@code families} of the row hashed {@code rowHash} uses (for tests). */
    static int shardOf(Region region, long rowHash, int families) {
        return shardOf(hash(region, rowHash, families));
    }

    private static int hash(Region region, long rowHash, int families) {
        long h = rowHash * 31 + System.identityHashCode(region) * 17L + families;
        return (int) (h ^ (h >>> 32));
    }

    /**
     * Records a write of the row (hashed {@code rowHash} by {@link MemTable#rowHash}) at
     * {@code sequence}; call it before the write's cells enter the memtable.
     */
    void written(Region region, long rowHash, long sequence) {
        int i = stripe(region, rowHash);
        long mark = marks.get(i);
        while (mark < sequence) {
            long seen = marks.compareAndExchange(i, mark, sequence);
            if (seen == mark) {
                return;
            }
            mark = seen;
        }
    }

    /**
     * The cached answer for a get of {@code families} (a bit per family index) of {@code row} at
     * {@code readPoint}, or {@code null}. The result's cells are shared and read-only; its row is
     * the caller's own copy.
     */
    Result lookup(Region region, byte[] row, long rowHash, int families, long readPoint) {
        Key key = new Key(region, row, families, hash(region, rowHash, families));
        Shard shard = shards[shardOf(key.hash)];
        Entry entry = shard.entries.get(key);
        if (entry == null || marks.get(stripe(region, rowHash)) > Math.min(entry.readPoint, readPoint)) {
            misses.increment();
            return null;
        }
        hits.increment();
        if (!entry.referenced) {
            entry.referenced = true;
        }
        if (entry.count == 0) {
            return Result.empty();
        }
        Cell[] views = new Cell[entry.count];
        int at = 0;
        for (int i = 0; i < views.length; i++) {
            EncodedCell cell = EncodedCell.ofEncoded(entry.cells, at);
            views[i] = cell;
            at += (int) cell.encodedLength();
        }
        return Result.of(row.clone(), List.of(views), false);
    }

    /**
     * Whether a missed answer of the row should be kept: true when the row was missed lately
     * ({@link Doorkeeper}), so that rows read once do not push out rows read often and cost no
     * copy; otherwise remembers this miss.
     */
    boolean admit(Region region, long rowHash) {
        return doorkeeper.admit(rowHash + region.id());
    }

    /**
     * Keeps {@code cells}, the answer a get of {@code families} of {@code row} holds every write
     * up to {@code readPoint} of (copied: the caller keeps its list). Skipped when a write of the
     * row's stripe came after that point, since no reader could take it, or when it would take more
     * than a quarter of its shard (one wide row must not empty the cache of every other).
     */
    void store(Region region, byte[] row, long rowHash, int families, long readPoint, List<Cell> cells) {
        if (marks.get(stripe(region, rowHash)) > readPoint) {
            return;
        }
        long bytes = 0;
        for (Cell cell : cells) {
            bytes += CellLayout.encodedLength(cell);
        }
        long charge = bytes + ENTRY_OVERHEAD + 2L * row.length;
        if (charge > shardCapacity / 4 || bytes > Integer.MAX_VALUE) {
            return;
        }
        byte[] array = null;
        if (!cells.isEmpty()) {
            array = new byte[(int) bytes];
            MemorySegment writable = MemorySegment.ofArray(array);
            long at = 0;
            for (Cell cell : cells) {
                at += CellLayout.write(cell, writable, at);
            }
        }
        Key key = new Key(region, row.clone(), families, hash(region, rowHash, families));
        Entry entry = new Entry(readPoint, array, cells.size(), charge);
        Shard shard = shards[shardOf(key.hash)];
        synchronized (shard) {
            Entry previous = shard.entries.put(key, entry);
            if (previous != null) {
                shard.bytes -= previous.charge; // the key keeps its place on the clock
            } else {
                shard.clock.addLast(key);
            }
            shard.bytes += charge;
            int spared = 0; // bounded, so that lookups setting flags meanwhile cannot keep the hand going round
            while (shard.bytes > shardCapacity) {
                Key hand = shard.clock.pollFirst();
                Entry at = shard.entries.get(hand);
                if (at.referenced && spared++ < shard.clock.size()) {
                    at.referenced = false; // read lately: once more round
                    shard.clock.addLast(hand);
                } else {
                    shard.entries.remove(hand);
                    shard.bytes -= at.charge;
                    evictions.increment();
                }
            }
        }
    }

    /** Drops every entry (the store closing). */
    void clear() {
        for (Shard shard : shards) {
            synchronized (shard) {
                shard.entries.clear();
                shard.clock.clear();
                shard.bytes = 0;
            }
        }
    }

    /** Rows the doorkeeper remembers now (for tests). */
    int remembered() {
        return doorkeeper.remembered();
    }

    long bytes() {
        long bytes = 0;
        for (Shard shard : shards) {
            synchronized (shard) {
                bytes += shard.bytes;
            }
        }
        return bytes;
    }

    long hits() {
        return hits.sum();
    }

    long misses() {
        return misses.sum();
    }

    long evictions() {
        return evictions.sum();
    }
}
