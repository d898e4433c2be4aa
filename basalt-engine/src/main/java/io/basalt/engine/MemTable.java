package io.basalt.engine;

import io.basalt.bytes.Bytes;
import io.basalt.cell.Cell;
import io.basalt.cell.CellComparator;
import io.basalt.cell.CellLayout;
import io.basalt.cell.EncodedCell;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.Comparator;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * A table's recent writes in memory, sorted: a concurrent skip list with one node per column
 * (row, family, qualifier), each holding that column's versions, encoded cells tagged with their
 * sequence numbers, as a list in cell order. Writers insert without a table-wide lock (the row
 * lock orders writes to one row); readers iterate concurrently and filter by their MVCC read point.
 *
 * <p>Two writes of the same cell key (same row, column, timestamp and type) are both kept, newest
 * sequence first; readers take the newest they may see. A second add of the same cell key with the
 * same sequence is ignored.
 *
 * <p><b>Why a node per column.</b> Under YCSB's Zipfian updates the hottest rows take thousands
 * of writes per memtable, one version each. With one skip-list entry per version, a get that had
 * read a column's newest version had to descend the skip list again to get past the others (~20
 * comparisons of cells that share row, family and qualifier): a quarter of a read-only run's time
 * after updates. Here, leaving a column is one step to the next node, and a new version of an
 * existing column is linked in without a skip-list insert.
 */
final class MemTable {

    /** A version in the memtable: a cell, the sequence of the write that stored it, and the next version. */
    static final class Entry {
        private final Cell cell;
        private final long sequence;
        /** The column's next (older, in cell order) version; set before publication, then by CAS. */
        private volatile Entry next;

        Entry(Cell cell, long sequence) {
            this.cell = cell;
            this.sequence = sequence;
        }

        Cell cell() {
            return cell;
        }

        long sequence() {
            return sequence;
        }
    }

    /**
     * A column's place in the skip list: its row prefix and row, family and qualifier. {@link
     * Column}s are the nodes; a {@link Probe} is a key sought.
     *
     * <p>Why the row prefix: an insert into a skip list of a few hundred thousand entries makes
     * ~20 comparisons, and reaching the row through the cell (entry, cell, segment, array, bytes)
     * is four dependent loads that miss the cache for every node visited; profiles of the
     * {@code engine} load put 70% of the time in those comparisons. The prefix, fields of the key
     * itself, decides every comparison between rows that differ in their first sixteen bytes
     * (RocksDB's {@code InlineSkipList} keeps its keys in the node for the same reason). Sixteen,
     * not eight: YCSB's rows ({@code user} and 19 digits) share their first eight bytes with a
     * hundredth of a million others, so the last ten steps of a descent compared whole cells.
     */
    abstract static sealed class ColumnKey permits Column, Probe {
        /** The row's first eight bytes, big-endian, zero-padded: unsigned order is row order. */
        final long rowPrefix;
        /** The row's next eight bytes, the same way. */
        final long rowPrefix2;

        ColumnKey(Cell cell) {
            this.rowPrefix = rowWord(cell, 0);
            this.rowPrefix2 = rowWord(cell, Long.BYTES);
        }

        abstract Cell cell();
    }

    /** A column with at least one version here. */
    static final class Column extends ColumnKey {
        private final EncodedCell cell;
        /** The newest version in cell order; never null once the column is in the skip list. */
        private volatile Entry head;

        Column(Entry first) {
            super(first.cell);
            this.cell = (EncodedCell) first.cell;
            this.head = first;
        }

        @Override
        Cell cell() {
            return cell;
        }

        /**
         * Links {@code entry} in at its place in cell order (usually the head: a new write has
         * the newest timestamp and sequence); false when an entry with its key and sequence is
         * already here. Lock-free: concurrent inserts into one column retry on a lost CAS, and
         * readers walking the list see each entry whole or not at all.
         */
        boolean insert(Entry entry) {
            while (true) {
                Entry previous = null;
                Entry at = head;
                int c = 0;
                while (at != null && (c = VERSION_ORDER.compare(at, entry)) < 0) {
                    previous = at;
                    at = at.next;
                }
                if (at != null && c == 0) {
                    return false;
                }
                entry.next = at;
                if (previous == null ? HEAD.compareAndSet(this, at, entry) : NEXT.compareAndSet(previous, at, entry)) {
                    return true;
                }
            }
        }
    }

    /** A key sought: any cell, of which only row, family and qualifier count. */
    static final class Probe extends ColumnKey {
        private final Cell cell;

        Probe(Cell cell) {
            super(cell);
            this.cell = cell;
        }

        @Override
        Cell cell() {
            return cell;
        }
    }

    private static final VarHandle HEAD;
    private static final VarHandle NEXT;

    static {
        try {
            MethodHandles.Lookup lookup = MethodHandles.lookup();
            HEAD = lookup.findVarHandle(Column.class, "head", Entry.class);
            NEXT = lookup.findVarHandle(Entry.class, "next", Entry.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /**
     * Bytes {@code [from, from + 8)} of the cell's row as an unsigned number, zero-padded past the
     * row's end: with {@code from} 0 and 8, two rows whose zero-padded 16-byte prefixes differ
     * differ within those bytes, in the order of the two words (a shorter row padded with zeros
     * sorts before every row it is a prefix of, as it should); equal prefixes decide nothing.
     */
    static long rowWord(Cell cell, int from) {
        if (cell instanceof EncodedCell e) {
            return Bytes.word(e.segment(), e.rowOffset(), e.rowLength(), from);
        }
        MemorySegment row = cell.row();
        return Bytes.word(row, 0, row.byteSize(), from);
    }

    /** Columns in row, family, qualifier order; timestamps and types do not count. */
    static final Comparator<ColumnKey> COLUMN_ORDER = (a, b) -> {
        if (a.rowPrefix != b.rowPrefix) {
            return Long.compareUnsigned(a.rowPrefix, b.rowPrefix);
        }
        if (a.rowPrefix2 != b.rowPrefix2) {
            return Long.compareUnsigned(a.rowPrefix2, b.rowPrefix2);
        }
        return CellComparator.compareColumns(a.cell(), b.cell());
    };

    /** Versions of one column: cell order (timestamp, then type), newest sequence first. */
    static final Comparator<Entry> VERSION_ORDER = (a, b) -> {
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

    private final ConcurrentSkipListMap<ColumnKey, Column> columns = new ConcurrentSkipListMap<>(COLUMN_ORDER);
    private final AtomicLong bytes = new AtomicLong();
    private final AtomicLong versions = new AtomicLong();

    /** Bytes charged per version on top of its encoding: the entry and the cell's view of its slab. */
    static final int ENTRY_OVERHEAD = 80;
    /** Bytes charged per column on top of its first version: the skip-list nodes and the column. */
    static final int COLUMN_OVERHEAD = 64;
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
        bytes.addAndGet(encoded.encodedLength() + ENTRY_OVERHEAD + insert(new Entry(copy, sequence)));
    }

    /** Inserts an entry; returns the bytes its column costs when it is the column's first. */
    private long insert(Entry entry) {
        Column fresh = new Column(entry);
        Column existing = columns.putIfAbsent(fresh, fresh);
        if (existing == null) {
            versions.incrementAndGet();
            return COLUMN_OVERHEAD;
        }
        if (existing.insert(entry)) {
            versions.incrementAndGet();
        }
        return 0;
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
            total += insert(new Entry(copy, sequence));
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
        return columns.isEmpty();
    }

    /** The number of versions held (each cell added once counts once). */
    int size() {
        return (int) Math.min(Integer.MAX_VALUE, versions.get());
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
        Cursor cursor = new Cursor(columns);
        return new Iterator<>() {
            @Override
            public boolean hasNext() {
                return cursor.valid();
            }

            @Override
            public Entry next() {
                if (!cursor.valid()) {
                    throw new NoSuchElementException();
                }
                Entry entry = cursor.current;
                cursor.next();
                return entry;
            }
        };
    }

    /**
     * The largest row below {@code bound} that has a cell here, or {@code null}; a {@code null}
     * bound means the last row.
     */
    byte[] rowBefore(byte[] bound) {
        var entry = bound == null ? columns.lastEntry() : columns.lowerEntry(new Probe(SeekKey.firstOnRow(bound)));
        return entry == null ? null : entry.getValue().cell.rowBytes();
    }

    /** An iterator over the memtable as it is now and as it changes. */
    InternalIterator newIterator() {
        return new Cursor(columns);
    }

    /**
     * Walks the columns and each one's versions; positions itself on the first when first asked,
     * so that one created only to {@link #seek} (every get) never builds an iterator from the start.
     */
    private static final class Cursor implements InternalIterator {
        private final ConcurrentSkipListMap<ColumnKey, Column> columns;
        /** The columns after {@link #column}. */
        private Iterator<Column> it;
        private Column column;
        private Entry current;

        Cursor(ConcurrentSkipListMap<ColumnKey, Column> columns) {
            this.columns = columns;
        }

        private void ensurePositioned() {
            if (it == null) {
                it = columns.values().iterator();
                nextColumn();
            }
        }

        private void nextColumn() {
            if (it.hasNext()) {
                column = it.next();
                current = column.head;
            } else {
                column = null;
                current = null;
            }
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
            if (current != null) {
                current = current.next;
                if (current == null) {
                    nextColumn();
                }
            }
        }

        @Override
        public void seek(Cell key) {
            it = columns.tailMap(new Probe(key), true).values().iterator();
            nextColumn();
            if (column != null && CellComparator.compareColumns(column.cell, key) == 0) {
                versionAtOrAfter(key);
            }
        }

        /** Moves along the current column to its first version at or after {@code key}. */
        private void versionAtOrAfter(Cell key) {
            while (current != null && CellComparator.INSTANCE.compare(current.cell, key) < 0) {
                current = current.next;
            }
            if (current == null) {
                nextColumn();
            }
        }

        /**
         * Steps to {@code key} when its column is at most {@link SSTableIterator#STEPS_BEFORE_SEEK}
         * columns ahead (a column's remaining versions are passed in one step), else descends the
         * skip list: a step is one pointer, a descent ~20 comparisons.
         */
        @Override
        public void seekForward(Cell key) {
            if (it == null || current == null) {
                seek(key);
                return;
            }
            for (int i = 0; i < SSTableIterator.STEPS_BEFORE_SEEK; i++) {
                int c = CellComparator.compareColumns(column.cell, key);
                if (c > 0) {
                    return;
                }
                if (c == 0) {
                    versionAtOrAfter(key);
                    return;
                }
                nextColumn();
                if (current == null) {
                    return;
                }
            }
            int c = CellComparator.compareColumns(column.cell, key);
            if (c < 0) {
                seek(key);
            } else if (c == 0) {
                versionAtOrAfter(key);
            }
        }
    }
}
