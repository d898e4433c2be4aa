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
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.LongSupplier;

/**
 * A table's recent writes in memory: a hash index of rows, and the same rows in a concurrent
 * skip list, sorted in when a scan or flush first walks them ({@link #sortIn}); each row holds
 * its columns in (family, qualifier) order, and each column its versions, encoded cells tagged
 * with their sequence numbers, as a list in cell order. Writers insert without a table-wide lock
 * (a row's own monitor orders the columns added to it); readers iterate concurrently and filter
 * by their MVCC read point.
 *
 * <p>Two writes of the same cell key (same row, column, timestamp and type) are both kept, newest
 * sequence first; readers take the newest they may see. A second add of the same cell key with the
 * same sequence is ignored.
 *
 * <p><b>Why a node per column's versions.</b> Under YCSB's Zipfian updates the hottest rows take
 * thousands of writes per memtable, one version each. With one skip-list entry per version, a get
 * that had read a column's newest version had to descend the skip list again to get past the
 * others (~20 comparisons of cells that share row, family and qualifier): a quarter of a
 * read-only run's time after updates. Here, leaving a column is one step to the next column, and
 * a new version of an existing column is linked in without a skip-list insert.
 *
 * <p><b>Why a node per row, not per column.</b> A YCSB record is one row of ten columns; with a
 * skip-list node per column its insert made ten descents of ~20 comparisons each, each missing the
 * CPU cache, and they were half of the load's foreground samples (RocksDB's record is one key, one
 * insert). Now a new row is one hash-index insert with its columns in an array, and a write to an
 * existing row finds the row once. A row's columns stay an array, replaced whole when a column is added,
 * up to {@link #WIDE_ROW} columns; past that they move to a skip list of their own, so a row that
 * gains columns one by one never costs a copy of thousands per column.
 */
final class MemTable {

    /**
     * A version in the memtable: where its cell lies in a slab, the sequence of the write that
     * stored it, and the next version. The cell's view is made when asked for ({@link #cell()}).
     *
     * <p>Why no view kept: a view per version (56 bytes) beside the entry (32) and its column (16)
     * made a memtable's cells take 2.3 times their bytes on disk, so a 64 MiB memtable flushed a
     * third as many YCSB records as RocksDB's, and the load flushed and compacted that much more
     * often; the views also lived until the flush, so every young collection copied them. A view
     * made on a read dies young.
     */
    static final class Entry {
        /** The array the cell is encoded in, from {@link #offset}: a slab, or the cell's own for a large one. */
        private final byte[] slab;
        private final int offset;
        private final long sequence;
        /** The column's next (older, in cell order) version; set before publication, then by CAS. */
        private volatile Entry next;

        /** An entry of a cell copied into the memtable: its encoding starts at its offset in its array. */
        Entry(EncodedCell cell, long sequence) {
            this.slab = java.util.Objects.requireNonNull(cell.array(), "a memtable cell lies in a heap array");
            this.offset = Math.toIntExact(cell.offset());
            this.sequence = sequence;
        }

        /** A new view of the cell (read-only; its array is the slab's, which nothing writes again). */
        EncodedCell cell() {
            return EncodedCell.ofEncoded(slab, offset);
        }

        long sequence() {
            return sequence;
        }
    }

    /**
     * A row's place in the skip list: its prefix words and a cell of the row (only its row
     * counts). {@link Row}s are the nodes; a {@link RowProbe} is a row sought.
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
    abstract static sealed class RowKey permits Row, RowProbe {
        /** The row's first eight bytes, big-endian, zero-padded: unsigned order is row order. */
        final long rowPrefix;
        /** The row's next eight bytes, the same way. */
        final long rowPrefix2;
        /** {@link #rowHash} of the row, folded to an int: the key's hash in {@link #byRow}. */
        private final int hash;

        RowKey(Cell cell, long rowHash) {
            this.rowPrefix = rowWord(cell, 0);
            this.rowPrefix2 = rowWord(cell, Long.BYTES);
            this.hash = Long.hashCode(rowHash);
        }

        abstract Cell cell();

        /** Same row (the skip list orders by {@link #ROW_ORDER}; the hash index asks this). */
        @Override
        public final boolean equals(Object o) {
            return o instanceof RowKey k && k.hash == hash && k.rowPrefix == rowPrefix && k.rowPrefix2 == rowPrefix2
                    && compareRows(k.cell(), cell()) == 0;
        }

        @Override
        public final int hashCode() {
            return hash;
        }
    }

    /**
     * A row with at least one column here. Its columns are a {@code Column[]} in (family,
     * qualifier) order, or, once the row has more than {@link #WIDE_ROW}, a {@code
     * ConcurrentSkipListMap<Cell, Column>} in that order. Either is replaced or added to only under
     * the row's monitor; an array is never changed once published, so a reader that took it walks
     * a consistent list (a column added after it took the array belongs to a write newer than its
     * read point, which it would not see anyway).
     */
    static final class Row extends RowKey {
        private final EncodedCell cell;
        private volatile Object columns;
        /** Set once the row is in {@link #unsorted} or {@link #rows}: a writer that sees it need not list the row. */
        private volatile boolean listed;

        Row(EncodedCell cell, Object columns, long rowHash) {
            super(cell, rowHash);
            this.cell = cell;
            this.columns = columns;
        }

        @Override
        Cell cell() {
            return cell;
        }
    }

    /** A row sought: any cell, of which only the row counts. */
    static final class RowProbe extends RowKey {
        private final Cell cell;

        /** A probe of the skip list only (its hash is not the row's). */
        RowProbe(Cell cell) {
            this(cell, 0);
        }

        /** A probe of the skip list or of {@link #byRow}: {@code rowHash} is {@link #rowHash} of the row. */
        RowProbe(Cell cell, long rowHash) {
            super(cell, rowHash);
            this.cell = cell;
        }

        @Override
        Cell cell() {
            return cell;
        }
    }

    /**
     * A column with at least one version here: its versions, newest first; any of them gives its
     * family and qualifier ({@link #cell()}).
     */
    static final class Column {
        /** The newest version in cell order; never null once the column is published. */
        private volatile Entry head;

        Column(Entry first) {
            this.head = first;
        }

        /** A view of one of the column's cells, for its family and qualifier. */
        EncodedCell cell() {
            return head.cell();
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

    /** Columns a row keeps in an array; one more moves them to a skip list of their own. */
    static final int WIDE_ROW = 64;

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

    /** Rows in order. */
    static final Comparator<RowKey> ROW_ORDER = (a, b) -> {
        if (a.rowPrefix != b.rowPrefix) {
            return Long.compareUnsigned(a.rowPrefix, b.rowPrefix);
        }
        if (a.rowPrefix2 != b.rowPrefix2) {
            return Long.compareUnsigned(a.rowPrefix2, b.rowPrefix2);
        }
        return compareRows(a.cell(), b.cell());
    };

    /** The rows of two cells, read in place where a cell is encoded. */
    static int compareRows(Cell a, Cell b) {
        if (a instanceof EncodedCell x) {
            if (b instanceof EncodedCell y) {
                return Bytes.compare(x.segment(), x.rowOffset(), x.rowLength(), y.segment(), y.rowOffset(), y.rowLength());
            }
            MemorySegment row = b.row();
            return Bytes.compare(x.segment(), x.rowOffset(), x.rowLength(), row, 0, row.byteSize());
        }
        if (b instanceof EncodedCell) {
            return -compareRows(b, a);
        }
        return Bytes.compare(a.row(), b.row());
    }

    /** The family and qualifier of two cells of one row, in place where a cell is encoded. */
    static int compareInRow(Cell a, Cell b) {
        if (a instanceof EncodedCell x) {
            if (b instanceof EncodedCell y && x.array() != null && y.array() != null) {
                // Memtable cells: on their arrays, without making their segments.
                byte[] p = x.array();
                byte[] q = y.array();
                int c = Bytes.compare(p, (int) x.familyOffset(), x.familyLength(), q, (int) y.familyOffset(),
                        y.familyLength());
                return c != 0 ? c : Bytes.compare(p, (int) x.qualifierOffset(), x.qualifierLength(), q,
                        (int) y.qualifierOffset(), y.qualifierLength());
            }
            MemorySegment s = x.segment();
            if (b instanceof EncodedCell y) {
                MemorySegment t = y.segment();
                int c = Bytes.compare(s, x.familyOffset(), x.familyLength(), t, y.familyOffset(), y.familyLength());
                return c != 0 ? c : Bytes.compare(s, x.qualifierOffset(), x.qualifierLength(), t, y.qualifierOffset(),
                        y.qualifierLength());
            }
            MemorySegment family = b.family();
            int c = Bytes.compare(s, x.familyOffset(), x.familyLength(), family, 0, family.byteSize());
            if (c != 0) {
                return c;
            }
            MemorySegment qualifier = b.qualifier();
            return Bytes.compare(s, x.qualifierOffset(), x.qualifierLength(), qualifier, 0, qualifier.byteSize());
        }
        if (b instanceof EncodedCell) {
            return -compareInRow(b, a);
        }
        int c = Bytes.compare(a.family(), b.family());
        return c != 0 ? c : Bytes.compare(a.qualifier(), b.qualifier());
    }

    /** A wide row's columns: cells of one row, by family and qualifier. */
    private static final Comparator<Cell> IN_ROW_ORDER = MemTable::compareInRow;

    /** Versions of one column: cell order (timestamp, then type), newest sequence first. */
    static final Comparator<Entry> VERSION_ORDER = (a, b) -> {
        int c = CellComparator.INSTANCE.compare(a.cell(), b.cell());
        return c != 0 ? c : Long.compare(b.sequence, a.sequence);
    };

    /**
     * The rows written here, as a bloom filter of two probes over a power of two of bits, made on
     * the first write (an idle region's memtable costs nothing) and sized then, one bit per 16
     * bytes of what the memtable is expected to reach ({@link #expectedBytes}): the flush size, or
     * less when the store has more regions than its memory limit holds memtables of that size.
     * Its array is counted in {@link #bytes()}.
     *
     * <p>Why: a get looks in every memtable of its region, a skip-list descent of ~20 comparisons
     * that miss the CPU cache, and with YCSB's keys a memtable holds a few percent of the rows; a
     * fifth of a read-only run's samples were those descents. With the filter, a get whose row was
     * not written here skips the memtable. Bits are set under the memtable's lock before the entry
     * is added, so a write that completed before a get began is always seen by it.
     */
    private volatile AtomicLongArray rowFilter;
    /** What this memtable is expected to reach before its flush, asked on its first write. */
    private final LongSupplier expectedBytes;

    /** Bits of the row filter per byte of memtable flush size, as a power of two: 1 bit per 16 bytes. */
    static final int ROW_FILTER_BYTES_PER_BIT_LOG2 = 4;

    /**
     * The rows in order, once {@link #sortIn} has moved them here from {@link #unsorted}: only what
     * walks rows in order (scans, flushes, a reversed scan's step back) needs this, and it calls
     * {@code sortIn} first.
     */
    private final ConcurrentSkipListMap<RowKey, Row> rows = new ConcurrentSkipListMap<>(ROW_ORDER);
    /**
     * Every row here, by its bytes; this map decides which write makes a row. A get, and a write to
     * a row already here, find it with one hash lookup where the skip list takes a descent of ~20
     * comparisons that miss the CPU cache (a tenth of the samples of YCSB's read workloads after
     * updates). Every write has its row here before it returns, so a write that completed before a
     * get asked this memtable is found (see {@link #insert}). A write that lands between the get's
     * lookup and its read point may be missed, as the row filter may miss it: the get started first.
     */
    private final ConcurrentHashMap<RowKey, Row> byRow;
    /**
     * Rows made since the last {@link #sortIn}, in no order (a row may be listed twice).
     *
     * <p>Why not straight into the skip list: its insert is a descent of ~20 levels, each a
     * chain of loads that miss the CPU cache, and in YCSB's load it was 15% of all samples (7 µs
     * a record on this machine) on the writers' threads. Sorting a batch of rows at once, when
     * a scan or a flush first needs them in order, costs a fraction of that: one sort of their
     * prefix words, then inserts that walk the skip list in order, along a path still in cache.
     */
    private final ConcurrentLinkedQueue<Row> unsorted = new ConcurrentLinkedQueue<>();
    /** Held while rows move from {@link #unsorted} to {@link #rows}: only its holder takes rows off the queue. */
    private final ReentrantLock sorting = new ReentrantLock();
    /**
     * Set by the first {@link #sortIn}: from then on a write that makes a row puts it in the skip
     * list itself, as every write did before {@link #unsorted}. A memtable that scans walk (YCSB's
     * E: a scan per write, or more) would otherwise have every scan take the lock to sort in the
     * few rows written since the last, and with eight threads on two cores a sorter descheduled
     * while holding it would hold up the others; a memtable only written and read by gets until
     * its flush sorts all its rows once.
     */
    private volatile boolean walked;
    private final AtomicLong bytes = new AtomicLong();
    private final AtomicLong versions = new AtomicLong();

    /** Bytes charged per version on top of its encoding: the entry (its view is made when read). */
    static final int ENTRY_OVERHEAD = 32;
    /** Bytes charged per row on top of its columns: skip-list nodes, the hash index's node and slot, the row, its listing. */
    static final int ROW_OVERHEAD = 144;
    /** Bytes charged per column on top of its first version: the column and its slot (arrays replaced count once). */
    static final int COLUMN_OVERHEAD = 24;
    private volatile long smallestSequence = Long.MAX_VALUE;
    private volatile long largestSequence;

    /**
     * Bytes per slab the memtable copies cells into, once it has filled slabs of
     * {@link #FIRST_SLAB_SIZE}, twice that, and so on up to this. Large enough that a slab is a
     * humongous object for G1 on heaps up to 4 GiB (allocated outside the young generation, never
     * copied by a young collection).
     */
    static final int SLAB_SIZE = 2 << 20;
    /**
     * The first slab's bytes. Why not {@link #SLAB_SIZE} from the start: every region's active
     * memtable holds a slab from its first write, and a store of 512 regions on a 2 GiB heap ran
     * out of memory within two seconds of writes spread over them (512 slabs of 2 MiB, none of it
     * counted against {@code memtableMemoryLimit}). Slabs grow by doubling, so a small memtable
     * holds little, and what young collections copy (the slabs below 2 MiB) is under 2 MiB per
     * memtable. Slabs are counted in {@link #bytes()} at their full size when made.
     */
    static final int FIRST_SLAB_SIZE = 64 << 10;

    // Guarded by this.
    private MemorySegment slab;
    private byte[] slabArray;
    private int slabUsed;

    /** A memtable with a row filter sized for the default flush size (64 MiB). */
    MemTable() {
        this(64L << 20);
    }

    /** A memtable whose row filter is sized for {@code flushSize} bytes of writes. */
    MemTable(long flushSize) {
        this(() -> flushSize, 0);
    }

    /**
     * A memtable whose row filter is sized, on the first write, for the bytes
     * {@code expectedBytes} then gives, and whose row index starts with room for
     * {@code expectedRows} (at most {@link #MAX_PRESIZED_ROWS}). Why: growing the index from
     * empty, a doubling at a time, was 2% of YCSB's load samples; a region sizes its next memtable
     * by the row count of the one it froze.
     */
    MemTable(LongSupplier expectedBytes, int expectedRows) {
        this.expectedBytes = expectedBytes;
        this.expectedRows = Math.clamp(expectedRows, 16, MAX_PRESIZED_ROWS);
        this.byRow = new ConcurrentHashMap<>(this.expectedRows);
    }

    /** The rows {@link #byRow} was sized for. */
    private final int expectedRows;

    int expectedRows() {
        return expectedRows;
    }

    /** The most rows a new memtable's index is sized for up front (4 MiB of table). */
    static final int MAX_PRESIZED_ROWS = 1 << 20;

    /** How many rows have cells here. */
    int rowCount() {
        return byRow.size();
    }

    /** The hash {@link #mightContainRow} takes: one per get, however many memtables it asks. */
    static long rowHash(byte[] row) {
        return BloomFilter.hash(MemorySegment.ofArray(row));
    }

    /** Bits of a row filter for a memtable expected to reach {@code bytes}: a power of two, 2^12 to 2^30. */
    static int rowFilterBits(long bytes) {
        int bits = 64 - Long.numberOfLeadingZeros(Math.max(1, bytes >>> ROW_FILTER_BYTES_PER_BIT_LOG2) - 1);
        return Math.max(12, Math.min(30, bits));
    }

    /** False when no write here touched the row (true may be a false positive, rarely). */
    boolean mightContainRow(long rowHash) {
        AtomicLongArray filter = rowFilter;
        if (filter == null) {
            return false;
        }
        long mask = ((long) filter.length() << 6) - 1;
        long first = rowHash & mask;
        long second = (rowHash >>> 32) & mask;
        return (filter.get((int) (first >>> 6)) & (1L << first)) != 0
                && (filter.get((int) (second >>> 6)) & (1L << second)) != 0;
    }

    /**
     * Sets the row's bits; true when one was clear, so that the row has no node here yet (false
     * says nothing). Caller holds this.
     */
    private boolean noteRow(long h) {
        AtomicLongArray filter = rowFilter;
        if (filter == null) {
            filter = new AtomicLongArray(1 << (rowFilterBits(expectedBytes.getAsLong()) - 6));
            bytes.addAndGet((long) filter.length() * Long.BYTES);
            rowFilter = filter;
        }
        long mask = ((long) filter.length() << 6) - 1;
        long first = h & mask;
        long second = (h >>> 32) & mask;
        long a = filter.get((int) (first >>> 6));
        filter.set((int) (first >>> 6), a | 1L << first);
        long b = filter.get((int) (second >>> 6));
        filter.set((int) (second >>> 6), b | 1L << second);
        return (a & 1L << first) == 0 || (b & 1L << second) == 0;
    }

    /** Adds one cell written by the write with {@code sequence}. */
    void add(Cell cell, long sequence) {
        add(cell instanceof EncodedCell e ? e : EncodedCell.decode(CellLayout.encode(cell), 0), sequence);
    }

    /** Adds one encoded cell, copied into the memtable's slabs, written by the write with {@code sequence}. */
    void add(EncodedCell encoded, long sequence) {
        addAll(List.of(encoded), sequence);
    }

    /** Adds the cells of one write (one sequence number), copied into the memtable's slabs. */
    void addAll(List<EncodedCell> cells, long sequence) {
        EncodedCell[] copies = new EncodedCell[cells.size()];
        boolean[] fresh = new boolean[copies.length];
        long[] hashes = new long[copies.length]; // each row's, at its first cell
        long total = 0;
        synchronized (this) {
            for (int i = 0; i < copies.length; i++) {
                copies[i] = copyToSlab(cells.get(i));
                if (i == 0 || !sameRow(copies[i - 1], copies[i])) {
                    EncodedCell c = copies[i];
                    hashes[i] = BloomFilter.hash(c.segment(), c.rowOffset(), c.rowLength());
                    fresh[i] = noteRow(hashes[i]);
                }
                total += ENTRY_OVERHEAD; // the encoding is counted with its slab (copyToSlab)
            }
            noteSequence(sequence);
        }
        int from = 0;
        for (int i = 1; i <= copies.length; i++) {
            if (i == copies.length || !sameRow(copies[i - 1], copies[i])) {
                total += insert(copies, from, i, sequence, fresh[from], hashes[from]);
                from = i;
            }
        }
        bytes.addAndGet(total);
    }

    /**
     * Inserts cells {@code [from, to)} of one row and one write; returns the bytes their new row
     * and columns cost. {@code fresh} says the row filter had not seen the row, so it has no node
     * yet and the insert need not look for one first.
     *
     * <p>The hash index decides which write makes a row. Its maker then lists it for walks in
     * order ({@link #list}); a write that found the row before it was listed lists it too (it is the same
     * row), since its maker's sequence may be the later one: this write could otherwise complete,
     * and become visible, while a scan that sorted the rows in after it still missed its row. The
     * store's writes hold the row's write lock across this, so two of them never race here; the
     * second listing keeps the memtable right on its own, for any caller ({@code
     * MemTableRowMakers}, jcstress).
     */
    private long insert(EncodedCell[] cells, int from, int to, long sequence, boolean fresh, long rowHash) {
        Row row = fresh ? null : byRow.get(new RowProbe(cells[from], rowHash));
        if (row == null) {
            int[] counts = new int[2];
            Row made = newRow(cells, from, to, sequence, counts, rowHash);
            row = byRow.putIfAbsent(made, made);
            if (row == null) {
                list(made);
                versions.addAndGet(counts[0]);
                return ROW_OVERHEAD + (long) COLUMN_OVERHEAD * counts[1];
            }
            // Another write made the row first: add to it as to any existing row.
        }
        if (!row.listed) {
            list(row);
        }
        long cost = 0;
        synchronized (row) {
            for (int i = from; i < to; i++) {
                cost += addToRow(row, cells[i], sequence);
            }
        }
        return cost;
    }

    /**
     * Lists a row for walks in order: into the skip list once scans walk this memtable (so that
     * they need not sort rows in), else into the queue {@link #sortIn} sorts from.
     */
    private void list(Row row) {
        if (walked) {
            rows.putIfAbsent(row, row);
        } else {
            unsorted.add(row);
        }
        row.listed = true;
    }

    /**
     * A row made of cells {@code [from, to)} of one write, not yet published; {@code counts} gets
     * its versions and its columns.
     */
    private static Row newRow(EncodedCell[] cells, int from, int to, long sequence, int[] counts, long rowHash) {
        Column[] columns = new Column[to - from];
        int count = 0;
        for (int i = from; i < to; i++) {
            Entry entry = new Entry(cells[i], sequence);
            int at = count == 0 ? -1 : compareInRow(columns[count - 1].cell(), cells[i]) < 0 ? -(count + 1)
                    : search(columns, count, cells[i]);
            if (at >= 0) {
                if (columns[at].insert(entry)) {
                    counts[0]++;
                }
                continue;
            }
            int insertion = -(at + 1);
            System.arraycopy(columns, insertion, columns, insertion + 1, count - insertion);
            columns[insertion] = new Column(entry);
            count++;
            counts[0]++;
        }
        counts[1] = count;
        Column[] exact = count == columns.length ? columns : java.util.Arrays.copyOf(columns, count);
        return new Row(cells[from], count > WIDE_ROW ? wide(exact) : exact, rowHash);
    }

    /** Columns in a skip list of their own, for a row past {@link #WIDE_ROW} columns. */
    private static ConcurrentSkipListMap<Cell, Column> wide(Column[] columns) {
        ConcurrentSkipListMap<Cell, Column> map = new ConcurrentSkipListMap<>(IN_ROW_ORDER);
        for (Column column : columns) {
            map.put(column.cell(), column);
        }
        return map;
    }

    /**
     * The index of the column of {@code cell} among the first {@code count} of {@code columns},
     * or {@code -(insertion point) - 1}, as {@link java.util.Arrays#binarySearch} answers.
     */
    private static int search(Column[] columns, int count, Cell cell) {
        int low = 0;
        int high = count - 1;
        while (low <= high) {
            int mid = (low + high) >>> 1;
            int c = compareInRow(columns[mid].cell(), cell);
            if (c < 0) {
                low = mid + 1;
            } else if (c > 0) {
                high = mid - 1;
            } else {
                return mid;
            }
        }
        return -(low + 1);
    }

    /** Adds a version to a published row; returns what a new column costs. Caller holds the row. */
    @SuppressWarnings("unchecked")
    private long addToRow(Row row, EncodedCell cell, long sequence) {
        Entry entry = new Entry(cell, sequence);
        Object columns = row.columns;
        if (columns instanceof Column[] array) {
            int at = search(array, array.length, cell);
            if (at >= 0) {
                if (array[at].insert(entry)) {
                    versions.incrementAndGet();
                }
                return 0;
            }
            int insertion = -(at + 1);
            Column[] grown = new Column[array.length + 1];
            System.arraycopy(array, 0, grown, 0, insertion);
            grown[insertion] = new Column(entry);
            System.arraycopy(array, insertion, grown, insertion + 1, array.length - insertion);
            row.columns = grown.length > WIDE_ROW ? wide(grown) : grown;
        } else {
            var map = (ConcurrentSkipListMap<Cell, Column>) columns;
            Column existing = map.get(cell);
            if (existing != null) {
                if (existing.insert(entry)) {
                    versions.incrementAndGet();
                }
                return 0;
            }
            map.put(cell, new Column(entry));
        }
        versions.incrementAndGet();
        return COLUMN_OVERHEAD;
    }

    private static boolean sameRow(EncodedCell a, EncodedCell b) {
        return a.sameRow(b);
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
        byte[] targetArray;
        int at;
        if (length > SLAB_SIZE / 4) {
            targetArray = new byte[length]; // a large cell gets its own array
            bytes.addAndGet(length);
            target = MemorySegment.ofArray(targetArray);
            at = 0;
        } else {
            if (slab == null || slabUsed + length > slabArray.length) {
                int size = slab == null ? FIRST_SLAB_SIZE : Math.min(SLAB_SIZE, slabArray.length * 2);
                while (size < length) {
                    size *= 2; // at most SLAB_SIZE / 4 here
                }
                slabArray = new byte[size];
                bytes.addAndGet(size);
                slab = MemorySegment.ofArray(slabArray);
                slabUsed = 0;
            }
            target = slab;
            targetArray = slabArray;
            at = slabUsed;
            slabUsed += length;
        }
        MemorySegment.copy(cell.segment(), cell.offset(), target, at, length);
        // Keeps the array in the view, so comparisons of memtable cells go straight to it.
        return EncodedCell.decode(target, targetArray, at, at + length);
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
        return byRow.isEmpty();
    }

    /**
     * Moves the rows made since the last call into the skip list, sorted first; returns once every
     * row listed before the call is there. What walks {@link #rows} calls this first: a write that
     * completed before then has its row in {@link #unsorted} or in {@link #rows} (see {@link #insert}).
     */
    void sortIn() {
        if (!walked) {
            walked = true;
        }
        // A row leaves the queue only once it is in the skip list, so an empty queue means every
        // row listed before is there. Rows taken off first and put in after let a caller find the
        // queue empty while another thread still held its row (jcstress MemTableRowMakers, 169
        // of 10,700 samples), and would lose them for good if the put failed (out of memory).
        if (unsorted.isEmpty()) {
            return;
        }
        sorting.lock();
        try {
            // Only the lock's holder takes rows off, and writers add at the tail, so the rows
            // seen here are the queue's first ones, and the same count taken off below are they.
            Row[] batch = unsorted.toArray(new Row[0]);
            java.util.Arrays.sort(batch, ROW_ORDER);
            for (Row row : batch) {
                rows.putIfAbsent(row, row);
            }
            for (int i = 0; i < batch.length; i++) {
                unsorted.poll();
            }
        } finally {
            sorting.unlock();
        }
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

    /**
     * Every entry in order, for flushing a memtable no write changes any more. When nothing has
     * walked it ({@link #walked}), its rows are taken from {@link #byRow} and sorted into an array
     * ({@link #sortRows}) rather than moved into the skip list, which only this one pass would
     * use: the sort with the skip list's inserts was a quarter of the flusher's time in YCSB's load.
     */
    Iterator<Entry> iterator() {
        Cursor cursor = walked ? new Cursor(this, null)
                : Cursor.overSorted(this, sortRows(byRow.values().toArray(new Row[0])));
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

    /** Rows a {@link #sortRows} sorts by their index in the array; more are sorted by {@link #ROW_ORDER} alone. */
    private static final int SORT_INDEX_BITS = 20;

    /**
     * Sorts {@code rows} into {@link #ROW_ORDER} and returns them. How: the bits of each row's two
     * prefix words ({@link RowKey#rowPrefix}, {@link RowKey#rowPrefix2}) that differ among the rows
     * (YCSB's keys share "user" and the high half of every digit) give a 44-bit key, packed above
     * the row's index into one {@code long}; the longs sort as primitives, and rows whose 44 bits
     * tie are then sorted by {@code ROW_ORDER}. A comparator sort of the rows themselves loads two
     * rows per comparison, each a likely cache miss.
     */
    static <R extends RowKey> R[] sortRows(R[] rows) {
        int n = rows.length;
        if (n < 2) {
            return rows;
        }
        if (n > 1 << SORT_INDEX_BITS) {
            java.util.Arrays.sort(rows, ROW_ORDER);
            return rows;
        }
        long first1 = rows[0].rowPrefix;
        long first2 = rows[0].rowPrefix2;
        long vary1 = 0;
        long vary2 = 0;
        for (R r : rows) {
            vary1 |= r.rowPrefix ^ first1;
            vary2 |= r.rowPrefix2 ^ first2;
        }
        // the bits above the first that varies are the same in every row: shift them out
        int shift = vary1 != 0 ? Long.numberOfLeadingZeros(vary1) : 64 + Long.numberOfLeadingZeros(vary2);
        long[] keys = new long[n];
        for (int i = 0; i < n; i++) {
            long top = shiftedWord(rows[i].rowPrefix, rows[i].rowPrefix2, shift) >>> SORT_INDEX_BITS;
            keys[i] = (top << SORT_INDEX_BITS | i) ^ Long.MIN_VALUE; // signed order of these is unsigned order of the key
        }
        java.util.Arrays.sort(keys);
        R[] byIndex = rows.clone();
        int mask = (1 << SORT_INDEX_BITS) - 1;
        for (int i = 0; i < n; i++) {
            rows[i] = byIndex[(int) keys[i] & mask];
        }
        int start = 0;
        for (int i = 1; i <= n; i++) {
            if (i == n || (keys[i] ^ keys[start]) >>> SORT_INDEX_BITS != 0) {
                if (i - start > 1) {
                    java.util.Arrays.sort(rows, start, i, ROW_ORDER); // the 44 bits tie: the rows decide
                }
                start = i;
            }
        }
        return rows;
    }

    /** The first 64 bits of the 128-bit word {@code high:low} shifted left by {@code shift} (0-128). */
    static long shiftedWord(long high, long low, int shift) {
        if (shift == 0) {
            return high;
        }
        if (shift < 64) {
            return high << shift | low >>> (64 - shift);
        }
        return shift < 128 ? low << (shift - 64) : 0;
    }

    /**
     * The largest row below {@code bound} that has a cell here, or {@code null}; a {@code null}
     * bound means the last row.
     */
    byte[] rowBefore(byte[] bound) {
        sortIn();
        var entry = bound == null ? rows.lastEntry() : rows.lowerEntry(new RowProbe(SeekKey.firstOnRow(bound)));
        return entry == null ? null : entry.getValue().cell.rowBytes();
    }

    /** An iterator over the memtable as it is now and as it changes. */
    InternalIterator newIterator() {
        return new Cursor(this, null);
    }

    /**
     * An iterator over one row's cells, found by hash, for a get: {@code row} is a key of the row
     * (the get's first key, {@link SeekKey#firstOnRow}) and {@code rowHash} its {@link #rowHash}.
     * It ends after the row, wherever it is sought; {@code null} when no write here touched the
     * row (as a get then has nothing to merge from this memtable).
     */
    InternalIterator newRowIterator(Cell row, long rowHash) {
        Row found = byRow.get(new RowProbe(row, rowHash));
        return found == null ? null : new Cursor(this, found);
    }

    /**
     * Walks the rows, each one's columns and each column's versions; positions itself on the first
     * when first asked, so that one created only to {@link #seek} (every get) never builds an
     * iterator from the start.
     */
    private static final class Cursor implements InternalIterator {
        private final MemTable memtable;
        private final ConcurrentSkipListMap<RowKey, Row> rows;
        /** The one row a get's cursor walks, or null to walk them all. */
        private final Row only;
        /** The rows after {@link #row}. */
        private Iterator<Row> rowIt;
        /** The current row's columns when they are an array (else null), and the current one's index. */
        private Column[] array;
        private int index;
        /** The current row's columns after {@link #column} when they are a skip list. */
        private Iterator<Column> wideIt;
        private Column column;
        private Entry current;

        Cursor(MemTable memtable, Row only) {
            this.memtable = memtable;
            this.rows = memtable.rows;
            this.only = only;
        }

        /** A cursor over {@code sorted}, rows in order; it only steps forward (a flush's walk), never seeks. */
        static Cursor overSorted(MemTable memtable, Row[] sorted) {
            Cursor cursor = new Cursor(memtable, null);
            cursor.rowIt = java.util.Arrays.asList(sorted).iterator();
            cursor.forwardOnly = true;
            cursor.nextRow();
            return cursor;
        }

        private boolean forwardOnly;

        private void ensurePositioned() {
            if (rowIt == null) {
                if (only == null) {
                    memtable.sortIn();
                }
                rowIt = only == null ? rows.values().iterator() : List.of(only).iterator();
                nextRow();
            }
        }

        /** Moves to the first column of the next row that has one, or past the end. */
        private void nextRow() {
            while (rowIt.hasNext()) {
                if (enterRow(rowIt.next(), null)) {
                    return;
                }
            }
            array = null;
            wideIt = null;
            column = null;
            current = null;
        }

        /**
         * Positions on the row's first column at or after {@code from}'s (family, qualifier), or
         * its first column for null; false when it has none there.
         */
        @SuppressWarnings("unchecked")
        private boolean enterRow(Row row, Cell from) {
            Object columns = row.columns;
            if (columns instanceof Column[] a) {
                int at = 0;
                if (from != null) {
                    at = search(a, a.length, from);
                    at = at >= 0 ? at : -(at + 1);
                }
                array = a;
                wideIt = null;
                index = at;
                if (at < a.length) {
                    column = a[at];
                    current = column.head;
                    return true;
                }
                return false;
            }
            var map = (ConcurrentSkipListMap<Cell, Column>) columns;
            array = null;
            wideIt = (from == null ? map : map.tailMap(from, true)).values().iterator();
            if (wideIt.hasNext()) {
                column = wideIt.next();
                current = column.head;
                return true;
            }
            return false;
        }

        /** Moves to the row's next column, or to the next row's first; true when the row had one more. */
        private boolean nextColumn() {
            if (array != null) {
                if (++index < array.length) {
                    column = array[index];
                    current = column.head;
                    return true;
                }
            } else if (wideIt != null && wideIt.hasNext()) {
                column = wideIt.next();
                current = column.head;
                return true;
            }
            nextRow();
            return false;
        }

        @Override
        public boolean valid() {
            ensurePositioned();
            return current != null;
        }

        @Override
        public EncodedCell cell() {
            ensurePositioned();
            if (viewOf != current) { // one view per entry the cursor is on: a merge asks for it per comparison
                view = current.cell();
                viewOf = current;
            }
            return view;
        }

        /** The view {@link #cell()} made, and the entry it is of. */
        private EncodedCell view;
        private Entry viewOf;

        @Override
        public long sequence() {
            ensurePositioned();
            return current.sequence();
        }

        @Override
        public void next() {
            ensurePositioned();
            stayedInRow = false;
            if (current != null) {
                current = current.next;
                if (current != null) {
                    stayedInRow = true; // the column's next version
                } else {
                    stayedInRow = nextColumn();
                }
            }
        }

        /** Set by {@link #next()} only: whether it moved within the row it was on. */
        private boolean stayedInRow;

        @Override
        public boolean sameRowAsPrevious() {
            return stayedInRow; // only set when the step found an entry in the row
        }

        @Override
        public void seek(Cell key) {
            stayedInRow = false;
            if (forwardOnly) {
                throw new UnsupportedOperationException("a flush's cursor over sorted rows does not seek");
            }
            if (only != null) {
                // The row if it is at or after the key, else nothing.
                rowIt = compareRows(only.cell, key) >= 0 ? List.of(only).iterator() : java.util.Collections.emptyIterator();
            } else {
                memtable.sortIn();
                rowIt = rows.tailMap(new RowProbe(key), true).values().iterator();
            }
            if (!rowIt.hasNext()) {
                nextRow();
                return;
            }
            Row row = rowIt.next();
            boolean keyRow = compareRows(row.cell, key) == 0;
            if (!enterRow(row, keyRow ? key : null)) {
                nextRow();
                return;
            }
            if (keyRow && compareInRow(column.cell(), key) == 0) {
                versionAtOrAfter(key);
            }
        }

        /** Moves along the current column to its first version at or after {@code key}. */
        private void versionAtOrAfter(Cell key) {
            while (current != null && CellComparator.INSTANCE.compare(current.cell(), key) < 0) {
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
            stayedInRow = false;
            if (rowIt == null || current == null) {
                seek(key);
                return;
            }
            for (int i = 0; i < SSTableIterator.STEPS_BEFORE_SEEK; i++) {
                int c = CellComparator.compareColumns(column.cell(), key);
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
            int c = CellComparator.compareColumns(column.cell(), key);
            if (c < 0) {
                seek(key);
            } else if (c == 0) {
                versionAtOrAfter(key);
            }
        }
    }
}
