package io.basalt.engine;

import io.basalt.cell.Cell;
import io.basalt.cell.CellComparator;
import io.basalt.cell.EncodedCell;
import io.basalt.cell.MalformedCellException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Arrays;

/**
 * Walks one SSTable in order, a data block at a time, decoding the prefix-compressed entries of
 * {@link SSTableLayout}. Holds at most one pinned block, released when it moves on or closes.
 */
final class SSTableIterator implements InternalIterator {

    private final SSTableReader file;
    private int blockIndex = -1;
    private Block block;
    private MemorySegment content;
    private long entriesEnd;
    private int restartCount;

    private long next;            // offset of the entry after the current one
    private byte[] key = new byte[64];
    private int keyLength;
    private long valueOffset;
    private int valueLength;
    private long sequence;
    private boolean valid;
    private EncodedCell cell;     // materialized lazily

    private boolean positioned;

    /**
     * An iterator that positions itself on the first entry when first asked, so that one created
     * only to {@link #seek} (every get) never reads the file's first block.
     */
    SSTableIterator(SSTableReader file) {
        this.file = file;
    }

    /** An iterator positioned at the first entry of block {@code first}. */
    SSTableIterator(SSTableReader file, int first) {
        this.file = file;
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
        block = file.dataBlock(i);
        content = block.content();
        try {
            if (content.byteSize() < SSTableLayout.RESTART_COUNT_SIZE) {
                throw new Varints.Damage("block of " + content.byteSize() + " bytes has no restart array");
            }
            restartCount = SSTableLayout.restartCount(content);
            if (restartCount <= 0 || 4L * restartCount + SSTableLayout.RESTART_COUNT_SIZE > content.byteSize()) {
                throw new Varints.Damage("restart count " + restartCount + " does not fit a block of "
                        + content.byteSize() + " bytes");
            }
            entriesEnd = SSTableLayout.restartsOffset(content.byteSize(), restartCount);
        } catch (Varints.Damage e) {
            throw damage(e.getMessage());
        }
    }

    private CorruptFileException damage(String problem) {
        return new CorruptFileException(file.path(), 0, "data block " + blockIndex + ": " + problem);
    }

    /** Decodes the entry at {@code offset} of the current block, building on the current key. */
    private void parseAt(long offset) {
        if (offset >= entriesEnd) {
            valid = false;
            return;
        }
        try {
            Varints.Reader r = new Varints.Reader(content, offset, entriesEnd);
            int shared = r.readInt(keyLength, "shared key prefix");
            int unshared = r.readInt(1 << 20, "key suffix length");
            valueLength = r.readInt(Integer.MAX_VALUE, "value length");
            sequence = r.readLong();
            long suffixAt = r.take(unshared, "key suffix");
            valueOffset = r.take(valueLength, "value");
            int length = shared + unshared;
            if (key.length < length) {
                key = Arrays.copyOf(key, Math.max(length, key.length * 2));
            }
            MemorySegment.copy(content, ValueLayout.JAVA_BYTE, suffixAt, key, shared, unshared);
            keyLength = length;
            next = r.position;
            valid = true;
            cell = null;
        } catch (Varints.Damage e) {
            throw damage(e.getMessage() + " in the entry at " + offset);
        }
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
            MemorySegment.copy(content, ValueLayout.JAVA_BYTE, valueOffset, bytes, at + keyLength, valueLength);
            try {
                cell = EncodedCell.decode(bytes, 0);
            } catch (MalformedCellException e) {
                throw damage("entry is not a valid cell: " + e.getMessage());
            }
        }
        return cell;
    }

    @Override
    public long sequence() {
        ensurePositioned();
        return sequence;
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
        if (blockIndex + 1 < file.blockCount()) {
            openBlock(blockIndex + 1);
            keyLength = 0;
            parseAt(0);
        } else {
            valid = false;
            releaseBlock();
        }
    }

    /** Compares the current entry's key with an encoded key, in place. */
    private int compareCurrent(MemorySegment target) {
        return CellComparator.compareKeys(MemorySegment.ofArray(key), 0, keyLength, target, 0, (int) target.byteSize());
    }

    @Override
    public void seek(Cell cell) {
        positioned = true;
        MemorySegment target = MemorySegment.ofArray(io.basalt.cell.CellLayout.keyBytes(cell));
        int b = file.blockFor(target);
        if (b >= file.blockCount()) {
            valid = false;
            releaseBlock();
            return;
        }
        if (b != blockIndex || block == null) {
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

    private long restart(int i) {
        int offset = SSTableLayout.restart(content, restartCount, i);
        if (offset < 0 || offset >= entriesEnd) {
            throw damage("restart " + i + " points at " + offset + ", outside the entries");
        }
        return offset;
    }

    private void releaseBlock() {
        if (block != null) {
            block.release();
            block = null;
            content = null;
        }
    }

    @Override
    public void close() {
        valid = false;
        releaseBlock();
    }
}
