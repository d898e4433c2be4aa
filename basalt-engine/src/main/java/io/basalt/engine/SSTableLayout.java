package io.basalt.engine;


/**
 * The SSTable file format: the only place that knows its layout. One file holds the cells of one
 * column family of one table, sorted, each with the sequence number of the write that made it.
 *
 * <pre>
 *  +--------------+-----+--------------+------------+-------------+-------------+--------+
 *  | data block 0 | ... | data block n | meta block | bloom block | index block | footer |
 *  +--------------+-----+--------------+------------+-------------+-------------+--------+
 *                                                     (optional)
 *
 *  every block on disk:
 *  +---------------------------+-----------------+----------------------+------------+
 *  | payload (maybe LZ4)       | compression u8  | uncompressed len u32 | crc32c u32 |
 *  +---------------------------+-----------------+----------------------+------------+
 *    crc covers payload, compression byte and length; compression 0 = none, 1 = LZ4
 *
 *  data block content (uncompressed):
 *  +-------------------------------------------------------------------------+-----------+-------+
 *  | entry: shared | unshared | valueLen | sequence | key suffix | value     | restarts  | count |
 *  |        varint | varint   | varint   | varint   | unshared B | valueLen B| u32 each  | u32   |
 *  +-------------------------------------------------------------------------+-----------+-------+
 *    key = the cell's key as in CellLayout (rowLen .. type); "shared" bytes are taken from the
 *    previous entry's key. Every RESTART_INTERVAL-th entry is a restart (shared = 0) and its
 *    offset is listed in the restart array, so a seek binary-searches restarts then scans.
 *
 *  index block content: per data block, in order
 *    | lastKeyLen varint | last key | offset varint | onDiskSize varint | flags varint |
 *    flags (version 2 on; version 1 has none): bit 0 set = the block's last row goes on into the
 *    next block. Clear, a read of one row stops at the block's end instead of reading the next.
 *  meta block content:
 *    | entries u64 | maxSequence u64 | firstKeyLen varint | first key | lastKeyLen varint | last key |
 *  bloom block content:
 *    | probes u8 | bits ... |            (a row-key filter; see BloomFilter)
 *
 *  footer (FOOTER_SIZE = 52 bytes, at the very end):
 *  +------------+----------+------------+----------+------------+----------+-------------+------------+-----------+
 *  | index u64  | size u32 | bloom u64  | size u32 | meta u64   | size u32 | version u32 | crc32c u32 | magic u64 |
 *  +------------+----------+------------+----------+------------+----------+-------------+------------+-----------+
 *    offsets and on-disk sizes of the three blocks (bloom size 0 = no filter); crc covers bytes 0..39
 * </pre>
 *
 * All fixed-width integers big-endian. A reader checks the magic, the version and the footer's
 * checksum before anything else, and each block's checksum before decoding it: damage is reported
 * with file and offset, never read as data.
 */
final class SSTableLayout {

    static final long MAGIC = 0x4253535441424C45L; // "BSSTABLE"
    static final int VERSION = 2;
    /** The oldest format version a reader still reads: version 1's index has no flags. */
    static final int OLDEST_READABLE_VERSION = 1;
    /** Index flag: the block's last row goes on into the next block. */
    static final int ROW_CONTINUES = 1;

    static final int RESTART_INTERVAL = 16;

    static final int BLOCK_TRAILER_SIZE = 9;
    static final byte COMPRESSION_NONE = 0;
    static final byte COMPRESSION_LZ4 = 1;

    static final int FOOTER_SIZE = 52;
    static final int FOOTER_INDEX_OFFSET = 0;
    static final int FOOTER_INDEX_SIZE = 8;
    static final int FOOTER_BLOOM_OFFSET = 12;
    static final int FOOTER_BLOOM_SIZE = 20;
    static final int FOOTER_META_OFFSET = 24;
    static final int FOOTER_META_SIZE = 32;
    static final int FOOTER_VERSION = 36;
    static final int FOOTER_CRC = 40;
    static final int FOOTER_MAGIC = 44;
    static final int FOOTER_CRC_COVERS = 40;

    /** Bytes of a block's restart array trailer: the count. */
    static final int RESTART_COUNT_SIZE = 4;

    private SSTableLayout() {}

    /** Where a data block's restart array starts, given its content length and restart count. */
    static long restartsOffset(long contentLength, int restartCount) {
        return contentLength - RESTART_COUNT_SIZE - 4L * restartCount;
    }

    /** Where restart {@code i}'s offset is stored, given where the restart array starts. */
    static long restartOffset(long restartsOffset, int i) {
        return restartsOffset + 4L * i;
    }

    /** Bytes a block's content takes once its restart array is appended. */
    static long contentSize(long entriesLength, int restartCount) {
        return entriesLength + 4L * restartCount + RESTART_COUNT_SIZE;
    }
}
