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
                "\u007f", "\0", "zzzzzzzzzzzzzzzz", "zzzzzzzzzzzzzzzy", "abcdefghijklmnop", "abcdefghijklmno",
                "abcdefghijklmnop\0", "abcdefghijklmnoq", "abcdefghijklmnopq", "abcdefgh\u00ffjklmnop", "abcdefgh\0"));
        Random random = new Random(42);
        for (int i = 0; i < 300; i++) {
            char[] row = new char[1 + random.nextInt(20)]; // both prefix words, and past them
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

    @Test
    void theRowFilterKnowsEveryRowWrittenAndFewOthers() {
        MemTable memtable = new MemTable(1L << 20);
        assertThat(memtable.mightContainRow(MemTable.rowHash(bytes("anything")))).as("empty").isFalse();
        for (int i = 0; i < 2000; i++) {
            memtable.add(Cell.put("row" + i, "f", "q", 1, "v"), i + 1);
        }
        memtable.addAll(List.of(EncodedCell.decode(CellLayout.encode(Cell.put("multi", "f", "a", 1, "v")), 0),
                EncodedCell.decode(CellLayout.encode(Cell.put("multi", "f", "b", 1, "v")), 0),
                EncodedCell.decode(CellLayout.encode(Cell.put("other", "f", "a", 1, "v")), 0)), 5000);
        for (int i = 0; i < 2000; i++) {
            assertThat(memtable.mightContainRow(MemTable.rowHash(bytes("row" + i)))).isTrue();
        }
        assertThat(memtable.mightContainRow(MemTable.rowHash(bytes("multi")))).isTrue();
        assertThat(memtable.mightContainRow(MemTable.rowHash(bytes("other")))).isTrue();
        int falsePositives = 0;
        for (int i = 0; i < 10_000; i++) {
            if (memtable.mightContainRow(MemTable.rowHash(bytes("absent" + i)))) {
                falsePositives++;
            }
        }
        // 2,003 rows in 65,536 bits with two probes: about 0.1% expected
        assertThat(falsePositives).isLessThan(100);
    }

    /**
     * A reader that learns a row was written (the writer's acknowledgement) must find it through
     * the filter: the bits are set before the entry is added, under the memtable's lock.
     */
    @Test
    void aRowWrittenBeforeAReaderLooksIsAlwaysFound() throws Exception {
        MemTable memtable = new MemTable(64L << 10); // a small filter, shared by many rows
        int rows = 20_000;
        java.util.concurrent.atomic.AtomicInteger written = new java.util.concurrent.atomic.AtomicInteger();
        java.util.concurrent.atomic.AtomicReference<String> missed = new java.util.concurrent.atomic.AtomicReference<>();
        Thread writer = Thread.ofPlatform().start(() -> {
            for (int i = 0; i < rows; i++) {
                memtable.add(Cell.put("w" + i, "f", "q", 1, "v"), i + 1);
                written.set(i + 1); // the acknowledgement
            }
        });
        List<Thread> readers = new ArrayList<>();
        for (int r = 0; r < 2; r++) {
            int seed = r;
            readers.add(Thread.ofPlatform().start(() -> {
                Random random = new Random(seed);
                while (written.get() < rows && missed.get() == null) {
                    int done = written.get();
                    if (done == 0) {
                        continue;
                    }
                    int i = random.nextInt(done);
                    if (!memtable.mightContainRow(MemTable.rowHash(bytes("w" + i)))) {
                        missed.set("w" + i);
                    }
                }
            }));
        }
        writer.join();
        for (Thread t : readers) {
            t.join();
        }
        assertThat(missed.get()).as("a written row the filter denied").isNull();
    }

    /**
     * Writers race to link versions into the same few columns (timestamps in any order, so
     * inserts land at the head, in the middle and at the tail) while readers walk the memtable:
     * every walk is in cell order with the newest sequence first, and at the end every version is
     * there exactly once. A lost CAS that was not retried, or a reader that saw an entry before
     * its link was set, fails it. Bounded: 4 writers x 3,000 versions.
     */
    @Test
    void concurrentVersionsOfOneColumnAreAllKeptInOrder() throws Exception {
        MemTable memtable = new MemTable(1L << 20);
        int writers = 4;
        int perWriter = 3_000;
        java.util.concurrent.atomic.AtomicLong sequences = new java.util.concurrent.atomic.AtomicLong();
        java.util.concurrent.atomic.AtomicInteger finished = new java.util.concurrent.atomic.AtomicInteger();
        java.util.concurrent.atomic.AtomicReference<String> broken = new java.util.concurrent.atomic.AtomicReference<>();
        List<Thread> threads = new ArrayList<>();
        for (int w = 0; w < writers; w++) {
            int seed = w;
            threads.add(Thread.ofPlatform().start(() -> {
                Random random = new Random(seed);
                for (int i = 0; i < perWriter; i++) {
                    memtable.add(Cell.put("row" + random.nextInt(2), "f", "q" + random.nextInt(3), random.nextInt(50),
                            "v"), sequences.incrementAndGet());
                }
                finished.incrementAndGet();
            }));
        }
        Thread reader = Thread.ofPlatform().start(() -> {
            while (finished.get() < writers && broken.get() == null) {
                String problem = firstDisorder(memtable);
                if (problem != null) {
                    broken.set(problem);
                }
            }
        });
        for (Thread t : threads) {
            t.join();
        }
        reader.join();
        assertThat(broken.get()).as("a walk out of order").isNull();
        assertThat(firstDisorder(memtable)).isNull();
        List<Long> seen = new ArrayList<>();
        for (Iterator<MemTable.Entry> it = memtable.iterator(); it.hasNext(); ) {
            seen.add(it.next().sequence());
        }
        assertThat(seen).hasSize(writers * perWriter).doesNotHaveDuplicates();
        assertThat(memtable.size()).isEqualTo(writers * perWriter);
    }

    /** The first pair of neighbours out of cell order (newest sequence first), or null. */
    private static String firstDisorder(MemTable memtable) {
        Cell previous = null;
        long previousSequence = 0;
        try (InternalIterator it = memtable.newIterator()) {
            for (; it.valid(); it.next()) {
                Cell cell = it.cell();
                if (previous != null) {
                    int c = CellComparator.INSTANCE.compare(previous, cell);
                    if (c > 0 || c == 0 && previousSequence <= it.sequence()) {
                        return previous + "@" + previousSequence + " before " + cell + "@" + it.sequence();
                    }
                }
                previous = cell;
                previousSequence = it.sequence();
            }
        }
        return null;
    }

    /** A second add of the same cell with the same sequence is ignored, as one write replayed twice. */
    @Test
    void theSameVersionAddedTwiceIsKeptOnce() {
        MemTable memtable = new MemTable(1L << 20);
        memtable.add(Cell.put("row", "f", "q", 3, "first"), 7);
        memtable.add(Cell.put("row", "f", "q", 3, "second"), 7);
        memtable.add(Cell.put("row", "f", "q", 3, "newer"), 8);
        List<String> values = new ArrayList<>();
        for (Iterator<MemTable.Entry> it = memtable.iterator(); it.hasNext(); ) {
            values.add(new String(it.next().cell().valueBytes()));
        }
        assertThat(values).containsExactly("newer", "first");
        assertThat(memtable.size()).isEqualTo(2);
    }
}
