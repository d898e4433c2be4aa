package io.basalt.engine;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import io.basalt.cell.Cell;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.II_Result;

/**
 * Two writers link versions into one memtable column at once, one at the head and one between
 * the head and the old version, so their CASes can collide. Afterwards all three versions are
 * there, newest timestamp first; a lost insert shows as a count below 3.
 *
 * <p>r1: versions at the end; r2: 1 when those were in order (timestamps 10, 7, 5).
 */
@JCStressTest
@Outcome(id = "3, 1", expect = ACCEPTABLE, desc = "both inserts kept, in order")
@Outcome(expect = FORBIDDEN, desc = "a version was lost or came out of order")
@State
public class MemTableColumnInserts {

    private final MemTable memtable = new MemTable(1 << 20);

    public MemTableColumnInserts() {
        memtable.add(Cell.put("row", "f", "q", 5, "old"), 1);
    }

    @Actor
    public void writesNewest() {
        memtable.add(Cell.put("row", "f", "q", 10, "newest"), 2);
    }

    @Actor
    public void writesBetween() {
        memtable.add(Cell.put("row", "f", "q", 7, "between"), 3);
    }

    @Arbiter
    public void settles(II_Result r) {
        int[] seen = walk(memtable);
        r.r1 = seen[0];
        r.r2 = seen[1] == 1 && seen[2] == 5 ? 1 : 0;
    }

    /** Count, 1 when timestamps strictly fall, and the last timestamp seen. */
    static int[] walk(MemTable memtable) {
        int count = 0;
        boolean ordered = true;
        long previous = Long.MAX_VALUE;
        try (InternalIterator it = memtable.newIterator()) {
            for (; it.valid(); it.next()) {
                long ts = it.cell().timestamp();
                ordered &= ts < previous;
                previous = ts;
                count++;
            }
        }
        return new int[] {count, ordered ? 1 : 0, (int) previous};
    }
}
