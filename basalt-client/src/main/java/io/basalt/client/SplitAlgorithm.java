package io.basalt.client;

import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Split keys that cut a key space into regions of equal width, for pre-splitting a table whose
 * row keys are spread evenly over it (the HBase shell's {@code NUMREGIONS} and {@code SPLITALGO}).
 */
public enum SplitAlgorithm {

    /**
     * Rows that start with 8 lowercase hex digits ({@code 00000000} to {@code ffffffff}), such as
     * a hex-encoded hash prefix; the split keys are 8 hex digits too.
     */
    HEX_STRING {
        @Override
        byte[] key(BigInteger point) {
            return String.format(Locale.ROOT, "%08x", point).getBytes(StandardCharsets.US_ASCII);
        }

        @Override
        BigInteger space() {
            return BigInteger.ONE.shiftLeft(32);
        }
    },

    /** Rows of arbitrary bytes spread evenly over all values; the split keys are 8 bytes. */
    UNIFORM {
        @Override
        byte[] key(BigInteger point) {
            byte[] out = new byte[8];
            byte[] raw = point.toByteArray(); // big-endian, maybe with a leading sign byte
            int n = Math.min(8, raw.length);
            System.arraycopy(raw, raw.length - n, out, 8 - n, n);
            return out;
        }

        @Override
        BigInteger space() {
            return BigInteger.ONE.shiftLeft(64);
        }
    };

    abstract byte[] key(BigInteger point);

    abstract BigInteger space();

    /**
     * The {@code regions - 1} split keys that cut the space into {@code regions} equal parts.
     *
     * @throws IllegalArgumentException when {@code regions} is below 2 or above 65,536
     */
    public List<byte[]> splitKeys(int regions) {
        if (regions < 2 || regions > 65_536) {
            throw new IllegalArgumentException("NUMREGIONS must be between 2 and 65536, not " + regions);
        }
        List<byte[]> keys = new ArrayList<>(regions - 1);
        BigInteger n = BigInteger.valueOf(regions);
        for (int i = 1; i < regions; i++) {
            keys.add(key(space().multiply(BigInteger.valueOf(i)).divide(n)));
        }
        return keys;
    }

    /** By the HBase shell's name ({@code HexStringSplit}, {@code UniformSplit}), case-insensitively. */
    public static SplitAlgorithm byName(String name) {
        return switch (name.toLowerCase(Locale.ROOT)) {
            case "hexstringsplit", "hex_string" -> HEX_STRING;
            case "uniformsplit", "uniform" -> UNIFORM;
            default -> throw new IllegalArgumentException("unknown SPLITALGO '" + name
                    + "'; known are HexStringSplit and UniformSplit");
        };
    }
}
