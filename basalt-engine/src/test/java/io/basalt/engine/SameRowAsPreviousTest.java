package io.basalt.engine;

import static org.assertj.core.api.Assertions.assertThat;

import io.basalt.cell.Cell;
import io.basalt.client.FamilyDescriptor;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A source's word that a step stayed in the row ({@link InternalIterator#sameRowAsPrevious}) is
 * never wrong, and is given for the steps a merge relies on it for: every step inside a row of a
 * memtable, and every step inside a row of an SSTable block but the block's restart points.
 */
class SameRowAsPreviousTest {

    @TempDir
    Path dir;

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    /** Rows of 1 to 12 columns, some with several versions, in cell order with sequences. */
    private static void fill(Random random, int rows, java.util.function.BiConsumer<Cell, Long> into) {
        long sequence = 1;
        for (int r = 0; r < rows; r++) {
            String row = String.format("user%06d", r * 7);
            int columns = 1 + random.nextInt(12);
            for (int q = 0; q < columns; q++) {
                int versions = random.nextInt(4) == 0 ? 3 : 1;
                for (int v = versions; v >= 1; v--) {
                    into.accept(Cell.put(bytes(row), bytes("f"), bytes(String.format("field%02d", q)), v,
                            bytes("value" + r + "-" + q + "-" + v)), sequence++);
                }
            }
        }
    }

    /** Walks {@code it} from its start; returns {steps inside a row, of them vouched for}, failing on a false word. */
    private static int[] walk(InternalIterator it) {
        int inRow = 0;
        int vouched = 0;
        byte[] previous = null;
        for (it.seek(SeekKey.firstOnRow(new byte[] {0})); it.valid(); it.next()) {
            byte[] row = it.cell().rowBytes();
            if (previous != null) {
                boolean same = Arrays.equals(row, previous);
                if (it.sameRowAsPrevious()) {
                    assertThat(same).as("a step said to stay in row %s went to %s", new String(previous),
                            new String(row)).isTrue();
                    vouched++;
                }
                inRow += same ? 1 : 0;
            } else {
                assertThat(it.sameRowAsPrevious()).as("after a seek nothing is vouched for").isFalse();
            }
            previous = row;
        }
        return new int[] {inRow, vouched};
    }

    @Test
    void aMemtableVouchesForEveryStepInsideARow() {
        MemTable memtable = new MemTable();
        fill(new Random(5), 300, memtable::add);
        int[] counts = walk(memtable.newIterator());
        assertThat(counts[0]).isGreaterThan(1000);
        assertThat(counts[1]).isEqualTo(counts[0]);
    }

    @Test
    void anSSTableVouchesForStepsInsideARowExceptAtRestartPoints() throws Exception {
        java.util.List<Object[]> cells = new java.util.ArrayList<>();
        fill(new Random(6), 300, (cell, sequence) -> cells.add(new Object[] {cell, sequence}));
        Path path = dir.resolve("t.sst");
        try (SSTableWriter writer = new SSTableWriter(path, FamilyDescriptor.of("f"), cells.size())) {
            for (Object[] c : cells) {
                writer.add((Cell) c[0], (Long) c[1]);
            }
            writer.finish();
        }
        try (BlockCache cache = new BlockCache(8 << 20, "test")) {
            SSTableReader reader = SSTableReader.open(1, path, cache);
            try (InternalIterator it = reader.newIterator()) {
                int[] counts = walk(it);
                assertThat(counts[0]).isGreaterThan(1000);
                // a restart point every 16 entries shares nothing: at most about one step in sixteen goes unvouched
                assertThat(counts[1]).isGreaterThan(counts[0] * 8 / 10);
            } finally {
                reader.release();
            }
        }
    }
}
