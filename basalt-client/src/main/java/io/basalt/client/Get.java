package io.basalt.client;

import io.basalt.bytes.Bytes;
import java.util.Objects;

/** Reads one row: all of it, or selected families and columns, times and versions. */
public final class Get extends Query<Get> {

    private final byte[] row;

    public Get(byte[] row) {
        this.row = Objects.requireNonNull(row, "row");
        if (row.length == 0) {
            throw new IllegalArgumentException("row is empty");
        }
    }

    public static Get of(String row) {
        return new Get(Bytes.utf8(row));
    }

    @Override
    Get self() {
        return this;
    }

    public byte[] row() {
        return row;
    }

    /** A scan of exactly this row with the same selection. */
    public Scan toScan() {
        Scan scan = new Scan().withStartRow(row, true).withStopRow(row, true);
        scan.copySelection(this);
        return scan;
    }
}
