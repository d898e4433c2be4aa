package io.basalt.cell;

import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;

/**
 * Generators of cells that collide often: components come from a small alphabet that includes
 * the unsigned-order traps (0x00, 0x7F, 0x80, 0xFF), lengths cluster at 0-3 bytes with some long
 * ones across the one- and two-byte varint boundary, and timestamps repeat.
 */
final class CellArbitraries {

    private CellArbitraries() {}

    private static final byte[] ALPHABET = {0x00, 0x01, 'a', 'b', 0x7F, (byte) 0x80, (byte) 0xFF};

    static Arbitrary<byte[]> component(int minLength, int maxShort, int maxLong) {
        Arbitrary<Byte> symbol = Arbitraries.of(box(ALPHABET));
        Arbitrary<byte[]> shortOnes = symbol.array(Byte[].class).ofMinSize(minLength).ofMaxSize(maxShort)
                .map(CellArbitraries::unbox);
        Arbitrary<byte[]> longOnes = Arbitraries.bytes().array(byte[].class).ofMinSize(Math.max(minLength, 100))
                .ofMaxSize(maxLong);
        return Arbitraries.frequencyOf(
                net.jqwik.api.Tuple.of(9, shortOnes),
                net.jqwik.api.Tuple.of(1, longOnes));
    }

    static Arbitrary<Long> timestamps() {
        return Arbitraries.frequencyOf(
                net.jqwik.api.Tuple.of(6, Arbitraries.longs().between(0, 3)),
                net.jqwik.api.Tuple.of(2, Arbitraries.longs().between(0, Long.MAX_VALUE)),
                net.jqwik.api.Tuple.of(1, Arbitraries.just(Long.MAX_VALUE)));
    }

    static Arbitrary<Cell> cells() {
        return Combinators.combine(
                component(1, 3, 300),
                component(0, 2, 255),
                component(0, 3, 300),
                timestamps(),
                Arbitraries.of(CellType.class),
                component(0, 4, 300))
                .as(Cell::of);
    }

    private static Byte[] box(byte[] bytes) {
        Byte[] boxed = new Byte[bytes.length];
        for (int i = 0; i < bytes.length; i++) {
            boxed[i] = bytes[i];
        }
        return boxed;
    }

    private static byte[] unbox(Byte[] boxed) {
        byte[] bytes = new byte[boxed.length];
        for (int i = 0; i < boxed.length; i++) {
            bytes[i] = boxed[i];
        }
        return bytes;
    }
}
