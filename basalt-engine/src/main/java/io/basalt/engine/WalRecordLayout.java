package io.basalt.engine;

import io.basalt.cell.Cell;
import io.basalt.cell.CellLayout;
import io.basalt.cell.EncodedCell;
import io.basalt.cell.MalformedCellException;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The payload of one write-ahead log record: one row mutation of one table, inside the framing of
 * {@link RecordLogLayout} (which supplies length and crc32c). Segment files start with the
 * {@link RecordLogLayout} header with magic {@link #MAGIC}.
 *
 * <pre>
 *  +--------------+-------------+-----------------+-------------------------------------+
 *  | sequence u64 | tableId u32 | cellCount u32   | cells, back to back, in CellLayout  |
 *  +--------------+-------------+-----------------+-------------------------------------+
 * </pre>
 *
 * The sequence number orders every write of the store; cells carry their final timestamps (the
 * store's clock is applied before logging), so replay reproduces exactly what was acknowledged.
 */
final class WalRecordLayout {

    /** "BWAL". */
    static final int MAGIC = 0x4257414C;

    static final int SEQUENCE_OFFSET = 0;
    static final int TABLE_OFFSET = 8;
    static final int COUNT_OFFSET = 12;
    static final int CELLS_OFFSET = 16;

    private WalRecordLayout() {}

    /** Payload bytes for a record of these cells. */
    static int payloadSize(List<? extends Cell> cells) {
        long size = CELLS_OFFSET;
        for (Cell cell : cells) {
            size += CellLayout.encodedLength(cell);
        }
        if (size > RecordLogLayout.MAX_RECORD_LENGTH) {
            throw new IllegalArgumentException("mutation of " + size + " bytes exceeds the log's record limit of "
                    + RecordLogLayout.MAX_RECORD_LENGTH + " bytes");
        }
        return (int) size;
    }

    /** Writes the payload at {@code offset}; {@code out} must have {@link #payloadSize} bytes there. */
    static void write(long sequence, int tableId, List<? extends Cell> cells, MemorySegment out, long offset) {
        out.set(RecordLogLayout.U64, offset + SEQUENCE_OFFSET, sequence);
        out.set(RecordLogLayout.U32, offset + TABLE_OFFSET, tableId);
        out.set(RecordLogLayout.U32, offset + COUNT_OFFSET, cells.size());
        long at = offset + CELLS_OFFSET;
        for (Cell cell : cells) {
            at += CellLayout.write(cell, out, at);
        }
    }

    /** One decoded record; its cells are copies, independent of the file's memory. */
    record Entry(long sequence, int tableId, List<Cell> cells) {}

    /**
     * Decodes a payload whose checksum already passed.
     *
     * @throws CorruptFileException when the payload's structure is wrong anyway (a bug or a
     *     collision), naming the file and the record's offset
     */
    static Entry read(MemorySegment payload, Path file, long recordOffset) {
        if (payload.byteSize() < CELLS_OFFSET) {
            throw new CorruptFileException(file, recordOffset, "log record of " + payload.byteSize()
                    + " bytes is shorter than its " + CELLS_OFFSET + "-byte header");
        }
        long sequence = payload.get(RecordLogLayout.U64, SEQUENCE_OFFSET);
        int tableId = payload.get(RecordLogLayout.U32, TABLE_OFFSET);
        int count = payload.get(RecordLogLayout.U32, COUNT_OFFSET);
        if (count < 0 || count > payload.byteSize()) {
            throw new CorruptFileException(file, recordOffset, "log record claims " + count + " cells");
        }
        List<Cell> cells = new ArrayList<>(count);
        long at = CELLS_OFFSET;
        try {
            for (int i = 0; i < count; i++) {
                long length = CellLayout.validate(payload, at, payload.byteSize());
                byte[] copy = payload.asSlice(at, length).toArray(java.lang.foreign.ValueLayout.JAVA_BYTE);
                cells.add(EncodedCell.decode(copy, 0));
                at += length;
            }
        } catch (MalformedCellException e) {
            throw new CorruptFileException(file, recordOffset, "log record cell: " + e.getMessage());
        }
        if (at != payload.byteSize()) {
            throw new CorruptFileException(file, recordOffset, (payload.byteSize() - at)
                    + " bytes follow the last cell of a log record");
        }
        return new Entry(sequence, tableId, cells);
    }
}
