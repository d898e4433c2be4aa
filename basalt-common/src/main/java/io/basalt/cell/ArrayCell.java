package io.basalt.cell;

import java.lang.foreign.MemorySegment;
import java.util.Arrays;
import java.util.Objects;

/** A cell over four heap arrays; see {@link Cell#of}. */
final class ArrayCell extends AbstractCell {

    final byte[] row;
    final byte[] family;
    final byte[] qualifier;
    final long timestamp;
    final CellType type;
    final byte[] value;

    ArrayCell(byte[] row, byte[] family, byte[] qualifier, long timestamp, CellType type, byte[] value) {
        this.row = Objects.requireNonNull(row, "row");
        this.family = Objects.requireNonNull(family, "family");
        this.qualifier = Objects.requireNonNull(qualifier, "qualifier");
        this.type = Objects.requireNonNull(type, "type");
        this.value = Objects.requireNonNull(value, "value");
        Cell.checkLimits(row.length, family.length, qualifier.length, timestamp, value.length);
        this.timestamp = timestamp;
    }

    @Override
    public MemorySegment row() {
        return MemorySegment.ofArray(row);
    }

    @Override
    public MemorySegment family() {
        return MemorySegment.ofArray(family);
    }

    @Override
    public MemorySegment qualifier() {
        return MemorySegment.ofArray(qualifier);
    }

    @Override
    public long timestamp() {
        return timestamp;
    }

    @Override
    public CellType type() {
        return type;
    }

    @Override
    public MemorySegment value() {
        return MemorySegment.ofArray(value);
    }

    @Override
    public boolean hasRow(byte[] row) {
        return Arrays.equals(this.row, row);
    }

    @Override
    public byte[] rowBytes() {
        return row.clone();
    }

    @Override
    public byte[] familyBytes() {
        return family.clone();
    }

    @Override
    public byte[] qualifierBytes() {
        return qualifier.clone();
    }

    @Override
    public byte[] valueBytes() {
        return value.clone();
    }
}
