package io.basalt.engine;

import io.basalt.cell.Cell;
import io.basalt.cell.CellLayout;
import io.basalt.cell.EncodedCell;
import io.basalt.client.Compression;
import io.basalt.client.FamilyDescriptor;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.zip.CRC32C;
import net.jpountz.lz4.LZ4Compressor;
import net.jpountz.lz4.LZ4Factory;

/**
 * Writes one SSTable ({@link SSTableLayout}) from cells given in order. Not thread-safe; one
 * flush or compaction owns a writer. {@link #finish()} forces the file to disk before returning.
 */
final class SSTableWriter implements AutoCloseable {

    /** What a finished file holds, for the manifest. */
    record Info(long entries, long maxSequence, byte[] firstKey, byte[] lastKey, long fileSize) {}

    private static final LZ4Compressor LZ4 = LZ4Factory.safeInstance().fastCompressor();

    private final Path path;
    private final Disk.WritableFile file;
    private final int blockSize;
    private final Compression compression;
    private final BloomFilter bloom;

    /** Bytes waiting to be written, in writes of {@link IoBuffers#BYTES}; null once given back. */
    private ByteBuffer out = IoBuffers.take();

    private final GrowableBytes block = new GrowableBytes(64 * 1024);
    private final GrowableBytes index = new GrowableBytes(4 * 1024);
    private int[] restarts = new int[64];
    private int restartCount;
    private int entriesInBlock;
    private static final ValueLayout.OfLong WORD = ValueLayout.JAVA_LONG_UNALIGNED;

    private byte[] previousKey = new byte[0];
    private MemorySegment previousKeySegment = MemorySegment.ofArray(previousKey);
    private int previousKeyLength;
    private byte[] previousRow;
    // Where the current row began in the block, while it can still move to the next one whole
    // (see moveRowToNextBlock): -1 when it began a block, or too early in one to be worth moving.
    private int rowStartLength = -1;
    private int rowStartRestarts;
    private int rowStartEntries;
    private byte[] keyBeforeRow = new byte[0];
    private int keyBeforeRowLength;

    private long offset;
    private long entries;
    private long maxSequence;
    private byte[] firstKey;
    private boolean finished;

    /** A writer on the local disk. */
    SSTableWriter(Path path, FamilyDescriptor family, long expectedRows) throws IOException {
        this(path, family, expectedRows, LocalDisk.INSTANCE, Disk.Purpose.FLUSH);
    }

    SSTableWriter(Path path, FamilyDescriptor family, long expectedRows, Disk disk, Disk.Purpose purpose)
            throws IOException {
        this.path = path;
        this.file = disk.create(path, purpose);
        this.blockSize = family.blockSize();
        this.compression = family.compression();
        this.bloom = family.bloomFilter() ? BloomFilter.forKeys(Math.max(1, expectedRows)) : null;
    }

    Path path() {
        return path;
    }

    /** Appends a cell; cells must come in cell order, equal keys newest sequence first. */
    void add(Cell cell, long sequence) throws IOException {
        EncodedCell encoded = cell instanceof EncodedCell e ? e : EncodedCell.decode(CellLayout.encode(cell), 0);
        MemorySegment key = encoded.key();
        MemorySegment value = encoded.value();
        int keyLength = (int) key.byteSize();
        boolean newRow = previousRow == null || !encoded.hasRow(previousRow);
        // Cut the block before this entry would take it, with its trailer, past the family's
        // block size (counting the entry as if it shared no prefix): a block as it lies on disk
        // then fits one block-cache chunk, so a miss reads it straight into one.
        long worstEntry = Varints.size(0) + Varints.size(keyLength) + Varints.size(value.byteSize())
                + Varints.size(sequence) + keyLength + value.byteSize();
        if (overflows(worstEntry)) {
            if (!newRow && rowStartLength >= 0) {
                moveRowToNextBlock();
            }
            if (overflows(worstEntry)) { // a new row, or one larger than a block: it spans blocks
                finishDataBlock(!newRow);
            }
        }
        if (newRow) {
            markRowStart();
            MemorySegment row = encoded.row(); // a row's first cell: the others skip the copy
            if (bloom != null) {
                bloom.add(row);
            }
            previousRow = row.toArray(ValueLayout.JAVA_BYTE);
        }
        appendEntry(key, value, sequence);
        if (firstKey == null) {
            firstKey = Arrays.copyOf(previousKey, keyLength);
        }
        entries++;
        maxSequence = Math.max(maxSequence, sequence);
    }

    /** Whether an entry of at most {@code worstEntry} bytes would take a non-empty block past its size. */
    private boolean overflows(long worstEntry) {
        int restartsAfter = restartCount + (entriesInBlock % SSTableLayout.RESTART_INTERVAL == 0 ? 1 : 0);
        return entriesInBlock > 0 && SSTableLayout.contentSize(block.length + worstEntry, restartsAfter)
                > blockSize - SSTableLayout.BLOCK_TRAILER_SIZE;
    }

    /**
     * Remembers the block as it stands before a row's first entry, so that the row can move to the
     * next block whole if it does not fit the rest of this one. Only a row that begins in the
     * second half of a block moves: the block it leaves is then at least half full, so moving
     * never costs more than half a block of cache and disk per row.
     */
    private void markRowStart() {
        if (entriesInBlock == 0 || block.length < blockSize / 2) {
            rowStartLength = -1;
            return;
        }
        rowStartLength = block.length;
        rowStartRestarts = restartCount;
        rowStartEntries = entriesInBlock;
        if (keyBeforeRow.length < previousKeyLength) {
            keyBeforeRow = new byte[Math.max(previousKeyLength, keyBeforeRow.length * 2)];
        }
        System.arraycopy(previousKey, 0, keyBeforeRow, 0, previousKeyLength);
        keyBeforeRowLength = previousKeyLength;
    }

    /**
     * Ends the block before the current row and starts the next one with the row's entries so far.
     *
     * <p>Why: a get reads every block its row touches, and cut at any cell, a row of YCSB's ten
     * 150-byte cells spans two 4 KiB blocks about a third of the time. A row that fits a block now
     * lies in one (as a RocksDB record, one key and value, always does), so a get that misses the
     * cache reads one block, and a small block size costs point reads nothing.
     */
    private void moveRowToNextBlock() throws IOException {
        byte[] moved = Arrays.copyOfRange(block.bytes, rowStartLength, block.length);
        int movedEntries = entriesInBlock - rowStartEntries;
        block.length = rowStartLength;
        restartCount = rowStartRestarts;
        entriesInBlock = rowStartEntries;
        byte[] key = Arrays.copyOf(keyBeforeRow, keyBeforeRowLength + moved.length); // no key is longer
        System.arraycopy(keyBeforeRow, 0, previousKey, 0, keyBeforeRowLength);
        previousKeyLength = keyBeforeRowLength;
        finishDataBlock(false);
        MemorySegment from = MemorySegment.ofArray(moved);
        MemorySegment keySegment = MemorySegment.ofArray(key);
        Varints.Reader in = new Varints.Reader(from, 0, moved.length);
        for (int i = 0; i < movedEntries; i++) { // our own entries, written just now: decoded as written
            int shared = (int) in.readLong();
            int unshared = (int) in.readLong();
            long valueLength = in.readLong();
            long sequence = in.readLong();
            System.arraycopy(moved, (int) in.take(unshared, "key"), key, shared, unshared);
            long valueAt = in.take(valueLength, "value");
            appendEntry(keySegment.asSlice(0, shared + unshared), from.asSlice(valueAt, valueLength), sequence);
        }
    }

    /** Encodes one entry into the block, prefix-compressed against the one before it. */
    private void appendEntry(MemorySegment key, MemorySegment value, long sequence) {
        int keyLength = (int) key.byteSize();
        int shared = 0;
        if (entriesInBlock % SSTableLayout.RESTART_INTERVAL == 0) {
            if (restartCount == restarts.length) {
                restarts = Arrays.copyOf(restarts, restarts.length * 2);
            }
            restarts[restartCount++] = block.length;
        } else {
            // Eight bytes a step, then byte by byte: keys share their row, 20-30 bytes in YCSB.
            int max = Math.min(keyLength, previousKeyLength);
            while (shared + Long.BYTES <= max
                    && previousKeySegment.get(WORD, shared) == key.get(WORD, shared)) {
                shared += Long.BYTES;
            }
            while (shared < max && previousKey[shared] == key.get(ValueLayout.JAVA_BYTE, shared)) {
                shared++;
            }
        }
        int unshared = keyLength - shared;
        block.varint(shared);
        block.varint(unshared);
        block.varint(value.byteSize());
        block.varint(sequence);
        block.segment(key, shared, unshared);
        block.segment(value, 0, value.byteSize());
        entriesInBlock++;

        if (previousKey.length < keyLength) {
            previousKey = new byte[Math.max(keyLength, previousKey.length * 2)];
            previousKeySegment = MemorySegment.ofArray(previousKey);
        }
        MemorySegment.copy(key, ValueLayout.JAVA_BYTE, 0, previousKey, 0, keyLength);
        previousKeyLength = keyLength;
    }

    /** Writes the block and its index entry; {@code rowContinues}: the next block starts with the same row. */
    private void finishDataBlock(boolean rowContinues) throws IOException {
        if (entriesInBlock == 0) {
            return;
        }
        for (int i = 0; i < restartCount; i++) {
            block.u32(restarts[i]);
        }
        block.u32(restartCount);
        long at = offset;
        int size = writeBlock(block.bytes, block.length, compression == Compression.LZ4);
        index.varint(previousKeyLength);
        index.bytes(previousKey, 0, previousKeyLength);
        index.varint(at);
        index.varint(size);
        index.varint(rowContinues ? SSTableLayout.ROW_CONTINUES : 0);
        block.length = 0;
        restartCount = 0;
        entriesInBlock = 0;
        rowStartLength = -1; // the row goes on at the next block's start: nothing to move
    }

    /** Writes a block with its trailer; returns its on-disk size. */
    private int writeBlock(byte[] content, int length, boolean lz4) throws IOException {
        byte[] payload = content;
        int payloadLength = length;
        byte type = SSTableLayout.COMPRESSION_NONE;
        if (lz4) {
            byte[] compressed = new byte[LZ4.maxCompressedLength(length)];
            int n = LZ4.compress(content, 0, length, compressed, 0, compressed.length);
            if (n < length) {
                payload = compressed;
                payloadLength = n;
                type = SSTableLayout.COMPRESSION_LZ4;
            }
        }
        byte[] trailer = new byte[SSTableLayout.BLOCK_TRAILER_SIZE];
        MemorySegment t = MemorySegment.ofArray(trailer);
        t.set(ValueLayout.JAVA_BYTE, 0, type);
        t.set(RecordLogLayout.U32, 1, length);
        CRC32C crc = new CRC32C();
        crc.update(payload, 0, payloadLength);
        crc.update(trailer, 0, 5);
        t.set(RecordLogLayout.U32, 5, (int) crc.getValue());
        write(payload, payloadLength);
        write(trailer, trailer.length);
        return payloadLength + trailer.length;
    }

    private void write(byte[] bytes, int length) throws IOException {
        for (int at = 0; at < length; ) {
            if (!out.hasRemaining()) {
                drain();
            }
            int n = Math.min(out.remaining(), length - at);
            out.put(bytes, at, n);
            at += n;
        }
        offset += length;
    }

    /** Writes out what {@link #out} holds. */
    private void drain() throws IOException {
        out.flip();
        try {
            file.write(out);
        } finally {
            out.clear();
        }
    }

    /** Gives {@link #out} back for another writer; once. */
    private void releaseBuffer() {
        IoBuffers.give(out);
        out = null;
    }

    /** Writes the meta, bloom and index blocks and the footer, and forces the file. */
    Info finish() throws IOException {
        finishDataBlock(false);
        byte[] lastKey = Arrays.copyOf(previousKey, previousKeyLength);
        byte[] first = firstKey == null ? new byte[0] : firstKey;

        GrowableBytes meta = new GrowableBytes(64 + first.length + lastKey.length);
        meta.u64(entries);
        meta.u64(maxSequence);
        meta.varint(first.length);
        meta.bytes(first, 0, first.length);
        meta.varint(lastKey.length);
        meta.bytes(lastKey, 0, lastKey.length);
        long metaOffset = offset;
        int metaSize = writeBlock(meta.bytes, meta.length, false);

        long bloomOffset = offset;
        int bloomSize = 0;
        if (bloom != null) {
            GrowableBytes bloomBlock = new GrowableBytes(1 + bloom.bits().length);
            bloomBlock.bytes(new byte[] {(byte) bloom.probes()}, 0, 1);
            bloomBlock.bytes(bloom.bits(), 0, bloom.bits().length);
            bloomSize = writeBlock(bloomBlock.bytes, bloomBlock.length, false);
        }

        long indexOffset = offset;
        int indexSize = writeBlock(index.bytes, index.length, false);

        byte[] footer = new byte[SSTableLayout.FOOTER_SIZE];
        MemorySegment f = MemorySegment.ofArray(footer);
        f.set(RecordLogLayout.U64, SSTableLayout.FOOTER_INDEX_OFFSET, indexOffset);
        f.set(RecordLogLayout.U32, SSTableLayout.FOOTER_INDEX_SIZE, indexSize);
        f.set(RecordLogLayout.U64, SSTableLayout.FOOTER_BLOOM_OFFSET, bloomOffset);
        f.set(RecordLogLayout.U32, SSTableLayout.FOOTER_BLOOM_SIZE, bloomSize);
        f.set(RecordLogLayout.U64, SSTableLayout.FOOTER_META_OFFSET, metaOffset);
        f.set(RecordLogLayout.U32, SSTableLayout.FOOTER_META_SIZE, metaSize);
        f.set(RecordLogLayout.U32, SSTableLayout.FOOTER_VERSION, SSTableLayout.VERSION);
        f.set(RecordLogLayout.U32, SSTableLayout.FOOTER_CRC, RecordLogLayout.crc(f, 0, SSTableLayout.FOOTER_CRC_COVERS));
        f.set(RecordLogLayout.U64, SSTableLayout.FOOTER_MAGIC, SSTableLayout.MAGIC);
        write(footer, footer.length);
        drain();
        file.force();
        file.close();
        finished = true;
        releaseBuffer();
        return new Info(entries, maxSequence, first, lastKey, offset);
    }

    /** Abandons an unfinished file: closes and deletes it. */
    @Override
    public void close() throws IOException {
        if (!finished) {
            releaseBuffer();
            try {
                file.close();
            } finally {
                java.nio.file.Files.deleteIfExists(path);
            }
        }
    }
}
