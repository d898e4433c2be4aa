package io.basalt.hbaseregion;

/**
 * The byte escaping of {@link RegionOracle}'s cases and results, shared with the test that writes
 * and reads them (it loads this class alone, none of HBase's).
 */
public final class CellText {

    private CellText() {}

    /** Bytes outside printable ASCII, and {@code \ ; |} and tab, as {@code \xHH}: HBase's {@code Bytes.toBytesBinary} reads it back. */
    public static String esc(byte[] bytes) {
        StringBuilder out = new StringBuilder();
        for (byte b : bytes) {
            int c = b & 0xFF;
            if (c >= 0x20 && c < 0x7F && c != '\\' && c != ';' && c != '|' && c != '\t') {
                out.append((char) c);
            } else {
                out.append(String.format("\\x%02X", c));
            }
        }
        return out.toString();
    }
}
