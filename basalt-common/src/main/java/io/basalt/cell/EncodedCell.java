package io.basalt.cell;

import io.basalt.bytes.Bytes;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * A cell read in place from its {@link CellLayout} encoding, in a heap array or any memory
 * segment: construction validates and remembers where each component is; accessors slice, they
 * never copy.
 *
 * <p>The view is only as stable as the memory under it: if the bytes change or the segment is
 * released, the view reads whatever is there (or fails on a closed segment).
 */
public final class EncodedCell extends AbstractCell {

    /**
     * What the view reads; for a cell read from a file ({@link #ofWritten}), made from
     * {@link #array} only when first asked ({@link #segment()}). Every hot accessor reads the array
     * directly, and {@code MemorySegment.ofArray} costs two objects (the segment and its heap
     * session): with one cell view per cell a scan or get returns, those were a quarter of what a
     * read allocated per cell. Racy on purpose: two threads may each make an equal segment, and
     * one whose write another sees is seen whole (a segment's fields are final).
     */
    private MemorySegment segment;
    /** The array {@link #segment} wholly views, when it was made from one; else {@code null}. */
    private final byte[] array;
    private final long offset;
    private final long keyOffset;
    private final int keyLength;
    private final int valueLength;
    private final int rowLength;
    private final int familyLength;

    private EncodedCell(MemorySegment segment, byte[] array, long offset, long keyOffset, int keyLength,
            int valueLength) {
        this(segment, array, offset, keyOffset, keyLength, valueLength, CellLayout.rowLength(segment, keyOffset));
    }

    private EncodedCell(MemorySegment segment, byte[] array, long offset, long keyOffset, int keyLength,
            int valueLength, int rowLength) {
        this(segment, array, offset, keyOffset, keyLength, valueLength, rowLength,
                CellLayout.familyLength(segment, CellLayout.familyLengthOffset(keyOffset, rowLength)));
    }

    /** A view whose every length is known already (read by {@link CellBlock}'s check): no reads. */
    EncodedCell(MemorySegment segment, byte[] array, long offset, long keyOffset, int keyLength, int valueLength,
            int rowLength, int familyLength) {
        this.segment = segment;
        this.array = array;
        this.offset = offset;
        this.keyOffset = keyOffset;
        this.keyLength = keyLength;
        this.valueLength = valueLength;
        this.rowLength = rowLength;
        this.familyLength = familyLength;
    }

    /**
     * Reads the cell that starts at {@code offset} and must end by {@code limit}.
     *
     * @throws MalformedCellException when the bytes are not a well-formed cell
     */
    public static EncodedCell decode(MemorySegment segment, long offset, long limit) {
        CellLayout.validate(segment, offset, limit);
        return trusted(segment, null, offset);
    }

    /**
     * A view of a cell that was validated already (by {@link CellBlock}): the lengths are read,
     * not checked.
     */
    static EncodedCell trusted(MemorySegment segment, byte[] array, long offset) {
        int keyLength = CellLayout.readTrustedVarint(segment, offset);
        int keyVarintSize = CellLayout.varintSize(keyLength);
        int valueLength = CellLayout.readTrustedVarint(segment, offset + keyVarintSize);
        long keyOffset = offset + keyVarintSize + CellLayout.varintSize(valueLength);
        return new EncodedCell(segment, array, offset, keyOffset, keyLength, valueLength);
    }

    /**
     * The cell encoded from the start of {@code bytes}, whose two length varints the caller has
     * just written ({@code keyLength} and {@code valueLength}, the key from {@code keyOffset}):
     * only the key's layout is checked, as {@link #decode(byte[], int)} would, without reading
     * back the lengths. A file's reader builds every cell it hands out this way.
     *
     * @throws MalformedCellException when the key is not well formed
     * @throws IndexOutOfBoundsException when the lengths do not fit {@code bytes}
     */
    public static EncodedCell ofWritten(byte[] bytes, int keyOffset, int keyLength, int valueLength) {
        if ((long) keyOffset + keyLength + valueLength > bytes.length || keyOffset < 0 || valueLength < 0) {
            throw new IndexOutOfBoundsException("a cell of " + keyLength + " + " + valueLength + " bytes from "
                    + keyOffset + " does not fit " + bytes.length + " bytes");
        }
        if (valueLength > Cell.MAX_VALUE_LENGTH) {
            throw new MalformedCellException(0, "value length " + valueLength + " exceeds the maximum "
                    + Cell.MAX_VALUE_LENGTH);
        }
        long lengths = CellLayout.validateKey(bytes, 0, keyOffset, keyLength);
        return new EncodedCell(null, bytes, 0, keyOffset, keyLength, valueLength, (int) (lengths >>> 32),
                (int) lengths);
    }

    /**
     * A view of the cell at {@code offset} of {@code bytes}, an array of cells the caller encoded
     * itself ({@link CellLayout#write}) and never writes again: the lengths are read, not checked,
     * and the segment is made only if asked for. For caches that keep a row's cells as one array
     * and hand out views of it; a cell from anywhere else goes through {@link #decode(byte[], int)}.
     */
    public static EncodedCell ofEncoded(byte[] bytes, int offset) {
        int keyLength = CellLayout.readTrustedVarint(bytes, offset);
        int keyVarintSize = CellLayout.varintSize(keyLength);
        int valueLength = CellLayout.readTrustedVarint(bytes, offset + keyVarintSize);
        int keyOffset = offset + keyVarintSize + CellLayout.varintSize(valueLength);
        int rowLength = Bytes.unsignedShortBE(bytes, keyOffset);
        int familyLength = Byte.toUnsignedInt(bytes[(int) CellLayout.familyLengthOffset(keyOffset, rowLength)]);
        return new EncodedCell(null, bytes, offset, keyOffset, keyLength, valueLength, rowLength, familyLength);
    }

    /** Reads the cell at {@code offset}, which may use the rest of the segment. */
    public static EncodedCell decode(MemorySegment segment, long offset) {
        return decode(segment, offset, segment.byteSize());
    }

    /** Reads the cell at {@code offset} of a heap array, which may use the rest of the array. */
    public static EncodedCell decode(byte[] bytes, int offset) {
        return decode(bytes, offset, bytes.length);
    }

    /** Reads the cell at {@code offset} of a heap array, which must end by {@code limit}. */
    public static EncodedCell decode(byte[] bytes, int offset, int limit) {
        MemorySegment segment = MemorySegment.ofArray(bytes);
        CellLayout.validate(segment, offset, limit);
        return trusted(segment, bytes, offset);
    }

    /**
     * {@link #decode(byte[], int, int)} for callers that decode many cells of one array and hold
     * {@code whole}, a segment made by {@code MemorySegment.ofArray(bytes)}: the cells share it
     * instead of each making its own.
     *
     * @throws IllegalArgumentException when {@code whole} is not the size of {@code bytes}
     */
    public static EncodedCell decode(MemorySegment whole, byte[] bytes, int offset, int limit) {
        if (whole.byteSize() != bytes.length || whole.isNative()) {
            throw new IllegalArgumentException("the segment does not view the whole array");
        }
        CellLayout.validate(whole, offset, limit);
        return trusted(whole, bytes, offset);
    }

    /** The segment this view reads. */
    public MemorySegment segment() {
        MemorySegment made = segment;
        if (made == null) { // a view made from an array alone (a file's reader, the row cache): read-only
            made = MemorySegment.ofArray(array).asReadOnly();
            segment = made;
        }
        return made;
    }

    /**
     * The heap array {@link #segment()} views from its start, when the cell was read from one
     * (offsets then index it directly); {@code null} otherwise. Do not write to it.
     */
    public byte[] array() {
        return array;
    }

    /** Where the encoding starts in {@link #segment()}. */
    public long offset() {
        return offset;
    }

    /** Bytes of the whole encoding, from {@link #offset()}. */
    public long encodedLength() {
        return keyOffset - offset + keyLength + valueLength;
    }

    /** Where the key starts in {@link #segment()}. */
    public long keyOffset() {
        return keyOffset;
    }

    /**
     * The encoded key, {@code rowLen .. type} as {@link CellLayout} lays it out: what sorted
     * files store and compare. A view, not a copy.
     */
    public MemorySegment key() {
        return segment().asSlice(keyOffset, keyLength);
    }

    /** Bytes of the key. */
    public int keyLength() {
        return keyLength;
    }

    /** Bytes of the row. */
    public int rowLength() {
        return rowLength;
    }

    /** Where the row starts in {@link #segment()}. */
    public long rowOffset() {
        return CellLayout.rowOffset(keyOffset);
    }

    /** Bytes of the family. */
    public int familyLength() {
        return familyLength;
    }

    /** Where the family starts in {@link #segment()}. */
    public long familyOffset() {
        return CellLayout.familyLengthOffset(keyOffset, rowLength) + CellLayout.FAMILY_LENGTH_SIZE;
    }

    /** Where the qualifier starts in {@link #segment()}. */
    public long qualifierOffset() {
        return familyOffset() + familyLength;
    }

    /** Bytes of the qualifier. */
    public int qualifierLength() {
        return CellLayout.qualifierLength(keyLength, rowLength, familyLength);
    }

    /** Where the value starts in {@link #segment()}. */
    public long valueOffset() {
        return keyOffset + keyLength;
    }

    /** Bytes of the value. */
    public int valueLength() {
        return valueLength;
    }

    private byte[] copy(long offset, int length) {
        if (array != null) {
            return java.util.Arrays.copyOfRange(array, (int) offset, (int) offset + length);
        }
        byte[] out = new byte[length];
        MemorySegment.copy(segment(), ValueLayout.JAVA_BYTE, offset, out, 0, length);
        return out;
    }

    @Override
    public byte[] rowBytes() {
        return copy(rowOffset(), rowLength);
    }

    @Override
    public byte[] familyBytes() {
        return copy(familyOffset(), familyLength);
    }

    @Override
    public byte[] qualifierBytes() {
        return copy(qualifierOffset(), qualifierLength());
    }

    @Override
    public byte[] valueBytes() {
        return copy(valueOffset(), valueLength);
    }

    @Override
    public MemorySegment row() {
        return segment().asSlice(rowOffset(), rowLength);
    }

    @Override
    public MemorySegment family() {
        return segment().asSlice(familyOffset(), familyLength);
    }

    @Override
    public MemorySegment qualifier() {
        return segment().asSlice(qualifierOffset(), qualifierLength());
    }

    @Override
    public long timestamp() {
        long at = CellLayout.timestampOffset(keyOffset, keyLength);
        return array != null ? Bytes.longBE(array, (int) at) : CellLayout.timestamp(segment(), at);
    }

    /*
     * The comparisons below go straight to the arrays when both cells have one (cells read from
     * files and memtables do): the segment path's checks stay in the compiled code wherever heap
     * and native segments meet, and cost more than comparing a short row or qualifier.
     */

    @Override
    public boolean hasRow(byte[] row) {
        if (row.length != rowLength) {
            return false;
        }
        long from = rowOffset();
        if (array != null) {
            return Bytes.equals(array, (int) from, rowLength, row, 0, rowLength);
        }
        return Bytes.equals(segment(), from, rowLength, MemorySegment.ofArray(row), 0, rowLength);
    }

    /** Whether the family is {@code family}. */
    public boolean hasFamily(byte[] family) {
        if (family.length != familyLength) {
            return false;
        }
        long from = familyOffset();
        if (array != null) {
            return Bytes.equals(array, (int) from, familyLength, family, 0, familyLength);
        }
        return Bytes.equals(segment(), from, familyLength, MemorySegment.ofArray(family), 0, familyLength);
    }

    /** Whether {@code other} has the same row. */
    public boolean sameRow(EncodedCell other) {
        return rowLength == other.rowLength && same(rowOffset(), other, other.rowOffset(), rowLength);
    }

    /** Whether {@code other} has the same family. */
    public boolean sameFamily(EncodedCell other) {
        return familyLength == other.familyLength && same(familyOffset(), other, other.familyOffset(), familyLength);
    }

    /** Whether {@code other} has the same qualifier. */
    public boolean sameQualifier(EncodedCell other) {
        int length = qualifierLength();
        return length == other.qualifierLength() && same(qualifierOffset(), other, other.qualifierOffset(), length);
    }

    /** Whether {@code other} is of the same column: row, family and qualifier (the qualifier, which differs most, first). */
    public boolean sameColumn(EncodedCell other) {
        return sameQualifier(other) && sameFamily(other) && sameRow(other);
    }

    private boolean same(long from, EncodedCell other, long otherFrom, int length) {
        if (array != null && other.array != null) {
            return Bytes.equals(array, (int) from, length, other.array, (int) otherFrom, length);
        }
        return Bytes.equals(segment(), from, length, other.segment(), otherFrom, length);
    }

    @Override
    public CellType type() {
        long at = CellLayout.typeOffset(keyOffset, keyLength);
        return CellType.fromCode(array != null ? array[(int) at] : segment().get(ValueLayout.JAVA_BYTE, at));
    }

    @Override
    public MemorySegment value() {
        return segment().asSlice(keyOffset + keyLength, valueLength);
    }
}
