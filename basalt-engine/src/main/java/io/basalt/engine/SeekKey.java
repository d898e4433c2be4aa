package io.basalt.engine;

import io.basalt.bytes.Bytes;
import io.basalt.cell.Cell;
import io.basalt.cell.CellType;
import java.lang.foreign.MemorySegment;

/**
 * A position in cell order that no stored cell occupies, used to seek iterators: the first key of
 * a row or of a column. It sorts before every real cell at or after its coordinates because it
 * has the highest timestamp and the highest type code, and real families are never empty.
 */
final class SeekKey implements Cell {

    private final byte[] row;
    private final byte[] family;
    private final byte[] qualifier;
    /** Views made once: a seek compares its key some twenty times on the way down a skip list. */
    private final MemorySegment rowSegment;
    private final MemorySegment familySegment;
    private final MemorySegment qualifierSegment;

    private SeekKey(byte[] row, byte[] family, byte[] qualifier) {
        this.row = row;
        this.family = family;
        this.qualifier = qualifier;
        this.rowSegment = MemorySegment.ofArray(row);
        this.familySegment = MemorySegment.ofArray(family);
        this.qualifierSegment = MemorySegment.ofArray(qualifier);
    }

    /** This key in encoded form, made on first use: every source a seek moves compares with it. */
    private MemorySegment encoded;

    /** {@code key}'s encoded form ({@link io.basalt.cell.CellLayout#keyBytes}), cached when it is a seek key. */
    static MemorySegment encodedKey(Cell key) {
        if (key instanceof SeekKey k) {
            MemorySegment e = k.encoded;
            if (e == null) {
                e = MemorySegment.ofArray(io.basalt.cell.CellLayout.keyBytes(k));
                k.encoded = e;
            }
            return e;
        }
        return MemorySegment.ofArray(io.basalt.cell.CellLayout.keyBytes(key));
    }

    /** Sorts before every cell of {@code row}. */
    static SeekKey firstOnRow(byte[] row) {
        return new SeekKey(row, Bytes.EMPTY, Bytes.EMPTY);
    }

    /** Sorts before every cell of {@code family:qualifier} in {@code row}. */
    static SeekKey firstOnColumn(byte[] row, byte[] family, byte[] qualifier) {
        return new SeekKey(row, family, qualifier);
    }

    /** Sorts after every cell of {@code row} and before every cell of a later row. */
    static SeekKey afterRow(byte[] row) {
        return firstOnRow(afterRowBytes(row));
    }

    /** The smallest row key greater than {@code row}: {@code row} followed by a zero byte. */
    static byte[] afterRowBytes(byte[] row) {
        return java.util.Arrays.copyOf(row, row.length + 1);
    }

    @Override
    public MemorySegment row() {
        return rowSegment;
    }

    @Override
    public MemorySegment family() {
        return familySegment;
    }

    @Override
    public MemorySegment qualifier() {
        return qualifierSegment;
    }

    @Override
    public long timestamp() {
        return Long.MAX_VALUE;
    }

    @Override
    public CellType type() {
        return CellType.DELETE_FAMILY;
    }

    @Override
    public MemorySegment value() {
        return MemorySegment.ofArray(Bytes.EMPTY);
    }

    @Override
    public String toString() {
        return "SeekKey{" + Bytes.toStringBinary(row) + "/" + Bytes.toStringBinary(family) + ":"
                + Bytes.toStringBinary(qualifier) + "}";
    }
}
