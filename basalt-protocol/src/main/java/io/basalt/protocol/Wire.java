package io.basalt.protocol;

import io.basalt.cell.Cell;
import io.basalt.cell.CellBlock;
import io.basalt.cell.CellLayout;
import io.basalt.cell.EncodedCell;
import io.basalt.cell.MalformedCellException;
import io.netty.buffer.ByteBuf;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.function.IntPredicate;

/**
 * The primitives frame bodies are made of. Writers append at the writer index; readers consume
 * from the reader index and check every length against the bytes that are there before reading
 * through it, so a forged length is a {@link MalformedFrameException}, never an allocation.
 *
 * <ul>
 *   <li>varint: unsigned LEB128, at most 5 bytes for an int and 10 for a long;</li>
 *   <li>bytes: a varint length, then the bytes;</li>
 *   <li>string: bytes holding UTF-8;</li>
 *   <li>cell block: a varint count, a varint byte length, then that many bytes holding exactly
 *       {@code count} cells in {@link CellLayout}'s encoding.</li>
 * </ul>
 */
public final class Wire {

    private Wire() {}

    public static void writeVarint(ByteBuf buf, int value) {
        writeVarlong(buf, value & 0xFFFFFFFFL);
    }

    public static void writeVarlong(ByteBuf buf, long value) {
        long v = value;
        while ((v & ~0x7FL) != 0) {
            buf.writeByte((int) ((v & 0x7F) | 0x80));
            v >>>= 7;
        }
        buf.writeByte((int) v);
    }

    /** Reads a varint that must fit a non-negative int. */
    public static int readVarint(ByteBuf buf, String what) {
        return readVarint(buf, what, "");
    }

    /**
     * {@link #readVarint(ByteBuf, String)} for a field named {@code what + part}. The two are
     * joined only for an error message: the requests' hot paths build no strings.
     */
    private static int readVarint(ByteBuf buf, String what, String part) {
        long value = readVarlong(buf, what, part);
        if (value < 0 || value > Integer.MAX_VALUE) {
            throw new MalformedFrameException(what + part + " is " + Long.toUnsignedString(value) + ", beyond "
                    + Integer.MAX_VALUE);
        }
        return (int) value;
    }

    public static long readVarlong(ByteBuf buf, String what) {
        return readVarlong(buf, what, "");
    }

    private static long readVarlong(ByteBuf buf, String what, String part) {
        long value = 0;
        for (int shift = 0; shift < 70; shift += 7) {
            if (!buf.isReadable()) {
                throw new MalformedFrameException(what + part + ": body ends inside a varint");
            }
            int b = buf.readByte();
            if (shift == 63 && (b & 0xFE) != 0) {
                throw new MalformedFrameException(what + part + ": varint overflows 64 bits");
            }
            value |= (long) (b & 0x7F) << shift;
            if ((b & 0x80) == 0) {
                return value;
            }
        }
        throw new MalformedFrameException(what + part + ": varint longer than 10 bytes");
    }

    public static void writeBytes(ByteBuf buf, byte[] bytes) {
        writeVarint(buf, bytes.length);
        buf.writeBytes(bytes);
    }

    public static byte[] readBytes(ByteBuf buf, String what) {
        int length = readVarint(buf, what, " length");
        need(buf, length, what);
        byte[] out = new byte[length];
        buf.readBytes(out);
        return out;
    }

    public static void writeString(ByteBuf buf, String s) {
        writeBytes(buf, s.getBytes(StandardCharsets.UTF_8));
    }

    public static String readString(ByteBuf buf, String what) {
        return new String(readBytes(buf, what), StandardCharsets.UTF_8);
    }

    public static void writeBoolean(ByteBuf buf, boolean value) {
        buf.writeByte(value ? 1 : 0);
    }

    public static boolean readBoolean(ByteBuf buf, String what) {
        need(buf, 1, what);
        int b = buf.readByte();
        if (b != 0 && b != 1) {
            throw new MalformedFrameException(what + " is " + b + ", not a boolean (0 or 1)");
        }
        return b == 1;
    }

    public static long readLong(ByteBuf buf, String what) {
        need(buf, 8, what);
        return buf.readLong();
    }

    public static int readUnsignedByte(ByteBuf buf, String what) {
        need(buf, 1, what);
        return buf.readUnsignedByte();
    }

    /** Bytes of a padded varint: one that can hold any int, written before its value is known. */
    public static final int PADDED_VARINT_SIZE = 5;

    /** Writes {@code cells} as one cell block. */
    public static void writeCells(ByteBuf buf, List<? extends Cell> cells) {
        writeCellBlock(buf, cells.size(), List.of(cells));
    }

    /** Bytes {@code cells} take in a cell block. */
    public static long encodedLength(List<? extends Cell> cells) {
        long total = 0;
        for (int i = 0, n = cells.size(); i < n; i++) {
            total += CellLayout.encodedLength(cells.get(i));
        }
        return total;
    }

    /**
     * Writes one cell block of {@code count} cells, made of {@code parts} in order (the cells of
     * several results, say), in one pass over the cells: the block's length goes in a
     * {@link #PADDED_VARINT_SIZE}-byte varint that is filled in at the end.
     *
     * <p>Cells are gathered in a heap array and copied into the buffer {@value #GATHER_SIZE}
     * bytes at a time. A cell already encoded in a heap array (as the store hands them out) is
     * moved with a plain array copy; any other is encoded into the array. Writing each cell
     * into the buffer through its own memory segment or {@code ByteBuf} call costs, in bounds,
     * liveness and session checks, about as much as moving a small cell, so gathering halves
     * the work for 40-byte cells. A cell larger than the gathering array is encoded straight
     * into the buffer.
     *
     * @throws IllegalArgumentException when the block is too large for a frame, or a cell breaks
     *     a limit of {@link Cell}
     * @throws IllegalStateException when the parts do not hold {@code count} cells
     */
    public static void writeCellBlock(ByteBuf buf, int count, List<? extends List<? extends Cell>> parts) {
        writeVarint(buf, count);
        int lengthAt = buf.writerIndex();
        buf.writeZero(PADDED_VARINT_SIZE);
        int start = buf.writerIndex();
        Gather gather = new Gather(buf, start);
        long cells = 0;
        for (int p = 0, n = parts.size(); p < n; p++) {
            List<? extends Cell> part = parts.get(p);
            for (int i = 0, m = part.size(); i < m; i++) {
                gather.add(part.get(i));
            }
            cells += part.size();
        }
        gather.flush();
        if (cells != count) {
            throw new IllegalStateException("a cell block announced " + count + " cells and holds " + cells);
        }
        setPaddedVarint(buf, lengthAt, buf.writerIndex() - start);
    }

    /** The rows {@link #writeRows} writes: each a run of cells of one row, and whether more of it follows. */
    public interface Rows {
        int count();

        List<? extends Cell> cells(int row);

        boolean partial(int row);

        /** Rows made of {@code rows}, row {@code i} partial when {@code partial} says so. */
        static Rows of(List<? extends List<? extends Cell>> rows, IntPredicate partial) {
            return new Rows() {
                @Override
                public int count() {
                    return rows.size();
                }

                @Override
                public List<? extends Cell> cells(int row) {
                    return rows.get(row);
                }

                @Override
                public boolean partial(int row) {
                    return partial.test(row);
                }
            };
        }
    }

    /**
     * Writes rows as a row section, each row's cells after a header that says how many bytes they
     * take, so that a reader finds every row without reading its cells:
     *
     * <pre>
     * rows    := count:varint  length:varint(padded)  row{count}           length = bytes of the rows
     * row     := cells:varint  partial:u8  bytes:varint(padded)  cell{cells}   bytes = bytes of the cells
     * </pre>
     *
     * Cells and headers are gathered as {@link #writeCellBlock} gathers cells, in one pass over
     * the cells: each row's byte length is a {@link #PADDED_VARINT_SIZE}-byte varint filled in
     * after its cells.
     *
     * @throws IllegalArgumentException when the rows are too large for a frame, or a cell breaks
     *     a limit of {@link Cell}
     */
    public static void writeRows(ByteBuf buf, Rows rows) {
        int count = rows.count();
        writeVarint(buf, count);
        int lengthAt = buf.writerIndex();
        buf.writeZero(PADDED_VARINT_SIZE);
        int start = buf.writerIndex();
        Gather gather = new Gather(buf, start);
        for (int r = 0; r < count; r++) {
            List<? extends Cell> cells = rows.cells(r);
            int lengthField = gather.header(cells.size(), rows.partial(r));
            for (int i = 0, n = cells.size(); i < n; i++) {
                gather.add(cells.get(i));
            }
            gather.patchLength(lengthField);
        }
        gather.flush();
        setPaddedVarint(buf, lengthAt, buf.writerIndex() - start);
    }

    /**
     * A row section as it came off the wire: the rows' count read, their bytes in an array
     * ({@code bytes[from, to)}), nothing else checked yet.
     */
    public record RowSection(int count, byte[] bytes, int from, int to) {}

    /**
     * Reads the count and length of a row section ({@link #writeRows}), unchecked. When the frame
     * is held in an array of its own ({@link OwnedHeapBuffer}: large frames, such as scan
     * batches) the section is that array's part, not copied; otherwise its bytes are copied out.
     */
    public static RowSection readRows(ByteBuf buf, String what) {
        int count = readVarint(buf, what, " count");
        int length = readVarint(buf, what, " length");
        need(buf, length, what);
        // A row takes at least three bytes of header, so a forged count cannot size a list.
        if (count > length / 3) {
            throw new MalformedFrameException(count + " " + what + " cannot fit in " + length + " bytes");
        }
        if (buf.hasArray() && OwnedHeapBuffer.owns(buf)) {
            int from = buf.arrayOffset() + buf.readerIndex();
            buf.skipBytes(length);
            return new RowSection(count, buf.array(), from, from + length);
        }
        byte[] bytes = new byte[length];
        buf.readBytes(bytes);
        return new RowSection(count, bytes, 0, length);
    }

    /** Most bytes {@link #writeCellBlock} gathers in a heap array before copying them into the buffer. */
    static final int GATHER_SIZE = 64 * 1024;

    /** The heap array {@link #writeCellBlock} gathers encoded cells in. */
    private static final class Gather {
        private final ByteBuf buf;
        private final int start;
        private byte[] bytes;
        private MemorySegment segment;
        private int size;

        Gather(ByteBuf buf, int start) {
            this.buf = buf;
            this.start = start;
        }

        void add(Cell cell) {
            long length = CellLayout.encodedLength(cell);
            if ((long) buf.writerIndex() - start + size + length > Integer.MAX_VALUE - 16) {
                throw new IllegalArgumentException("cell block of over " + (buf.writerIndex() - start + size + length)
                        + " bytes is too large for one frame");
            }
            if (length > GATHER_SIZE) {
                flush();
                buf.ensureWritable((int) length);
                int at = buf.writerIndex();
                CellLayout.write(cell, MemorySegment.ofBuffer(buf.nioBuffer(at, (int) length)), 0);
                buf.writerIndex(at + (int) length);
                return;
            }
            int n = (int) length;
            makeRoom(n);
            if (cell instanceof EncodedCell e && e.array() != null) {
                System.arraycopy(e.array(), (int) e.offset(), bytes, size, n);
            } else {
                CellLayout.write(cell, segment, size);
            }
            size += n;
        }

        /** Where the next gathered byte goes in the buffer. */
        private long position() {
            return (long) buf.writerIndex() + size;
        }

        /**
         * Gathers a row header: cell count, partial flag, and room for the cells' byte length,
         * which {@link #patchLength} fills in. Returns where that room is in the buffer.
         */
        int header(int cells, boolean partial) {
            makeRoom(CellLayout.MAX_VARINT_SIZE + 1 + PADDED_VARINT_SIZE);
            size += CellLayout.writeVarint(segment, size, cells);
            bytes[size++] = (byte) (partial ? 1 : 0);
            int at = (int) position();
            size += PADDED_VARINT_SIZE;
            return at;
        }

        /**
         * Fills in the length field at {@code at} with the bytes gathered since it, as a padded
         * varint. {@link #header} reserved the field whole in the gathering array and a flush
         * moves everything gathered, so it is either all still in the array or all in the buffer.
         */
        void patchLength(int at) {
            long length = position() - (at + PADDED_VARINT_SIZE);
            if (length > Integer.MAX_VALUE - 16) {
                throw new IllegalArgumentException("a row of " + length + " bytes is too large for one frame");
            }
            int value = (int) length;
            int flushed = buf.writerIndex();
            if (at < flushed) {
                setPaddedVarint(buf, at, value);
                return;
            }
            for (int i = 0; i < PADDED_VARINT_SIZE; i++) {
                bytes[at - flushed + i] = (byte) paddedVarintByte(value, i);
            }
        }

        /**
         * Room for {@code n} more bytes ({@code n} at most {@link #GATHER_SIZE}): what is gathered
         * goes to the buffer first when the array, grown to its largest, could not also hold them.
         */
        private void makeRoom(int n) {
            if (size + n > GATHER_SIZE) {
                flush();
            }
            if (bytes == null || size + n > bytes.length) {
                grow(size + n);
            }
        }

        /** A bigger array, keeping what it holds: at least {@code needed}, doubling, at most the maximum. */
        private void grow(int needed) {
            int capacity = (int) Math.min(GATHER_SIZE, Math.max(needed, bytes == null ? 256 : 2L * bytes.length));
            byte[] bigger = new byte[capacity];
            if (bytes != null) {
                System.arraycopy(bytes, 0, bigger, 0, size);
            }
            bytes = bigger;
            segment = MemorySegment.ofArray(bigger);
        }

        void flush() {
            if (size > 0) {
                buf.writeBytes(bytes, 0, size);
                size = 0;
            }
        }
    }

    /** Writes {@code value} (non-negative) at {@code index} as a varint of exactly {@link #PADDED_VARINT_SIZE} bytes. */
    static void setPaddedVarint(ByteBuf buf, int index, int value) {
        for (int i = 0; i < PADDED_VARINT_SIZE; i++) {
            buf.setByte(index + i, paddedVarintByte(value, i));
        }
    }

    /** Byte {@code i} of {@code value} (non-negative) as a {@link #PADDED_VARINT_SIZE}-byte varint. */
    private static int paddedVarintByte(int value, int i) {
        int group = (value >>> (7 * i)) & 0x7F;
        return i < PADDED_VARINT_SIZE - 1 ? group | 0x80 : group;
    }

    /**
     * Reads one cell block: its bytes are copied once into one array, validated in one pass, and
     * the cells are views over that array.
     */
    public static List<Cell> readCells(ByteBuf buf, String what) {
        CellBlock block = readCellBlock(buf, what);
        List<Cell> cells = new ArrayList<>(block.count());
        for (int i = 0, n = block.count(); i < n; i++) {
            cells.add(block.cell(i));
        }
        return cells;
    }

    /** Reads one cell block, copied once into one array and validated in one pass. */
    public static CellBlock readCellBlock(ByteBuf buf, String what) {
        int count = readVarint(buf, what, " cell count");
        return decodeCellBlock(readCellBlockBytes(buf, count, what), count, what);
    }

    /**
     * Reads the length of a block of {@code count} cells (its count read already) and copies its
     * bytes out, unchecked: {@link CellBlock#decode} validates them.
     */
    public static byte[] readCellBlockBytes(ByteBuf buf, int count, String what) {
        int length = readVarint(buf, what, " cell block length");
        need(buf, length, what, " cell block");
        // Each cell takes at least MIN_KEY_LENGTH + 2 bytes, so a forged count cannot size a list.
        if (count > length / (CellLayout.MIN_KEY_LENGTH + 2)) {
            throw new MalformedFrameException(what + ": " + count + " cells cannot fit in " + length + " bytes");
        }
        byte[] block = new byte[length];
        buf.readBytes(block);
        return block;
    }

    /**
     * Validates {@code bytes} as a block of {@code count} cells ({@link CellBlock#decode}).
     *
     * @throws MalformedFrameException naming {@code what} and the cell that is wrong
     */
    public static CellBlock decodeCellBlock(byte[] bytes, int count, String what) {
        try {
            return CellBlock.decode(bytes, count);
        } catch (MalformedCellException e) {
            throw new MalformedFrameException(what + ": " + e.getMessage(), e);
        }
    }

    /** Fails unless {@code bytes} more are readable. */
    public static void need(ByteBuf buf, int bytes, String what) {
        need(buf, bytes, what, "");
    }

    /** {@link #need(ByteBuf, int, String)} for a field named {@code what + part}, joined only on failure. */
    private static void need(ByteBuf buf, int bytes, String what, String part) {
        if (bytes < 0 || buf.readableBytes() < bytes) {
            throw new MalformedFrameException(what + part + " needs " + bytes + " bytes but the body has "
                    + buf.readableBytes() + " left");
        }
    }

    /** Fails when the body has bytes left over after its last field. */
    public static void end(ByteBuf buf, String what) {
        end(buf, what, "");
    }

    /** {@link #end(ByteBuf, String)} for a body named {@code what + part}, joined only on failure. */
    public static void end(ByteBuf buf, String what, String part) {
        if (buf.isReadable()) {
            throw new MalformedFrameException(what + part + ": " + buf.readableBytes()
                    + " unexpected bytes after the body");
        }
    }
}
