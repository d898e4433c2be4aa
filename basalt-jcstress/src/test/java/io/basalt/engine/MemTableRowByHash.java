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
 * Two writes race to make the same new row in a memtable, then each reads the row as a get does,
 * through the hash index ({@link MemTable#newRowIterator}). The skip list decides which write
 * makes the row, and the maker lists it in the index after that: a write that found the row made
 * by the other must list it too, or it could return (and be acknowledged) while a get by hash
 * still missed the row and its own cell.
 *
 * <p>r1, r2: 1 when that write's get found its own cell.
 */
@JCStressTest
@Outcome(id = "1, 1", expect = ACCEPTABLE, desc = "each write reads its own cell back")
@Outcome(expect = FORBIDDEN, desc = "a write returned while its row was missing from the hash index")
@State
public class MemTableRowByHash {

    private static final byte[] ROW = "row".getBytes(java.nio.charset.StandardCharsets.UTF_8);

    private final MemTable memtable = new MemTable(1 << 20);

    @Actor
    public void first(II_Result r) {
        memtable.add(Cell.put("row", "f", "a", 5, "first"), 2);
        r.r1 = sees("a");
    }

    @Actor
    public void second(II_Result r) {
        memtable.add(Cell.put("row", "f", "b", 5, "second"), 1);
        r.r2 = sees("b");
    }

    private int sees(String qualifier) {
        InternalIterator it = memtable.newRowIterator(SeekKey.firstOnRow(ROW), MemTable.rowHash(ROW));
        if (it == null) {
            return 0;
        }
        try (it) {
            it.seek(SeekKey.firstOnRow(ROW));
            for (; it.valid(); it.next()) {
                if (new String(it.cell().qualifierBytes(), java.nio.charset.StandardCharsets.UTF_8).equals(qualifier)) {
                    return 1;
                }
            }
        }
        return 0;
    }
}
