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

    /**
     * Ranges that share a prefix of any length, on both sides of {@link Bytes#SHORT_COMPARE}
     * (random arrays almost never share more than a byte), at unaligned offsets: the word-at-a-time
     * path must agree with the JDK's comparison wherever the first difference falls.
     */
    @Property(tries = 2000)
    void sharedPrefixesOfEveryLengthAgree(@ForAll @Size(max = 150) byte[] a,
                                          @ForAll @net.jqwik.api.constraints.IntRange(min = 0, max = 160) int cut,
                                          @ForAll byte replacement,
                                          @ForAll @net.jqwik.api.constraints.IntRange(min = 0, max = 7) int offset,
                                          @ForAll boolean truncate) {
        byte[] b = a.clone();
        if (truncate) {
            b = java.util.Arrays.copyOf(a, Math.min(a.length, cut));
        } else if (cut < b.length) {
            b[cut] = replacement;
        }
        int expected = Integer.signum(java.util.Arrays.compareUnsigned(a, b));
        byte[] shiftedA = new byte[a.length + offset];
        System.arraycopy(a, 0, shiftedA, offset, a.length);
        byte[] shiftedB = new byte[b.length + 7 - offset];
        System.arraycopy(b, 0, shiftedB, 7 - offset, b.length);
        MemorySegment sa = MemorySegment.ofArray(shiftedA);
        MemorySegment sb = MemorySegment.ofArray(shiftedB);
        assertThat(Integer.signum(Bytes.compare(sa, offset, a.length, sb, 7 - offset, b.length))).isEqualTo(expected);
        assertThat(Integer.signum(Bytes.compare(sb, 7 - offset, b.length, sa, offset, a.length))).isEqualTo(-expected);
        assertThat(Bytes.equals(sa, offset, a.length, sb, 7 - offset, b.length)).isEqualTo(expected == 0);
        // The array path, word at a time up to SHORT_COMPARE and the JDK's beyond.
        assertThat(Integer.signum(Bytes.compare(shiftedA, offset, a.length, shiftedB, 7 - offset, b.length)))
                .isEqualTo(expected);
        assertThat(Integer.signum(Bytes.compare(shiftedB, 7 - offset, b.length, shiftedA, offset, a.length)))
                .isEqualTo(-expected);
        assertThat(Bytes.equals(shiftedA, offset, a.length, shiftedB, 7 - offset, b.length)).isEqualTo(expected == 0);
    }

    @Example
    void arrayRangesOutsideTheArrayAreRefused() {
        byte[] a = new byte[10];
        byte[] b = new byte[10];
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> Bytes.equals(a, 4, 8, b, 0, 8))
                .isInstanceOf(IndexOutOfBoundsException.class);
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> Bytes.compare(a, 0, 8, b, 3, 8))
                .isInstanceOf(IndexOutOfBoundsException.class);
    }

    /**
     * Words decide order wherever they differ (bytes 0-7 first, then 8-15 when the first are
     * equal), including ranges shorter than a word whose padding zeros stand against real zeros;
     * short ranges of few distinct bytes make shared prefixes and trailing zeros common.
     */
    @Property(tries = 3000)
    void wordsThatDifferOrderAsTheRangesDo(@ForAll @Size(max = 20) byte[] a, @ForAll @Size(max = 20) byte[] b,
                                           @ForAll boolean fewValues) {
        if (fewValues) {
            for (int i = 0; i < a.length; i++) {
                a[i] = (byte) (a[i] & 1);
            }
            for (int i = 0; i < b.length; i++) {
                b[i] = (byte) (b[i] & 1);
            }
        }
        int expected = Integer.signum(java.util.Arrays.compareUnsigned(a, b));
        MemorySegment sa = MemorySegment.ofArray(a);
        MemorySegment sb = MemorySegment.ofArray(b);
        for (int from : new int[] {0, Long.BYTES}) {
            long x = Bytes.word(sa, 0, a.length, from);
            long y = Bytes.word(sb, 0, b.length, from);
            if (x != y) {
                assertThat(Integer.signum(Long.compareUnsigned(x, y))).isEqualTo(expected);
                return;
            }
        }
        if (java.util.Arrays.equals(a, b)) {
            assertThat(Bytes.word(sa, 0, a.length, 0)).isEqualTo(Bytes.word(sb, 0, b.length, 0));
        }
    }

    @Example
    void aWordIsBigEndianAndZeroPadded() {
        byte[] bytes = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
        MemorySegment s = MemorySegment.ofArray(bytes);
        assertThat(Bytes.word(s, 0, bytes.length, 0)).isEqualTo(0x0001020304050607L);
        assertThat(Bytes.word(s, 0, bytes.length, Long.BYTES)).isEqualTo(0x08090A0000000000L);
        assertThat(Bytes.word(s, 1, 2, 0)).isEqualTo(0x0102000000000000L);
        assertThat(Bytes.word(s, 0, 3, Long.BYTES)).isZero();
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
