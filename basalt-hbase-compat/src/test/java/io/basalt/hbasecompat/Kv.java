package io.basalt.hbasecompat;

import io.basalt.cell.Cell;
import io.basalt.cell.CellType;
import java.util.Arrays;
import java.util.Comparator;
import org.apache.hadoop.hbase.CellUtil;
import org.apache.hadoop.hbase.KeyValue;

/**
 * One cell of the generated data, independent of either store: converted to a Basalt
 * {@link Cell} for Basalt's side and to an HBase {@link KeyValue} for HBase's, and back, so both
 * sides' outputs compare as text.
 */
record Kv(byte[] row, byte[] family, byte[] qualifier, long ts, byte[] value) {

    /** Storage order: row, family, qualifier ascending (unsigned bytes), newest first. */
    static final Comparator<Kv> ORDER = Comparator.<Kv, byte[]>comparing(Kv::row, Arrays::compareUnsigned)
            .thenComparing(Kv::family, Arrays::compareUnsigned)
            .thenComparing(Kv::qualifier, Arrays::compareUnsigned)
            .thenComparing(Comparator.comparingLong(Kv::ts).reversed());

    Cell toBasalt() {
        return Cell.of(row, family, qualifier, ts, CellType.PUT, value);
    }

    KeyValue toHBase() {
        return new KeyValue(row, family, qualifier, ts, KeyValue.Type.Put, value);
    }

    static Kv of(Cell c) {
        return new Kv(c.rowBytes(), c.familyBytes(), c.qualifierBytes(), c.timestamp(), c.valueBytes());
    }

    static Kv of(org.apache.hadoop.hbase.Cell c) {
        return new Kv(CellUtil.cloneRow(c), CellUtil.cloneFamily(c), CellUtil.cloneQualifier(c), c.getTimestamp(),
                CellUtil.cloneValue(c));
    }

    boolean sameRow(Kv other) {
        return Arrays.equals(row, other.row);
    }

    /** {@code row/family:qualifier@ts=value}, bytes outside printable ASCII as {@code \xHH}. */
    String text() {
        return esc(row) + "/" + esc(family) + ":" + esc(qualifier) + "@" + ts + "=" + esc(value);
    }

    @Override
    public String toString() {
        return text();
    }

    static String esc(byte[] bytes) {
        StringBuilder out = new StringBuilder();
        for (byte b : bytes) {
            int c = b & 0xFF;
            if (c >= 0x20 && c < 0x7F && c != '\\') {
                out.append((char) c);
            } else {
                out.append(String.format("\\x%02X", c));
            }
        }
        return out.toString();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Kv k && Arrays.equals(row, k.row) && Arrays.equals(family, k.family)
                && Arrays.equals(qualifier, k.qualifier) && ts == k.ts && Arrays.equals(value, k.value);
    }

    @Override
    public int hashCode() {
        return text().hashCode();
    }
}
