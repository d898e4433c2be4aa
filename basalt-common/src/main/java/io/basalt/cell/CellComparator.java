package io.basalt.cell;

import io.basalt.bytes.Bytes;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Comparator;

/**
 * The one order of cells: row ascending, family ascending, qualifier ascending (unsigned bytes),
 * timestamp descending (newest first), type code descending (delete markers before puts).
 *
 * <p>The same order is available on encoded bytes, {@link #compareEncoded}, which reads the two
 * keys in place: it costs two varint reads and up to three vectorised mismatches, with no
 * allocation and no decoding into objects. That is the comparison SSTable searches, merges and
 * memtable inserts run millions of times; the {@code cells} benchmark measures it against decoding
 * first.
 */
public final class CellComparator implements Comparator<Cell> {

    /** The comparator; it holds no state. */
    public static final CellComparator INSTANCE = new CellComparator();

    private CellComparator() {}

    @Override
    public int compare(Cell a, Cell b) {
        if (a instanceof EncodedCell x) {
            return b instanceof EncodedCell y
                    ? compareKeys(x.segment(), x.keyOffset(), x.keyLength(), y.segment(), y.keyOffset(), y.keyLength())
                    : compareEncodedTo(x, b);
        }
        if (b instanceof EncodedCell y) {
            return -compareEncodedTo(y, a);
        }
        if (a instanceof ArrayCell x && b instanceof ArrayCell y) {
            int c = Bytes.compare(x.row, y.row);
            if (c != 0) {
                return c;
            }
            c = Bytes.compare(x.family, y.family);
            if (c != 0) {
                return c;
            }
            c = Bytes.compare(x.qualifier, y.qualifier);
            if (c != 0) {
                return c;
            }
            return compareTimestampAndType(x.timestamp, x.type.code(), y.timestamp, y.type.code());
        }
        int c = Bytes.compare(a.row(), b.row());
        if (c != 0) {
            return c;
        }
        c = Bytes.compare(a.family(), b.family());
        if (c != 0) {
            return c;
        }
        c = Bytes.compare(a.qualifier(), b.qualifier());
        if (c != 0) {
            return c;
        }
        return compareTimestampAndType(a.timestamp(), a.type().code(), b.timestamp(), b.type().code());
    }

    /**
     * An encoded cell against any other (a seek key, a client's cell): the encoded side is read in
     * place. Through {@link Cell#row()} and the like, every comparison made a slice of the
     * encoding per part; a get's descent of the memtable compares its seek key ~20 times, and
     * those slices were a third of what a read-heavy run allocated.
     */
    private static int compareEncodedTo(EncodedCell x, Cell b) {
        int c = compareEncodedColumn(x, b);
        return c != 0 ? c : compareTimestampAndType(x.timestamp(), x.type().code(), b.timestamp(), b.type().code());
    }

    /** Compares the row, family and qualifier of two cells. */
    public static int compareColumns(Cell a, Cell b) {
        if (a instanceof EncodedCell x) {
            return compareEncodedColumn(x, b);
        }
        if (b instanceof EncodedCell y) {
            return -compareEncodedColumn(y, a);
        }
        int c = Bytes.compare(a.row(), b.row());
        if (c == 0) {
            c = Bytes.compare(a.family(), b.family());
        }
        return c != 0 ? c : Bytes.compare(a.qualifier(), b.qualifier());
    }

    private static int compareEncodedColumn(EncodedCell x, Cell b) {
        MemorySegment s = x.segment();
        if (b instanceof EncodedCell y) {
            MemorySegment t = y.segment();
            int c = Bytes.compare(s, x.rowOffset(), x.rowLength(), t, y.rowOffset(), y.rowLength());
            if (c == 0) {
                c = Bytes.compare(s, x.familyOffset(), x.familyLength(), t, y.familyOffset(), y.familyLength());
            }
            return c != 0 ? c
                    : Bytes.compare(s, x.qualifierOffset(), x.qualifierLength(), t, y.qualifierOffset(), y.qualifierLength());
        }
        MemorySegment row = b.row();
        int c = Bytes.compare(s, x.rowOffset(), x.rowLength(), row, 0, row.byteSize());
        if (c == 0) {
            MemorySegment family = b.family();
            c = Bytes.compare(s, x.familyOffset(), x.familyLength(), family, 0, family.byteSize());
        }
        if (c == 0) {
            MemorySegment qualifier = b.qualifier();
            c = Bytes.compare(s, x.qualifierOffset(), x.qualifierLength(), qualifier, 0, qualifier.byteSize());
        }
        return c;
    }

    /** Compares only the rows of two cells. */
    public int compareRows(Cell a, Cell b) {
        return Bytes.compare(a.row(), b.row());
    }

    /**
     * Compares the keys of two encoded cells in place. Both must have been validated (for example
     * by {@link CellLayout#validate}, or because they come from a checksummed block): this path
     * checks nothing but the segments' bounds.
     */
    public static int compareEncoded(MemorySegment a, long aOffset, MemorySegment b, long bOffset) {
        int aKeyLength = CellLayout.readTrustedVarint(a, aOffset);
        int bKeyLength = CellLayout.readTrustedVarint(b, bOffset);
        long aKey = skipValueLength(a, aOffset + CellLayout.varintSize(aKeyLength));
        long bKey = skipValueLength(b, bOffset + CellLayout.varintSize(bKeyLength));
        return compareKeys(a, aKey, aKeyLength, b, bKey, bKeyLength);
    }

    private static long skipValueLength(MemorySegment s, long at) {
        // A value-length varint ends at the first byte with the high bit clear.
        while (s.get(ValueLayout.JAVA_BYTE, at) < 0) {
            at++;
        }
        return at + 1;
    }

    /**
     * Compares two encoded keys ({@code rowLen .. type}, see {@link CellLayout#keyBytes}) given
     * where each starts and how long it is. Like {@link #compareEncoded}, it trusts the keys.
     */
    public static int compareKeys(MemorySegment a, long aKey, int aKeyLength, MemorySegment b, long bKey, int bKeyLength) {
        int aRow = CellLayout.rowLength(a, aKey);
        int bRow = CellLayout.rowLength(b, bKey);
        int c = Bytes.compare(a, CellLayout.rowOffset(aKey), aRow, b, CellLayout.rowOffset(bKey), bRow);
        if (c != 0) {
            return c;
        }
        long aFamAt = CellLayout.familyLengthOffset(aKey, aRow);
        long bFamAt = CellLayout.familyLengthOffset(bKey, bRow);
        int aFam = CellLayout.familyLength(a, aFamAt);
        int bFam = CellLayout.familyLength(b, bFamAt);
        c = Bytes.compare(a, aFamAt + CellLayout.FAMILY_LENGTH_SIZE, aFam, b, bFamAt + CellLayout.FAMILY_LENGTH_SIZE, bFam);
        if (c != 0) {
            return c;
        }
        long aQualAt = aFamAt + CellLayout.FAMILY_LENGTH_SIZE + aFam;
        long bQualAt = bFamAt + CellLayout.FAMILY_LENGTH_SIZE + bFam;
        c = Bytes.compare(a, aQualAt, CellLayout.qualifierLength(aKeyLength, aRow, aFam),
                b, bQualAt, CellLayout.qualifierLength(bKeyLength, bRow, bFam));
        if (c != 0) {
            return c;
        }
        return compareTimestampAndType(
                CellLayout.timestamp(a, CellLayout.timestampOffset(aKey, aKeyLength)),
                a.get(ValueLayout.JAVA_BYTE, CellLayout.typeOffset(aKey, aKeyLength)),
                CellLayout.timestamp(b, CellLayout.timestampOffset(bKey, bKeyLength)),
                b.get(ValueLayout.JAVA_BYTE, CellLayout.typeOffset(bKey, bKeyLength)));
    }

    /**
     * {@link #compareKeys(MemorySegment, long, int, MemorySegment, long, int)} on heap arrays (keys
     * read from files and memtables): the same order, without the segment path's checks.
     */
    public static int compareKeys(byte[] a, int aKey, int aKeyLength, byte[] b, int bKey, int bKeyLength) {
        int aRow = Bytes.unsignedShortBE(a, aKey);
        int bRow = Bytes.unsignedShortBE(b, bKey);
        int c = Bytes.compare(a, aKey + CellLayout.ROW_LENGTH_SIZE, aRow, b, bKey + CellLayout.ROW_LENGTH_SIZE, bRow);
        if (c != 0) {
            return c;
        }
        int aFamAt = aKey + CellLayout.ROW_LENGTH_SIZE + aRow;
        int bFamAt = bKey + CellLayout.ROW_LENGTH_SIZE + bRow;
        int aFam = Byte.toUnsignedInt(a[aFamAt]);
        int bFam = Byte.toUnsignedInt(b[bFamAt]);
        c = Bytes.compare(a, aFamAt + CellLayout.FAMILY_LENGTH_SIZE, aFam, b, bFamAt + CellLayout.FAMILY_LENGTH_SIZE, bFam);
        if (c != 0) {
            return c;
        }
        int aQualAt = aFamAt + CellLayout.FAMILY_LENGTH_SIZE + aFam;
        int bQualAt = bFamAt + CellLayout.FAMILY_LENGTH_SIZE + bFam;
        c = Bytes.compare(a, aQualAt, CellLayout.qualifierLength(aKeyLength, aRow, aFam),
                b, bQualAt, CellLayout.qualifierLength(bKeyLength, bRow, bFam));
        if (c != 0) {
            return c;
        }
        int aTs = aKey + aKeyLength - CellLayout.TIMESTAMP_TYPE_SIZE;
        int bTs = bKey + bKeyLength - CellLayout.TIMESTAMP_TYPE_SIZE;
        return compareTimestampAndType(Bytes.longBE(a, aTs), a[aKey + aKeyLength - 1],
                Bytes.longBE(b, bTs), b[bKey + bKeyLength - 1]);
    }

    private static int compareTimestampAndType(long aTs, byte aType, long bTs, byte bType) {
        int c = Long.compare(bTs, aTs);
        return c != 0 ? c : Byte.toUnsignedInt(bType) - Byte.toUnsignedInt(aType);
    }
}
