package io.basalt.client;

import io.basalt.bytes.Bytes;
import io.basalt.cell.Cell;
import io.basalt.cell.CellType;

/**
 * Deletes from one row: the whole row (nothing added), whole families, all versions of columns, or
 * single versions. Each marker hides cells at or below its timestamp (exactly its timestamp for a
 * single version); cells written later with a higher timestamp are visible again.
 */
public final class Delete extends Mutation {

    /** Deletes, as of the store's clock, whatever is added (the whole row if nothing is). */
    public Delete(byte[] row) {
        this(row, LATEST_TIMESTAMP);
    }

    /** Deletes cells at or below {@code timestamp}. */
    public Delete(byte[] row, long timestamp) {
        super(row, timestamp);
    }

    public static Delete of(String row) {
        return new Delete(Bytes.utf8(row));
    }

    /** Every column of {@code family}, at or below this delete's timestamp. */
    public Delete addFamily(byte[] family) {
        return addFamily(family, timestamp);
    }

    /** Every column of {@code family}, at or below {@code timestamp}. */
    public Delete addFamily(byte[] family, long timestamp) {
        cells.add(Cell.of(row, family, Bytes.EMPTY, timestamp, CellType.DELETE_FAMILY, Bytes.EMPTY));
        return this;
    }

    /** Every version of one column at or below this delete's timestamp. */
    public Delete addColumns(byte[] family, byte[] qualifier) {
        return addColumns(family, qualifier, timestamp);
    }

    /** Every version of one column at or below {@code timestamp}. */
    public Delete addColumns(byte[] family, byte[] qualifier, long timestamp) {
        cells.add(Cell.of(row, family, qualifier, timestamp, CellType.DELETE_COLUMN, Bytes.EMPTY));
        return this;
    }

    /**
     * One version of one column: the one at exactly {@code versionTimestamp}, or, given
     * {@link #LATEST_TIMESTAMP}, the newest version at the time the delete is applied.
     */
    public Delete addColumn(byte[] family, byte[] qualifier, long versionTimestamp) {
        cells.add(Cell.of(row, family, qualifier, versionTimestamp, CellType.DELETE, Bytes.EMPTY));
        return this;
    }

    /** The newest version of one column. */
    public Delete addColumn(byte[] family, byte[] qualifier) {
        return addColumn(family, qualifier, LATEST_TIMESTAMP);
    }

    /** True when nothing was added: the delete removes the whole row. */
    public boolean isWholeRow() {
        return cells.isEmpty();
    }
}
