package io.basalt.engine;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import io.basalt.cell.Cell;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.II_Result;

/**
 * A writer adds columns to a memtable row, one before its only column and then one after, while a
 * reader walks the memtable. A row's columns are an array replaced whole under the row's monitor:
 * the reader must see the old column, its columns in order, and never a column missing between
 * two it saw (an array published before it was filled, or changed in place, shows as a count or
 * an order jcstress forbids).
 *
 * <p>r1: columns the reader saw; r2: 1 when they were in order and included the old one.
 */
@JCStressTest
@Outcome(id = {"1, 1", "2, 1", "3, 1"}, expect = ACCEPTABLE,
        desc = "the old column and some of the new ones, in order")
@Outcome(expect = FORBIDDEN, desc = "the walk lost the old column or came out of order")
@State
public class MemTableRowGrowth {

    private final MemTable memtable = new MemTable(1 << 20);

    public MemTableRowGrowth() {
        memtable.add(Cell.put("row", "f", "m", 5, "old"), 1);
    }

    @Actor
    public void writes() {
        memtable.add(Cell.put("row", "f", "a", 7, "before"), 2);
        memtable.add(Cell.put("row", "f", "z", 9, "after"), 3);
    }

    @Actor
    public void reads(II_Result r) {
        int count = 0;
        boolean ordered = true;
        boolean old = false;
        String previous = "";
        try (InternalIterator it = memtable.newIterator()) {
            for (; it.valid(); it.next()) {
                String qualifier = new String(it.cell().qualifierBytes());
                ordered &= qualifier.compareTo(previous) > 0;
                old |= qualifier.equals("m");
                previous = qualifier;
                count++;
            }
        }
        r.r1 = count;
        r.r2 = ordered && old ? 1 : 0;
    }
}
