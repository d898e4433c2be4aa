package io.basalt.cell;

import io.basalt.bytes.Bytes;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * One timestamped value (or delete marker) at a {@code row, family:qualifier} coordinate: the unit
 * Basalt stores, sorts and ships.
 *
 * <p>Cells sort by row ascending, family ascending, qualifier ascending (all as unsigned bytes),
 * then timestamp descending (newest first), then type (delete markers before puts); see
 * {@link CellComparator}. Two implementations exist: a cell built from arrays ({@link #of}) and
 * {@link EncodedCell}, a view over the binary encoding of {@link CellLayout} that copies nothing.
 *
 * <p>The accessors return segments that view the cell's own storage: do not write to them.
 */
public interface Cell {

    /** Longest row key, in bytes (row lengths are stored in two bytes). */
    int MAX_ROW_LENGTH = Short.MAX_VALUE;
    /** Longest family name, in bytes (family lengths are stored in one byte). */
    int MAX_FAMILY_LENGTH = 255;
    /** Longest qualifier, in bytes. */
    int MAX_QUALIFIER_LENGTH = 65_535;
    /** Largest value, in bytes (1 GiB). */
    int MAX_VALUE_LENGTH = 1 << 30;

    MemorySegment row();

    MemorySegment family();

    MemorySegment qualifier();

    /** Milliseconds since the epoch by convention; never negative. */
    long timestamp();

    CellType type();

    MemorySegment value();

    /** Whether this cell's row key is {@code row}, byte for byte (no copy of either). */
    default boolean hasRow(byte[] row) {
        MemorySegment mine = row();
        return MemorySegment.mismatch(mine, 0, mine.byteSize(), MemorySegment.ofArray(row), 0, row.length) < 0;
    }

    /** A copy of the row key. */
    default byte[] rowBytes() {
        return row().toArray(ValueLayout.JAVA_BYTE);
    }

    /** A copy of the family name. */
    default byte[] familyBytes() {
        return family().toArray(ValueLayout.JAVA_BYTE);
    }

    /** A copy of the qualifier. */
    default byte[] qualifierBytes() {
        return qualifier().toArray(ValueLayout.JAVA_BYTE);
    }

    /** A copy of the value. */
    default byte[] valueBytes() {
        return value().toArray(ValueLayout.JAVA_BYTE);
    }

    /**
     * A cell over the given arrays, which it keeps (no copy): the caller must not change them.
     *
     * @throws IllegalArgumentException naming the component when a size limit or the timestamp
     *     rule is broken
     */
    static Cell of(byte[] row, byte[] family, byte[] qualifier, long timestamp, CellType type, byte[] value) {
        return new ArrayCell(row, family, qualifier, timestamp, type, value);
    }

    /** A {@link CellType#PUT} cell; see {@link #of}. */
    static Cell put(byte[] row, byte[] family, byte[] qualifier, long timestamp, byte[] value) {
        return of(row, family, qualifier, timestamp, CellType.PUT, value);
    }

    /** A {@link CellType#PUT} cell from UTF-8 strings, for tests, tools and examples. */
    static Cell put(String row, String family, String qualifier, long timestamp, String value) {
        return put(Bytes.utf8(row), Bytes.utf8(family), Bytes.utf8(qualifier), timestamp, Bytes.utf8(value));
    }

    /**
     * Checks the size limits and the timestamp rule, naming what is wrong.
     *
     * @throws IllegalArgumentException when a limit is broken
     */
    static void checkLimits(long rowLength, long familyLength, long qualifierLength, long timestamp, long valueLength) {
        if (rowLength == 0) {
            throw new IllegalArgumentException("row is empty; a cell needs a row key of 1 to "
                    + MAX_ROW_LENGTH + " bytes");
        }
        if (rowLength > MAX_ROW_LENGTH) {
            throw new IllegalArgumentException("row is " + rowLength + " bytes; the limit is "
                    + MAX_ROW_LENGTH + " (Cell.MAX_ROW_LENGTH)");
        }
        if (familyLength > MAX_FAMILY_LENGTH) {
            throw new IllegalArgumentException("family is " + familyLength + " bytes; the limit is "
                    + MAX_FAMILY_LENGTH + " (Cell.MAX_FAMILY_LENGTH)");
        }
        if (qualifierLength > MAX_QUALIFIER_LENGTH) {
            throw new IllegalArgumentException("qualifier is " + qualifierLength + " bytes; the limit is "
                    + MAX_QUALIFIER_LENGTH + " (Cell.MAX_QUALIFIER_LENGTH)");
        }
        if (valueLength > MAX_VALUE_LENGTH) {
            throw new IllegalArgumentException("value is " + valueLength + " bytes; the limit is "
                    + MAX_VALUE_LENGTH + " (Cell.MAX_VALUE_LENGTH)");
        }
        if (timestamp < 0) {
            throw new IllegalArgumentException("timestamp " + timestamp + " is negative");
        }
    }
}
