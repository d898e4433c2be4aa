package io.basalt.client;

import io.basalt.bytes.Bytes;
import io.basalt.cell.Cell;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;

/**
 * The cells of one row that a read returned, in cell order (family, qualifier, newest first). A
 * result may be partial: part of a row when the scan allowed partial results or set a batch size.
 *
 * <p>A result a scanner received from a server views the bytes of the batch it came in, and
 * checks its cells the first time one is read: should the server have sent a malformed cell, that
 * read fails with a {@link io.basalt.cell.MalformedCellException} naming the server, the table
 * and the problem, and never returns it.
 */
public final class Result {

    private static final Result EMPTY = new Result(null, List.of(), false);

    private final byte[] row;
    private final List<Cell> cells;
    private final boolean partial;

    private Result(byte[] row, List<Cell> cells, boolean partial) {
        this.row = row;
        this.cells = cells;
        this.partial = partial;
    }

    /** A result over {@code cells} (sorted, all of one row), which it keeps without copying. */
    public static Result of(List<Cell> cells) {
        return of(cells, false);
    }

    /** A result over sorted cells of one row; {@code partial} when more of the row follows. */
    public static Result of(List<Cell> cells, boolean partial) {
        if (cells.isEmpty()) {
            return EMPTY;
        }
        return new Result(cells.getFirst().rowBytes(), cells, partial);
    }

    /**
     * A result over sorted cells of {@code row}, which it keeps without copying: for decoders
     * that have the row at hand (and have checked that every cell is of that row).
     */
    public static Result of(byte[] row, List<Cell> cells, boolean partial) {
        if (cells.isEmpty()) {
            return EMPTY;
        }
        return new Result(row, cells, partial);
    }

    /** The result of reading a row that has no visible cells. */
    public static Result empty() {
        return EMPTY;
    }

    /** The row key, or {@code null} for an empty result. */
    public byte[] row() {
        return row;
    }

    public List<Cell> cells() {
        return cells;
    }

    public boolean isEmpty() {
        return cells.isEmpty();
    }

    public int size() {
        return cells.size();
    }

    /** True when more cells of this row come in the next result. */
    public boolean isPartial() {
        return partial;
    }

    /** The newest value of a column, or {@code null}. */
    public byte[] value(byte[] family, byte[] qualifier) {
        Cell cell = latest(family, qualifier);
        return cell == null ? null : cell.valueBytes();
    }

    /** {@link #value(byte[], byte[])} with UTF-8 names. */
    public byte[] value(String family, String qualifier) {
        return value(Bytes.utf8(family), Bytes.utf8(qualifier));
    }

    /** The newest cell of a column, or {@code null}. */
    public Cell latest(byte[] family, byte[] qualifier) {
        for (Cell cell : cells) {
            if (matches(cell, family, qualifier)) {
                return cell;
            }
        }
        return null;
    }

    /** Every returned version of a column, newest first. */
    public List<Cell> columnCells(byte[] family, byte[] qualifier) {
        List<Cell> out = new ArrayList<>();
        for (Cell cell : cells) {
            if (matches(cell, family, qualifier)) {
                out.add(cell);
            }
        }
        return out;
    }

    private static boolean matches(Cell cell, byte[] family, byte[] qualifier) {
        MemorySegment f = cell.family();
        MemorySegment q = cell.qualifier();
        return Bytes.compare(f, MemorySegment.ofArray(family)) == 0 && Bytes.compare(q, MemorySegment.ofArray(qualifier)) == 0;
    }

    @Override
    public String toString() {
        return "Result{" + (row == null ? "empty" : Bytes.toStringBinary(row)) + (partial ? ", partial" : "")
                + ", " + cells + "}";
    }
}
