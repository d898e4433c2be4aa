package io.basalt.bytes;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.Size;

class BytesTest {

    @Property
    void segmentAndArrayComparisonAgree(@ForAll @Size(max = 40) byte[] a, @ForAll @Size(max = 40) byte[] b) {
        int expected = Integer.signum(java.util.Arrays.compareUnsigned(a, b));
        assertThat(Integer.signum(Bytes.compare(a, b))).isEqualTo(expected);
        assertThat(Integer.signum(Bytes.compare(a, 0, a.length, b, 0, b.length))).isEqualTo(expected);
        assertThat(Integer.signum(Bytes.compare(MemorySegment.ofArray(a), MemorySegment.ofArray(b))))
                .isEqualTo(expected);
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment offHeap = arena.allocate(Math.max(1, b.length));
            MemorySegment.copy(MemorySegment.ofArray(b), 0, offHeap, 0, b.length);
            assertThat(Integer.signum(Bytes.compare(MemorySegment.ofArray(a), 0, a.length, offHeap, 0, b.length)))
                    .isEqualTo(expected);
            assertThat(Bytes.equals(MemorySegment.ofArray(a), 0, a.length, offHeap, 0, b.length))
                    .isEqualTo(expected == 0);
        }
    }

    @Property
    void comparesSubRangesOnly(@ForAll @Size(min = 4, max = 40) byte[] a) {
        byte[] shifted = new byte[a.length + 3];
        System.arraycopy(a, 0, shifted, 3, a.length);
        shifted[0] = (byte) 0xFF;
        assertThat(Bytes.compare(MemorySegment.ofArray(a), 1, a.length - 2,
                MemorySegment.ofArray(shifted), 4, a.length - 2)).isZero();
    }

    @Example
    void orderIsUnsignedWithPrefixFirst() {
        assertThat(Bytes.compare(new byte[] {(byte) 0x80}, new byte[] {0x7F})).isPositive();
        assertThat(Bytes.compare(new byte[] {1}, new byte[] {1, 0})).isNegative();
        assertThat(Bytes.compare(MemorySegment.ofArray(new byte[] {1, 0}), MemorySegment.ofArray(new byte[] {1})))
                .isPositive();
        assertThat(Bytes.compare(Bytes.EMPTY, Bytes.EMPTY)).isZero();
    }

    @Example
    void printsPrintableAsciiAndEscapesTheRest() {
        assertThat(Bytes.toStringBinary(new byte[] {'k', '1', 0, (byte) 0xAB, '\\', '\n'}))
                .isEqualTo("k1\\x00\\xAB\\x5C\\x0A");
    }
}
