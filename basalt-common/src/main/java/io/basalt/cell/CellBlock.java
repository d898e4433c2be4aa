package io.basalt.cell;

import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.AbstractList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.RandomAccess;

/**
 * Cells laid end to end in {@link CellLayout}'s encoding, as a frame or a file block carries
 * them: validated once, in one pass, when the block is made; read in place afterwards.
 *
 * <p>The pass checks every cell exactly as {@link CellLayout#validate} does and remembers where
 * each one starts, and nothing else: no cell object is built until somebody asks for one.
 * {@link #cell(int)} then builds an {@link EncodedCell} view without checking again, and
 * {@link #cells(int, int)} is a list whose elements are such views, built on each
 * {@code get}. A reader that looks at each cell once pays for one small object per cell and
 * never for a list of them; a reader that looks at only some cells pays for those.
 *
 * <p>The block keeps its array; nobody may change it afterwards.
 */
public final class CellBlock {

    private static final VarHandle LONGS = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.nativeOrder());

    private final byte[] bytes;
    private final MemorySegment segment;
    /** Where each cell starts. */
    private final int[] starts;
    /** Where each cell's key starts. */
    private final int[] keys;

    private CellBlock(byte[] bytes, int[] starts, int[] keys) {
        this.bytes = bytes;
        this.segment = MemorySegment.ofArray(bytes);
        this.starts = starts;
        this.keys = keys;
    }

    /**
     * Validates {@code bytes} as exactly {@code count} cells.
     *
     * @throws MalformedCellException naming the cell (by index and offset) and what is wrong with
     *     it, or saying that the cells do not fill the block
     */
    public static CellBlock decode(byte[] bytes, int count) {
        if (count < 0 || count > bytes.length / (CellLayout.MIN_KEY_LENGTH + 2)) {
            throw new MalformedCellException(0, count + " cells cannot fit in a block of " + bytes.length + " bytes");
        }
        int[] starts = new int[count];
        int[] keys = new int[count];
        int offset = 0;
        for (int i = 0; i < count; i++) {
            int length = CellLayout.validLength(bytes, offset, bytes.length);
            if (length < 0) {
                throw malformed(bytes, offset, i, count);
            }
            starts[i] = offset;
            int valueVarint = offset + varintSize(bytes, offset);
            keys[i] = valueVarint + varintSize(bytes, valueVarint);
            offset += length;
        }
        if (offset != bytes.length) {
            throw new MalformedCellException(offset, count + " cells end at byte " + offset + " of a "
                    + bytes.length + "-byte block");
        }
        return new CellBlock(bytes, starts, keys);
    }

    /** Bytes of the (validated) varint at {@code at}. */
    private static int varintSize(byte[] bytes, int at) {
        int p = at;
        while (bytes[p] < 0) {
            p++;
        }
        return p + 1 - at;
    }

    /** Why cell {@code i}, at {@code offset}, is malformed: {@link CellLayout#validate} says. */
    private static MalformedCellException malformed(byte[] bytes, int offset, int i, int count) {
        if (offset >= bytes.length) {
            return new MalformedCellException(offset, "cell " + i + " of " + count + " starts past the block's "
                    + bytes.length + " bytes");
        }
        try {
            CellLayout.validate(MemorySegment.ofArray(bytes), offset, bytes.length);
        } catch (MalformedCellException e) {
            return new MalformedCellException(offset, "cell " + i + " of " + count + ": " + e.problem());
        }
        throw new IllegalStateException("CellLayout.validLength and validate disagree on the cell at offset "
                + offset);
    }

    /** Number of cells. */
    public int count() {
        return starts.length;
    }

    /** Bytes of the block. */
    public int length() {
        return bytes.length;
    }

    /** Cell {@code i}, a view over the block. */
    public EncodedCell cell(int i) {
        return EncodedCell.trusted(segment, bytes, starts[Objects.checkIndex(i, count())]);
    }

    /** Cells {@code from} (inclusive) to {@code to} (exclusive), as views built on each access. */
    public List<Cell> cells(int from, int to) {
        Objects.checkFromToIndex(from, to, count());
        return new View(from, to);
    }

    /** Where the row of cell {@code i} starts. */
    public int rowOffset(int i) {
        return keys[i] + CellLayout.ROW_LENGTH_SIZE;
    }

    /** Bytes of the row of cell {@code i}. */
    public int rowLength(int i) {
        int k = keys[i];
        return ((bytes[k] & 0xFF) << 8) | (bytes[k + 1] & 0xFF);
    }

    /** A copy of the row of cell {@code i}. */
    public byte[] rowBytes(int i) {
        int at = rowOffset(i);
        return Arrays.copyOfRange(bytes, at, at + rowLength(i));
    }

    /**
     * The first cell in {@code [from, to)} whose row differs from that of cell {@code from}, or
     * {@code -1} when they all share it.
     */
    public int firstOtherRow(int from, int to) {
        int rowAt = rowOffset(from);
        int rowLength = rowLength(from);
        for (int i = from + 1; i < to; i++) {
            if (rowLength(i) != rowLength || !sameBytes(bytes, rowAt, bytes, rowOffset(i), rowLength)) {
                return i;
            }
        }
        return -1;
    }

    /** The first cell whose row is not {@code row}, or {@code -1} when every cell's is. */
    public int firstNotOfRow(byte[] row) {
        for (int i = 0, n = count(); i < n; i++) {
            if (rowLength(i) != row.length || !sameBytes(bytes, rowOffset(i), row, 0, row.length)) {
                return i;
            }
        }
        return -1;
    }

    /**
     * Whether {@code length} bytes of {@code a} at {@code aAt} equal those of {@code b} at
     * {@code bAt}. Rows are short: eight bytes at a time beats the intrinsic's set-up below a few
     * dozen bytes.
     */
    private static boolean sameBytes(byte[] a, int aAt, byte[] b, int bAt, int length) {
        if (length > 32) {
            return Arrays.equals(a, aAt, aAt + length, b, bAt, bAt + length);
        }
        int i = 0;
        for (; i + Long.BYTES <= length; i += Long.BYTES) {
            if ((long) LONGS.get(a, aAt + i) != (long) LONGS.get(b, bAt + i)) {
                return false;
            }
        }
        for (; i < length; i++) {
            if (a[aAt + i] != b[bAt + i]) {
                return false;
            }
        }
        return true;
    }

    private final class View extends AbstractList<Cell> implements RandomAccess {

        private final int from;
        private final int size;

        View(int from, int to) {
            this.from = from;
            this.size = to - from;
        }

        @Override
        public Cell get(int index) {
            return EncodedCell.trusted(segment, bytes, starts[from + Objects.checkIndex(index, size)]);
        }

        @Override
        public int size() {
            return size;
        }

        @Override
        public List<Cell> subList(int fromIndex, int toIndex) {
            Objects.checkFromToIndex(fromIndex, toIndex, size);
            return new View(from + fromIndex, from + toIndex);
        }
    }
}
