package io.basalt.engine;

import io.basalt.cell.Cell;
import io.basalt.cell.EncodedCell;

/**
 * A sorted source of cells with their sequence numbers: a memtable, an SSTable, or a merge of
 * them. Entries come in cell order; equal cells (same key, different writes) newest sequence first.
 *
 * <p>Not thread-safe. {@link #close()} releases what the iterator pins (SSTable blocks).
 */
interface InternalIterator extends AutoCloseable {

    /** True while the iterator is on an entry. */
    boolean valid();

    /**
     * The current cell, encoded (every source keeps cells in {@link io.basalt.cell.CellLayout}
     * form); stable after the iterator moves on.
     */
    EncodedCell cell();

    /**
     * The segment holding the current entry's encoded key ({@link io.basalt.cell.CellLayout#keyBytes}
     * form) at {@link #keyOffset()}, valid only until the iterator moves. For comparing entries
     * without {@link #cell()}, which an SSTable makes by copying the cell out of its block.
     */
    default java.lang.foreign.MemorySegment keySegment() {
        return cell().segment();
    }

    /**
     * The heap array {@link #keySegment()} views from its start, when it is one (offsets then index
     * it directly), else {@code null}: merges compare such keys on the arrays, which costs less
     * than the segment path where heap and native segments meet.
     */
    default byte[] keyArray() {
        return cell().array();
    }

    /** Where the current entry's key starts in {@link #keySegment()}. */
    default long keyOffset() {
        return cell().keyOffset();
    }

    /** The length of the current entry's key. */
    default int keyLength() {
        return cell().keyLength();
    }

    /**
     * Checks that the current entry's key is a well-formed cell key, as {@link #cell()} does before
     * making the cell; for callers that use the key and value without the cell (compaction). A
     * source whose cells were checked when they came in need do nothing.
     *
     * @throws CorruptFileException when a file's entry is not a valid cell
     */
    default void checkKey() {}

    /** The length of the current entry's value. */
    default int valueLength() {
        return cell().valueLength();
    }

    /** Copies the current entry's value into {@code dst} at {@code offset}, without making the cell where the source can. */
    default void copyValue(byte[] dst, int offset) {
        EncodedCell cell = cell();
        java.lang.foreign.MemorySegment.copy(cell.segment(), java.lang.foreign.ValueLayout.JAVA_BYTE, cell.valueOffset(),
                dst, offset, cell.valueLength());
    }

    /** The sequence number of the write that stored the current cell. */
    long sequence();

    /**
     * Whether the current entry is known to have the same row as the entry {@link #next()} moved
     * from: true only when the source can tell without comparing (an SSTable entry that shares the
     * row with the one before it in its block); false when it cannot tell, or after anything but
     * a {@code next()}. A merge uses it to skip comparing the entries of a row it already knows
     * come before every other source's ({@link MergingIterator#next()}).
     */
    default boolean sameRowAsPrevious() {
        return false;
    }

    void next();

    /** Positions on the first entry at or after {@code key} in cell order. */
    void seek(Cell key);

    /**
     * {@link #seek} to a key after the current entry's key: a merge moves only the sources that
     * are behind it. (A key equal to the current one could bring back newer writes of it already
     * passed.)
     */
    default void seekForward(Cell key) {
        seek(key);
    }

    @Override
    default void close() {}
}
