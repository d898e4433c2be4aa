package io.basalt.lock;

import java.util.Arrays;
import java.util.Objects;

/**
 * Maps resource keys to stripe numbers: the content hash of the key's bytes, then a finalizer
 * that spreads every input bit over the low bits the stripe mask keeps.
 *
 * <p>{@link Arrays#hashCode(byte[])} is a JIT intrinsic on current JDKs (vectorised), so hashing
 * a 20-byte row key costs a few nanoseconds. A key of several components (a table's namespace and
 * name, a row's table and row key) is hashed component by component and the hashes combined, so
 * no concatenated copy is ever built; {@code ("ab", "c")} and {@code ("a", "bc")} are different
 * resources that share a stripe only by the same chance as any two keys.
 */
final class KeyHash {

    private KeyHash() {}

    static int of(byte[] key) {
        return spread(Arrays.hashCode(Objects.requireNonNull(key, "key")));
    }

    static int of(byte[] first, byte[] second) {
        int h = Arrays.hashCode(Objects.requireNonNull(first, "first key component")) * 0x9E3779B9;
        return spread(h + Arrays.hashCode(Objects.requireNonNull(second, "second key component")));
    }

    /** The 32-bit finalizer of MurmurHash3: each input bit flips each output bit with probability about 1/2. */
    static int spread(int h) {
        h ^= h >>> 16;
        h *= 0x85EBCA6B;
        h ^= h >>> 13;
        h *= 0xC2B2AE35;
        return h ^ (h >>> 16);
    }
}
