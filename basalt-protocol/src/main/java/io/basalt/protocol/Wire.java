package io.basalt.protocol;

import io.basalt.cell.Cell;
import io.basalt.cell.CellLayout;
import io.basalt.cell.EncodedCell;
import io.basalt.cell.MalformedCellException;
import io.netty.buffer.ByteBuf;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

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
        long value = readVarlong(buf, what);
        if (value < 0 || value > Integer.MAX_VALUE) {
            throw new MalformedFrameException(what + " is " + Long.toUnsignedString(value) + ", beyond "
                    + Integer.MAX_VALUE);
        }
        return (int) value;
    }

    public static long readVarlong(ByteBuf buf, String what) {
        long value = 0;
        for (int shift = 0; shift < 70; shift += 7) {
            if (!buf.isReadable()) {
                throw new MalformedFrameException(what + ": body ends inside a varint");
            }
            int b = buf.readByte();
            if (shift == 63 && (b & 0xFE) != 0) {
                throw new MalformedFrameException(what + ": varint overflows 64 bits");
            }
            value |= (long) (b & 0x7F) << shift;
            if ((b & 0x80) == 0) {
                return value;
            }
        }
        throw new MalformedFrameException(what + ": varint longer than 10 bytes");
    }

    public static void writeBytes(ByteBuf buf, byte[] bytes) {
        writeVarint(buf, bytes.length);
        buf.writeBytes(bytes);
    }

    public static byte[] readBytes(ByteBuf buf, String what) {
        int length = readVarint(buf, what + " length");
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

    /** Writes {@code cells} as one cell block. */
    public static void writeCells(ByteBuf buf, List<? extends Cell> cells) {
        writeVarint(buf, cells.size());
        long total = 0;
        for (Cell cell : cells) {
            total += CellLayout.encodedLength(cell);
        }
        if (total > Integer.MAX_VALUE - 16) {
            throw new IllegalArgumentException("cell block of " + total + " bytes is too large for one frame");
        }
        int length = (int) total;
        writeVarint(buf, length);
        buf.ensureWritable(length);
        int at = buf.writerIndex();
        MemorySegment dst = MemorySegment.ofBuffer(buf.nioBuffer(at, length));
        long offset = 0;
        for (Cell cell : cells) {
            offset += CellLayout.write(cell, dst, offset);
        }
        buf.writerIndex(at + length);
    }

    /**
     * Reads one cell block: its bytes are copied once into one array, and the cells are views
     * over that array, each validated.
     */
    public static List<Cell> readCells(ByteBuf buf, String what) {
        int count = readVarint(buf, what + " cell count");
        int length = readVarint(buf, what + " cell block length");
        need(buf, length, what + " cell block");
        // Each cell takes at least MIN_KEY_LENGTH + 2 bytes, so a forged count cannot size a list.
        if (count > length / (CellLayout.MIN_KEY_LENGTH + 2)) {
            throw new MalformedFrameException(what + ": " + count + " cells cannot fit in " + length + " bytes");
        }
        byte[] block = new byte[length];
        buf.readBytes(block);
        MemorySegment segment = MemorySegment.ofArray(block);
        List<Cell> cells = new ArrayList<>(count);
        int offset = 0;
        try {
            for (int i = 0; i < count; i++) {
                EncodedCell cell = EncodedCell.decode(segment, offset, length);
                cells.add(cell);
                offset += (int) cell.encodedLength();
            }
        } catch (MalformedCellException | IndexOutOfBoundsException e) {
            throw new MalformedFrameException(what + ": cell " + cells.size() + " of " + count + " at byte " + offset
                    + " of the block: " + e.getMessage(), e);
        }
        if (offset != length) {
            throw new MalformedFrameException(what + ": " + count + " cells end at byte " + offset + " of a "
                    + length + "-byte block");
        }
        return cells;
    }

    /** Fails unless {@code bytes} more are readable. */
    public static void need(ByteBuf buf, int bytes, String what) {
        if (bytes < 0 || buf.readableBytes() < bytes) {
            throw new MalformedFrameException(what + " needs " + bytes + " bytes but the body has "
                    + buf.readableBytes() + " left");
        }
    }

    /** Fails when the body has bytes left over after its last field. */
    public static void end(ByteBuf buf, String what) {
        if (buf.isReadable()) {
            throw new MalformedFrameException(what + ": " + buf.readableBytes() + " unexpected bytes after the body");
        }
    }
}
