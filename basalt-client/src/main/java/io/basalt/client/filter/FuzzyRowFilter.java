package io.basalt.client.filter;

import java.util.List;

/**
 * Rows that match any of {@code rules}. A rule fixes some leading bytes of the row and leaves
 * others free: {@code mask[i]} 0 means byte {@code i} must equal {@code row[i]}, 1 means any byte
 * (HBase's convention). The reader seeks from a row that does not match to the next that can.
 */
public record FuzzyRowFilter(List<Rule> rules) implements Filter {

    /** One pattern: {@code row} and {@code mask} of the same length. */
    public record Rule(byte[] row, byte[] mask) {
        public Rule {
            row = FilterText.copy(row, "row");
            mask = FilterText.copy(mask, "mask");
            if (row.length != mask.length) {
                throw new IllegalArgumentException("fuzzy row of " + row.length + " bytes has a mask of "
                        + mask.length + "; they must be the same length");
            }
            for (byte m : mask) {
                if (m != 0 && m != 1) {
                    throw new IllegalArgumentException("fuzzy mask byte " + m + " is neither 0 (fixed) nor 1 (any)");
                }
            }
        }

        @Override
        public byte[] row() {
            return row.clone();
        }

        @Override
        public byte[] mask() {
            return mask.clone();
        }

        /** The mask as the filter language writes it: one character per byte, '0' fixed, '1' any. */
        String maskText() {
            StringBuilder out = new StringBuilder(mask.length);
            for (byte m : mask) {
                out.append(m == 0 ? '0' : '1');
            }
            return out.toString();
        }
    }

    public FuzzyRowFilter {
        rules = List.copyOf(java.util.Objects.requireNonNull(rules, "rules"));
        if (rules.isEmpty()) {
            throw new IllegalArgumentException("a fuzzy row filter needs at least one rule");
        }
    }

    @Override
    public String toString() {
        Object[] args = new Object[rules.size() * 2];
        for (int i = 0; i < rules.size(); i++) {
            args[2 * i] = rules.get(i).row;
            args[2 * i + 1] = FilterText.quote(io.basalt.bytes.Bytes.utf8(rules.get(i).maskText()));
        }
        return FilterText.call("FuzzyRowFilter", args);
    }
}
