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
    /** The family's bloom bits per row (a filter is written when {@link #rowHashes} is kept). */
    private final int bloomBitsPerKey;
    /**
     * The hash of every row written, for the filter built at {@link #finish()}: sized for the rows
     * the file holds. Sized beforehand it could only guess from the entries expected, and a YCSB
     * row is ten entries, so every filter had ten times the bits per row its family asked for
     * (and ten times the memory, which its probes missed in the CPU caches).
     */
    private long[] rowHashes;
    private int rowCount;

    /** Bytes waiting to be written, in writes of {@link IoBuffers#BYTES}; null once given back. */
    private ByteBuffer out = IoBuffers.take();

    private final GrowableBytes block = new GrowableBytes(64 * 1024);
    private final GrowableBytes index = new GrowableBytes(4 * 1024);
    private int[] restarts = new int[64];
    private int restartCount;
    private int entriesInBlock;

    private byte[] previousKey = new byte[0];
    private int previousKeyLength;
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
        this.bloomBitsPerKey = family.bloomBitsPerKey();
        this.rowHashes = family.bloomFilter() ? new long[(int) Math.min(1 << 16, Math.max(16, expectedRows))] : null;
    }

    Path path() {
        return path;
    }

    /** Appends a cell; cells must come in cell order, equal keys newest sequence first. */
    void add(Cell cell, long sequence) throws IOException {
        EncodedCell encoded = cell instanceof EncodedCell e ? e : EncodedCell.decode(CellLayout.encode(cell), 0);
        byte[] array = encoded.array();
        if (array == null) { // a view of native memory: its encoding copied to the heap once
            encoded = EncodedCell.decode(encoded.segment()
                    .asSlice(encoded.offset(), encoded.encodedLength()).toArray(ValueLayout.JAVA_BYTE), 0);
            array = encoded.array();
        }
        int valueLength = encoded.valueLength();
        int valueAt = place(array, (int) encoded.keyOffset(), encoded.keyLength(), valueLength, sequence);
        System.arraycopy(array, (int) encoded.valueOffset(), block.bytes, valueAt, valueLength);
    }

    /**
     * Appends the entry {@code source} is on, whose key is {@code keyLength} bytes at {@code
     * keyOffset} of {@code key} (the source's {@link InternalIterator#keyArray}, or a copy): the
     * value goes from the source into the block with no cell made in between. Same order rules as
     * {@link #add(Cell, long)}.
     *
     * <p>Why: a compaction used to make each entry a cell (a new array holding key and value, the
     * cell's view of it, slices for its key and value) only to take it apart here; those were
     * two thirds of what the compactor allocated in YCSB's load, and copies it need not make.
     */
    void add(InternalIterator source, byte[] key, int keyOffset, int keyLength) throws IOException {
        int valueLength = source.valueLength();
        int valueAt = place(key, keyOffset, keyLength, valueLength, source.sequence());
        source.copyValue(block.bytes, valueAt);
    }

    /**
     * Appends an entry's header and key to the block (cutting the block first when the entry would
     * overflow it); returns where in {@link #block}'s bytes its {@code valueLength} bytes of value
     * go, reserved and left for the caller to fill.
     */
    private int place(byte[] key, int keyOffset, int keyLength, int valueLength, long sequence) throws IOException {
        int rowEnd = CellLayout.ROW_LENGTH_SIZE + (((key[keyOffset] & 0xFF) << 8) | (key[keyOffset + 1] & 0xFF));
        // The key's first bytes are its row's length and row: the same row as the entry before
        // when they match that entry's.
        boolean newRow = entries == 0 || previousKeyLength < rowEnd
                || !Arrays.equals(previousKey, 0, rowEnd, key, keyOffset, keyOffset + rowEnd);
        // Cut the block before this entry would take it, with its trailer, past the family's
        // block size (counting the entry as if it shared no prefix): a block as it lies on disk
        // then fits one block-cache chunk, so a miss reads it straight into one.
        long worstEntry = Varints.size(0) + Varints.size(keyLength) + Varints.size(valueLength)
                + Varints.size(sequence) + keyLength + valueLength;
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
            if (rowHashes != null) {
                if (rowCount == rowHashes.length) {
                    rowHashes = Arrays.copyOf(rowHashes, rowCount * 2);
                }
                rowHashes[rowCount++] = BloomFilter.hash(key, keyOffset + CellLayout.ROW_LENGTH_SIZE,
                        rowEnd - CellLayout.ROW_LENGTH_SIZE);
            }
        }
        int valueAt = appendEntry(key, keyOffset, keyLength, valueLength, sequence);
        if (firstKey == null) {
            firstKey = Arrays.copyOf(previousKey, keyLength);
        }
        entries++;
        maxSequence = Math.max(maxSequence, sequence);
        return valueAt;
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

    /** The entries {@link #moveRowToNextBlock} moves, and the key it rebuilds them on; reused. */
    private byte[] moving = new byte[0];
    private byte[] movingKey = new byte[0];

    /**
     * Ends the block before the current row and starts the next one with the row's entries so far.
     *
     * <p>Why: a get reads every block its row touches, and cut at any cell, a row of YCSB's ten
     * 150-byte cells spans two 4 KiB blocks about a third of the time. A row that fits a block now
     * lies in one (as a RocksDB record, one key and value, always does), so a get that misses the
     * cache reads one block, and a small block size costs point reads nothing.
     */
    private void moveRowToNextBlock() throws IOException {
        int movedLength = block.length - rowStartLength;
        if (moving.length < movedLength) {
            moving = new byte[Math.max(movedLength, moving.length * 2)];
        }
        System.arraycopy(block.bytes, rowStartLength, moving, 0, movedLength);
        int movedEntries = entriesInBlock - rowStartEntries;
        block.length = rowStartLength;
        restartCount = rowStartRestarts;
        entriesInBlock = rowStartEntries;
        if (movingKey.length < keyBeforeRowLength + movedLength) { // no key is longer
            movingKey = new byte[Math.max(keyBeforeRowLength + movedLength, movingKey.length * 2)];
        }
        System.arraycopy(keyBeforeRow, 0, movingKey, 0, keyBeforeRowLength);
        System.arraycopy(keyBeforeRow, 0, previousKey, 0, keyBeforeRowLength);
        previousKeyLength = keyBeforeRowLength;
        finishDataBlock(false);
        byte[] from = moving;
        byte[] key = movingKey;
        Varints.Reader in = new Varints.Reader(MemorySegment.ofArray(from), 0, movedLength);
        for (int i = 0; i < movedEntries; i++) { // our own entries, written just now: decoded as written
            int shared = (int) in.readLong();
            int unshared = (int) in.readLong();
            int valueLength = (int) in.readLong();
            long sequence = in.readLong();
            System.arraycopy(from, (int) in.take(unshared, "key"), key, shared, unshared);
            int valueFrom = (int) in.take(valueLength, "value");
            int valueAt = appendEntry(key, 0, shared + unshared, valueLength, sequence);
            System.arraycopy(from, valueFrom, block.bytes, valueAt, valueLength);
        }
    }

    /**
     * Encodes one entry's header and key into the block, prefix-compressed against the one before
     * it, and reserves room for its value; returns where the value goes in {@link #block}'s bytes.
     */
    private int appendEntry(byte[] key, int keyOffset, int keyLength, int valueLength, long sequence) {
        int shared = 0;
        if (entriesInBlock % SSTableLayout.RESTART_INTERVAL == 0) {
            if (restartCount == restarts.length) {
                restarts = Arrays.copyOf(restarts, restarts.length * 2);
            }
            restarts[restartCount++] = block.length;
        } else {
            // Keys share their row, 20-30 bytes in YCSB: the mismatch compares them a word or more at a time.
            int max = Math.min(keyLength, previousKeyLength);
            int at = Arrays.mismatch(previousKey, 0, max, key, keyOffset, keyOffset + max);
            shared = at < 0 ? max : at;
        }
        int unshared = keyLength - shared;
        block.varint(shared);
        block.varint(unshared);
        block.varint(valueLength);
        block.varint(sequence);
        block.bytes(key, keyOffset + shared, unshared);
        int valueAt = block.reserve(valueLength);
        entriesInBlock++;

        if (previousKey.length < keyLength) {
            previousKey = new byte[Math.max(keyLength, previousKey.length * 2)];
        }
        System.arraycopy(key, keyOffset, previousKey, 0, keyLength);
        previousKeyLength = keyLength;
        return valueAt;
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
        if (rowHashes != null) {
            BloomFilter bloom = BloomFilter.forKeys(Math.max(1, rowCount), bloomBitsPerKey);
            for (int i = 0; i < rowCount; i++) {
                bloom.addHash(rowHashes[i]);
            }
            rowHashes = null;
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
