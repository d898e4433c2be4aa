package io.basalt.engine;

import io.basalt.bytes.Bytes;
import io.basalt.cell.Cell;
import io.basalt.cell.CellComparator;
import io.basalt.cell.CellLayout;
import io.basalt.cell.EncodedCell;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Comparator;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.ConcurrentSkipListSet;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * A table's recent writes in memory, sorted: a concurrent skip list of encoded cells tagged with
 * their sequence numbers. Writers insert without a table-wide lock (the row lock orders writes to
 * one row); readers iterate concurrently and filter by their MVCC read point.
 *
 * <p>Two writes of the same cell key (same row, column, timestamp and type) are both kept, newest
 * sequence first; readers take the newest they may see.
 */
final class MemTable {

    /** Bytes charged per entry on top of its encoding: skip-list node, entry and array headers. */
    static final int ENTRY_OVERHEAD = 96;

    /**
     * A cell in the memtable, with the first eight bytes of its row.
     *
     * <p>Why the row prefix: an insert into a skip list of a few hundred thousand entries makes
     * ~20 comparisons, and reaching the row through the cell (entry, cell, segment, array, bytes)
     * is four dependent loads that miss the cache for every node visited; profiles of the
     * {@code engine} load put 70% of the time in those comparisons. The prefix, a field of the
     * entry itself, decides every comparison between rows that differ in their first eight bytes
     * (RocksDB's {@code InlineSkipList} keeps its keys in the node for the same reason).
     */
    static final class Entry {
        private final Cell cell;
        private final long sequence;
        /** The row's first eight bytes, big-endian, zero-padded: unsigned order is row order. */
        private final long rowPrefix;

        Entry(Cell cell, long sequence) {
            this.cell = cell;
            this.sequence = sequence;
            this.rowPrefix = rowPrefix(cell);
        }

        Cell cell() {
            return cell;
        }

        long sequence() {
            return sequence;
        }
    }

    private static final ValueLayout.OfLong BIG_ENDIAN_LONG =
            ValueLayout.JAVA_LONG_UNALIGNED.withOrder(java.nio.ByteOrder.BIG_ENDIAN);

    /**
     * The first eight bytes of the cell's row as an unsigned number, zero-padded: when two
     * prefixes differ the rows differ within their first eight bytes, in the same order (a shorter
     * row padded with zeros sorts before every row it is a prefix of, as it should).
     */
    static long rowPrefix(Cell cell) {
        MemorySegment segment;
        long offset;
        int length;
        if (cell instanceof EncodedCell e) {
            segment = e.segment();
            offset = e.rowOffset();
            length = e.rowLength();
        } else {
            segment = cell.row();
            offset = 0;
            length = (int) segment.byteSize();
        }
        if (length >= Long.BYTES) {
            return segment.get(BIG_ENDIAN_LONG, offset);
        }
        long prefix = 0;
        for (int i = 0; i < Long.BYTES; i++) {
            prefix = prefix << 8 | (i < length ? segment.get(ValueLayout.JAVA_BYTE, offset + i) & 0xFF : 0);
        }
        return prefix;
    }

    static final Comparator<Entry> ORDER = (a, b) -> {
        if (a.rowPrefix != b.rowPrefix) {
            return Long.compareUnsigned(a.rowPrefix, b.rowPrefix);
        }
        int c = CellComparator.INSTANCE.compare(a.cell, b.cell);
        return c != 0 ? c : Long.compare(b.sequence, a.sequence);
    };

    /**
     * The rows written here, as a bloom filter of two probes over {@code 2^rowFilterBits} bits,
     * made on the first write (an idle region's memtable costs nothing).
     *
     * <p>Why: a get looks in every memtable of its region, a skip-list descent of ~20 comparisons
     * that miss the CPU cache, and with YCSB's keys a memtable holds a few percent of the rows; a
     * fifth of a read-only run's samples were those descents. With the filter, a get whose row was
     * not written here skips the memtable. Bits are set under the memtable's lock before the entry
     * is added, so a write that completed before a get began is always seen by it.
     */
    private volatile AtomicLongArray rowFilter;
    private final int rowFilterBits;

    /** Bits of the row filter per byte of memtable flush size, as a power of two: 1 bit per 16 bytes. */
    static final int ROW_FILTER_BYTES_PER_BIT_LOG2 = 4;

    private final ConcurrentSkipListSet<Entry> entries = new ConcurrentSkipListSet<>(ORDER);
    private final AtomicLong bytes = new AtomicLong();
    private volatile long smallestSequence = Long.MAX_VALUE;
    private volatile long largestSequence;

    /**
     * Bytes per slab the memtable copies cells into. Large enough that a slab is a humongous
     * object for G1 on heaps up to 4 GiB (allocated outside the young generation, never copied by
     * a young collection), small enough that a nearly empty memtable wastes little.
     */
    static final int SLAB_SIZE = 2 << 20;

    // Guarded by this.
    private MemorySegment slab;
    private int slabUsed;

    /** A memtable with a row filter sized for the default flush size (64 MiB). */
    MemTable() {
        this(64L << 20);
    }

    /** A memtable whose row filter is sized for {@code flushSize} bytes of writes. */
    MemTable(long flushSize) {
        int bits = 64 - Long.numberOfLeadingZeros(Math.max(1, flushSize >>> ROW_FILTER_BYTES_PER_BIT_LOG2) - 1);
        this.rowFilterBits = Math.max(12, Math.min(30, bits));
    }

    /** The hash {@link #mightContainRow} takes: one per get, however many memtables it asks. */
    static long rowHash(byte[] row) {
        return BloomFilter.hash(MemorySegment.ofArray(row));
    }

    /** False when no write here touched the row (true may be a false positive, rarely). */
    boolean mightContainRow(long rowHash) {
        AtomicLongArray filter = rowFilter;
        if (filter == null) {
            return false;
        }
        long mask = (1L << rowFilterBits) - 1;
        long first = rowHash & mask;
        long second = (rowHash >>> 32) & mask;
        return (filter.get((int) (first >>> 6)) & (1L << first)) != 0
                && (filter.get((int) (second >>> 6)) & (1L << second)) != 0;
    }

    /** Sets the row's bits. Caller holds this. */
    private void noteRow(EncodedCell cell) {
        AtomicLongArray filter = rowFilter;
        if (filter == null) {
            filter = new AtomicLongArray(1 << (rowFilterBits - 6));
            rowFilter = filter;
        }
        long h = BloomFilter.hash(cell.segment(), cell.rowOffset(), cell.rowLength());
        long mask = (1L << rowFilterBits) - 1;
        long first = h & mask;
        long second = (h >>> 32) & mask;
        filter.set((int) (first >>> 6), filter.get((int) (first >>> 6)) | 1L << first);
        filter.set((int) (second >>> 6), filter.get((int) (second >>> 6)) | 1L << second);
    }

    /** Adds one cell written by the write with {@code sequence}. */
    void add(Cell cell, long sequence) {
        add(cell instanceof EncodedCell e ? e : EncodedCell.decode(CellLayout.encode(cell), 0), sequence);
    }

    /** Adds one encoded cell, copied into the memtable's slabs, written by the write with {@code sequence}. */
    void add(EncodedCell encoded, long sequence) {
        EncodedCell copy;
        synchronized (this) {
            copy = copyToSlab(encoded);
            noteRow(copy);
            noteSequence(sequence);
        }
        entries.add(new Entry(copy, sequence));
        bytes.addAndGet(encoded.encodedLength() + ENTRY_OVERHEAD);
    }

    /** Adds the cells of one write (one sequence number), copied into the memtable's slabs. */
    void addAll(List<EncodedCell> cells, long sequence) {
        EncodedCell[] copies = new EncodedCell[cells.size()];
        long total = 0;
        synchronized (this) {
            for (int i = 0; i < copies.length; i++) {
                copies[i] = copyToSlab(cells.get(i));
                if (i == 0 || !sameRow(copies[i - 1], copies[i])) {
                    noteRow(copies[i]);
                }
                total += copies[i].encodedLength() + ENTRY_OVERHEAD;
            }
            noteSequence(sequence);
        }
        for (EncodedCell copy : copies) {
            entries.add(new Entry(copy, sequence));
        }
        bytes.addAndGet(total);
    }

    private static boolean sameRow(EncodedCell a, EncodedCell b) {
        return Bytes.equals(a.segment(), a.rowOffset(), a.rowLength(), b.segment(), b.rowOffset(), b.rowLength());
    }

    /**
     * Copies a cell's encoding into the current slab (a new one when it is full) and returns the
     * view of the copy. Caller holds this.
     *
     * <p>Why slabs (HBase's MSLAB, HBASE-3455): a memtable of 64 MiB lives for seconds, so every
     * young collection in that time copies whatever it holds; as separate arrays, segments and
     * views per cell that was a second of G1 pauses per million rows in the {@code engine} load.
     * In slabs, the bytes never move and each cell costs one small view object.
     */
    private EncodedCell copyToSlab(EncodedCell cell) {
        int length = (int) cell.encodedLength();
        MemorySegment target;
        int at;
        if (length > SLAB_SIZE / 4) {
            target = MemorySegment.ofArray(new byte[length]); // a large cell gets its own array
            at = 0;
        } else {
            if (slab == null || slabUsed + length > SLAB_SIZE) {
                slab = MemorySegment.ofArray(new byte[SLAB_SIZE]);
                slabUsed = 0;
            }
            target = slab;
            at = slabUsed;
            slabUsed += length;
        }
        MemorySegment.copy(cell.segment(), cell.offset(), target, at, length);
        return EncodedCell.decode(target, at, at + length);
    }

    private void noteSequence(long sequence) {
        if (sequence < smallestSequence) {
            smallestSequence = sequence;
        }
        if (sequence > largestSequence) {
            largestSequence = sequence;
        }
    }

    /** Approximate heap bytes held. */
    long bytes() {
        return bytes.get();
    }

    boolean isEmpty() {
        return entries.isEmpty();
    }

    int size() {
        return entries.size();
    }

    /** The lowest sequence number in this memtable, or {@link Long#MAX_VALUE} when empty. */
    long smallestSequence() {
        return smallestSequence;
    }

    /** The highest sequence number in this memtable, or 0 when empty. */
    long largestSequence() {
        return largestSequence;
    }

    /** Every entry in order; for flushing. */
    Iterator<Entry> iterator() {
        return entries.iterator();
    }

    /**
     * The largest row below {@code bound} that has a cell here, or {@code null}; a {@code null}
     * bound means the last row.
     */
    byte[] rowBefore(byte[] bound) {
        Entry entry = bound == null ? (entries.isEmpty() ? null : lastOrNull())
                : entries.lower(new Entry(SeekKey.firstOnRow(bound), Long.MAX_VALUE));
        return entry == null ? null : entry.cell().rowBytes();
    }

    private Entry lastOrNull() {
        try {
            return entries.last();
        } catch (java.util.NoSuchElementException e) {
            return null;
        }
    }

    /** An iterator over the memtable as it is now and as it changes. */
    InternalIterator newIterator() {
        return new Cursor(entries);
    }

    /**
     * Walks the entries; positions itself on the first when first asked, so that one created only
     * to {@link #seek} (every get) never builds an iterator from the start.
     */
    private static final class Cursor implements InternalIterator {
        private final ConcurrentSkipListSet<Entry> entries;
        private Iterator<Entry> it;
        private Entry current;

        Cursor(ConcurrentSkipListSet<Entry> entries) {
            this.entries = entries;
        }

        private void ensurePositioned() {
            if (it == null) {
                it = entries.iterator();
                advance();
            }
        }

        private void advance() {
            current = it.hasNext() ? it.next() : null;
        }

        @Override
        public boolean valid() {
            ensurePositioned();
            return current != null;
        }

        @Override
        public EncodedCell cell() {
            ensurePositioned();
            return (EncodedCell) current.cell(); // add() stores only encoded cells
        }

        @Override
        public long sequence() {
            ensurePositioned();
            return current.sequence();
        }

        @Override
        public void next() {
            ensurePositioned();
            advance();
        }

        @Override
        public void seek(Cell key) {
            it = entries.tailSet(new Entry(key, Long.MAX_VALUE), true).iterator();
            advance();
        }
    }
}
