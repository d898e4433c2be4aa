package io.basalt.engine;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import io.basalt.cell.Cell;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.IIII_Result;

/**
 * Two writes race to make the same new row in a memtable, then each reads the row back twice: as
 * a get does, through the hash index ({@link MemTable#newRowIterator}), and as a scan does, in
 * order ({@link MemTable#newIterator}). The hash index decides which write makes the row; the
 * maker then queues it to be sorted into the skip list, and a write that found the row made by
 * the other must queue it too, or it could return (and be acknowledged) while a scan still missed
 * the row and its own cell. A scan must also wait for a sort another thread is in the middle of.
 *
 * <p>r1, r2: the first write's get and scan found its cell (1) or not (0); r3, r4: the second's.
 */
@JCStressTest
@Outcome(id = "1, 1, 1, 1", expect = ACCEPTABLE, desc = "each write reads its own cell back, both ways")
@Outcome(expect = FORBIDDEN, desc = "a write returned while its row was missing from the hash index or the rows in order")
@State
public class MemTableRowMakers {

    private static final byte[] ROW = "row".getBytes(java.nio.charset.StandardCharsets.UTF_8);

    private final MemTable memtable = new MemTable(1 << 20);

    @Actor
    public void first(IIII_Result r) {
        memtable.add(Cell.put("row", "f", "a", 5, "first"), 2);
        r.r1 = found(memtable.newRowIterator(SeekKey.firstOnRow(ROW), MemTable.rowHash(ROW)), "a");
        r.r2 = found(memtable.newIterator(), "a");
    }

    @Actor
    public void second(IIII_Result r) {
        memtable.add(Cell.put("row", "f", "b", 5, "second"), 1);
        r.r3 = found(memtable.newRowIterator(SeekKey.firstOnRow(ROW), MemTable.rowHash(ROW)), "b");
        r.r4 = found(memtable.newIterator(), "b");
    }

    private static int found(InternalIterator it, String qualifier) {
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
