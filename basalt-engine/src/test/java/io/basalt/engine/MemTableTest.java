package io.basalt.engine;

import static org.assertj.core.api.Assertions.assertThat;

import io.basalt.cell.Cell;
import io.basalt.cell.CellComparator;
import io.basalt.cell.CellLayout;
import io.basalt.cell.EncodedCell;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

class MemTableTest {

    private static byte[] bytes(String s) {
        return s.getBytes(java.nio.charset.StandardCharsets.ISO_8859_1);
    }

    /**
     * The skip list compares the rows' first eight bytes before the cells: rows that differ only
     * after eight bytes, rows shorter than eight bytes that are prefixes of others, zero bytes and
     * bytes above 0x7F (unsigned order) must all come out in cell order.
     */
    @Test
    void entriesComeOutInCellOrderWhateverTheirRowPrefixes() {
        List<String> rows = new ArrayList<>(List.of("a", "a\0", "a\0\0", "ab", "abcdefgh", "abcdefgh\0", "abcdefghi",
                "abcdefgg\u00ff", "abcdefg", "\u00ff", "\u00ff\u00ff\u00ff\u00ff\u00ff\u00ff\u00ff\u00ff\u00ff", "\u0080",
                "\u007f", "\0", "zzzzzzzzzzzzzzzz", "zzzzzzzzzzzzzzzy"));
        Random random = new Random(42);
        for (int i = 0; i < 300; i++) {
            char[] row = new char[1 + random.nextInt(12)];
            for (int k = 0; k < row.length; k++) {
                row[k] = "\0a\u007f\u0080\u00ff".charAt(random.nextInt(5));
            }
            rows.add(new String(row));
        }
        MemTable memtable = new MemTable();
        List<Cell> expected = new ArrayList<>();
        long sequence = 0;
        for (String row : rows) {
            Cell cell = Cell.put(bytes(row), bytes("f"), bytes("q" + random.nextInt(3)), random.nextInt(5),
                    bytes("v"));
            memtable.add(cell, ++sequence);
            expected.add(cell);
        }
        expected.sort(CellComparator.INSTANCE);
        List<Cell> actual = new ArrayList<>();
        InternalIterator it = memtable.newIterator();
        Cell previous = null;
        for (; it.valid(); it.next()) {
            if (previous == null || CellComparator.INSTANCE.compare(previous, it.cell()) != 0) {
                actual.add(it.cell());
            }
            previous = it.cell();
        }
        List<Cell> distinct = new ArrayList<>();
        for (Cell c : expected) {
            if (distinct.isEmpty() || CellComparator.INSTANCE.compare(distinct.getLast(), c) != 0) {
                distinct.add(c);
            }
        }
        assertThat(actual).hasSameSizeAs(distinct);
        for (int i = 0; i < actual.size(); i++) {
            assertThat(CellComparator.INSTANCE.compare(actual.get(i), distinct.get(i))).as("cell %d", i).isZero();
        }
    }

    @Test
    void seekingFindsTheFirstCellOfARowThatSharesItsPrefixWithOthers() {
        MemTable memtable = new MemTable();
        memtable.add(Cell.put(bytes("abcdefgh1"), bytes("f"), bytes("q"), 1, bytes("one")), 1);
        memtable.add(Cell.put(bytes("abcdefgh"), bytes("f"), bytes("q"), 1, bytes("short")), 2);
        memtable.add(Cell.put(bytes("abcdefgh2"), bytes("f"), bytes("q"), 1, bytes("two")), 3);
        InternalIterator it = memtable.newIterator();
        it.seek(SeekKey.firstOnRow(bytes("abcdefgh2")));
        assertThat(it.valid()).isTrue();
        assertThat(it.cell().valueBytes()).isEqualTo(bytes("two"));
        it.seek(SeekKey.firstOnRow(bytes("abcdefgh")));
        assertThat(it.cell().valueBytes()).isEqualTo(bytes("short"));
    }

    /** Cells are copied into the memtable's slabs: the caller's array may be reused afterwards. */
    @Test
    void addedCellsAreCopiesIndependentOfTheCallersBytes() {
        MemTable memtable = new MemTable();
        byte[] encoded = CellLayout.encode(Cell.put(bytes("row"), bytes("f"), bytes("q"), 1, bytes("value")));
        memtable.add(EncodedCell.decode(encoded, 0), 1);
        Arrays.fill(encoded, (byte) 'x');
        InternalIterator it = memtable.newIterator();
        assertThat(it.cell().rowBytes()).isEqualTo(bytes("row"));
        assertThat(it.cell().valueBytes()).isEqualTo(bytes("value"));
    }

    /** Cells too large to share a slab, and enough small ones to fill several slabs, all read back. */
    @Test
    void cellsOfAnySizeReadBackAcrossSlabs() {
        MemTable memtable = new MemTable();
        byte[] large = new byte[MemTable.SLAB_SIZE];
        Arrays.fill(large, (byte) 7);
        memtable.add(Cell.put(bytes("large"), bytes("f"), bytes("q"), 1, large), 1);
        byte[] value = new byte[1000];
        int small = 3 * MemTable.SLAB_SIZE / value.length;
        for (int i = 0; i < small; i++) {
            memtable.add(Cell.put(bytes(String.format("row%06d", i)), bytes("f"), bytes("q"), 1, value), 2 + i);
        }
        assertThat(memtable.size()).isEqualTo(small + 1);
        Iterator<MemTable.Entry> entries = memtable.iterator();
        MemTable.Entry last = entries.next();
        assertThat(last.cell().valueBytes()).isEqualTo(large);
        int rows = 0;
        while (entries.hasNext()) {
            MemTable.Entry entry = entries.next();
            assertThat(entry.cell().rowBytes()).isEqualTo(bytes(String.format("row%06d", rows)));
            assertThat(entry.cell().valueBytes()).hasSize(1000);
            rows++;
        }
        assertThat(rows).isEqualTo(small);
    }
}
