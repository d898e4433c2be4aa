package io.basalt.engine;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.util.zip.CRC32C;

/**
 * The framing shared by the write-ahead log segments and the manifest: a file header, then
 * checksummed length-prefixed records. The only place that knows these offsets.
 *
 * <pre>
 *  file header (16 bytes)
 *  +-----------+-------------+-----------+----------------------+--------------------+
 *  | magic u32 | version u16 | flags u16 | salt u32 (v3; else 0) | header crc32c u32 |
 *  +-----------+-------------+-----------+----------------------+--------------------+
 *    crc covers bytes 0..11; flags are 0
 *
 *  record, versions 2 and 3 (12 + length bytes), repeated to the end of the file
 *  +------------+--------------------+------------+---------------------+
 *  | length u32 | length crc32c u32  | crc32c u32 | payload (length B)  |
 *  +------------+--------------------+------------+---------------------+
 *    version 2: length crc covers the 4 length bytes; crc covers the 4 length bytes and the payload
 *    version 3: both checksums cover the header's 4 salt bytes first, then the same bytes
 *    1 <= length <= MAX_RECORD_LENGTH
 *
 *  record, version 1 (8 + length bytes): read, never written
 *  +------------+------------+---------------------+
 *  | length u32 | crc32c u32 | payload (length B)  |
 *  +------------+------------+---------------------+
 * </pre>
 *
 * All integers big-endian. What a payload holds is up to the file kind: {@link WalRecordLayout}
 * for log segments, {@link ManifestEdit} for the manifest. The manifest is written in version 2,
 * log segments in version 3; version 1 files (written before 2026-11-25) are read, and a manifest
 * in version 1 is rewritten as version 2 when it is opened.
 *
 * <p><b>Why version 3 salts its checksums.</b> The log writes over retired segment files instead
 * of making new ones (see {@code WriteAheadLog}, "Recycled segments"), so past the last record of
 * a segment lie the records of the file's earlier use, whole and with good checksums. Each use
 * of a file has its own salt (the low 32 bits of the segment's number, which only grows), and a
 * record counts only if its checksums were computed with the salt in its file's header: an earlier
 * use's records fail them as any other stale bytes would, so the log ends where this use's
 * records end, and they are neither replayed nor taken for damage.
 *
 * <p><b>Torn tail or damage?</b> A process killed mid-append leaves a last record that is short
 * or fails its checksum, followed by nothing valid. {@link #scan} treats a bad record as the end
 * of the file when no valid record can be found anywhere after it, and as damage otherwise: a
 * crash can only tear the end, so anything valid after a bad record means the bad one was
 * corrupted, not torn.
 *
 * <p><b>Why version 2 has a length checksum.</b> Looking for a valid record after a bad one means
 * trying every later offset. In version 1 the only test at an offset is the record's checksum,
 * over as many bytes as the (random) length there claims, so the search after a torn 16-64 MiB
 * record cost a checksum of megabytes at a large share of its offsets: minutes to open a store.
 * In version 2 an offset is first tested by the checksum of its 4 length bytes, which random data
 * passes once in 2^32 tries, so the search is linear in the bytes after the bad record.
 */
final class RecordLogLayout {

    static final ValueLayout.OfInt U32 = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    static final ValueLayout.OfShort U16 = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    static final ValueLayout.OfLong U64 = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);

    static final int HEADER_SIZE = 16;
    static final int MAGIC_OFFSET = 0;
    static final int VERSION_OFFSET = 4;
    static final int FLAGS_OFFSET = 6;
    static final int RESERVED_OFFSET = 8;
    static final int HEADER_CRC_OFFSET = 12;

    /** The record header of the version written (2). */
    static final int RECORD_HEADER_SIZE = 12;
    static final int LENGTH_OFFSET = 0;
    static final int LENGTH_CRC_OFFSET = 4;
    static final int CRC_OFFSET = 8;
    /** The record header of version 1. */
    static final int V1_RECORD_HEADER_SIZE = 8;
    static final int V1_CRC_OFFSET = 4;
    /** Largest payload: bounds what a damaged length can make a reader allocate. */
    static final int MAX_RECORD_LENGTH = 256 * 1024 * 1024;

    /** The version the manifest is written in. */
    static final short VERSION = 2;
    /** The version log segments are written in: checksums salted per use of the file. */
    static final short SALTED_VERSION = 3;
    /** Where version 3 keeps its salt (version 2's reserved field, always 0 there). */
    static final int SALT_OFFSET = RESERVED_OFFSET;

    private RecordLogLayout() {}

    /** The 16 header bytes of a file of this kind in {@link #VERSION}. */
    static byte[] header(int magic) {
        return header(magic, VERSION, 0);
    }

    /** The 16 header bytes of a file of this kind in {@code version}, with {@code salt} (version 3 only). */
    static byte[] header(int magic, short version, int salt) {
        if (version != SALTED_VERSION && salt != 0) {
            throw new IllegalArgumentException("only version " + SALTED_VERSION + " has a salt");
        }
        byte[] bytes = new byte[HEADER_SIZE];
        MemorySegment h = MemorySegment.ofArray(bytes);
        h.set(U32, MAGIC_OFFSET, magic);
        h.set(U16, VERSION_OFFSET, version);
        h.set(U16, FLAGS_OFFSET, (short) 0);
        h.set(U32, SALT_OFFSET, salt);
        h.set(U32, HEADER_CRC_OFFSET, crc(h, 0, HEADER_CRC_OFFSET));
        return bytes;
    }

    /** The salt of a file whose header was checked: its records' checksums begin with it (version 3), or 0. */
    static int salt(MemorySegment file) {
        return file.get(U16, VERSION_OFFSET) == SALTED_VERSION ? file.get(U32, SALT_OFFSET) : 0;
    }

    /** Checks a file header; returns the file's format version when it is valid for this kind. */
    static short checkHeader(MemorySegment file, int magic, java.nio.file.Path path) {
        if (file.byteSize() < HEADER_SIZE) {
            throw new CorruptFileException(path, 0, "file of " + file.byteSize() + " bytes is shorter than its "
                    + HEADER_SIZE + "-byte header");
        }
        int crc = file.get(U32, HEADER_CRC_OFFSET);
        if (crc != crc(file, 0, HEADER_CRC_OFFSET)) {
            throw new CorruptFileException(path, 0, "header checksum mismatch");
        }
        int found = file.get(U32, MAGIC_OFFSET);
        if (found != magic) {
            throw new CorruptFileException(path, 0, String.format("magic 0x%08X is not 0x%08X", found, magic));
        }
        short version = file.get(U16, VERSION_OFFSET);
        if (version < 1 || version > SALTED_VERSION) {
            throw new CorruptFileException(path, VERSION_OFFSET, "format version " + version
                    + " is not supported (this build reads versions 1 to " + SALTED_VERSION + ")");
        }
        return version;
    }

    /** Frames {@code payload[0, length)} into {@code out} at {@code offset} in {@link #VERSION}; returns bytes written. */
    static int frame(byte[] payload, int length, MemorySegment out, long offset) {
        MemorySegment.copy(MemorySegment.ofArray(payload), 0, out, offset + RECORD_HEADER_SIZE, length);
        seal(out, offset, length, VERSION, 0);
        return RECORD_HEADER_SIZE + length;
    }

    /**
     * Fills in the header of the record at {@code offset} whose {@code length}-byte payload is
     * already in place after it, for a file of {@code version} (2 or 3) and {@code salt}.
     */
    static void seal(MemorySegment out, long offset, int length, short version, int salt) {
        out.set(U32, offset + LENGTH_OFFSET, length);
        out.set(U32, offset + LENGTH_CRC_OFFSET, lengthCrc(out, offset, version, salt));
        out.set(U32, offset + CRC_OFFSET, recordCrc(out, offset, length, version, salt));
    }

    /** The checksum of the length field of the record at {@code offset} (versions 2 and 3). */
    static int lengthCrc(MemorySegment file, long offset, short version, int salt) {
        CRC32C crc = new CRC32C();
        if (version == SALTED_VERSION) {
            updateInt(crc, salt);
        }
        updateInt(crc, file.get(U32, offset + LENGTH_OFFSET));
        return (int) crc.getValue();
    }

    private static void updateInt(CRC32C crc, int value) {
        crc.update(value >>> 24);
        crc.update(value >>> 16);
        crc.update(value >>> 8);
        crc.update(value);
    }

    /** The record header size of a file of {@code version}. */
    static int recordHeaderSize(short version) {
        return version == 1 ? V1_RECORD_HEADER_SIZE : RECORD_HEADER_SIZE;
    }

    /** crc32c over the length field and the payload of the record at {@code offset} (version 1 or 2). */
    static int recordCrc(MemorySegment file, long offset, int length, short version) {
        return recordCrc(file, offset, length, version, 0);
    }

    /** crc32c over the salt (version 3), the length field and the payload of the record at {@code offset}. */
    static int recordCrc(MemorySegment file, long offset, int length, short version, int salt) {
        CRC32C crc = new CRC32C();
        if (version == SALTED_VERSION) {
            updateInt(crc, salt);
        }
        crc.update(file.asSlice(offset + LENGTH_OFFSET, 4).asByteBuffer());
        crc.update(file.asSlice(offset + recordHeaderSize(version), length).asByteBuffer());
        return (int) crc.getValue();
    }

    static int crc(MemorySegment bytes, long offset, long length) {
        CRC32C crc = new CRC32C();
        crc.update(bytes.asSlice(offset, length).asByteBuffer());
        return (int) crc.getValue();
    }

    /** A record found by {@link #scan}: where its payload is. */
    interface RecordConsumer {
        void accept(long recordOffset, MemorySegment payload);
    }

    /** How a scan ended. */
    record ScanEnd(long validEnd, boolean torn, long damageOffset, String damage) {
        boolean damaged() {
            return damage != null;
        }
    }

    /**
     * Reads records from {@code from} (the first is at {@link #HEADER_SIZE}) on, handing each valid
     * one to {@code consumer}, and stops at the end, at a torn tail, or at the first damaged record.
     * {@code file} is the whole file, header included (its version is read from there).
     */
    static ScanEnd scan(MemorySegment file, long from, RecordConsumer consumer) {
        short version = file.get(U16, VERSION_OFFSET);
        int salt = salt(file);
        int headerSize = recordHeaderSize(version);
        long at = from;
        long size = file.byteSize();
        while (at < size) {
            String problem = problemAt(file, at, version, salt);
            if (problem != null) {
                if (nextValidRecord(file, at + 1) < 0) {
                    return new ScanEnd(at, true, at, null);
                }
                return new ScanEnd(at, false, at, problem);
            }
            int length = file.get(U32, at + LENGTH_OFFSET);
            consumer.accept(at, file.asSlice(at + headerSize, length));
            at += headerSize + length;
        }
        return new ScanEnd(at, false, -1, null);
    }

    /** Why the record at {@code at} of a file of {@code version} and {@code salt} is not valid, or {@code null}. */
    static String problemAt(MemorySegment file, long at, short version, int salt) {
        int headerSize = recordHeaderSize(version);
        long remaining = file.byteSize() - at;
        if (remaining < headerSize) {
            return "record header truncated (" + remaining + " bytes left)";
        }
        int length = file.get(U32, at + LENGTH_OFFSET);
        if (length <= 0 || length > MAX_RECORD_LENGTH) {
            return "record length " + Integer.toUnsignedString(length) + " is outside 1.." + MAX_RECORD_LENGTH;
        }
        if (version != 1 && file.get(U32, at + LENGTH_CRC_OFFSET) != lengthCrc(file, at, version, salt)) {
            return "record length checksum mismatch";
        }
        if (length > remaining - headerSize) {
            return "record of " + length + " bytes runs past the end of the file";
        }
        int crcOffset = version == 1 ? V1_CRC_OFFSET : CRC_OFFSET;
        if (file.get(U32, at + crcOffset) != recordCrc(file, at, length, version, salt)) {
            return "record checksum mismatch";
        }
        return null;
    }

    /**
     * The offset of the first valid record at or after {@code from}, or -1. Linear in the bytes
     * searched for versions 2 and 3 (see the class comment); version 1 files pay a checksum of the
     * claimed length at every offset whose length fits.
     */
    static long nextValidRecord(MemorySegment file, long from) {
        short version = file.get(U16, VERSION_OFFSET);
        int salt = salt(file);
        int headerSize = recordHeaderSize(version);
        long size = file.byteSize();
        for (long at = from; at + headerSize < size; at++) {
            int length = file.get(U32, at + LENGTH_OFFSET);
            if (length <= 0 || length > size - at - headerSize) {
                continue; // cannot be a record: no checksum needed
            }
            if (problemAt(file, at, version, salt) == null) {
                return at;
            }
        }
        return -1;
    }
}
