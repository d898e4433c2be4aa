package io.basalt.cell;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

import java.io.ByteArrayOutputStream;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;
import org.junit.jupiter.api.Test;

class CellBlockTest {

    @Provide
    Arbitrary<List<Cell>> cellLists() {
        return CellArbitraries.cells().list().ofMinSize(0).ofMaxSize(40);
    }

    @Provide
    Arbitrary<int[]> mutations() {
        return Arbitraries.integers().between(0, Integer.MAX_VALUE).array(int[].class).ofMinSize(2).ofMaxSize(8);
    }

    /** Sets the bytes at {@code positionsAndValues}' even entries to the odd ones that follow. */
    private static void mutate(byte[] bytes, int[] positionsAndValues) {
        for (int i = 0; i + 1 < positionsAndValues.length; i += 2) {
            bytes[positionsAndValues[i] % bytes.length] = (byte) positionsAndValues[i + 1];
        }
    }

    /**
     * {@code count} cells read one after another with {@link EncodedCell#decode}, or {@code null}
     * when one is malformed or they do not end where the bytes end: the reference a block is held to.
     */
    private static List<Cell> readOneByOne(byte[] bytes, int count) {
        List<Cell> cells = new ArrayList<>();
        MemorySegment segment = MemorySegment.ofArray(bytes);
        long offset = 0;
        try {
            for (int i = 0; i < count; i++) {
                EncodedCell c = EncodedCell.decode(segment, offset, bytes.length);
                cells.add(c);
                offset += c.encodedLength();
            }
        } catch (MalformedCellException | IndexOutOfBoundsException e) {
            return null;
        }
        return offset == bytes.length ? cells : null;
    }

    private static byte[] encode(List<Cell> cells) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (Cell c : cells) {
            out.writeBytes(CellLayout.encode(c));
        }
        return out.toByteArray();
    }

    @Property(tries = 500)
    void aBlockReadsBackEveryCellItWasMadeOf(@ForAll("cellLists") List<Cell> cells) {
        byte[] bytes = encode(cells);
        CellBlock block = CellBlock.decode(bytes, cells.size());
        assertThat(block.count()).isEqualTo(cells.size());
        assertThat(block.length()).isEqualTo(bytes.length);
        for (int i = 0; i < cells.size(); i++) {
            assertThat(block.cell(i)).isEqualTo(cells.get(i));
            assertThat(block.rowBytes(i)).isEqualTo(cells.get(i).rowBytes());
            assertThat(block.cell(i).array()).isSameAs(bytes);
        }
        assertThat(block.cells(0, cells.size())).containsExactlyElementsOf(cells);
        if (cells.size() >= 2) {
            int mid = cells.size() / 2;
            assertThat(block.cells(mid, cells.size())).containsExactlyElementsOf(cells.subList(mid, cells.size()));
            assertThat(block.cells(0, cells.size()).subList(1, mid)).containsExactlyElementsOf(cells.subList(1, mid));
        }
    }

    /** The cells of {@code cells}, all moved to one row, as {@link CellBlock#rowCells} would hold them. */
    private static List<Cell> ofOneRow(List<Cell> cells, byte[] row) {
        List<Cell> out = new ArrayList<>();
        for (Cell c : cells) {
            out.add(Cell.of(row, c.familyBytes(), c.qualifierBytes(), c.timestamp(), c.type(), c.valueBytes()));
        }
        return out;
    }

    @Property(tries = 500)
    void aRowsCellsReadBackFromAnyPartOfAnArray(@ForAll("cellLists") List<Cell> any, @ForAll @IntRange(max = 20) int before,
                                                @ForAll @IntRange(max = 20) int after) {
        if (any.isEmpty()) {
            return;
        }
        List<Cell> cells = ofOneRow(any, any.getFirst().rowBytes());
        byte[] encoded = encode(cells);
        byte[] bytes = new byte[before + encoded.length + after];
        System.arraycopy(encoded, 0, bytes, before, encoded.length);
        int to = before + encoded.length;
        assertThat(CellBlock.firstRow(bytes, before, to)).isEqualTo(cells.getFirst().rowBytes());
        List<Cell> row = CellBlock.rowCells(MemorySegment.ofArray(bytes), bytes, before, to, cells.size(), "test");
        assertThat(row).hasSize(cells.size()).containsExactlyElementsOf(cells);
        for (int i = 0; i < cells.size(); i++) {
            Cell c = row.get(i);
            assertThat(c.rowBytes()).isEqualTo(cells.get(i).rowBytes());
            assertThat(c.familyBytes()).isEqualTo(cells.get(i).familyBytes());
            assertThat(c.qualifierBytes()).isEqualTo(cells.get(i).qualifierBytes());
            assertThat(c.valueBytes()).isEqualTo(cells.get(i).valueBytes());
            assertThat(c.timestamp()).isEqualTo(cells.get(i).timestamp());
            assertThat(c.type()).isEqualTo(cells.get(i).type());
            assertThat(((EncodedCell) c).array()).isSameAs(bytes);
        }
    }

    /**
     * On any mutation of a row's bytes, its list agrees with reading the cells one after another
     * with {@link EncodedCell#decode} and comparing rows: it reads back exactly when that reads
     * {@code count} cells of the first one's row that end where the bytes end, and otherwise fails
     * on every read, naming the source.
     */
    @Property(tries = 2000)
    void aMutatedRowFailsOnReadExactlyWhenCellByCellReadingFails(@ForAll("cellLists") List<Cell> any,
                                                                 @ForAll("mutations") int[] positionsAndValues) {
        if (any.isEmpty()) {
            return;
        }
        byte[] bytes = encode(ofOneRow(any, any.getFirst().rowBytes()));
        mutate(bytes, positionsAndValues);
        MemorySegment segment = MemorySegment.ofArray(bytes);
        List<Cell> reference = readOneByOne(bytes, any.size());
        boolean ok = reference != null
                && reference.stream().allMatch(c -> Arrays.equals(c.rowBytes(), reference.getFirst().rowBytes()));
        Throwable made = catchThrowable(() -> CellBlock.rowCells(segment, bytes, 0, bytes.length, any.size(), "src"));
        if (made != null) {
            assertThat(ok).as("refused at once only when the count cannot fit").isFalse();
            assertThat(made).isInstanceOf(MalformedCellException.class).hasMessageContaining("cannot fit");
            return;
        }
        List<Cell> row = CellBlock.rowCells(segment, bytes, 0, bytes.length, any.size(), "src");
        if (ok) {
            assertThat(row).containsExactlyElementsOf(reference);
        } else {
            for (int i = 0; i < 2; i++) {
                assertThat(catchThrowable(() -> row.get(0))).isInstanceOf(MalformedCellException.class)
                        .hasMessageContaining("in src: ");
            }
        }
    }

    @Test
    void threadsReadingARowForTheFirstTimeTogetherAllSeeItsCells() throws Exception {
        List<Cell> cells = new ArrayList<>();
        for (int q = 0; q < 200; q++) {
            cells.add(Cell.put("row", "f", "q" + q, q, "value " + q));
        }
        byte[] bytes = encode(cells);
        int threads = 8;
        for (int round = 0; round < 200; round++) {
            List<Cell> row = CellBlock.rowCells(MemorySegment.ofArray(bytes), bytes, 0, bytes.length, cells.size(), "t");
            java.util.concurrent.CyclicBarrier start = new java.util.concurrent.CyclicBarrier(threads);
            List<java.util.concurrent.Future<List<Cell>>> reads = new ArrayList<>();
            try (var pool = java.util.concurrent.Executors.newFixedThreadPool(threads)) {
                for (int t = 0; t < threads; t++) {
                    int first = t * 25;
                    reads.add(pool.submit(() -> {
                        start.await();
                        List<Cell> seen = new ArrayList<>();
                        for (int i = 0; i < cells.size(); i++) {
                            seen.add(row.get((first + i) % cells.size()));
                        }
                        return seen;
                    }));
                }
                for (int t = 0; t < threads; t++) {
                    List<Cell> seen = reads.get(t).get();
                    for (int i = 0; i < cells.size(); i++) {
                        assertThat(seen.get(i)).isEqualTo(cells.get((t * 25 + i) % cells.size()));
                    }
                }
            }
        }
    }

    @Test
    void rowsLongerThanEightBytesAreComparedWhole() {
        // Equal in the first 8 (and 32) bytes, different after: each comparison path must look at the tail.
        for (int length : new int[] {9, 15, 16, 17, 33, 100}) {
            byte[] a = new byte[length];
            byte[] b = a.clone();
            b[length - 1] = 1;
            List<Cell> cells = List.of(Cell.put(a, new byte[] {'f'}, new byte[] {'q'}, 1, new byte[0]),
                    Cell.put(a, new byte[] {'f'}, new byte[] {'r'}, 1, new byte[0]),
                    Cell.put(b, new byte[] {'f'}, new byte[] {'q'}, 1, new byte[0]));
            byte[] bytes = encode(cells);
            CellBlock block = CellBlock.decode(bytes, 3);
            assertThat(block.firstNotOfRow(a)).as("row of %d bytes", length).isEqualTo(2);
            int two = (int) block.cell(2).offset();
            MemorySegment segment = MemorySegment.ofArray(bytes);
            assertThat(CellBlock.rowCells(segment, bytes, 0, two, 2, "t").get(1)).isEqualTo(cells.get(1));
            List<Cell> mixed = CellBlock.rowCells(segment, bytes, 0, bytes.length, 3, "t");
            assertThatThrownBy(() -> mixed.get(0)).as("row of %d bytes", length)
                    .isInstanceOf(MalformedCellException.class).hasMessageContaining("cell 2 of 3 is of row");
        }
    }

    /**
     * On any bytes, the block agrees with reading the cells one after another with
     * {@link EncodedCell#decode}: it accepts exactly when that reads {@code count} cells that end
     * where the bytes end, and otherwise names the cell that is wrong.
     */
    @Property(tries = 2000)
    void aMutatedBlockIsRejectedExactlyWhenCellByCellReadingFails(@ForAll("cellLists") List<Cell> cells,
                                                                  @ForAll("mutations") int[] positionsAndValues) {
        byte[] bytes = encode(cells);
        if (bytes.length == 0) {
            return;
        }
        mutate(bytes, positionsAndValues);
        List<Cell> reference = readOneByOne(bytes, cells.size());
        boolean ok = reference != null;
        Throwable thrown = catchThrowable(() -> CellBlock.decode(bytes, cells.size()));
        if (ok) {
            assertThat(thrown).isNull();
            assertThat(CellBlock.decode(bytes, cells.size()).cells(0, cells.size())).containsExactlyElementsOf(reference);
        } else {
            assertThat(thrown).isInstanceOf(MalformedCellException.class);
            assertThat(thrown.getMessage()).containsAnyOf(" of " + cells.size(), "cells end at byte", "cannot fit");
        }
    }

    @Property(tries = 1000)
    void randomBytesAreNeverReadAsCellsUnlessTheyAre(@ForAll @Size(max = 200) byte[] bytes,
                                                      @ForAll("counts") int count) {
        Throwable thrown = catchThrowable(() -> CellBlock.decode(bytes, count));
        if (thrown == null) {
            // Whatever was accepted re-encodes to exactly the bytes given.
            CellBlock block = CellBlock.decode(bytes, count);
            List<Cell> copies = new ArrayList<>();
            for (Cell c : block.cells(0, count)) {
                copies.add(Cell.of(c.rowBytes(), c.familyBytes(), c.qualifierBytes(), c.timestamp(), c.type(),
                        c.valueBytes()));
            }
            assertThat(encode(copies)).isEqualTo(bytes);
        } else {
            assertThat(thrown).isInstanceOf(MalformedCellException.class);
        }
    }

    @Provide
    Arbitrary<Integer> counts() {
        return Arbitraries.integers().between(0, 12);
    }

    @Test
    void theErrorNamesTheCellThatIsWrong() {
        List<Cell> cells = List.of(Cell.put("r1", "f", "a", 1, "v"), Cell.put("r1", "f", "b", 1, "v"),
                Cell.put("r2", "f", "a", 1, "v"));
        byte[] bytes = encode(cells);
        int third = CellLayout.encode(cells.get(0)).length + CellLayout.encode(cells.get(1)).length;
        bytes[bytes.length - 2] = 42; // the third cell's type code: only its one-byte value "v" follows
        assertThatThrownBy(() -> CellBlock.decode(bytes, 3)).isInstanceOf(MalformedCellException.class)
                .hasMessageContaining("offset " + third).hasMessageContaining("cell 2 of 3")
                .hasMessageContaining("unknown cell type code 42");
    }

    @Test
    void aCountThatDoesNotMatchTheBytesIsAnError() {
        // Values long enough that three cells' minimum size fits: the count is wrong, not absurd.
        String value = "v".repeat(40);
        byte[] bytes = encode(List.of(Cell.put("r1", "f", "a", 1, value), Cell.put("r1", "f", "b", 1, value)));
        assertThatThrownBy(() -> CellBlock.decode(bytes, 1)).isInstanceOf(MalformedCellException.class)
                .hasMessageContaining("1 cells end at byte").hasMessageContaining("of a " + bytes.length + "-byte block");
        assertThatThrownBy(() -> CellBlock.decode(bytes, 3)).isInstanceOf(MalformedCellException.class)
                .hasMessageContaining("cell 2 of 3 starts past the block");
        assertThatThrownBy(() -> CellBlock.decode(bytes, 1_000_000)).isInstanceOf(MalformedCellException.class)
                .hasMessageContaining("1000000 cells cannot fit");
        assertThatThrownBy(() -> CellBlock.decode(bytes, -1)).isInstanceOf(MalformedCellException.class);
    }

    @Test
    void indexesOutsideTheBlockAreRefused() {
        CellBlock block = CellBlock.decode(encode(List.of(Cell.put("r", "f", "a", 1, "v"))), 1);
        assertThatThrownBy(() -> block.cell(1)).isInstanceOf(IndexOutOfBoundsException.class);
        assertThatThrownBy(() -> block.cells(0, 2)).isInstanceOf(IndexOutOfBoundsException.class);
        assertThatThrownBy(() -> block.cells(0, 1).get(1)).isInstanceOf(IndexOutOfBoundsException.class);
    }
}
