package io.basalt.lock;

import io.basalt.bytes.Bytes;

/** Keys for the Lincheck tests: keys 0 and 1 share a stripe at both levels, key 2 has its own. */
final class LincheckKeys {

    static final byte[][] KEYS = keys();

    private LincheckKeys() {}

    /** The manager every Lincheck invocation gets: two stripes per level, two reader slots. */
    static LockManager manager() {
        return LockManager.builder().level(LockLevel.TABLE, 2, true).level(LockLevel.ROW, 2, false)
                .readerSlots(2).build();
    }

    private static byte[][] keys() {
        LockManager probe = manager();
        byte[][] keys = new byte[3][];
        keys[0] = Bytes.utf8("k0");
        for (int i = 1; keys[1] == null || keys[2] == null; i++) {
            byte[] candidate = Bytes.utf8("k" + i);
            boolean sameTable = probe.stripeOf(LockLevel.TABLE, candidate) == probe.stripeOf(LockLevel.TABLE, keys[0]);
            boolean sameRow = probe.stripeOf(LockLevel.ROW, candidate) == probe.stripeOf(LockLevel.ROW, keys[0]);
            if (keys[1] == null && sameTable && sameRow) {
                keys[1] = candidate;
            } else if (keys[2] == null && !sameTable && !sameRow) {
                keys[2] = candidate;
            }
        }
        return keys;
    }
}
