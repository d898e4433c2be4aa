package io.basalt.engine;

import io.basalt.bytes.Bytes;
import io.basalt.cell.Cell;
import io.basalt.cell.CellComparator;
import io.basalt.cell.CellLayout;
import io.basalt.cell.EncodedCell;
import io.basalt.cell.MalformedCellException;
import java.lang.foreign.MemorySegment;
import java.util.Arrays;

/**
 * Walks one SSTable in order, a data block at a time, decoding the prefix-compressed entries of
 * {@link SSTableLayout}. Decodes from a heap copy of the current block ({@link #data}), taken
 * when it opens the block, and pins no cached block between calls.
 *
 * <p>Why a copy: decoding entries in place in the cache's pooled memory cost two small segment
 * copies per cell (the key's suffix, then the value), each with its liveness and bounds checks;
 * in a profile of 50-row scans ({@code WideScanBenchmark}) those copies were a fifth of the
 * time. One bulk copy of the block, then plain array reads, costs less even for a point read
 * that decodes a tenth of it.
 */
final class SSTableIterator implements InternalIterator {

    private static final java.lang.invoke.VarHandle INT =
            java.lang.invoke.MethodHandles.byteArrayViewVarHandle(int[].class, java.nio.ByteOrder.BIG_ENDIAN);
    private static final java.lang.invoke.VarHandle LONG =
            java.lang.invoke.MethodHandles.byteArrayViewVarHandle(long[].class, java.nio.ByteOrder.BIG_ENDIAN);

    private final SSTableReader file;
    /** Where blocks the cache does not hold are read, leaving the cache alone; null to read through the cache. */
    private final SSTableReader.Scratch uncached;
    private int blockIndex = -1;
    /** The current block's content (a heap block's own array, else {@link #copy}); null when none is open. */
    private byte[] data;
    /** The iterator's own array that pooled and borrowed blocks are copied into, grown as needed. */
    private byte[] copy;
    private int entriesEnd;
    private int restartCount;

    private int next;             // offset of the entry after the current one
    private byte[] key = new byte[64];
    private MemorySegment keySegment = MemorySegment.ofArray(key);
    private int keyLength;
    /**
     * Bytes the current key took from the key decoded before it (its shared prefix): they are
     * that key's bytes by construction, so it shares at least this much with it, whatever wrote
     * the file. A block's first entry, a restart point, shares none.
     */
    private int sharedWithPrevious;
    private int valueOffset;
    private int valueLength;
    private long sequence;
    private boolean valid;
    private EncodedCell cell;     // materialized lazily

    private boolean positioned;
    /** Reads one row: see {@link SSTableReader#newRowIterator}. */
    private final boolean oneRow;

    /**
     * An iterator that positions itself on the first entry when first asked, so that one created
     * only to {@link #seek} (every get) never reads the file's first block.
     */
    SSTableIterator(SSTableReader file) {
        this(file, (SSTableReader.Scratch) null);
    }

    /**
     * Like {@link #SSTableIterator(SSTableReader)}, but blocks the cache does not hold are read
     * into {@code uncached} and not cached (see {@link SSTableReader#dataBlockUncached}); null
     * reads through the cache.
     */
    SSTableIterator(SSTableReader file, SSTableReader.Scratch uncached) {
        this(file, uncached, false);
    }

    /** {@code oneRow}: ends where its row ends a block ({@link SSTableReader#newRowIterator}). */
    SSTableIterator(SSTableReader file, SSTableReader.Scratch uncached, boolean oneRow) {
        this.file = file;
        this.uncached = uncached;
        this.oneRow = oneRow;
    }

    /** An iterator positioned at the first entry of block {@code first}. */
    SSTableIterator(SSTableReader file, int first) {
        this(file, null, false);
        positionAt(first);
    }

    private void positionAt(int first) {
        positioned = true;
        if (first < file.blockCount()) {
            openBlock(first);
            keyLength = 0;
            parseAt(0);
        } else {
            valid = false;
        }
    }

    private void ensurePositioned() {
        if (!positioned) {
            positionAt(0);
        }
    }

    private void openBlock(int i) {
        releaseBlock();
        blockIndex = i;
        Block block = uncached == null ? file.dataBlock(i) : file.dataBlockUncached(i, uncached);
        int size;
        try {
            size = block.size();
            if (block instanceof Block.Heap heap) {
                data = heap.content(); // the reader's alone: nothing else holds or changes it
            } else {
                if (copy == null || copy.length < size) {
                    copy = BlockArrays.take(size, copy);
                }
                block.copyTo(0, copy, 0, size);
                data = copy;
            }
        } finally {
            block.release();
        }
        if (size < SSTableLayout.RESTART_COUNT_SIZE) {
            throw damage("block of " + size + " bytes has no restart array");
        }
        restartCount = (int) INT.get(data, size - SSTableLayout.RESTART_COUNT_SIZE);
        if (restartCount <= 0 || 4L * restartCount + SSTableLayout.RESTART_COUNT_SIZE > size) {
            throw damage("restart count " + restartCount + " does not fit a block of " + size + " bytes");
        }
        entriesEnd = (int) SSTableLayout.restartsOffset(size, restartCount);
    }

    private CorruptFileException damage(String problem) {
        return new CorruptFileException(file.path(), 0, "data block " + blockIndex + ": " + problem);
    }

    /** Reads a varint at {@link #cursor} within the entries, checking it stays in bounds. */
    private long varint(String what) {
        long value = 0;
        for (int shift = 0; shift < 64; shift += 7) {
            if (cursor >= entriesEnd) {
                throw damage(what + " runs past the entries at " + cursor);
            }
            byte b = data[cursor++];
            value |= (long) (b & 0x7F) << shift;
            if (b >= 0) {
                return value;
            }
        }
        throw damage(what + " varint longer than 10 bytes before " + cursor);
    }

    private int varint(String what, long max) {
        long value = varint(what);
        if (value < 0 || value > max) {
            throw damage(what + " " + value + " is outside 0.." + max);
        }
        return (int) value;
    }

    private int cursor;

    /** Where the next varint starts in {@link #window}; past 8 when one ran off its end. */
    private int windowAt;

    /**
     * The varint at {@link #windowAt} of the eight bytes {@code window} (big-endian: the first
     * byte in the top bits); sets {@link #windowAt} past 8 when the varint does not end inside.
     */
    private long windowVarint(long window) {
        long value = 0;
        for (int shift = 0; windowAt < Long.BYTES; shift += 7) {
            int b = (int) (window >>> (56 - 8 * windowAt)) & 0xFF;
            windowAt++;
            value |= (long) (b & 0x7F) << shift;
            if (b < 0x80) {
                return value;
            }
        }
        windowAt = Long.BYTES + 1;
        return 0;
    }

    /** Decodes the entry at {@code offset} of the current block, building on the current key. */
    private void parseAt(int offset) {
        if (offset >= entriesEnd) {
            valid = false;
            return;
        }
        int shared;
        int unshared;
        // The four varints of an entry's header usually fit in eight bytes: one read of the block
        // instead of one (checked) read per byte, which profiles of gets showed as a quarter of
        // a seek. Entries whose header is longer, or that end the block, take the byte path.
        long window = offset + Long.BYTES <= entriesEnd ? (long) LONG.get(data, offset) : 0;
        windowAt = offset + Long.BYTES <= entriesEnd ? 0 : Long.BYTES + 1;
        long sharedValue = windowVarint(window);
        long unsharedValue = windowVarint(window);
        long valueLengthValue = windowVarint(window);
        long sequenceValue = windowVarint(window);
        if (windowAt <= Long.BYTES && sharedValue <= keyLength && unsharedValue <= 1 << 20
                && valueLengthValue <= Integer.MAX_VALUE && sequenceValue >= 0) {
            shared = (int) sharedValue;
            unshared = (int) unsharedValue;
            valueLength = (int) valueLengthValue;
            sequence = sequenceValue;
            cursor = offset + windowAt;
        } else {
            cursor = offset;
            shared = varint("shared key prefix", keyLength);
            unshared = varint("key suffix length", 1 << 20);
            valueLength = varint("value length", Integer.MAX_VALUE);
            sequence = varint("sequence");
        }
        int suffixAt = cursor;
        if (unshared > entriesEnd - cursor || valueLength > entriesEnd - cursor - unshared) {
            throw damage("entry at " + offset + " runs past the entries (key suffix " + unshared + ", value "
                    + valueLength + ", " + (entriesEnd - cursor) + " bytes left)");
        }
        valueOffset = suffixAt + unshared;
        int length = shared + unshared;
        if (key.length < length) {
            key = Arrays.copyOf(key, Math.max(length, key.length * 2));
            keySegment = MemorySegment.ofArray(key);
        }
        System.arraycopy(data, suffixAt, key, shared, unshared);
        keyLength = length;
        sharedWithPrevious = shared;
        next = valueOffset + valueLength;
        valid = true;
        cell = null;
    }

    @Override
    public boolean valid() {
        ensurePositioned();
        return valid;
    }

    @Override
    public EncodedCell cell() {
        ensurePositioned();
        if (cell == null) {
            int header = Varints.size(keyLength) + Varints.size(valueLength);
            byte[] bytes = new byte[header + keyLength + valueLength];
            int at = Varints.write(bytes, 0, keyLength);
            at += Varints.write(bytes, at, valueLength);
            System.arraycopy(key, 0, bytes, at, keyLength);
            System.arraycopy(data, valueOffset, bytes, at + keyLength, valueLength);
            try {
                cell = EncodedCell.ofWritten(bytes, at, keyLength, valueLength);
            } catch (MalformedCellException e) {
                throw damage("entry is not a valid cell: " + e.getMessage());
            }
        }
        return cell;
    }

    /** The key as decoded, without making the cell: merges compare entries they may never return. */
    @Override
    public MemorySegment keySegment() {
        ensurePositioned();
        return keySegment;
    }

    @Override
    public byte[] keyArray() {
        ensurePositioned();
        return key;
    }

    @Override
    public long keyOffset() {
        return 0;
    }

    @Override
    public int keyLength() {
        ensurePositioned();
        return keyLength;
    }

    @Override
    public long sequence() {
        ensurePositioned();
        return sequence;
    }

    @Override
    public void checkKey() {
        ensurePositioned();
        try {
            CellLayout.validateKey(key, 0, 0, keyLength);
        } catch (MalformedCellException e) {
            throw damage("entry is not a valid cell: " + e.getMessage());
        }
    }

    @Override
    public int valueLength() {
        ensurePositioned();
        return valueLength;
    }

    @Override
    public void copyValue(byte[] dst, int offset) {
        ensurePositioned();
        System.arraycopy(data, valueOffset, dst, offset, valueLength);
    }

    @Override
    public void next() {
        ensurePositioned();
        if (!valid) {
            return;
        }
        if (next < entriesEnd) {
            parseAt(next);
            return;
        }
        if (blockIndex + 1 < file.blockCount() && (!oneRow || file.rowContinuesAfter(blockIndex))) {
            openBlock(blockIndex + 1);
            keyLength = 0;
            parseAt(0);
        } else {
            valid = false;
            releaseBlock();
        }
    }

    /**
     * True when the entry shares its row-length field and row with the entry decoded before it,
     * which after {@link #next()} is the entry it moved from.
     */
    @Override
    public boolean sameRowAsPrevious() {
        return valid && sharedWithPrevious >= CellLayout.ROW_LENGTH_SIZE + Bytes.unsignedShortBE(key, 0);
    }

    /** Compares the current entry's key with an encoded key, in place. */
    private int compareCurrent(MemorySegment target) {
        return CellComparator.compareKeys(keySegment, 0, keyLength, target, 0, (int) target.byteSize());
    }

    @Override
    public void seek(Cell cell) {
        positioned = true;
        MemorySegment target = SeekKey.encodedKey(cell);
        int b = file.blockFor(target);
        if (b >= file.blockCount()) {
            valid = false;
            releaseBlock();
            return;
        }
        if (b != blockIndex || data == null) {
            openBlock(b);
        }
        // Binary search the restarts for the last one whose key is below the target.
        int lo = 0;
        int hi = restartCount - 1;
        while (lo < hi) {
            int mid = (lo + hi + 1) >>> 1;
            keyLength = 0;
            parseAt(restart(mid));
            if (compareCurrent(target) < 0) {
                lo = mid;
            } else {
                hi = mid - 1;
            }
        }
        keyLength = 0;
        parseAt(restart(lo));
        while (valid && compareCurrent(target) < 0) {
            next();
        }
    }

    /** Entries {@link #seekForward} steps over before it searches the index instead. */
    static final int STEPS_BEFORE_SEEK = 4;

    /**
     * Steps to {@code cell} when it is a few entries ahead, else {@link #seek}s.
     *
     * <p>Why: a get that has read a column's newest version moves every source past the rest of
     * the column; in a file that is usually the next entry or two (flushes and compactions keep
     * few versions), while a seek searches the whole index and then the block's restarts. The
     * profile of a read-only YCSB run after updates had a third of its time in those seeks.
     */
    @Override
    public void seekForward(Cell cell) {
        if (!positioned || !valid || data == null) {
            seek(cell);
            return;
        }
        MemorySegment target = SeekKey.encodedKey(cell);
        for (int i = 0; i < STEPS_BEFORE_SEEK; i++) {
            if (compareCurrent(target) >= 0) {
                return;
            }
            next();
            if (!valid) {
                return;
            }
        }
        if (compareCurrent(target) < 0) {
            seek(cell);
        }
    }

    private int restart(int i) {
        int offset = (int) INT.get(data, (int) SSTableLayout.restartOffset(entriesEnd, i));
        if (offset < 0 || offset >= entriesEnd) {
            throw damage("restart " + i + " points at " + offset + ", outside the entries");
        }
        return offset;
    }

    private void releaseBlock() {
        data = null;
    }

    @Override
    public void close() {
        valid = false;
        releaseBlock();
        if (copy != null) {
            BlockArrays.give(copy);
            copy = null;
        }
        if (uncached != null && uncached.readAhead) {
            uncached.release(); // the read-ahead buffer the last block was copied from
        }
    }

    /**
     * Arrays for blocks' copies that closed iterators gave back, a few per thread: a get makes an
     * iterator per file it reads, and a fresh array each time would be a block's worth of
     * garbage per file per get. Eight: a scan holds one per file of its region at once, and a
     * region holds its compaction trigger's four files and more while a compaction runs; with
     * four kept, such a scan made and zeroed an array per file past the fourth (a 50-row scan
     * over six files ran 11% faster with eight kept, {@code WideScanBenchmark}).
     */
    static final class BlockArrays {
        private static final int KEPT = 8;
        private static final int MIN_BYTES = 16 * 1024;
        /** The largest array a thread keeps: a family's blocks are usually 8 KiB, and at most a few MiB. */
        static final int MAX_KEPT_BYTES = 4 << 20;
        private static final ThreadLocal<byte[][]> SPARES = ThreadLocal.withInitial(() -> new byte[KEPT][]);

        private BlockArrays() {
        }

        /**
         * An array of at least {@code size} bytes: a spare of this thread's, or a new one; {@code old}
         * is given back. A virtual thread keeps no spares (there may be a great many of them, each
         * short-lived), nor does any thread keep an array of more than {@link #MAX_KEPT_BYTES}.
         */
        static byte[] take(int size, byte[] old) {
            if (old != null) {
                give(old);
            }
            if (!Thread.currentThread().isVirtual()) {
                byte[][] spares = SPARES.get();
                for (int i = 0; i < KEPT; i++) {
                    byte[] spare = spares[i];
                    if (spare != null && spare.length >= size) {
                        spares[i] = null;
                        return spare;
                    }
                }
            }
            return new byte[size > MAX_KEPT_BYTES ? size : Math.max(MIN_BYTES, Integer.highestOneBit(Math.max(1, size - 1)) << 1)];
        }

        /** Keeps {@code array} for this thread's next iterator when there is room; nothing may use it after. */
        static void give(byte[] array) {
            if (array.length > MAX_KEPT_BYTES || Thread.currentThread().isVirtual()) {
                return;
            }
            byte[][] spares = SPARES.get();
            for (int i = 0; i < KEPT; i++) {
                if (spares[i] == null) {
                    spares[i] = array;
                    return;
                }
            }
        }
    }
}
