package io.basalt.client;

import io.basalt.bytes.Bytes;
import io.basalt.cell.Cell;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Objects;

/**
 * A change to one row, applied atomically: {@link Put}, {@link Delete}, {@link Increment} or {@link Append}.
 *
 * <p>Mutations are built by one thread and then handed to the table; changing one after handing
 * it over has no defined effect.
 */
public abstract sealed class Mutation permits Put, Delete, Increment, Append {

    /** The timestamp that means "the store's clock when it applies the mutation". */
    public static final long LATEST_TIMESTAMP = Long.MAX_VALUE;

    final byte[] row;
    final long timestamp;
    final List<Cell> cells = new ArrayList<>();

    Mutation(byte[] row, long timestamp) {
        Objects.requireNonNull(row, "row");
        if (row.length == 0 || row.length > Cell.MAX_ROW_LENGTH) {
            throw new IllegalArgumentException("row is " + row.length + " bytes; it must be 1 to "
                    + Cell.MAX_ROW_LENGTH);
        }
        if (timestamp < 0) {
            throw new IllegalArgumentException("timestamp " + timestamp + " is negative");
        }
        this.row = row;
        this.timestamp = timestamp;
    }

    /** The row this mutation changes (not a copy: do not modify). */
    public byte[] row() {
        return row;
    }

    /** The default timestamp of this mutation's cells. */
    public long timestamp() {
        return timestamp;
    }

    /**
     * The cells this mutation writes, in the order added. Cells whose timestamp is
     * {@link #LATEST_TIMESTAMP} get the store's clock when applied.
     */
    public List<Cell> cells() {
        return Collections.unmodifiableList(cells);
    }

    /** Rough heap footprint, for write buffers that flush by size. */
    public long heapSize() {
        long size = 64 + row.length;
        for (Cell cell : cells) {
            size += 80 + cell.row().byteSize() + cell.family().byteSize() + cell.qualifier().byteSize()
                    + cell.value().byteSize();
        }
        return size;
    }

    /** The largest single cell, in encoded bytes, for {@code maxKeyValueSize} checks. */
    public long largestCellSize() {
        long max = 0;
        for (Cell cell : cells) {
            max = Math.max(max, io.basalt.cell.CellLayout.encodedLength(cell));
        }
        return max;
    }

    @Override
    public String toString() {
        return getClass().getSimpleName() + "{row=" + Bytes.toStringBinary(row) + ", cells=" + cells + "}";
    }
}
