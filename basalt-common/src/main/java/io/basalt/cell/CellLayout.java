package io.basalt.cell;

import io.basalt.bytes.Bytes;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

/**
 * The binary encoding of one cell: the only place that knows its byte layout.
 *
 * <pre>
 *  offset 0
 *  +-----------+-------------+------------------------------ key ------------------------------+---------+
 *  | keyLength | valueLength | rowLen | row      | famLen | family   | qualifier | ts    | type | value   |
 *  | varint    | varint      | u16 BE | rowLen B | u8     | famLen B | (implied) | i64BE | u8   | valueLength B
 *  +-----------+-------------+--------+----------+--------+----------+-----------+-------+------+---------+
 *
 *  qualifierLength = keyLength - (2 + rowLen + 1 + famLen + 8 + 1)
 * </pre>
 *
 * <ul>
 *   <li><b>varint</b>: unsigned LEB128, seven bits per byte, low group first, high bit set on every
 *       byte but the last; 1 to 5 bytes, at most {@link Integer#MAX_VALUE}, and in its shortest
 *       form (a longer-than-needed encoding is rejected, so one cell has exactly one encoding).
 *       Cells with keys and values under 128 bytes spend one byte on each length.</li>
 *   <li><b>rowLen</b> 1..{@value Cell#MAX_ROW_LENGTH}; <b>famLen</b> 0..{@value Cell#MAX_FAMILY_LENGTH};
 *       the qualifier length is not stored: it is what remains of the key.</li>
 *   <li><b>ts</b> a non-negative signed 64-bit timestamp; <b>type</b> a {@link CellType} code.</li>
 * </ul>
 *
 * <p>Comparing two encoded keys needs no decoding beyond the two varints: rows, families and
 * qualifiers are compared in place (see {@link CellComparator#compareEncoded}). The layout has no
 * version byte or checksum of its own: cells always travel inside a container (WAL record, SSTable
 * block, RPC frame) that carries both.
 */
public final class CellLayout {

    /** Big-endian two-byte field (row length). */
    static final ValueLayout.OfShort U16 = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    /** Big-endian eight-byte field (timestamp). */
    static final ValueLayout.OfLong I64 = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);

    /** Bytes of the row-length field. */
    public static final int ROW_LENGTH_SIZE = 2;
    /** Bytes of the family-length field. */
    public static final int FAMILY_LENGTH_SIZE = 1;
    /** Bytes of the timestamp and type that end every key. */
    public static final int TIMESTAMP_TYPE_SIZE = 9;
    /** Key bytes that are not row, family or qualifier. */
    public static final int KEY_INFRASTRUCTURE_SIZE = ROW_LENGTH_SIZE + FAMILY_LENGTH_SIZE + TIMESTAMP_TYPE_SIZE;
    /** The smallest key: a one-byte row, empty family and qualifier. */
    public static final int MIN_KEY_LENGTH = KEY_INFRASTRUCTURE_SIZE + 1;
    /** The largest key the limits allow. */
    public static final int MAX_KEY_LENGTH =
            KEY_INFRASTRUCTURE_SIZE + Cell.MAX_ROW_LENGTH + Cell.MAX_FAMILY_LENGTH + Cell.MAX_QUALIFIER_LENGTH;
    /** The longest varint. */
    public static final int MAX_VARINT_SIZE = 5;

    private CellLayout() {}

    // ---------------------------------------------------------------- varints

    /** How many bytes {@code value} (non-negative) takes as a varint. */
    public static int varintSize(int value) {
        // 1 + floor(bitLength / 7), with 0 taking one byte.
        return 1 + (31 - Integer.numberOfLeadingZeros(value | 1)) / 7;
    }

    /** Writes {@code value} (non-negative) as a varint at {@code offset}; returns the bytes written. */
    public static int writeVarint(MemorySegment dst, long offset, int value) {
        int n = 0;
        while ((value & ~0x7F) != 0) {
            dst.set(ValueLayout.JAVA_BYTE, offset + n++, (byte) ((value & 0x7F) | 0x80));
            value >>>= 7;
        }
        dst.set(ValueLayout.JAVA_BYTE, offset + n++, (byte) value);
        return n;
    }

    /** {@link #readTrustedVarint(MemorySegment, long)} from a heap array. */
    static int readTrustedVarint(byte[] src, int offset) {
        byte b = src[offset];
        if (b >= 0) {
            return b;
        }
        int value = b & 0x7F;
        int shift = 7;
        do {
            b = src[++offset];
            value |= (b & 0x7F) << shift;
            shift += 7;
        } while (b < 0);
        return value;
    }

    /**
     * Reads a varint of a cell that was already validated: no checks beyond the segment's own
     * bounds. Returns the value; its size is {@link #varintSize(int)} of it.
     */
    static int readTrustedVarint(MemorySegment src, long offset) {
        byte b = src.get(ValueLayout.JAVA_BYTE, offset);
        if (b >= 0) {
            return b;
        }
        int value = b & 0x7F;
        int shift = 7;
        do {
            b = src.get(ValueLayout.JAVA_BYTE, ++offset);
            value |= (b & 0x7F) << shift;
            shift += 7;
        } while (b < 0);
        return value;
    }

    /**
     * Reads and checks a varint within {@code [offset, limit)}. Returns the value in the low 32
     * bits and its size in the high 32 bits.
     */
    private static long readCheckedVarint(MemorySegment src, long cellStart, long offset, long limit, String field) {
        long value = 0;
        for (int i = 0; i < MAX_VARINT_SIZE; i++) {
            if (offset + i >= limit) {
                throw new MalformedCellException(cellStart, "truncated in the " + field + " field");
            }
            int b = src.get(ValueLayout.JAVA_BYTE, offset + i);
            value |= (long) (b & 0x7F) << (7 * i);
            if (b >= 0) {
                if (i > 0 && b == 0) {
                    throw new MalformedCellException(cellStart, field + " varint is not in its shortest form");
                }
                if (value > Integer.MAX_VALUE) {
                    throw new MalformedCellException(cellStart, field + " " + value + " exceeds " + Integer.MAX_VALUE);
                }
                return ((long) (i + 1) << 32) | value;
            }
        }
        throw new MalformedCellException(cellStart, field + " varint is longer than " + MAX_VARINT_SIZE + " bytes");
    }

    // ---------------------------------------------------------------- sizes

    /** Key length of a cell with these component lengths. */
    public static int keyLength(int rowLength, int familyLength, int qualifierLength) {
        return KEY_INFRASTRUCTURE_SIZE + rowLength + familyLength + qualifierLength;
    }

    /** Total encoded length of a cell with this key and value length. */
    public static long encodedLength(int keyLength, int valueLength) {
        return (long) varintSize(keyLength) + varintSize(valueLength) + keyLength + valueLength;
    }

    /** Total encoded length of {@code cell}. */
    public static long encodedLength(Cell cell) {
        if (cell instanceof EncodedCell encoded) {
            return encoded.encodedLength();
        }
        if (cell instanceof ArrayCell a) {
            return encodedLength(keyLength(a.row.length, a.family.length, a.qualifier.length), a.value.length);
        }
        int keyLength = keyLength((int) cell.row().byteSize(), (int) cell.family().byteSize(),
                (int) cell.qualifier().byteSize());
        return encodedLength(keyLength, (int) cell.value().byteSize());
    }

    // ---------------------------------------------------------------- offsets (within a validated cell)

    /** Offset of the first key byte (the row length) of the cell at {@code cellOffset}. */
    public static long keyOffset(MemorySegment src, long cellOffset) {
        int keyLength = readTrustedVarint(src, cellOffset);
        int valueLength = readTrustedVarint(src, cellOffset + varintSize(keyLength));
        return cellOffset + varintSize(keyLength) + varintSize(valueLength);
    }

    /** Row length stored at the start of a key. */
    public static int rowLength(MemorySegment src, long keyOffset) {
        return Short.toUnsignedInt(src.get(U16, keyOffset));
    }

    /** Offset of the row bytes in a key. */
    public static long rowOffset(long keyOffset) {
        return keyOffset + ROW_LENGTH_SIZE;
    }

    /** Offset of the family-length byte in a key with this row length. */
    public static long familyLengthOffset(long keyOffset, int rowLength) {
        return keyOffset + ROW_LENGTH_SIZE + rowLength;
    }

    /** Family length stored at {@code familyLengthOffset}. */
    public static int familyLength(MemorySegment src, long familyLengthOffset) {
        return Byte.toUnsignedInt(src.get(ValueLayout.JAVA_BYTE, familyLengthOffset));
    }

    /** Qualifier length implied by the other lengths. */
    public static int qualifierLength(int keyLength, int rowLength, int familyLength) {
        return keyLength - KEY_INFRASTRUCTURE_SIZE - rowLength - familyLength;
    }

    /** Offset of the timestamp in a key of this length. */
    public static long timestampOffset(long keyOffset, int keyLength) {
        return keyOffset + keyLength - TIMESTAMP_TYPE_SIZE;
    }

    /** Offset of the type byte in a key of this length. */
    public static long typeOffset(long keyOffset, int keyLength) {
        return keyOffset + keyLength - 1;
    }

    /** Timestamp stored at {@code timestampOffset}. */
    public static long timestamp(MemorySegment src, long timestampOffset) {
        return src.get(I64, timestampOffset);
    }

    // ---------------------------------------------------------------- writing

    /**
     * Writes {@code cell} at {@code offset}; returns the bytes written ({@link #encodedLength(Cell)}).
     *
     * @throws IllegalArgumentException when the cell breaks a limit of {@link Cell}
     * @throws IndexOutOfBoundsException when {@code dst} is too small
     */
    public static long write(Cell cell, MemorySegment dst, long offset) {
        if (cell instanceof EncodedCell encoded) {
            // Already in this layout and validated when it was decoded: copy it whole. From a heap
            // array the copy skips the two-segment checks, which cost as much as a small copy.
            long length = encoded.encodedLength();
            byte[] array = encoded.array();
            if (array != null) {
                MemorySegment.copy(array, (int) encoded.offset(), dst, ValueLayout.JAVA_BYTE, offset, (int) length);
            } else {
                MemorySegment.copy(encoded.segment(), encoded.offset(), dst, offset, length);
            }
            return length;
        }
        if (cell instanceof ArrayCell a) {
            return write(a, dst, offset);
        }
        MemorySegment row = cell.row();
        MemorySegment family = cell.family();
        MemorySegment qualifier = cell.qualifier();
        MemorySegment value = cell.value();
        Cell.checkLimits(row.byteSize(), family.byteSize(), qualifier.byteSize(), cell.timestamp(), value.byteSize());
        int rowLength = (int) row.byteSize();
        int familyLength = (int) family.byteSize();
        int keyLength = keyLength(rowLength, familyLength, (int) qualifier.byteSize());
        int valueLength = (int) value.byteSize();
        long total = encodedLength(keyLength, valueLength);
        long at = writeHead(dst, offset, total, keyLength, valueLength);
        at = writeKey(row, family, qualifier, cell.timestamp(), cell.type(), dst, at);
        MemorySegment.copy(value, 0, dst, at, valueLength);
        return total;
    }

    /** Writes a key ({@code rowLen .. type}) of these parts at {@code at}; returns where it ends. */
    private static long writeKey(MemorySegment row, MemorySegment family, MemorySegment qualifier, long timestamp,
                                 CellType type, MemorySegment dst, long at) {
        int rowLength = (int) row.byteSize();
        int familyLength = (int) family.byteSize();
        dst.set(U16, at, (short) rowLength);
        at += ROW_LENGTH_SIZE;
        MemorySegment.copy(row, 0, dst, at, rowLength);
        at += rowLength;
        dst.set(ValueLayout.JAVA_BYTE, at, (byte) familyLength);
        at += FAMILY_LENGTH_SIZE;
        MemorySegment.copy(family, 0, dst, at, familyLength);
        at += familyLength;
        MemorySegment.copy(qualifier, 0, dst, at, qualifier.byteSize());
        at += qualifier.byteSize();
        dst.set(I64, at, timestamp);
        dst.set(ValueLayout.JAVA_BYTE, at + 8, type.code());
        return at + TIMESTAMP_TYPE_SIZE;
    }

    /**
     * Checks that a cell of {@code total} bytes fits at {@code offset}, writes its two lengths
     * there, and returns where its key goes.
     */
    private static long writeHead(MemorySegment dst, long offset, long total, int keyLength, int valueLength) {
        if (offset < 0 || offset + total > dst.byteSize()) {
            throw new IndexOutOfBoundsException("cell of " + total + " bytes does not fit at offset " + offset
                    + " of a " + dst.byteSize() + "-byte buffer");
        }
        long at = offset;
        at += writeVarint(dst, at, keyLength);
        return at + writeVarint(dst, at, valueLength);
    }

    /**
     * {@link #write(Cell, MemorySegment, long)} of a cell made of arrays (every put a client
     * builds), copied from them: the general path asks each part for a segment, two objects
     * apiece, which were a twentieth of what YCSB's load allocated. Its limits were checked when
     * it was made.
     */
    private static long write(ArrayCell cell, MemorySegment dst, long offset) {
        int rowLength = cell.row.length;
        int familyLength = cell.family.length;
        int qualifierLength = cell.qualifier.length;
        int keyLength = keyLength(rowLength, familyLength, qualifierLength);
        int valueLength = cell.value.length;
        long total = encodedLength(keyLength, valueLength);
        long at = writeHead(dst, offset, total, keyLength, valueLength);
        dst.set(U16, at, (short) rowLength);
        at += ROW_LENGTH_SIZE;
        MemorySegment.copy(cell.row, 0, dst, ValueLayout.JAVA_BYTE, at, rowLength);
        at += rowLength;
        dst.set(ValueLayout.JAVA_BYTE, at, (byte) familyLength);
        at += FAMILY_LENGTH_SIZE;
        MemorySegment.copy(cell.family, 0, dst, ValueLayout.JAVA_BYTE, at, familyLength);
        at += familyLength;
        MemorySegment.copy(cell.qualifier, 0, dst, ValueLayout.JAVA_BYTE, at, qualifierLength);
        at += qualifierLength;
        dst.set(I64, at, cell.timestamp);
        at += 8;
        dst.set(ValueLayout.JAVA_BYTE, at, cell.type.code());
        at += 1;
        MemorySegment.copy(cell.value, 0, dst, ValueLayout.JAVA_BYTE, at, valueLength);
        return total;
    }

    /**
     * The encoded key of {@code cell} alone ({@code rowLen .. type}), the form sorted files store
     * and {@link CellComparator#compareKeys} compares. No limits are checked: seek keys may bend
     * them (an empty family, a row one byte past the longest).
     */
    public static byte[] keyBytes(Cell cell) {
        MemorySegment row = cell.row();
        MemorySegment family = cell.family();
        MemorySegment qualifier = cell.qualifier();
        int rowLength = (int) row.byteSize();
        int familyLength = (int) family.byteSize();
        byte[] key = new byte[keyLength(rowLength, familyLength, (int) qualifier.byteSize())];
        writeKey(row, family, qualifier, cell.timestamp(), cell.type(), MemorySegment.ofArray(key), 0);
        return key;
    }

    /** Encodes {@code cell} into a new array. */
    public static byte[] encode(Cell cell) {
        long length = encodedLength(cell);
        if (length > Integer.MAX_VALUE - 8) {
            throw new IllegalArgumentException("cell of " + length + " bytes is too large for one array");
        }
        byte[] out = new byte[(int) length];
        write(cell, MemorySegment.ofArray(out), 0);
        return out;
    }

    // ---------------------------------------------------------------- reading

    /**
     * {@link #validate} for a cell in a heap array, for readers of many cells: the same checks,
     * made on the array directly, with {@code -1} for a cell that fails any of them (ask
     * {@link #validate} for the reason). Returns the cell's encoded length.
     */
    static int validLength(byte[] src, int offset, int limit) {
        if (offset < 0 || limit > src.length || offset >= limit) {
            return -1;
        }
        long keyVarint = arrayVarint(src, offset, limit);
        if (keyVarint < 0) {
            return -1;
        }
        int at = offset + (int) (keyVarint >>> 32);
        long valueVarint = arrayVarint(src, at, limit);
        if (valueVarint < 0) {
            return -1;
        }
        at += (int) (valueVarint >>> 32);
        int keyLength = (int) keyVarint;
        int valueLength = (int) valueVarint;
        if (keyLength < MIN_KEY_LENGTH || keyLength > MAX_KEY_LENGTH || valueLength > Cell.MAX_VALUE_LENGTH) {
            return -1;
        }
        long end = (long) at + keyLength + valueLength;
        if (end > limit) {
            return -1;
        }
        int rowLength = ((src[at] & 0xFF) << 8) | (src[at + 1] & 0xFF);
        if (rowLength == 0 || rowLength > Cell.MAX_ROW_LENGTH
                || ROW_LENGTH_SIZE + rowLength + FAMILY_LENGTH_SIZE + TIMESTAMP_TYPE_SIZE > keyLength) {
            return -1;
        }
        int familyLength = src[at + ROW_LENGTH_SIZE + rowLength] & 0xFF;
        int qualifierLength = qualifierLength(keyLength, rowLength, familyLength);
        if (qualifierLength < 0 || qualifierLength > Cell.MAX_QUALIFIER_LENGTH) {
            return -1;
        }
        // The timestamp is big-endian: its first byte holds the sign.
        if (src[at + keyLength - TIMESTAMP_TYPE_SIZE] < 0 || CellType.fromCode(src[at + keyLength - 1]) == null) {
            return -1;
        }
        return (int) (end - offset);
    }

    /** A varint of {@link #validLength}'s: its size in the high 32 bits, or {@code -1}. */
    private static long arrayVarint(byte[] src, int offset, int limit) {
        long value = 0;
        for (int i = 0; i < MAX_VARINT_SIZE; i++) {
            if (offset + i >= limit) {
                return -1;
            }
            int b = src[offset + i];
            value |= (long) (b & 0x7F) << (7 * i);
            if (b >= 0) {
                if ((i > 0 && b == 0) || value > Integer.MAX_VALUE) {
                    return -1;
                }
                return ((long) (i + 1) << 32) | value;
            }
        }
        return -1;
    }

    /**
     * Checks that a well-formed cell starts at {@code offset} and ends at or before {@code limit},
     * and returns its encoded length. Every length is checked against the limits of {@link Cell}
     * and against the bytes available before anything is read through it.
     *
     * @throws MalformedCellException naming the problem and the offset
     */
    public static long validate(MemorySegment src, long offset, long limit) {
        if (offset < 0 || limit > src.byteSize() || offset > limit) {
            throw new IndexOutOfBoundsException("range [" + offset + ", " + limit + ") is outside a "
                    + src.byteSize() + "-byte buffer");
        }
        long keyVarint = readCheckedVarint(src, offset, offset, limit, "key length");
        int keyLength = (int) keyVarint;
        long at = offset + (keyVarint >>> 32);
        long valueVarint = readCheckedVarint(src, offset, at, limit, "value length");
        int valueLength = (int) valueVarint;
        at += valueVarint >>> 32;
        if (keyLength < MIN_KEY_LENGTH) {
            throw new MalformedCellException(offset, "key length " + keyLength + " is below the minimum "
                    + MIN_KEY_LENGTH);
        }
        if (keyLength > MAX_KEY_LENGTH) {
            throw new MalformedCellException(offset, "key length " + keyLength + " exceeds the maximum "
                    + MAX_KEY_LENGTH);
        }
        if (valueLength > Cell.MAX_VALUE_LENGTH) {
            throw new MalformedCellException(offset, "value length " + valueLength + " exceeds the maximum "
                    + Cell.MAX_VALUE_LENGTH);
        }
        long end = at + keyLength + valueLength;
        if (end > limit) {
            throw new MalformedCellException(offset, "truncated: the cell needs " + (end - offset)
                    + " bytes but only " + (limit - offset) + " remain");
        }
        validateKey(src, offset, at, keyLength);
        return end - offset;
    }

    /**
     * Checks the key of the cell that starts at {@code offset}, whose key of {@code keyLength}
     * bytes starts at {@code keyOffset} and lies inside {@code src} (the caller knows its lengths:
     * it read or wrote them): row, family and qualifier lengths, timestamp and type.
     *
     * @return the row length in the high 32 bits and the family length in the low 32
     * @throws MalformedCellException when the key is not well formed
     */
    public static long validateKey(MemorySegment src, long offset, long keyOffset, int keyLength) {
        checkKeyLength(offset, keyLength);
        int rowLength = checkRow(offset, keyLength, rowLength(src, keyOffset));
        int familyLength = checkFamily(offset, keyLength, rowLength,
                familyLength(src, familyLengthOffset(keyOffset, rowLength)));
        checkTail(offset, timestamp(src, timestampOffset(keyOffset, keyLength)),
                src.get(ValueLayout.JAVA_BYTE, typeOffset(keyOffset, keyLength)));
        return ((long) rowLength << 32) | familyLength;
    }

    /**
     * {@link #validateKey(MemorySegment, long, long, int)} of a key in a heap array, read from the
     * array: a cell read from a file is checked this way without making a segment of its array.
     */
    public static long validateKey(byte[] src, int offset, int keyOffset, int keyLength) {
        checkKeyLength(offset, keyLength);
        int rowLength = checkRow(offset, keyLength, Bytes.unsignedShortBE(src, keyOffset));
        int familyLength = checkFamily(offset, keyLength, rowLength,
                Byte.toUnsignedInt(src[(int) familyLengthOffset(keyOffset, rowLength)]));
        checkTail(offset, Bytes.longBE(src, (int) timestampOffset(keyOffset, keyLength)),
                src[(int) typeOffset(keyOffset, keyLength)]);
        return ((long) rowLength << 32) | familyLength;
    }

    private static void checkKeyLength(long offset, int keyLength) {
        if (keyLength < MIN_KEY_LENGTH || keyLength > MAX_KEY_LENGTH) {
            throw new MalformedCellException(offset, "key length " + keyLength + " is outside " + MIN_KEY_LENGTH
                    + ".." + MAX_KEY_LENGTH);
        }
    }

    /** The row length, checked to be valid and to leave room in the key for the family length, timestamp and type. */
    private static int checkRow(long offset, int keyLength, int rowLength) {
        if (rowLength == 0 || rowLength > Cell.MAX_ROW_LENGTH) {
            throw new MalformedCellException(offset, "row length " + rowLength + " is outside 1.."
                    + Cell.MAX_ROW_LENGTH);
        }
        if (ROW_LENGTH_SIZE + rowLength + FAMILY_LENGTH_SIZE + TIMESTAMP_TYPE_SIZE > keyLength) {
            throw new MalformedCellException(offset, "row length " + rowLength + " does not fit in a key of "
                    + keyLength + " bytes");
        }
        return rowLength;
    }

    private static int checkFamily(long offset, int keyLength, int rowLength, int familyLength) {
        int qualifierLength = qualifierLength(keyLength, rowLength, familyLength);
        if (qualifierLength < 0) {
            throw new MalformedCellException(offset, "family length " + familyLength + " does not fit in a key of "
                    + keyLength + " bytes");
        }
        if (qualifierLength > Cell.MAX_QUALIFIER_LENGTH) {
            throw new MalformedCellException(offset, "qualifier length " + qualifierLength + " exceeds the maximum "
                    + Cell.MAX_QUALIFIER_LENGTH);
        }
        return familyLength;
    }

    private static void checkTail(long offset, long timestamp, byte typeCode) {
        if (timestamp < 0) {
            throw new MalformedCellException(offset, "timestamp " + timestamp + " is negative");
        }
        if (CellType.fromCode(typeCode) == null) {
            throw new MalformedCellException(offset, "unknown cell type code " + Byte.toUnsignedInt(typeCode));
        }
    }
}
