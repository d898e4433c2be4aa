package io.basalt.client;

import io.basalt.bytes.Bytes;
import io.basalt.cell.Cell;

/**
 * Appends bytes to the values of columns in one row, atomically: each column's newest value gets
 * the suffix at its end, and a missing column starts empty. The result holds the new values.
 * Like an increment, it reads and writes under the row's lock, so concurrent appends to a column
 * all land, in some order.
 */
public final class Append extends Mutation {

    public Append(byte[] row) {
        super(row, LATEST_TIMESTAMP);
    }

    public static Append of(String row) {
        return new Append(Bytes.utf8(row));
    }

    /** Appends {@code suffix} to one column's value. A column named twice gets both suffixes, in order. */
    public Append addColumn(byte[] family, byte[] qualifier, byte[] suffix) {
        cells.add(Cell.put(row, family, qualifier, timestamp, java.util.Objects.requireNonNull(suffix, "suffix")));
        return this;
    }

    /** {@link #addColumn(byte[], byte[], byte[])} with UTF-8 strings. */
    public Append addColumn(String family, String qualifier, String suffix) {
        return addColumn(Bytes.utf8(family), Bytes.utf8(qualifier), Bytes.utf8(suffix));
    }
}
