package io.basalt.client;

import io.basalt.bytes.Bytes;
import io.basalt.cell.Cell;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

/**
 * Adds to 8-byte big-endian counters in one row, atomically; a missing counter counts as 0. The
 * result holds the new values.
 */
public final class Increment extends Mutation {

    private static final ValueLayout.OfLong BIG_ENDIAN_LONG =
            ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);

    public Increment(byte[] row) {
        super(row, LATEST_TIMESTAMP);
    }

    public static Increment of(String row) {
        return new Increment(Bytes.utf8(row));
    }

    /** Adds {@code amount} (may be negative) to one counter. */
    public Increment addColumn(byte[] family, byte[] qualifier, long amount) {
        cells.add(Cell.put(row, family, qualifier, timestamp, encode(amount)));
        return this;
    }

    /** The amount carried by one of this increment's cells. */
    public static long amount(Cell cell) {
        return decode(cell.value());
    }

    /** A counter value as stored: 8 bytes, big-endian. */
    public static byte[] encode(long value) {
        byte[] bytes = new byte[8];
        MemorySegment.ofArray(bytes).set(BIG_ENDIAN_LONG, 0, value);
        return bytes;
    }

    /**
     * Reads a counter value.
     *
     * @throws BasaltException when the value is not 8 bytes, so it cannot be a counter
     */
    public static long decode(MemorySegment value) {
        if (value.byteSize() != 8) {
            throw new BasaltException("value of " + value.byteSize() + " bytes is not a counter (8 bytes, big-endian)");
        }
        return value.get(BIG_ENDIAN_LONG, 0);
    }
}
