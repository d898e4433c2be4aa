package io.basalt.ycsb;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * YCSB's field names as qualifiers and back, remembered: a record has ten fields with the same
 * ten names, and every read turned each returned qualifier into a new {@code String} (whose hash
 * the result map then computed again), while every write encoded each name into a new array.
 * Workload E's scans return 500 cells each.
 *
 * <p>Two small direct-mapped tables, one each way; a name that misses (another name in its slot)
 * is made as before and takes the slot. Both mappings are functions (UTF-8 decoding and encoding),
 * so what comes back is always what would have been made: a qualifier is matched on all of its
 * bytes, a name with {@code equals}. The arrays handed out are never written, here or by Basalt's
 * {@code Put}, which only reads them (the binding shares its family's array across puts the same
 * way). One instance per binding instance, which YCSB gives one thread: not thread-safe. The
 * benchmark's RocksDB binding names its fields through one too, so that the two bindings pay the
 * same for names and the {@code ycsb} suite compares the engines.
 */
public final class FieldNames {

    static final int SLOTS = 64;

    /** Qualifiers read, by a hash of their bytes, and the names made from them. */
    private final byte[][] readBytes = new byte[SLOTS][];
    private final String[] readNames = new String[SLOTS];
    /** Names written, by their hash, and their bytes. */
    private final String[] writtenNames = new String[SLOTS];
    private final byte[][] writtenBytes = new byte[SLOTS][];

    /** The name whose UTF-8 bytes are {@code bytes[offset, offset + length)}. */
    public String name(byte[] bytes, int offset, int length) {
        int slot = hash(bytes, offset, length) & (SLOTS - 1);
        byte[] known = readBytes[slot];
        if (known != null && Arrays.equals(known, 0, known.length, bytes, offset, offset + length)) {
            return readNames[slot];
        }
        String name = new String(bytes, offset, length, StandardCharsets.UTF_8);
        readBytes[slot] = Arrays.copyOfRange(bytes, offset, offset + length);
        readNames[slot] = name;
        return name;
    }

    /** {@code name}'s UTF-8 bytes, which the caller must not write. */
    public byte[] qualifier(String name) {
        int slot = spread(name.hashCode()) & (SLOTS - 1);
        String known = writtenNames[slot];
        if (known != null && (known == name || known.equals(name))) {
            return writtenBytes[slot];
        }
        byte[] qualifier = name.getBytes(StandardCharsets.UTF_8);
        writtenBytes[slot] = qualifier;
        writtenNames[slot] = name;
        return qualifier;
    }

    private static int hash(byte[] bytes, int offset, int length) {
        int h = length;
        for (int i = offset; i < offset + length; i++) {
            h = 31 * h + bytes[i];
        }
        return spread(h);
    }

    /** YCSB's names differ in their last character: mixed so that "field0".."field9" take distinct slots. */
    private static int spread(int h) {
        return h ^ (h >>> 7) ^ (h >>> 16);
    }
}
