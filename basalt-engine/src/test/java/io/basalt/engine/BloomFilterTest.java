package io.basalt.engine;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import java.util.Random;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.LongRange;

/**
 * The row bloom filter. Its bit positions are part of the SSTable format, so the division-free
 * reduction of a probe must give exactly what {@code probe % bitCount} gives: a file written
 * with one must read the same with the other.
 */
class BloomFilterTest {

    /** {@code hash("user6284781860667377211")} as the byte-at-a-time code computed it. */
    private static final long PINNED_USER_ROW_HASH = 1767059949761513584L;

    /** The positions {@code add} sets, computed the plain way (a division per probe). */
    private static boolean plainMightContain(byte[] bits, int probes, MemorySegment row) {
        long h = BloomFilter.hash(row);
        long bitCount = (long) bits.length * 8;
        int h1 = (int) h;
        int h2 = (int) (h >>> 32);
        for (int i = 0; i < probes; i++) {
            long bit = Integer.toUnsignedLong(h1 + i * h2) % bitCount;
            if ((bits[(int) (bit >>> 3)] & (1 << (bit & 7))) == 0) {
                return false;
            }
        }
        return true;
    }

    private static MemorySegment row(String s) {
        return MemorySegment.ofArray(s.getBytes(StandardCharsets.UTF_8));
    }

    /** FNV-1a a byte at a time, then the filter's finalizer: the hash as the format defines it. */
    private static long plainHash(byte[] bytes, int offset, int length) {
        long h = 0xcbf29ce484222325L;
        for (int i = offset; i < offset + length; i++) {
            h ^= bytes[i] & 0xFF;
            h *= 0x100000001b3L;
        }
        return BloomFilter.finish(h);
    }

    /**
     * The hash reads eight bytes at a time but must equal the byte-at-a-time definition at every
     * length and offset (filters on disk were written with it), bytes above 0x7F included.
     */
    @Property(tries = 500)
    void hashesEightBytesAtATimeAsTheFormatDefines(@ForAll @IntRange(min = 0, max = 80) int length,
                                                  @ForAll @IntRange(min = 0, max = 9) int offset,
                                                  @ForAll @LongRange(min = 0, max = Long.MAX_VALUE) long seed) {
        byte[] bytes = new byte[offset + length + 3];
        new Random(seed).nextBytes(bytes);
        assertThat(BloomFilter.hash(MemorySegment.ofArray(bytes), offset, length))
                .isEqualTo(plainHash(bytes, offset, length));
    }

    /** A value pinned from the byte-at-a-time hash, so that a change to both sides still fails. */
    @Example
    void hashOfAKnownRowIsPinned() {
        assertThat(BloomFilter.hash(row("user6284781860667377211"))).isEqualTo(PINNED_USER_ROW_HASH);
    }

    @Property(tries = 300)
    void setsTheBitsTheDivisionWouldSet(@ForAll @IntRange(min = 1, max = 200_000) int keys,
                                        @ForAll @LongRange(min = 0, max = Long.MAX_VALUE) long seed) {
        BloomFilter filter = BloomFilter.forKeys(keys);
        Random random = new Random(seed);
        int added = Math.min(keys, 2_000);
        for (int i = 0; i < added; i++) {
            filter.add(row("user" + random.nextLong()));
        }
        // Every bit the filter set is one the plain computation reads, and the other way round:
        // rows added are found both ways, and unknown rows get the same answer both ways.
        random = new Random(seed);
        for (int i = 0; i < added; i++) {
            MemorySegment r = row("user" + random.nextLong());
            assertThat(plainMightContain(filter.bits(), filter.probes(), r)).isTrue();
            assertThat(filter.mightContain(r)).isTrue();
        }
        for (int i = 0; i < 2_000; i++) {
            MemorySegment r = row("other" + random.nextLong());
            assertThat(filter.mightContain(r)).isEqualTo(plainMightContain(filter.bits(), filter.probes(), r));
            assertThat(filter.mightContain(BloomFilter.hash(r))).isEqualTo(filter.mightContain(r));
        }
    }

    /** Sizes at the edges of the reduction: a power of two, just under 2^32 bits, and 2^32 bits and more. */
    @Example
    void readsAFilterOfAnySizeTheWayItWasWritten() {
        for (long bytes : new long[] {8, 1 << 20, (1L << 29) - 1, 1L << 29}) {
            byte[] bits = new byte[(int) bytes];
            Random random = new Random(bytes);
            random.nextBytes(bits); // any bit pattern: the answers must agree bit for bit
            BloomFilter filter = BloomFilter.of(BloomFilter.PROBES, bits);
            for (int i = 0; i < 20_000; i++) {
                MemorySegment r = row("k" + random.nextInt());
                assertThat(filter.mightContain(r)).as("%d bytes", bytes)
                        .isEqualTo(plainMightContain(bits, BloomFilter.PROBES, r));
            }
        }
    }

    @Example
    void falsePositivesStayNearOnePercent() {
        BloomFilter filter = BloomFilter.forKeys(100_000);
        for (int i = 0; i < 100_000; i++) {
            filter.add(row("row" + i));
        }
        int positives = 0;
        for (int i = 0; i < 100_000; i++) {
            if (filter.mightContain(row("absent" + i))) {
                positives++;
            }
        }
        assertThat(positives).isBetween(100, 2_000); // 0.1% to 2%: ten bits and seven probes give about 1%
    }

    /** More bits per row, fewer false positives: each setting lands near its textbook rate. */
    @Example
    void bitsPerKeyTradeMemoryForFalsePositives() {
        assertThat(BloomFilter.probesFor(10)).isEqualTo(BloomFilter.PROBES);
        assertThat(BloomFilter.probesFor(6)).isEqualTo(4);
        assertThat(BloomFilter.probesFor(16)).isEqualTo(11);
        assertThat(BloomFilter.probesFor(2)).isEqualTo(1);
        int[] positives = new int[3];
        int[] bits = {6, 10, 16};
        for (int b = 0; b < bits.length; b++) {
            BloomFilter filter = BloomFilter.forKeys(100_000, bits[b]);
            assertThat(filter.bits().length).isEqualTo(100_000 * bits[b] / 8);
            assertThat(filter.probes()).isEqualTo(BloomFilter.probesFor(bits[b]));
            for (int i = 0; i < 100_000; i++) {
                filter.add(row("row" + i));
            }
            for (int i = 0; i < 100_000; i++) {
                assertThat(filter.mightContain(row("row" + i))).isTrue();
                if (filter.mightContain(row("absent" + i))) {
                    positives[b]++;
                }
            }
        }
        // about 5.6%, 0.8% and 0.05% of 100,000
        assertThat(positives[0]).isBetween(4_000, 7_500);
        assertThat(positives[1]).isBetween(400, 1_400);
        assertThat(positives[2]).isBetween(10, 150);
    }
}
