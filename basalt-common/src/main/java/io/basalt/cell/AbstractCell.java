package io.basalt.cell;

import io.basalt.bytes.Bytes;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/** Content equality, hashing and printing shared by the cell implementations. */
abstract class AbstractCell implements Cell {

    @Override
    public final boolean equals(Object o) {
        if (this == o) {
            return true;
        }
        if (!(o instanceof Cell other)) {
            return false;
        }
        return timestamp() == other.timestamp()
                && type() == other.type()
                && same(row(), other.row())
                && same(family(), other.family())
                && same(qualifier(), other.qualifier())
                && same(value(), other.value());
    }

    private static boolean same(MemorySegment a, MemorySegment b) {
        return Bytes.equals(a, 0, a.byteSize(), b, 0, b.byteSize());
    }

    @Override
    public final int hashCode() {
        int h = hash(row());
        h = 31 * h + hash(family());
        h = 31 * h + hash(qualifier());
        h = 31 * h + Long.hashCode(timestamp());
        h = 31 * h + type().hashCode();
        return 31 * h + hash(value());
    }

    private static int hash(MemorySegment s) {
        int h = 1;
        for (long i = 0; i < s.byteSize(); i++) {
            h = 31 * h + s.get(ValueLayout.JAVA_BYTE, i);
        }
        return h;
    }

    /** {@code row/family:qualifier/timestamp/TYPE/vlen=N}, the shape HBase prints. */
    @Override
    public final String toString() {
        return Bytes.toStringBinary(row()) + "/" + Bytes.toStringBinary(family()) + ":"
                + Bytes.toStringBinary(qualifier()) + "/" + timestamp() + "/" + type() + "/vlen="
                + value().byteSize();
    }
}
