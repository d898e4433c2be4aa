package io.basalt.client;

import io.basalt.bytes.Bytes;
import io.basalt.cell.Cell;
import io.basalt.cell.CellType;

/** Writes values into columns of one row. */
public final class Put extends Mutation {

    /** A put whose cells get the store's clock unless given their own timestamp. */
    public Put(byte[] row) {
        this(row, LATEST_TIMESTAMP);
    }

    /** A put whose cells default to {@code timestamp}. */
    public Put(byte[] row, long timestamp) {
        super(row, timestamp);
    }

    /** A put on a UTF-8 row key. */
    public static Put of(String row) {
        return new Put(Bytes.utf8(row));
    }

    public Put addColumn(byte[] family, byte[] qualifier, byte[] value) {
        return addColumn(family, qualifier, timestamp, value);
    }

    public Put addColumn(byte[] family, byte[] qualifier, long timestamp, byte[] value) {
        cells.add(Cell.put(row, family, qualifier, timestamp, value));
        return this;
    }

    /**
     * Adds a cell as it is (a cell read from a frame or a file, say: nothing is copied). It must
     * be a {@link CellType#PUT} cell of this put's row.
     *
     * @throws IllegalArgumentException naming the problem otherwise
     */
    public Put add(Cell cell) {
        if (cell.type() != CellType.PUT) {
            throw new IllegalArgumentException("a put takes PUT cells, not " + cell.type());
        }
        if (!cell.hasRow(row)) {
            throw new IllegalArgumentException("a cell of row " + Bytes.toStringBinary(cell.rowBytes())
                    + " cannot go in a put of row " + Bytes.toStringBinary(row));
        }
        cells.add(cell);
        return this;
    }

    /** {@link #addColumn(byte[], byte[], byte[])} with UTF-8 strings. */
    public Put addColumn(String family, String qualifier, String value) {
        return addColumn(Bytes.utf8(family), Bytes.utf8(qualifier), Bytes.utf8(value));
    }

    public boolean isEmpty() {
        return cells.isEmpty();
    }
}
