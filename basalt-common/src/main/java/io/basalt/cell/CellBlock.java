package io.basalt.cell;

import io.basalt.bytes.Bytes;
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
 *
 * <p>{@link #rowCells} is the lazy form for the cells of one row: the same checks, made the first
 * time a cell of the row is read rather than when the list is made (scan results use it).
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
                throw malformed(bytes, offset, bytes.length, i, count);
            }
            starts[i] = offset;
            keys[i] = keyOffset(bytes, offset);
            offset += length;
        }
        if (offset != bytes.length) {
            throw new MalformedCellException(offset, count + " cells end at byte " + offset + " of a "
                    + bytes.length + "-byte block");
        }
        return new CellBlock(bytes, starts, keys);
    }

    /**
     * Checks the first of the cells laid end to end in {@code bytes[from, to)} and returns a copy
     * of its row: what a reader needs to label a row's cells before it has checked them all.
     *
     * @throws MalformedCellException naming the offset and the problem
     */
    public static byte[] firstRow(byte[] bytes, int from, int to) {
        if (CellLayout.validLength(bytes, from, to) < 0) {
            CellLayout.validate(MemorySegment.ofArray(bytes), from, to); // throws, naming the problem
            throw new IllegalStateException("CellLayout.validLength and validate disagree on the cell at offset " + from);
        }
        int key = keyOffset(bytes, from);
        int rowAt = key + CellLayout.ROW_LENGTH_SIZE;
        return Arrays.copyOfRange(bytes, rowAt, rowAt + rowLengthAt(bytes, key));
    }

    /**
     * The cells of one row, {@code count} of them laid end to end in {@code bytes[from, to)}
     * (which {@code segment} wholly views), as a list that checks them when it is first asked for
     * a cell, not now.
     *
     * <p>The check is {@link #decode}'s, plus that every cell is of the first cell's row, and it
     * runs once, in one pass over the row's bytes, when {@link List#get} is first called. A
     * reader that checks a row just before reading it finds the bytes still in its cache; one
     * that checked a whole 2 MiB batch first would read each row twice from memory. Until then
     * {@link List#size()} is {@code count} as claimed.
     *
     * <p>The list may be handed to other threads: what the check learns is published through a
     * final field, and two threads that race to check both get the same answer.
     *
     * @param source where the bytes came from, for error messages ("a scan batch from host:port")
     * @throws MalformedCellException from {@code get} when the bytes are not {@code count}
     *     well-formed cells of one row that fill the range, naming the cell and the problem
     */
    public static List<Cell> rowCells(MemorySegment segment, byte[] bytes, int from, int to, int count,
            String source) {
        Objects.checkFromToIndex(from, to, bytes.length);
        if (count < 0 || count > (to - from) / (CellLayout.MIN_KEY_LENGTH + 2)) {
            throw new MalformedCellException(from, count + " cells cannot fit in " + (to - from) + " bytes");
        }
        return new RowCells(segment, bytes, from, to, count, source);
    }

    /** Where the key of the (validated) cell at {@code offset} starts: past its two length varints. */
    private static int keyOffset(byte[] bytes, int offset) {
        int valueVarint = offset + varintSize(bytes, offset);
        return valueVarint + varintSize(bytes, valueVarint);
    }

    /** The row length of the key at {@code key} (a big-endian u16). */
    private static int rowLengthAt(byte[] bytes, int key) {
        return ((bytes[key] & 0xFF) << 8) | (bytes[key + 1] & 0xFF);
    }

    /** Bytes of the (validated) varint at {@code at}. */
    private static int varintSize(byte[] bytes, int at) {
        int p = at;
        while (bytes[p] < 0) {
            p++;
        }
        return p + 1 - at;
    }

    /** Why cell {@code i}, at {@code offset} of a block ending at {@code limit}, is malformed: {@link CellLayout#validate} says. */
    private static MalformedCellException malformed(byte[] bytes, int offset, int limit, int i, int count) {
        if (offset >= limit) {
            return new MalformedCellException(offset, "cell " + i + " of " + count + " starts past the block's end at "
                    + limit);
        }
        try {
            CellLayout.validate(MemorySegment.ofArray(bytes), offset, limit);
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
        return rowLengthAt(bytes, keys[i]);
    }

    /** A copy of the row of cell {@code i}. */
    public byte[] rowBytes(int i) {
        int at = rowOffset(i);
        return Arrays.copyOfRange(bytes, at, at + rowLength(i));
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

    /** {@link #rowCells}'s list. */
    private static final class RowCells extends AbstractList<Cell> implements RandomAccess {

        /**
         * What the check learned: per cell, where it starts and its key, value and family
         * lengths ({@value #FIELDS} ints a cell), and the row's length. Final fields, so that
         * publishing this publishes the array.
         */
        private record Checked(int[] cells, int rowLength) {}

        private static final int FIELDS = 4;

        private final MemorySegment segment;
        private final byte[] bytes;
        private final int from;
        private final int to;
        private final int count;
        private final String source;
        /** Null until checked; a racing reader may check again, with the same result. */
        private Checked checked;

        RowCells(MemorySegment segment, byte[] bytes, int from, int to, int count, String source) {
            this.segment = segment;
            this.bytes = bytes;
            this.from = from;
            this.to = to;
            this.count = count;
            this.source = source;
        }

        @Override
        public Cell get(int index) {
            Objects.checkIndex(index, count);
            Checked c = checked;
            if (c == null) {
                c = check();
                checked = c;
            }
            int[] cells = c.cells;
            int at = index * FIELDS;
            int offset = cells[at];
            int keyLength = cells[at + 1];
            int valueLength = cells[at + 2];
            long keyOffset = offset + CellLayout.varintSize(keyLength) + CellLayout.varintSize(valueLength);
            return new EncodedCell(segment, bytes, offset, keyOffset, keyLength, valueLength, c.rowLength,
                    cells[at + 3]);
        }

        @Override
        public int size() {
            return count;
        }

        /**
         * Every cell as {@link CellLayout#validLength} checks it, and of the first cell's row, in
         * one pass that keeps what a view needs; the reason for a failure is asked of
         * {@link CellLayout#validate}, off this path.
         */
        private Checked check() {
            int[] cells = new int[count * FIELDS];
            int offset = from;
            int rowAt = 0;
            int rowLength = 0;
            for (int i = 0; i < count; i++) {
                int length = CellLayout.validLength(bytes, offset, to);
                if (length < 0) {
                    throw context(malformed(bytes, offset, to, i, count));
                }
                int keyLength;
                int valueLength;
                int key;
                // Lengths under 128 take one byte each: the common case, read directly.
                if (bytes[offset] >= 0 && bytes[offset + 1] >= 0) {
                    keyLength = bytes[offset];
                    valueLength = bytes[offset + 1];
                    key = offset + 2;
                } else {
                    keyLength = CellLayout.readTrustedVarint(segment, offset);
                    valueLength = CellLayout.readTrustedVarint(segment, offset + varintSize(bytes, offset));
                    key = keyOffset(bytes, offset);
                }
                int cellRowLength = rowLengthAt(bytes, key);
                int cellRowAt = key + CellLayout.ROW_LENGTH_SIZE;
                if (i == 0) {
                    rowAt = cellRowAt;
                    rowLength = cellRowLength;
                } else if (cellRowLength != rowLength || !sameBytes(bytes, rowAt, bytes, cellRowAt, rowLength)) {
                    throw context(new MalformedCellException(offset, "cell " + i + " of " + count + " is of row "
                            + Bytes.toStringBinary(Arrays.copyOfRange(bytes, cellRowAt, cellRowAt + cellRowLength))
                            + ", the first of row "
                            + Bytes.toStringBinary(Arrays.copyOfRange(bytes, rowAt, rowAt + rowLength))));
                }
                int at = i * FIELDS;
                cells[at] = offset;
                cells[at + 1] = keyLength;
                cells[at + 2] = valueLength;
                cells[at + 3] = bytes[cellRowAt + cellRowLength] & 0xFF;
                offset += length;
            }
            if (offset != to) {
                throw context(new MalformedCellException(offset, count + " cells end at byte " + (offset - from)
                        + " of the row's " + (to - from)));
            }
            return new Checked(cells, rowLength);
        }

        private MalformedCellException context(MalformedCellException e) {
            return new MalformedCellException(e.offset(), "in " + source + ": " + e.problem());
        }
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
