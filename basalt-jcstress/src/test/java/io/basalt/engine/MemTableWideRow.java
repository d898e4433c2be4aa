package io.basalt.engine;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import io.basalt.cell.Cell;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.III_Result;

/**
 * A memtable row holds {@link MemTable#WIDE_ROW} columns; one writer adds a column (moving the
 * row's columns from an array to a skip list of their own) while another adds a version to an
 * existing column and then walks. The walk sees every old column in order, with or without the
 * new one; afterwards the new column and the new version are both there (a version linked into a
 * column the move left behind would be lost, or counted twice). Two actors: the harness runs on
 * two CPUs.
 *
 * <p>r1: columns the walk saw, less the old ones (0 or 1), or -1 when it lost one, saw them out
 * of order or missed its own version; r2: columns afterwards; r3: versions afterwards.
 */
@JCStressTest
@Outcome(id = {"0, 65, 66", "1, 65, 66"}, expect = ACCEPTABLE,
        desc = "the reader saw the old columns, with or without the new one; nothing lost")
@Outcome(expect = FORBIDDEN, desc = "a column or version lost, or a walk out of order")
@State
public class MemTableWideRow {

    private final MemTable memtable = new MemTable(1 << 20);

    public MemTableWideRow() {
        for (int i = 0; i < MemTable.WIDE_ROW; i++) {
            memtable.add(Cell.put("row", "f", String.format("q%03d", 2 * i), 5, "old"), 1 + i);
        }
    }

    @Actor
    public void addsAColumn() {
        memtable.add(Cell.put("row", "f", "q001", 7, "new column"), 1000);
    }

    @Actor
    public void addsAVersionAndReads(III_Result r) {
        memtable.add(Cell.put("row", "f", "q010", 9, "new version"), 1001);
        int columns = 0;
        boolean ordered = true;
        boolean own = false;
        String previous = "";
        try (InternalIterator it = memtable.newIterator()) {
            for (; it.valid(); it.next()) {
                String qualifier = new String(it.cell().qualifierBytes());
                if (!qualifier.equals(previous)) {
                    ordered &= qualifier.compareTo(previous) > 0;
                    columns++;
                }
                own |= it.sequence() == 1001;
                previous = qualifier;
            }
        }
        r.r1 = ordered && own && columns >= MemTable.WIDE_ROW ? columns - MemTable.WIDE_ROW : -1;
    }

    @Arbiter
    public void settles(III_Result r) {
        int columns = 0;
        int versions = 0;
        String previous = "";
        try (InternalIterator it = memtable.newIterator()) {
            for (; it.valid(); it.next()) {
                String qualifier = new String(it.cell().qualifierBytes());
                if (!qualifier.equals(previous)) {
                    columns++;
                }
                previous = qualifier;
                versions++;
            }
        }
        r.r2 = columns;
        r.r3 = versions;
    }
}
