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
 * A writer links a version into the middle of a memtable column and then one at its head while a
 * reader walks the column. The reader must see the old version, and what it sees must be in order:
 * an entry published before its {@code next} link was set would cut the walk short (the old
 * version missing) or repeat a version.
 *
 * <p>r1: versions the reader saw; r2: 1 when they were in order and ended at the old version.
 */
@JCStressTest
@Outcome(id = {"1, 1", "2, 1", "3, 1"}, expect = ACCEPTABLE,
        desc = "the old version and some of the new ones, in order")
@Outcome(expect = FORBIDDEN, desc = "the walk lost the old version or came out of order")
@State
public class MemTableColumnWalk {

    private final MemTable memtable = new MemTable(1 << 20);

    public MemTableColumnWalk() {
        memtable.add(Cell.put("row", "f", "q", 5, "old"), 1);
    }

    @Actor
    public void writes() {
        memtable.add(Cell.put("row", "f", "q", 7, "between"), 2);
        memtable.add(Cell.put("row", "f", "q", 10, "newest"), 3);
    }

    @Actor
    public void reads(II_Result r) {
        int[] seen = MemTableColumnInserts.walk(memtable);
        r.r1 = seen[0];
        r.r2 = seen[1] == 1 && seen[2] == 5 ? 1 : 0;
    }
}
