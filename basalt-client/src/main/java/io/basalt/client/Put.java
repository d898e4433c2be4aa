package io.basalt.client;

import io.basalt.bytes.Bytes;
import io.basalt.cell.Cell;

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

    /** {@link #addColumn(byte[], byte[], byte[])} with UTF-8 strings. */
    public Put addColumn(String family, String qualifier, String value) {
        return addColumn(Bytes.utf8(family), Bytes.utf8(qualifier), Bytes.utf8(value));
    }

    public boolean isEmpty() {
        return cells.isEmpty();
    }
}
