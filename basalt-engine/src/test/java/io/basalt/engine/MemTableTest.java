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
     * A get's iterator finds its row by hash: it walks that row's cells, wide or not, and ends
     * there; rows sharing prefixes or a hash bucket never answer for each other; a row the memtable
     * never saw gives no iterator.
     */
    @Test
    void aRowIteratorWalksOnlyItsRowAndIsNullForARowNeverWritten() {
        MemTable memtable = new MemTable();
        List<String> rows = List.of("a", "a\0", "ab", "abcdefghijklmnop", "abcdefghijklmnopq", "abcdefghijklmnoq", "b");
        long sequence = 0;
        for (String row : rows) {
            for (int q = 0; q < 3; q++) {
                memtable.add(Cell.put(bytes(row), bytes("f"), bytes("q" + q), 1, bytes(row + q)), ++sequence);
            }
        }
        for (int q = 0; q < MemTable.WIDE_ROW + 5; q++) { // a row that turned wide
            memtable.add(Cell.put(bytes("wide"), bytes("f"), bytes(String.format("c%03d", q)), 1, bytes("w")), ++sequence);
        }
        for (String row : rows) {
            byte[] key = bytes(row);
            InternalIterator it = memtable.newRowIterator(SeekKey.firstOnRow(key), MemTable.rowHash(key));
            assertThat(it).as(row).isNotNull();
            it.seek(SeekKey.firstOnRow(key));
            List<String> values = new ArrayList<>();
            for (; it.valid(); it.next()) {
                assertThat(it.cell().rowBytes()).as("only row %s", row).isEqualTo(key);
                values.add(new String(it.cell().valueBytes(), java.nio.charset.StandardCharsets.ISO_8859_1));
            }
            assertThat(values).containsExactly(row + "0", row + "1", row + "2");
        }
        InternalIterator wide = memtable.newRowIterator(SeekKey.firstOnRow(bytes("wide")), MemTable.rowHash(bytes("wide")));
        wide.seek(SeekKey.firstOnRow(bytes("wide")));
        int columns = 0;
        for (; wide.valid(); wide.next()) {
            columns++;
        }
        assertThat(columns).isEqualTo(MemTable.WIDE_ROW + 5);
        wide.seek(SeekKey.firstOnRow(bytes("wider")));
        assertThat(wide.valid()).as("sought past its row").isFalse();
        for (String absent : List.of("", "abc", "abcdefghijklmno", "c", "a\0\0")) {
            byte[] key = bytes(absent.isEmpty() ? "\u00ff" : absent);
            assertThat(memtable.newRowIterator(SeekKey.firstOnRow(key), MemTable.rowHash(key))).as(absent).isNull();
        }
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
     * Rows are sorted into order only when something walks them: rows made after a walk are found
     * by every later walk, by a seek of an iterator made before them, and by {@link
     * MemTable#rowBefore}, in order; a memtable whose rows were never walked is not empty. A walk,
     * seek or step back that did not sort the new rows in first fails it.
     */
    @Test
    void rowsWrittenAfterAWalkAreFoundByTheNextWalkSeekAndStepBack() {
        MemTable memtable = new MemTable(1L << 20);
        assertThat(memtable.isEmpty()).isTrue();
        memtable.add(Cell.put("m", "f", "q", 1, "v"), 1);
        assertThat(memtable.isEmpty()).isFalse();
        List<String> expected = new ArrayList<>(List.of("m"));
        Random random = new Random(3);
        long[] sequence = {1};
        Runnable writeSome = () -> { // new rows (and new columns of old ones), then the model sorted
            int writes = 1 + random.nextInt(20);
            for (int k = 0; k < writes; k++) {
                String row = "r" + random.nextInt(1000);
                memtable.add(Cell.put(row, "f", "q" + random.nextInt(3), 1, "v"), ++sequence[0]);
                if (!expected.contains(row)) {
                    expected.add(row);
                }
            }
            expected.sort(null); // ASCII: the strings' order is the rows' unsigned order
        };
        try (InternalIterator early = memtable.newIterator()) {
            assertThat(rowsOf(early)).containsExactly("m");
            for (int round = 0; round < 50; round++) {
                writeSome.run();
                String target = expected.get(random.nextInt(expected.size()));
                early.seek(SeekKey.firstOnRow(bytes(target)));
                assertThat(early.valid()).as("seek to %s", target).isTrue();
                assertThat(new String(early.cell().rowBytes(), java.nio.charset.StandardCharsets.ISO_8859_1))
                        .as("seek to %s", target).isEqualTo(target);

                writeSome.run();
                String fresh = "r" + (1000 + round); // a row surely new, and the answer below
                memtable.add(Cell.put(fresh, "f", "q", 1, "v"), ++sequence[0]);
                expected.add(fresh);
                expected.sort(null);
                int after = expected.indexOf(fresh) + 1;
                byte[] bound = after == expected.size() ? null : bytes(expected.get(after));
                byte[] before = memtable.rowBefore(bound);
                assertThat(before == null ? null : new String(before, java.nio.charset.StandardCharsets.ISO_8859_1))
                        .as("the row before the one after %s", fresh).isEqualTo(fresh);

                writeSome.run();
                try (InternalIterator walk = memtable.newIterator()) {
                    assertThat(rowsOf(walk)).as("round %d", round).isEqualTo(expected);
                }
            }
        }
    }

    /** The distinct rows a walk from where the iterator stands passes, in the order it passes them. */
    private static List<String> rowsOf(InternalIterator it) {
        List<String> rows = new ArrayList<>();
        for (; it.valid(); it.next()) {
            String row = new String(it.cell().rowBytes(), java.nio.charset.StandardCharsets.ISO_8859_1);
            if (rows.isEmpty() || !rows.getLast().equals(row)) {
                rows.add(row);
            }
        }
        return rows;
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
        writeWhileAReaderChecksOrder(memtable, writers, seed -> {
            Random random = new Random(seed);
            for (int i = 0; i < perWriter; i++) {
                memtable.add(Cell.put("row" + random.nextInt(2), "f", "q" + random.nextInt(3), random.nextInt(50),
                        "v"), sequences.incrementAndGet());
            }
        });
        List<Long> seen = new ArrayList<>();
        for (Iterator<MemTable.Entry> it = memtable.iterator(); it.hasNext(); ) {
            seen.add(it.next().sequence());
        }
        assertThat(seen).hasSize(writers * perWriter).doesNotHaveDuplicates();
        assertThat(memtable.size()).isEqualTo(writers * perWriter);
    }

    /**
     * Runs {@code writers} threads, each {@code write} with its number as the seed, while a reader
     * walks the memtable over and over; fails when a walk, during or after, is out of order.
     */
    private static void writeWhileAReaderChecksOrder(MemTable memtable, int writers,
                                                     java.util.function.IntConsumer write) throws InterruptedException {
        java.util.concurrent.atomic.AtomicInteger finished = new java.util.concurrent.atomic.AtomicInteger();
        java.util.concurrent.atomic.AtomicReference<String> broken = new java.util.concurrent.atomic.AtomicReference<>();
        List<Thread> threads = new ArrayList<>();
        for (int w = 0; w < writers; w++) {
            int seed = w;
            threads.add(Thread.ofPlatform().start(() -> {
                write.accept(seed);
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

    /** A version as the model keeps it: the cell and the sequence that wrote it. */
    private record Version(Cell cell, long sequence) {}

    /** Cell order, newest sequence first: the memtable's order. */
    private static final java.util.Comparator<Version> MODEL_ORDER = (a, b) -> {
        int c = CellComparator.INSTANCE.compare(a.cell(), b.cell());
        return c != 0 ? c : Long.compare(b.sequence(), a.sequence());
    };

    /**
     * Random writes (single cells, and multi-row writes through {@code addAll} whose rows repeat
     * out of order) into rows narrow and past {@link MemTable#WIDE_ROW} columns, with repeated
     * versions, against a sorted model: the full walk, seeks to random keys (existing and not,
     * first on a row and inside one), forward seeks from a random place, and {@code rowBefore}
     * all agree with the model.
     */
    @Test
    void walksAndSeeksAgreeWithASortedModelForNarrowAndWideRows() {
        Random random = new Random(7);
        MemTable memtable = new MemTable(1L << 20);
        java.util.TreeSet<Version> model = new java.util.TreeSet<>(MODEL_ORDER);
        long sequence = 0;
        int[] widths = {1, 3, 10, MemTable.WIDE_ROW - 1, MemTable.WIDE_ROW, MemTable.WIDE_ROW + 1, 300};
        for (int i = 0; i < 6_000; i++) {
            sequence++;
            int cells = random.nextInt(4) == 0 ? 1 + random.nextInt(12) : 1;
            List<EncodedCell> write = new ArrayList<>();
            for (int k = 0; k < cells; k++) {
                int row = random.nextInt(widths.length * 3);
                int width = widths[row % widths.length];
                Cell cell = Cell.put(bytes("row" + row), bytes(random.nextBoolean() ? "a" : "b"),
                        bytes("q" + random.nextInt(width)), random.nextInt(4), bytes("v" + i));
                if (model.add(new Version(cell, sequence))) {
                    write.add(EncodedCell.decode(CellLayout.encode(cell), 0));
                }
            }
            if (write.size() == 1 && random.nextBoolean()) {
                memtable.add(write.getFirst(), sequence);
            } else if (!write.isEmpty()) {
                memtable.addAll(write, sequence);
            }
        }
        List<Version> expected = new ArrayList<>(model);
        List<Version> walked = new ArrayList<>();
        try (InternalIterator it = memtable.newIterator()) {
            for (; it.valid(); it.next()) {
                walked.add(new Version(it.cell(), it.sequence()));
            }
        }
        assertThat(walked).hasSameSizeAs(expected);
        for (int i = 0; i < walked.size(); i++) {
            assertThat(MODEL_ORDER.compare(walked.get(i), expected.get(i))).as("entry %d", i).isZero();
        }
        assertThat(memtable.size()).isEqualTo(expected.size());
        for (int i = 0; i < 3_000; i++) {
            int row = random.nextInt(widths.length * 3 + 1);
            Cell key = switch (random.nextInt(3)) {
                case 0 -> SeekKey.firstOnRow(bytes("row" + row));
                case 1 -> SeekKey.firstOnColumn(bytes("row" + row), bytes(random.nextBoolean() ? "a" : "b"),
                        bytes("q" + random.nextInt(310)));
                default -> Cell.put(bytes("row" + row), bytes("b"), bytes("q" + random.nextInt(70)), random.nextInt(4),
                        bytes(""));
            };
            Version ceiling = model.ceiling(new Version(key, Long.MAX_VALUE));
            try (InternalIterator it = memtable.newIterator()) {
                if (random.nextBoolean()) {
                    it.seek(key);
                } else {
                    // from a random earlier place, forward
                    Version before = expected.get(random.nextInt(expected.size()));
                    if (MODEL_ORDER.compare(before, new Version(key, Long.MAX_VALUE)) > 0) {
                        it.seek(key);
                    } else {
                        it.seek(before.cell());
                        it.seekForward(key);
                    }
                }
                if (ceiling == null) {
                    assertThat(it.valid()).as("seek past the end: %s", key).isFalse();
                } else {
                    assertThat(it.valid()).as("seek to %s", key).isTrue();
                    assertThat(CellComparator.INSTANCE.compare(it.cell(), ceiling.cell())).as("seek to %s", key).isZero();
                }
            }
            byte[] bound = bytes("row" + row);
            String expectedBefore = null;
            for (Version v : expected) {
                if (Arrays.compareUnsigned(v.cell().rowBytes(), bound) < 0) {
                    expectedBefore = new String(v.cell().rowBytes(), java.nio.charset.StandardCharsets.ISO_8859_1);
                }
            }
            byte[] before = memtable.rowBefore(bound);
            assertThat(before == null ? null : new String(before, java.nio.charset.StandardCharsets.ISO_8859_1))
                    .as("the row before %s", "row" + row).isEqualTo(expectedBefore);
        }
    }

    /**
     * Writers add new columns (and versions) to the same few rows at once, carrying them past
     * {@link MemTable#WIDE_ROW} columns while they go, and readers walk: every walk is in order,
     * and at the end every version is there once. A column added to an array a reader holds, a
     * lost column when two writers grow a row, or a version lost when a row turns wide, fails it.
     * Bounded: 4 writers x 2,000 writes.
     */
    @Test
    void concurrentWritersGrowingTheSameRowsLoseNothing() throws Exception {
        MemTable memtable = new MemTable(1L << 20);
        int writers = 4;
        int perWriter = 2_000;
        java.util.concurrent.atomic.AtomicLong sequences = new java.util.concurrent.atomic.AtomicLong();
        java.util.Set<String> written = java.util.concurrent.ConcurrentHashMap.newKeySet();
        writeWhileAReaderChecksOrder(memtable, writers, seed -> {
            Random random = new Random(seed);
            for (int i = 0; i < perWriter; i++) {
                long sequence = sequences.incrementAndGet();
                List<EncodedCell> write = new ArrayList<>();
                for (int k = 0; k < 1 + random.nextInt(3); k++) {
                    // each writer its own qualifiers: every version is distinct
                    String row = "row" + random.nextInt(3);
                    String qualifier = "q" + seed + "-" + random.nextInt(60);
                    written.add(row + "/" + qualifier + "@" + sequence);
                    write.add(EncodedCell.decode(CellLayout.encode(Cell.put(row, "f", qualifier, sequence, "v")), 0));
                }
                memtable.addAll(write, sequence);
            }
        });
        java.util.Set<String> seen = new java.util.HashSet<>();
        int count = 0;
        for (Iterator<MemTable.Entry> it = memtable.iterator(); it.hasNext(); ) {
            MemTable.Entry e = it.next();
            seen.add(new String(e.cell().rowBytes()) + "/" + new String(e.cell().qualifierBytes()) + "@" + e.sequence());
            count++;
        }
        assertThat(count).isEqualTo(seen.size()).isEqualTo(memtable.size());
        assertThat(seen).as("every version written, once").isEqualTo(written);
        long columns = seen.stream().map(k -> k.substring(0, k.indexOf('@'))).distinct().count();
        assertThat(columns).as("rows past the wide threshold").isGreaterThan(3L * MemTable.WIDE_ROW);
    }
    /**
     * A YCSB record (ten columns of 100-byte values) is charged its encoding and little more: the
     * entry and column of each version, not a kept view of it, so a memtable of a given size holds
     * as many records as its bytes allow. (With a view per version, and the charges that counted
     * it, a cell cost more than twice its encoding.) Encodings are charged with their slabs, whole,
     * so the memtable holds 16 MB here, where the last slab's free part is at most an eighth.
     */
    @Test
    void aRecordIsChargedLittleMoreThanItsEncoding() {
        MemTable memtable = new MemTable(1L << 20);
        long encoded = 0;
        long sequence = 0;
        for (int r = 0; r < 10_000; r++) {
            List<EncodedCell> cells = new ArrayList<>();
            for (int f = 0; f < 10; f++) {
                byte[] value = new byte[100];
                Arrays.fill(value, (byte) f);
                EncodedCell cell = EncodedCell.decode(CellLayout.encode(Cell.put(bytes(String.format("user%019d", r * 7919L)),
                        bytes("family"), bytes("field" + f), 1, value)), 0);
                encoded += cell.encodedLength();
                cells.add(cell);
            }
            memtable.addAll(cells, ++sequence);
        }
        assertThat(memtable.bytes()).isBetween(encoded, encoded * 8 / 5); // 1.9 times with a view each
    }

    /**
     * The memtable keeps no view of a cell: each one asked for is new, and equal to the cell
     * added. A cursor makes one per entry it stands on (a merge asks it per comparison).
     */
    @Test
    void viewsAreMadeWhenAskedAndACursorKeepsOnePerEntry() {
        MemTable memtable = new MemTable();
        Cell cell = Cell.put(bytes("row"), bytes("f"), bytes("q"), 5, bytes("value"));
        memtable.add(cell, 1);
        memtable.add(Cell.put(bytes("row"), bytes("f"), bytes("r"), 5, bytes("other")), 2);
        MemTable.Entry entry = memtable.iterator().next();
        assertThat(entry.cell()).isEqualTo(cell).isNotSameAs(entry.cell());
        assertThat(entry.cell().segment().isReadOnly()).isTrue();
        try (InternalIterator it = memtable.newIterator()) {
            EncodedCell first = it.cell();
            assertThat(it.cell()).isSameAs(first).isEqualTo(cell);
            assertThat(it.keyArray()).isSameAs(first.array());
            it.next();
            assertThat(it.cell()).isNotSameAs(first);
            assertThat(it.cell().qualifierBytes()).isEqualTo(bytes("r"));
        }
    }
}
