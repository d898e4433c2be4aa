package io.basalt.cell;

/**
 * What a cell says about its coordinates: a value, or one of three kinds of delete marker.
 *
 * <p>Each type has a one-byte code that is part of the encoded key. At equal row, column and
 * timestamp, cells sort by <em>descending</em> code, so a delete marker sorts before the put it
 * masks and a reader meets the marker first (the order HBase uses, with the same codes).
 */
public enum CellType {
    /** A value. */
    PUT((byte) 4),
    /** Deletes one version of one column: the cell with exactly this timestamp. */
    DELETE((byte) 8),
    /** Deletes every version of one column with a timestamp at or below this one. */
    DELETE_COLUMN((byte) 12),
    /** Deletes every column of one family in the row with a timestamp at or below this one. */
    DELETE_FAMILY((byte) 14);

    private static final CellType[] BY_CODE = new CellType[256];

    static {
        for (CellType type : values()) {
            BY_CODE[Byte.toUnsignedInt(type.code)] = type;
        }
    }

    private final byte code;

    CellType(byte code) {
        this.code = code;
    }

    /** The byte stored in the encoded key. */
    public byte code() {
        return code;
    }

    /** True for the three delete markers. */
    public boolean isDelete() {
        return this != PUT;
    }

    /** The type with this code, or {@code null} when no type has it. */
    public static CellType fromCode(byte code) {
        return BY_CODE[Byte.toUnsignedInt(code)];
    }
}
