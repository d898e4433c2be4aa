package io.basalt.bench.cells;

import io.basalt.cell.Cell;
import io.basalt.cell.CellLayout;
import io.basalt.cell.EncodedCell;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * Suite {@code cells}: the check a decoded put makes on each of its cells, that the cell's row is
 * the put's. The cells are views over one array, as a put's cells are over its frame's cell
 * block; the row they are checked against is a separate array with the same bytes, as the put's
 * row is. {@code basalt} is {@code Cell.hasRow}, which compares straight on the array;
 * {@code segment-compare} is the check {@code Put.add} made before 2026-11-24: the cell's row as
 * a memory segment, compared by {@code MemorySegment.mismatch} (what {@code Bytes.compare} did
 * for every length until 2026-11-26) with a segment over the put's row. Rows are 11 bytes, the {@code grouping} suite's.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class RowCheckBenchmark {

    static final int CELLS = 1024;

    @Param({"basalt", "segment-compare"})
    public String impl;

    private boolean inPlace;
    private byte[] row;
    private Cell[] cells;

    @Setup(Level.Trial)
    public void setUp() {
        inPlace = switch (impl) {
            case "basalt" -> true;
            case "segment-compare" -> false;
            default -> throw new IllegalArgumentException("unknown impl " + impl);
        };
        row = "stream00001".getBytes(StandardCharsets.US_ASCII);
        byte[] value = new byte[60];
        Cell[] plain = new Cell[CELLS];
        long total = 0;
        for (int i = 0; i < CELLS; i++) {
            plain[i] = Cell.put(row.clone(), new byte[] {'f'}, ("q" + i).getBytes(StandardCharsets.US_ASCII), i, value);
            total += CellLayout.encodedLength(plain[i]);
        }
        byte[] block = new byte[(int) total];
        MemorySegment segment = MemorySegment.ofArray(block);
        cells = new Cell[CELLS];
        int at = 0;
        for (int i = 0; i < CELLS; i++) {
            int length = (int) CellLayout.write(plain[i], segment, at);
            cells[i] = EncodedCell.decode(block, at);
            at += length;
        }
        if (check() != CELLS) {
            throw new IllegalStateException(impl + " did not find the row in every cell");
        }
    }

    /** Average time of one cell's check. */
    @Benchmark
    @OperationsPerInvocation(CELLS)
    public int check() {
        int same = 0;
        if (inPlace) {
            for (Cell cell : cells) {
                if (cell.hasRow(row)) {
                    same++;
                }
            }
        } else {
            for (Cell cell : cells) {
                // What Bytes.compare was then: a mismatch of the two segments, whatever their length.
                MemorySegment cellRow = cell.row();
                MemorySegment putRow = MemorySegment.ofArray(row);
                if (MemorySegment.mismatch(cellRow, 0, cellRow.byteSize(), putRow, 0, putRow.byteSize()) < 0) {
                    same++;
                }
            }
        }
        return same;
    }
}
