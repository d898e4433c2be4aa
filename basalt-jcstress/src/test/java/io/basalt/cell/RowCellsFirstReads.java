package io.basalt.cell;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import java.io.ByteArrayOutputStream;
import java.lang.foreign.MemorySegment;
import java.util.List;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.JJ_Result;

/**
 * {@link CellBlock#rowCells}: two threads read a row's cells for the first time at once, so both
 * may run the check, and each may find the other's result published. Whichever result a thread
 * uses, the cells it gets must be the ones asked for: cell 1 (timestamp 11) and cell 3
 * (timestamp 13). A reader that saw the published result before the cells' offsets were in it
 * would read another cell (or fail).
 */
@JCStressTest
@Outcome(id = "11, 13", expect = ACCEPTABLE, desc = "each thread read the cell it asked for")
@Outcome(expect = FORBIDDEN, desc = "a thread read another cell than the one it asked for")
@State
public class RowCellsFirstReads {

    private static final byte[] ROW;

    static {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (int q = 0; q < 4; q++) {
            out.writeBytes(CellLayout.encode(Cell.put("row", "f", "q" + q, 10 + q, "value " + q)));
        }
        ROW = out.toByteArray();
    }

    private final List<Cell> cells = CellBlock.rowCells(MemorySegment.ofArray(ROW), ROW, 0, ROW.length, 4,
            "a jcstress row");

    @Actor
    public void readsCellOne(JJ_Result r) {
        r.r1 = cells.get(1).timestamp();
    }

    @Actor
    public void readsCellThree(JJ_Result r) {
        r.r2 = cells.get(3).timestamp();
    }
}
