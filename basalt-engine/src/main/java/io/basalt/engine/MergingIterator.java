package io.basalt.engine;

import io.basalt.bytes.Bytes;
import io.basalt.cell.Cell;
import io.basalt.cell.CellComparator;
import io.basalt.cell.CellLayout;
import io.basalt.cell.EncodedCell;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Merges sorted sources (memtables, SSTables) into one sorted stream: the current source plus a
 * binary heap of the others, keyed by each source's current entry, cell order first, then newest
 * sequence first.
 *
 * <p>Advancing costs one comparison when the current source still holds the smallest entry (runs
 * of a row's cells, or of neighbouring rows, sit in one source) and otherwise one sift down of
 * the heap's top, never a removal plus an insertion: compaction spends most of its time here
 * (a profile of YCSB's load put 46% of the compactor's samples in the merge's comparisons, with
 * {@code PriorityQueue}'s poll and add).
 */
final class MergingIterator implements InternalIterator {

    private static int compare(InternalIterator a, InternalIterator b) {
        byte[] x = a.keyArray();
        byte[] y = b.keyArray();
        int c = x != null && y != null
                ? CellComparator.compareKeys(x, (int) a.keyOffset(), a.keyLength(), y, (int) b.keyOffset(), b.keyLength())
                : CellComparator.compareKeys(a.keySegment(), a.keyOffset(), a.keyLength(), b.keySegment(),
                b.keyOffset(), b.keyLength());
        return c != 0 ? c : Long.compare(b.sequence(), a.sequence());
    }

    private final List<InternalIterator> sources;
    /** The sources other than {@link #current} that have an entry, as a binary min-heap. */
    private final InternalIterator[] heap;
    private int size;
    private InternalIterator current;
    private boolean positioned;
    /**
     * What is known of the heap top's row against {@link #current}'s, while current stays on one
     * row and the top stays the same: {@link #TOP_AHEAD}, the top's row sorts after it, so every
     * later entry of the current row comes before the top and advancing needs no comparison;
     * {@link #TOP_SAME}, the same row (advancing compares, but need not check the rows again);
     * else {@link #TOP_UNKNOWN}. Reset whenever current or the top changes.
     */
    private int topRow;
    private static final int TOP_UNKNOWN = 0;
    private static final int TOP_AHEAD = 1;
    private static final int TOP_SAME = 2;
    /** Set by {@link #next()} only: whether it is known that the step stayed in its row (see {@link #sameRowAsPrevious}). */
    private boolean stayedInRow;

    /** A merge that positions its sources on their first entries when first asked (or by a seek). */
    MergingIterator(List<InternalIterator> sources) {
        this.sources = new ArrayList<>(sources);
        this.heap = new InternalIterator[Math.max(1, sources.size())];
    }

    private void ensurePositioned() {
        if (!positioned) {
            rebuild();
        }
    }

    private void rebuild() {
        positioned = true;
        topRow = TOP_UNKNOWN;
        stayedInRow = false;
        size = 0;
        for (InternalIterator source : sources) {
            if (source.valid()) {
                heap[size++] = source;
            }
        }
        for (int i = size / 2 - 1; i >= 0; i--) {
            siftDown(i);
        }
        current = size == 0 ? null : removeTop();
    }

    private InternalIterator removeTop() {
        InternalIterator top = heap[0];
        heap[0] = heap[--size];
        heap[size] = null;
        if (size > 0) {
            siftDown(0);
        }
        return top;
    }

    private void siftDown(int i) {
        InternalIterator moving = heap[i];
        int half = size >>> 1;
        while (i < half) {
            int child = 2 * i + 1;
            int right = child + 1;
            if (right < size && compare(heap[right], heap[child]) < 0) {
                child = right;
            }
            if (compare(moving, heap[child]) <= 0) {
                break;
            }
            heap[i] = heap[child];
            i = child;
        }
        heap[i] = moving;
    }

    @Override
    public boolean valid() {
        ensurePositioned();
        return current != null;
    }

    @Override
    public EncodedCell cell() {
        ensurePositioned();
        return current.cell();
    }

    @Override
    public long sequence() {
        ensurePositioned();
        return current.sequence();
    }

    @Override
    public MemorySegment keySegment() {
        ensurePositioned();
        return current.keySegment();
    }

    @Override
    public byte[] keyArray() {
        ensurePositioned();
        return current.keyArray();
    }

    @Override
    public long keyOffset() {
        ensurePositioned();
        return current.keyOffset();
    }

    @Override
    public int keyLength() {
        ensurePositioned();
        return current.keyLength();
    }

    @Override
    public void checkKey() {
        ensurePositioned();
        current.checkKey();
    }

    @Override
    public int valueLength() {
        ensurePositioned();
        return current.valueLength();
    }

    @Override
    public void copyValue(byte[] dst, int offset) {
        ensurePositioned();
        current.copyValue(dst, offset);
    }

    @Override
    public void next() {
        ensurePositioned();
        // TOP_SAME: the top's row is the row of the entry this step leaves, so if the top takes
        // over, the step stayed in the row.
        boolean topInRow = topRow == TOP_SAME;
        current.next();
        if (!current.valid()) {
            current = size == 0 ? null : removeTop();
            topRow = TOP_UNKNOWN;
            stayedInRow = current != null && topInRow;
        } else if (size > 0) {
            boolean stayed = current.sameRowAsPrevious();
            if (topRow == TOP_AHEAD && stayed) {
                stayedInRow = true;
                return; // still in a row that sorts before the top's: a YCSB row's ten cells cost one comparison
            }
            if (compare(heap[0], current) < 0) {
                // Another source is now ahead: it becomes current, and this one takes its heap slot.
                InternalIterator top = heap[0];
                heap[0] = current;
                siftDown(0);
                current = top;
                topRow = TOP_UNKNOWN;
                stayedInRow = topInRow;
            } else {
                stayedInRow = stayed;
                if (topRow != TOP_SAME || !stayed) {
                    // the top is not before current: either the same row, or a later one
                    topRow = sameRow(heap[0], current) ? TOP_SAME : TOP_AHEAD;
                }
            }
        } else {
            stayedInRow = current.sameRowAsPrevious();
        }
    }

    /**
     * True when the last move was a {@link #next()} known to stay in its row: the source that
     * stayed current said so, or the heap's top, which takes over, was known to be in the row.
     * False when that is not known, or after a seek. A row reader uses it to skip comparing each
     * cell's row with the row it reads.
     */
    @Override
    public boolean sameRowAsPrevious() {
        return stayedInRow;
    }

    /** Whether the two sources' current keys have the same row (length field and bytes). */
    private static boolean sameRow(InternalIterator a, InternalIterator b) {
        byte[] x = a.keyArray();
        byte[] y = b.keyArray();
        if (x != null && y != null) {
            int ax = (int) a.keyOffset();
            int bx = (int) b.keyOffset();
            int end = CellLayout.ROW_LENGTH_SIZE + Bytes.unsignedShortBE(x, ax);
            return end <= a.keyLength() && end <= b.keyLength() && Arrays.equals(x, ax, ax + end, y, bx, bx + end);
        }
        MemorySegment sx = a.keySegment();
        MemorySegment sy = b.keySegment();
        long ax = a.keyOffset();
        long bx = b.keyOffset();
        int end = CellLayout.ROW_LENGTH_SIZE + CellLayout.rowLength(sx, ax);
        return end <= a.keyLength() && end <= b.keyLength() && MemorySegment.mismatch(sx, ax, ax + end, sy, bx, bx + end) < 0;
    }

    /**
     * Seeks only the sources whose entry is before {@code key}: the current one and those at the
     * top of the heap. Skipping a hot column's versions this way moves the memtable that holds
     * them, not every file of the row as {@link #seek} would.
     */
    @Override
    public void seekForward(Cell key) {
        ensurePositioned();
        if (current == null) {
            return;
        }
        InternalIterator[] moved = new InternalIterator[size + 1];
        int count = 0;
        moved[count++] = current;
        java.lang.foreign.MemorySegment target = SeekKey.encodedKey(key);
        int targetLength = (int) target.byteSize();
        while (size > 0 && CellComparator.compareKeys(heap[0].keySegment(), heap[0].keyOffset(), heap[0].keyLength(),
                target, 0, targetLength) < 0) {
            moved[count++] = removeTop();
        }
        for (int i = 0; i < count; i++) {
            InternalIterator source = moved[i];
            source.seekForward(key); // each is behind key: its top compared below it
            if (source.valid()) {
                heap[size] = source;
                siftUp(size++);
            }
        }
        current = size == 0 ? null : removeTop();
        topRow = TOP_UNKNOWN;
        stayedInRow = false;
    }

    private void siftUp(int i) {
        InternalIterator moving = heap[i];
        while (i > 0) {
            int parent = (i - 1) >>> 1;
            if (compare(moving, heap[parent]) >= 0) {
                break;
            }
            heap[i] = heap[parent];
            i = parent;
        }
        heap[i] = moving;
    }

    @Override
    public void seek(Cell key) {
        for (InternalIterator source : sources) {
            source.seek(key);
        }
        rebuild();
    }

    @Override
    public void close() {
        for (InternalIterator source : sources) {
            source.close();
        }
        java.util.Arrays.fill(heap, null);
        size = 0;
        current = null;
    }
}
