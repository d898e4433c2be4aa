package io.basalt.engine;

import io.basalt.cell.Cell;
import io.basalt.cell.CellComparator;
import io.basalt.cell.CellLayout;
import io.basalt.cell.EncodedCell;
import java.util.Comparator;
import java.util.Iterator;
import java.util.NavigableSet;
import java.util.concurrent.ConcurrentSkipListSet;
import java.util.concurrent.atomic.AtomicLong;

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

    /** A cell in the memtable. */
    record Entry(Cell cell, long sequence) {}

    static final Comparator<Entry> ORDER = (a, b) -> {
        int c = CellComparator.INSTANCE.compare(a.cell, b.cell);
        return c != 0 ? c : Long.compare(b.sequence, a.sequence);
    };

    private final ConcurrentSkipListSet<Entry> entries = new ConcurrentSkipListSet<>(ORDER);
    private final AtomicLong bytes = new AtomicLong();
    private volatile long smallestSequence = Long.MAX_VALUE;
    private volatile long largestSequence;

    /** Adds one cell written by the write with {@code sequence}. */
    void add(Cell cell, long sequence) {
        add(cell instanceof EncodedCell e ? e : EncodedCell.decode(CellLayout.encode(cell), 0), sequence);
    }

    /** Adds one encoded cell (kept, not copied) written by the write with {@code sequence}. */
    void add(EncodedCell encoded, long sequence) {
        entries.add(new Entry(encoded, sequence));
        bytes.addAndGet(encoded.encodedLength() + ENTRY_OVERHEAD);
        noteSequence(sequence);
    }

    private synchronized void noteSequence(long sequence) {
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

    private static final class Cursor implements InternalIterator {
        private final NavigableSet<Entry> entries;
        private Iterator<Entry> it;
        private Entry current;

        Cursor(NavigableSet<Entry> entries) {
            this.entries = entries;
            this.it = entries.iterator();
            advance();
        }

        private void advance() {
            current = it.hasNext() ? it.next() : null;
        }

        @Override
        public boolean valid() {
            return current != null;
        }

        @Override
        public EncodedCell cell() {
            return (EncodedCell) current.cell; // add() stores only encoded cells
        }

        @Override
        public long sequence() {
            return current.sequence;
        }

        @Override
        public void next() {
            advance();
        }

        @Override
        public void seek(Cell key) {
            it = entries.tailSet(new Entry(key, Long.MAX_VALUE), true).iterator();
            advance();
        }
    }
}
