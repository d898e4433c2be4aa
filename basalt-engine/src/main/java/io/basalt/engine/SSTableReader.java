package io.basalt.engine;

import io.basalt.bytes.Bytes;
import io.basalt.cell.Cell;
import io.basalt.cell.CellComparator;
import io.basalt.cell.EncodedCell;
import io.basalt.cell.MalformedCellException;
import io.basalt.client.spi.MemoryOnlyReads;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.zip.CRC32C;
import net.jpountz.lz4.LZ4Exception;
import net.jpountz.lz4.LZ4Factory;
import net.jpountz.lz4.LZ4SafeDecompressor;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An open SSTable ({@link SSTableLayout}): footer, index, bloom filter and meta checked and held in
 * memory, data blocks read on demand through the store's {@link BlockCache}. Thread-safe; shared by
 * every reader of the file and reference counted so that a file replaced by compaction is deleted
 * only after the last reader lets go.
 */
final class SSTableReader {

    private static final Logger LOG = LoggerFactory.getLogger(SSTableReader.class);
    private static final LZ4SafeDecompressor LZ4 = LZ4Factory.safeInstance().safeDecompressor();

    private final long fileNumber;
    /** This reader's name in the block cache's keys ({@link BlockCache#newFileId}). */
    private final int cacheId = BlockCache.newFileId();
    private final Path path;
    private final Disk.ReadableFile file;
    /** Set by {@link #readChecked} on the first compressed block; see {@link #compressedBlocks()}. */
    private volatile boolean compressedBlocks;
    private final BlockCache cache;
    /** The last key of each data block, encoded ({@link io.basalt.cell.CellLayout#keyBytes}). */
    private final byte[][] lastKeys;
    /** {@link #lastKeys} as segments, for the binary search of {@link #blockFor}. */
    private final MemorySegment[] lastKeySegments;
    /**
     * The first and second eight bytes of each last key's row ({@link Bytes#word}): they decide
     * most steps of {@link #blockFor} without reaching the keys. A get searches the index of every
     * file its bloom filters let through; comparing whole keys behind two pointers was a seventh
     * of a read-only YCSB profile.
     */
    private final long[] lastRowWords;
    private final long[] lastRowWords2;
    private final long[] blockOffsets;
    private final int[] blockSizes;
    /** Per block: its last row goes on into the next block (always, as far as a version 1 file says). */
    private final java.util.BitSet rowContinues;
    private final BloomFilter bloom;
    private final long entries;
    private final long maxSequence;
    private final EncodedCell firstKey;
    private final EncodedCell lastKey;
    private final long fileSize;
    private final AtomicInteger references = new AtomicInteger(1);
    private volatile boolean obsolete;
    /** The regions whose views list the file: one when it is opened for its region. */
    private final java.util.concurrent.atomic.AtomicInteger listings = new java.util.concurrent.atomic.AtomicInteger(1);

    private SSTableReader(long fileNumber, Path path, Disk.ReadableFile file, BlockCache cache) throws IOException {
        this.fileNumber = fileNumber;
        this.path = path;
        this.file = file;
        this.cache = cache;
        this.fileSize = file.size();
        if (fileSize < SSTableLayout.FOOTER_SIZE) {
            throw new CorruptFileException(path, 0, "file of " + fileSize + " bytes is shorter than the "
                    + SSTableLayout.FOOTER_SIZE + "-byte footer");
        }
        long footerAt = fileSize - SSTableLayout.FOOTER_SIZE;
        MemorySegment footer = MemorySegment.ofArray(readFully(footerAt, SSTableLayout.FOOTER_SIZE));
        long magic = footer.get(RecordLogLayout.U64, SSTableLayout.FOOTER_MAGIC);
        if (magic != SSTableLayout.MAGIC) {
            throw new CorruptFileException(path, footerAt + SSTableLayout.FOOTER_MAGIC,
                    String.format("magic 0x%016X is not an SSTable's", magic));
        }
        if (footer.get(RecordLogLayout.U32, SSTableLayout.FOOTER_CRC)
                != RecordLogLayout.crc(footer, 0, SSTableLayout.FOOTER_CRC_COVERS)) {
            throw new CorruptFileException(path, footerAt, "footer checksum mismatch");
        }
        int version = footer.get(RecordLogLayout.U32, SSTableLayout.FOOTER_VERSION);
        if (version < SSTableLayout.OLDEST_READABLE_VERSION || version > SSTableLayout.VERSION) {
            throw new CorruptFileException(path, footerAt + SSTableLayout.FOOTER_VERSION, "format version " + version
                    + " is not supported (this build reads versions " + SSTableLayout.OLDEST_READABLE_VERSION
                    + " to " + SSTableLayout.VERSION + ")");
        }
        long indexOffset = footer.get(RecordLogLayout.U64, SSTableLayout.FOOTER_INDEX_OFFSET);
        int indexSize = footer.get(RecordLogLayout.U32, SSTableLayout.FOOTER_INDEX_SIZE);
        long bloomOffset = footer.get(RecordLogLayout.U64, SSTableLayout.FOOTER_BLOOM_OFFSET);
        int bloomSize = footer.get(RecordLogLayout.U32, SSTableLayout.FOOTER_BLOOM_SIZE);
        long metaOffset = footer.get(RecordLogLayout.U64, SSTableLayout.FOOTER_META_OFFSET);
        int metaSize = footer.get(RecordLogLayout.U32, SSTableLayout.FOOTER_META_SIZE);
        checkRange(indexOffset, indexSize, footerAt, "index block");
        checkRange(metaOffset, metaSize, footerAt, "meta block");
        if (bloomSize != 0) {
            checkRange(bloomOffset, bloomSize, footerAt, "bloom block");
        }

        try {
            MemorySegment meta = MemorySegment.ofArray(readBlock(metaOffset, metaSize));
            Varints.Reader m = new Varints.Reader(meta, 16, meta.byteSize());
            if (meta.byteSize() < 16) {
                throw new Varints.Damage("meta block of " + meta.byteSize() + " bytes is too short");
            }
            this.entries = meta.get(RecordLogLayout.U64, 0);
            this.maxSequence = meta.get(RecordLogLayout.U64, 8);
            this.firstKey = metaKey(meta, m, "first key");
            this.lastKey = metaKey(meta, m, "last key");

            MemorySegment index = MemorySegment.ofArray(readBlock(indexOffset, indexSize));
            Varints.Reader r = new Varints.Reader(index, 0, index.byteSize());
            List<byte[]> keys = new ArrayList<>();
            List<long[]> places = new ArrayList<>();
            java.util.BitSet continues = new java.util.BitSet();
            while (r.hasMore()) {
                int keyLength = r.readInt(1 << 20, "index key length");
                long keyAt = r.take(keyLength, "index key");
                byte[] key = index.asSlice(keyAt, keyLength).toArray(ValueLayout.JAVA_BYTE);
                cellFromKey(MemorySegment.ofArray(key)); // validates the key's structure once
                keys.add(key);
                long offset = r.readLong();
                int size = r.readInt(Integer.MAX_VALUE, "block size");
                checkRange(offset, size, metaOffset, "data block " + keys.size());
                places.add(new long[] {offset, size});
                int flags = version == 1 ? SSTableLayout.ROW_CONTINUES : r.readInt(SSTableLayout.ROW_CONTINUES,
                        "flags of data block " + keys.size());
                continues.set(keys.size() - 1, (flags & SSTableLayout.ROW_CONTINUES) != 0);
            }
            this.rowContinues = continues;
            this.lastKeys = keys.toArray(byte[][]::new);
            this.lastKeySegments = keys.stream().map(MemorySegment::ofArray).toArray(MemorySegment[]::new);
            this.lastRowWords = new long[lastKeys.length];
            this.lastRowWords2 = new long[lastKeys.length];
            for (int i = 0; i < lastKeys.length; i++) {
                lastRowWords[i] = rowWord(lastKeySegments[i], 0);
                lastRowWords2[i] = rowWord(lastKeySegments[i], Long.BYTES);
            }
            this.blockOffsets = places.stream().mapToLong(p -> p[0]).toArray();
            this.blockSizes = places.stream().mapToInt(p -> (int) p[1]).toArray();

            if (bloomSize != 0) {
                byte[] bloomBlock = readBlock(bloomOffset, bloomSize);
                if (bloomBlock.length < 2) {
                    throw new Varints.Damage("bloom block of " + bloomBlock.length + " bytes is too short");
                }
                this.bloom = BloomFilter.of(bloomBlock[0], java.util.Arrays.copyOfRange(bloomBlock, 1, bloomBlock.length));
            } else {
                this.bloom = null;
            }
        } catch (Varints.Damage | MalformedCellException e) {
            throw new CorruptFileException(path, indexOffset, e.getMessage());
        }
    }

    /** Reads a length-prefixed key of the meta block; {@code null} when empty (an empty file). */
    private static EncodedCell metaKey(MemorySegment meta, Varints.Reader m, String what) {
        int length = m.readInt(1 << 20, what + " length");
        long at = m.take(length, what);
        return length == 0 ? null : cellFromKey(meta.asSlice(at, length));
    }

    /** Opens the SSTable at {@code path}, checking its footer, index, meta and bloom blocks. */
    static SSTableReader open(long fileNumber, Path path, BlockCache cache, Disk disk) throws IOException {
        Disk.ReadableFile file = disk.open(path);
        try {
            return new SSTableReader(fileNumber, path, file, cache);
        } catch (IOException | RuntimeException e) {
            file.close();
            throw e;
        }
    }

    /** {@link #open(long, Path, BlockCache, Disk)} on the local disk. */
    static SSTableReader open(long fileNumber, Path path, BlockCache cache) throws IOException {
        return open(fileNumber, path, cache, LocalDisk.INSTANCE);
    }

    private void checkRange(long offset, long size, long end, String what) {
        if (offset < 0 || size < SSTableLayout.BLOCK_TRAILER_SIZE || offset + size > end) {
            throw new CorruptFileException(path, offset, what + " at " + offset + " of " + size
                    + " bytes lies outside the file's data (which ends at " + end + ")");
        }
    }

    /** Builds an encoded cell with this key and an empty value, for comparisons. */
    static EncodedCell cellFromKey(MemorySegment key) {
        int keyLength = (int) key.byteSize();
        byte[] bytes = new byte[Varints.size(keyLength) + 1 + keyLength];
        int at = Varints.write(bytes, 0, keyLength);
        bytes[at++] = 0;
        MemorySegment.copy(key, ValueLayout.JAVA_BYTE, 0, bytes, at, keyLength);
        return EncodedCell.decode(bytes, 0);
    }

    private byte[] readFully(long position, int length) throws IOException {
        ByteBuffer buffer = ByteBuffer.allocate(length);
        try {
            file.read(buffer, position);
        } catch (java.io.EOFException e) {
            throw new CorruptFileException(path, position, "file ends inside a block");
        }
        return buffer.array();
    }

    /**
     * A block's content: the first {@code length} bytes of {@code bytes} (an uncompressed block is
     * read with its trailer, and handed on in the array it was read into rather than copied).
     */
    record BlockBytes(byte[] bytes, int length) {}

    /** Reads, checks and decompresses the block at {@code offset}; returns its content. */
    byte[] readBlock(long offset, int onDiskSize) throws IOException {
        BlockBytes block = readBlockBytes(offset, onDiskSize);
        return block.length() == block.bytes().length ? block.bytes()
                : java.util.Arrays.copyOf(block.bytes(), block.length());
    }

    /** {@link #readBlock} without the copy that trims an uncompressed block's trailer. */
    BlockBytes readBlockBytes(long offset, int onDiskSize) throws IOException {
        byte[] raw = readFully(offset, onDiskSize);
        int length = checkTrailer(ByteBuffer.wrap(raw), offset, onDiskSize);
        int payloadLength = onDiskSize - SSTableLayout.BLOCK_TRAILER_SIZE;
        if (raw[payloadLength] == SSTableLayout.COMPRESSION_NONE) {
            return new BlockBytes(raw, payloadLength);
        }
        return new BlockBytes(decompress(raw, payloadLength, length, offset), length);
    }

    /**
     * Checks a raw block (payload, then the trailer: compression type, content length, crc32c of
     * the rest) in {@code raw}'s first {@code onDiskSize} bytes; returns the content length.
     *
     * @throws CorruptFileException for a checksum, length or type that does not hold
     */
    private int checkTrailer(ByteBuffer raw, long offset, int onDiskSize) throws CorruptFileException {
        int payloadLength = onDiskSize - SSTableLayout.BLOCK_TRAILER_SIZE;
        byte type = raw.get(payloadLength);
        int length = raw.order(java.nio.ByteOrder.BIG_ENDIAN).getInt(payloadLength + 1);
        CRC32C crc = new CRC32C();
        crc.update(raw.duplicate().position(0).limit(payloadLength + 5));
        if ((int) crc.getValue() != raw.getInt(payloadLength + 5)) {
            throw new CorruptFileException(path, offset, "block checksum mismatch");
        }
        if (type == SSTableLayout.COMPRESSION_NONE) {
            if (length != payloadLength) {
                throw new CorruptFileException(path, offset, "block claims " + length + " bytes but holds "
                        + payloadLength);
            }
            return length;
        }
        if (type != SSTableLayout.COMPRESSION_LZ4) {
            throw new CorruptFileException(path, offset, "unknown block compression " + type);
        }
        if (length < 0 || length > 256 * 1024 * 1024) {
            throw new CorruptFileException(path, offset, "block length " + length + " is out of range");
        }
        return length;
    }

    private byte[] decompress(byte[] payload, int payloadLength, int length, long offset) throws CorruptFileException {
        byte[] content = new byte[length];
        try {
            int n = LZ4.decompress(payload, 0, payloadLength, content, 0);
            if (n != length) {
                throw new CorruptFileException(path, offset, "LZ4 block decompressed to " + n + " bytes, not " + length);
            }
        } catch (LZ4Exception e) {
            throw new CorruptFileException(path, offset, "LZ4 block does not decompress: " + e.getMessage());
        }
        return content;
    }

    /** A direct buffer for reading blocks into, and a segment over all of it: a thread's, or a compaction input's. */
    static final class Scratch {
        ByteBuffer buffer;
        MemorySegment segment;
        /** Reads {@link IoBuffers#BYTES} at a time and serves the next blocks from them: a pass over every block. */
        final boolean readAhead;
        /** Where in the file {@link #buffer}'s bytes begin (read ahead), or -1 when it holds none. */
        long start = -1;
        int filled;

        Scratch() {
            this(false);
        }

        Scratch(boolean readAhead) {
            this.readAhead = readAhead;
        }

        /**
         * Gives a read-ahead buffer back ({@link IoBuffers}) for the next compaction input: its
         * iterator closed, and the cells it handed out were copies.
         */
        void release() {
            if (readAhead) {
                IoBuffers.give(buffer); // one larger, made for a huge block, is dropped
            }
            buffer = null;
            segment = null;
            start = -1;
        }
    }

    private static final ThreadLocal<Scratch> SCRATCH = ThreadLocal.withInitial(Scratch::new);
    /** The largest block read through a thread's scratch buffer (1 MiB). */
    static final int SCRATCH_LIMIT = 1 << 20;

    /**
     * Data block {@code i}, read and checked in this thread's scratch buffer: its content as a
     * segment valid until this thread reads another block this way (the block cache copies it
     * into its pool at once). A compressed block is decompressed onto the heap.
     *
     * <p>Why: reading into a new heap array per miss (plus the JDK's copy through its own direct
     * buffer, plus a copy to trim the trailer) was half of everything a read-only YCSB run
     * allocated, and its young collections paused every reader for tens of milliseconds.
     */
    MemorySegment loadDataBlockScratch(int i) throws IOException {
        return loadDataBlockInto(i, SCRATCH.get());
    }

    /**
     * Data block {@code i}, read and checked in {@code scratch}: its content as a segment valid
     * until the next read into that scratch (a block too large for it, or compressed, comes back
     * on the heap).
     */
    MemorySegment loadDataBlockInto(int i, Scratch scratch) throws IOException {
        long offset = blockOffsets[i];
        int onDiskSize = blockSizes[i];
        if (scratch.readAhead && onDiskSize <= IoBuffers.BYTES / 2) {
            return loadReadAhead(i, scratch);
        }
        scratch.start = -1; // the read below overwrites what was read ahead
        if (onDiskSize > SCRATCH_LIMIT) { // a block of huge cells: no thread keeps a buffer that size
            BlockBytes block = readBlockBytes(offset, onDiskSize);
            return MemorySegment.ofArray(block.bytes()).asSlice(0, block.length());
        }
        if (scratch.buffer == null || scratch.buffer.capacity() < onDiskSize) {
            int capacity = Math.max(32 * 1024, Integer.highestOneBit(onDiskSize - 1) << 1);
            scratch.buffer = ByteBuffer.allocateDirect(capacity);
            scratch.segment = MemorySegment.ofBuffer(scratch.buffer);
        }
        int content = readChecked(i, scratch.buffer.clear());
        int payloadLength = onDiskSize - SSTableLayout.BLOCK_TRAILER_SIZE;
        if (content == payloadLength && scratch.buffer.get(payloadLength) == SSTableLayout.COMPRESSION_NONE) {
            return scratch.segment.asSlice(0, payloadLength);
        }
        byte[] payload = scratch.segment.asSlice(0, payloadLength).toArray(ValueLayout.JAVA_BYTE);
        return MemorySegment.ofArray(decompress(payload, payloadLength, content, blockOffsets[i]));
    }

    /** Data block {@code i}'s size on disk: its payload and trailer. */
    int blockDiskSize(int i) {
        return blockSizes[i];
    }

    /**
     * Reads data block {@code i} as it is on disk, payload then trailer, into {@code raw} from its
     * position 0 (it must have room for {@link #blockDiskSize}) and checks it; returns the content
     * length the trailer gives. The payload is the content when the trailer's compression byte,
     * at {@code blockDiskSize(i) - BLOCK_TRAILER_SIZE}, says none.
     *
     * @throws CorruptFileException for a short file or a checksum, length or type that does not hold
     */
    int readChecked(int i, ByteBuffer raw) throws IOException {
        long offset = blockOffsets[i];
        int onDiskSize = blockSizes[i];
        raw.limit(onDiskSize);
        try {
            file.read(raw, offset);
        } catch (java.io.EOFException e) {
            throw new CorruptFileException(path, offset, "file ends inside a block");
        }
        return checked(i, raw);
    }

    /** {@link #readIfCached}'s answer when the block is not all in the OS's memory. */
    static final int NOT_CACHED = -1;

    /**
     * {@link #readChecked}, but only if the OS holds the whole block in memory, so that the read
     * does not wait for the device ({@link Disk.ReadableFile#readIfCached}); {@link #NOT_CACHED}
     * otherwise. A block read this way is checked as any other.
     */
    int readIfCached(int i, ByteBuffer raw) throws IOException {
        raw.limit(blockSizes[i]);
        if (!file.readIfCached(raw, blockOffsets[i])) {
            raw.clear();
            return NOT_CACHED;
        }
        return checked(i, raw);
    }

    private int checked(int i, ByteBuffer raw) throws IOException {
        long offset = blockOffsets[i];
        int onDiskSize = blockSizes[i];
        raw.clear();
        int content = checkTrailer(raw, offset, onDiskSize);
        if (raw.get(onDiskSize - SSTableLayout.BLOCK_TRAILER_SIZE) != SSTableLayout.COMPRESSION_NONE) {
            compressedBlocks = true;
        }
        return content;
    }

    /**
     * True once a compressed block of this file was read: the block cache then stops trying to
     * read its misses straight into the pool, since a compressed block read that way is read
     * again to be decompressed.
     */
    boolean compressedBlocks() {
        return compressedBlocks;
    }

    /** The content of data block {@code i}, through the block cache. */
    Block dataBlock(int i) {
        MemoryOnlyReads.beforeBlock();
        EngineCounters.BLOCK_BYTES.add(blockSizes[i]);
        return cache.get(this, i);
    }

    /**
     * Data block {@code i} for a pass that reads every block once (a compaction's input): the
     * cached copy when the cache has one, else read into {@code scratch} without entering the
     * cache.
     *
     * <p>Why: through the cache, a compaction's reads evicted the blocks the gets were using (it
     * reads every block of its inputs once, the worst pattern for an LRU), copied every block into
     * the pool, and grew the pool while the cache filled: an eighth of the compactor's time in a
     * YCSB load. RocksDB's compactions do not fill its block cache either.
     */
    Block dataBlockUncached(int i, Scratch scratch) {
        Block cached = cache.getIfCached(this, i);
        if (cached != null) {
            return cached;
        }
        try {
            return new Block.Borrowed(loadDataBlockInto(i, scratch));
        } catch (IOException e) {
            throw new java.io.UncheckedIOException("reading block " + i + " of " + path + ": " + e.getMessage(), e);
        }
    }

    /** An iterator that reads blocks without filling the block cache, for compactions. */
    InternalIterator newCompactionIterator() {
        return new SSTableIterator(this, new Scratch(true));
    }

    /**
     * Data block {@code i} from {@code scratch}'s read-ahead: served from the bytes read before when
     * they hold it whole, else read with up to {@link IoBuffers#BYTES} after it (never past the
     * last data block). Checked as every block is; valid until the next read into {@code scratch}.
     */
    private MemorySegment loadReadAhead(int i, Scratch scratch) throws IOException {
        long offset = blockOffsets[i];
        int onDiskSize = blockSizes[i];
        if (scratch.buffer == null || scratch.buffer.capacity() < IoBuffers.BYTES) {
            scratch.buffer = IoBuffers.take();
            scratch.segment = MemorySegment.ofBuffer(scratch.buffer);
            scratch.start = -1;
        }
        if (scratch.start < 0 || offset < scratch.start || offset + onDiskSize > scratch.start + scratch.filled) {
            int last = blockOffsets.length - 1;
            long dataEnd = blockOffsets[last] + blockSizes[last];
            int length = (int) Math.min(IoBuffers.BYTES, dataEnd - offset);
            scratch.start = -1; // until the read is whole
            scratch.buffer.clear().limit(length);
            try {
                file.read(scratch.buffer, offset);
            } catch (java.io.EOFException e) {
                throw new CorruptFileException(path, offset, "file ends inside a block");
            }
            scratch.start = offset;
            scratch.filled = length;
        }
        int at = (int) (offset - scratch.start);
        ByteBuffer raw = scratch.buffer.slice(at, onDiskSize);
        int content = checked(i, raw);
        int payloadLength = onDiskSize - SSTableLayout.BLOCK_TRAILER_SIZE;
        if (content == payloadLength && raw.get(payloadLength) == SSTableLayout.COMPRESSION_NONE) {
            return scratch.segment.asSlice(at, payloadLength);
        }
        byte[] payload = scratch.segment.asSlice(at, payloadLength).toArray(ValueLayout.JAVA_BYTE);
        return MemorySegment.ofArray(decompress(payload, payloadLength, content, offset));
    }

    /** Loads data block {@code i} from disk (checked, decompressed); the block cache's miss path. */
    byte[] loadDataBlock(int i) throws IOException {
        return readBlock(blockOffsets[i], blockSizes[i]);
    }


    long fileNumber() {
        return fileNumber;
    }

    int cacheId() {
        return cacheId;
    }

    Path path() {
        return path;
    }

    long fileSize() {
        return fileSize;
    }

    long entries() {
        return entries;
    }

    long maxSequence() {
        return maxSequence;
    }

    int blockCount() {
        return lastKeys.length;
    }

    /** Where data block {@code i} begins in the file (for tests). */
    long blockOffset(int i) {
        return blockOffsets[i];
    }

    /** Data block {@code i}'s size on disk, trailer included (for tests). */
    int blockSize(int i) {
        return blockSizes[i];
    }


    /** The first block that may hold {@code row} or a later one; {@link #blockCount()} when none. */
    private int blockForRow(byte[] row) {
        return row.length == 0 ? 0 : blockFor(SeekKey.firstOnRow(row));
    }

    /**
     * About how many bytes of the file hold rows in {@code [start, end)} (an empty end: to the
     * file's end), counted in whole blocks from the index; the whole file when the range covers it.
     */
    long bytesIn(byte[] start, byte[] end) {
        int blocks = blockCount();
        if (blocks == 0) {
            return 0;
        }
        int from = blockForRow(start);
        int to = end.length == 0 ? blocks : Math.min(blocks, blockForRow(end) + 1);
        if (from == 0 && to == blocks) {
            return fileSize;
        }
        return to <= from ? 0 : fileSize * (to - from) / blocks;
    }

    /**
     * A row near the middle of the file's part of {@code [start, end)}, strictly after
     * {@code start} and before {@code end}, where a split leaves about half of that part on each
     * side; {@code null} when the part is too small to cut (one block).
     */
    byte[] middleRow(byte[] start, byte[] end) {
        int blocks = blockCount();
        if (blocks == 0) {
            return null;
        }
        int from = blockForRow(start);
        int to = end.length == 0 ? blocks - 1 : Math.min(blocks - 1, blockForRow(end));
        if (to <= from) {
            return null;
        }
        byte[] row = cellFromKey(MemorySegment.ofArray(lastKeys[(from + to) >>> 1])).rowBytes();
        boolean inside = io.basalt.bytes.Bytes.compare(row, start) > 0
                && (end.length == 0 || io.basalt.bytes.Bytes.compare(row, end) < 0);
        return inside ? row : null;
    }

    /** The smallest key in the file, or {@code null} for an empty file. */
    EncodedCell firstKey() {
        return firstKey;
    }

    /** The largest key in the file, or {@code null} for an empty file. */
    EncodedCell lastKey() {
        return lastKey;
    }

    /** False only when the file certainly has no cell of {@code row}. */
    boolean mightContainRow(byte[] row) {
        return mightContainRow(BloomFilter.hash(MemorySegment.ofArray(row)));
    }

    /** {@link #mightContainRow(byte[])} for the row's {@link BloomFilter#hash}, computed once per get. */
    boolean mightContainRow(long rowHash) {
        if (firstKey == null) {
            return false;
        }
        return bloom == null || bloom.mightContain(rowHash);
    }

    /** The first block whose last key is at or after {@code key}, or {@link #blockCount()}. */
    int blockFor(Cell key) {
        return blockFor(MemorySegment.ofArray(io.basalt.cell.CellLayout.keyBytes(key)));
    }

    /** The row of an encoded key ({@link io.basalt.cell.CellLayout#keyBytes}) as a word from {@code from} on. */
    private static long rowWord(MemorySegment key, int from) {
        return Bytes.word(key, io.basalt.cell.CellLayout.rowOffset(0), io.basalt.cell.CellLayout.rowLength(key, 0), from);
    }

    /** {@link #blockFor(Cell)} for an encoded key. */
    int blockFor(MemorySegment key) {
        long word = rowWord(key, 0);
        long word2 = rowWord(key, Long.BYTES);
        int lo = 0;
        int hi = lastKeys.length;
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            int c;
            if (lastRowWords[mid] != word) {
                c = Long.compareUnsigned(lastRowWords[mid], word);
            } else if (lastRowWords2[mid] != word2) {
                c = Long.compareUnsigned(lastRowWords2[mid], word2);
            } else {
                MemorySegment last = lastKeySegments[mid];
                c = CellComparator.compareKeys(last, 0, (int) last.byteSize(), key, 0, (int) key.byteSize());
            }
            if (c < 0) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        return lo;
    }

    /**
     * The largest row below {@code bound} that has a cell in this file, or {@code null}; a
     * {@code null} bound means the file's last row.
     */
    byte[] rowBefore(byte[] bound) {
        if (lastKey == null) {
            return null;
        }
        if (bound == null) {
            return lastKey.rowBytes();
        }
        SeekKey target = SeekKey.firstOnRow(bound);
        int b = blockFor(target);
        if (b >= blockCount()) {
            return lastKey.rowBytes();
        }
        byte[] found = b > 0 ? cellFromKey(MemorySegment.ofArray(lastKeys[b - 1])).rowBytes() : null;
        SSTableIterator it = new SSTableIterator(this, b);
        try {
            while (it.valid() && CellComparator.INSTANCE.compare(it.cell(), target) < 0) {
                found = it.cell().rowBytes();
                it.next();
            }
        } finally {
            it.close();
        }
        return found;
    }

    InternalIterator newIterator() {
        return new SSTableIterator(this);
    }

    /**
     * An iterator for reading one row after a {@link InternalIterator#seek} to it (a get): it ends
     * at the end of a block whose last row does not go on, instead of reading the next block only
     * to find a cell of another row there. Rows cut at a block's end (every second one with 4 KiB
     * blocks, since the writer keeps rows whole) cost a get no second block.
     */
    InternalIterator newRowIterator() {
        return new SSTableIterator(this, null, true);
    }

    /** Whether block {@code i}'s last row goes on into block {@code i + 1}. */
    boolean rowContinuesAfter(int i) {
        return rowContinues.get(i);
    }

    /** Takes a reference; every {@link #retain()} needs one {@link #release()}. */
    boolean retain() {
        while (true) {
            int n = references.get();
            if (n == 0) {
                return false;
            }
            if (references.compareAndSet(n, n + 1)) {
                return true;
            }
        }
    }

    /** References held now (tests). */
    int referenceCount() {
        return references.get();
    }

    /** Drops a reference; the last one closes the file, and deletes it when it was replaced. */
    void release() {
        int n = references.decrementAndGet();
        if (n == 0) {
            try {
                file.close();
                cache.evictFile(this);
                if (obsolete) {
                    Files.deleteIfExists(path);
                    LOG.debug("Deleted replaced SSTable {}", path);
                }
            } catch (IOException e) {
                LOG.warn("Could not close or delete SSTable {}: {}", path, e.toString());
            }
        } else if (n < 0) {
            throw new IllegalStateException("SSTable " + path + " released more often than retained");
        }
    }

    /**
     * One more region lists the file (a split gave it to both daughters). A file may be marked
     * obsolete only when no region lists it any more ({@link #unlist()}).
     */
    void list() {
        listings.incrementAndGet();
    }

    /** One region no longer lists the file; true when none does (the caller then marks it obsolete). */
    boolean unlist() {
        int n = listings.decrementAndGet();
        if (n < 0) {
            throw new IllegalStateException("SSTable " + path + " unlisted more often than listed");
        }
        return n == 0;
    }

    /** Marks the file replaced: it is deleted when the last reference goes. */
    void markObsolete() {
        obsolete = true;
    }

    @Override
    public String toString() {
        return "SSTable " + path.getFileName() + " (" + entries + " cells, " + fileSize + " bytes)";
    }
}
