package io.basalt.engine;

import io.basalt.cell.Cell;
import io.basalt.cell.CellComparator;
import io.basalt.cell.CellLayout;
import io.basalt.cell.EncodedCell;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * A sorted list of cells with sequence numbers as an {@link InternalIterator}, for tests of what
 * reads over sources do; counts the steps and seeks it was asked for.
 */
final class ListSource implements InternalIterator {

    /** A cell and the sequence of the write that stored it. */
    record Entry(Cell cell, long sequence) {}

    /** Cell order, newest write first among equal cells: the order every source keeps. */
    static final Comparator<Entry> ORDER = Comparator.<Entry, Cell>comparing(Entry::cell, CellComparator.INSTANCE)
            .thenComparing(Entry::sequence, Comparator.reverseOrder());

    private final List<Entry> entries;
    private int at;
    int steps;
    int seeks;
    /** How often the current cell was made: every look at its key is one. */
    int looks;
    /** Whether the last move was a step, after which {@link #sameRowAsPrevious()} may say true. */
    private boolean stepped;

    ListSource(List<Entry> entries) {
        this.entries = new ArrayList<>(entries);
        this.entries.sort(ORDER);
    }

    @Override
    public boolean valid() {
        return at < entries.size();
    }

    @Override
    public EncodedCell cell() {
        looks++;
        return EncodedCell.decode(CellLayout.encode(entries.get(at).cell()), 0);
    }

    @Override
    public long sequence() {
        return entries.get(at).sequence();
    }

    @Override
    public void next() {
        steps++;
        at++;
        stepped = true;
    }

    /** As an SSTable's: true after a step that stayed in the row. */
    @Override
    public boolean sameRowAsPrevious() {
        return stepped && at > 0 && valid()
                && java.util.Arrays.equals(entries.get(at).cell().rowBytes(), entries.get(at - 1).cell().rowBytes());
    }

    @Override
    public void seek(Cell key) {
        seeks++;
        stepped = false;
        at = 0;
        while (at < entries.size() && CellComparator.INSTANCE.compare(entries.get(at).cell(), key) < 0) {
            at++;
        }
    }
}
