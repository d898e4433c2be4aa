package io.basalt.engine;

import io.basalt.cell.Cell;
import io.basalt.cell.CellComparator;
import io.basalt.cell.EncodedCell;
import java.util.ArrayList;
import java.util.List;
import java.util.PriorityQueue;

/**
 * Merges sorted sources (memtables, SSTables) into one sorted stream: a binary heap keyed by each
 * source's current entry, cell order first, then newest sequence first.
 */
final class MergingIterator implements InternalIterator {

    private static int compare(InternalIterator a, InternalIterator b) {
        EncodedCell x = a.cell();
        EncodedCell y = b.cell();
        int c = CellComparator.compareKeys(x.segment(), x.keyOffset(), x.keyLength(), y.segment(), y.keyOffset(),
                y.keyLength());
        return c != 0 ? c : Long.compare(b.sequence(), a.sequence());
    }

    private final List<InternalIterator> sources;
    private final PriorityQueue<InternalIterator> heap;
    private InternalIterator current;
    private boolean positioned;

    /** A merge that positions its sources on their first entries when first asked (or by a seek). */
    MergingIterator(List<InternalIterator> sources) {
        this.sources = new ArrayList<>(sources);
        this.heap = new PriorityQueue<>(Math.max(1, sources.size()), MergingIterator::compare);
    }

    private void ensurePositioned() {
        if (!positioned) {
            rebuild();
        }
    }

    private void rebuild() {
        positioned = true;
        heap.clear();
        for (InternalIterator source : sources) {
            if (source.valid()) {
                heap.add(source);
            }
        }
        current = heap.poll();
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
    public void next() {
        ensurePositioned();
        current.next();
        if (current.valid()) {
            heap.add(current);
        }
        current = heap.poll();
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
        heap.clear();
        current = null;
    }
}
