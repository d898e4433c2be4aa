package io.basalt.engine;

import static org.assertj.core.api.Assertions.assertThat;

import io.basalt.cell.Cell;
import io.basalt.cell.CellType;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import org.junit.jupiter.api.Test;

/**
 * {@link MemTable#sortRows}, the flush's sort of a memtable's rows on packed prefix bits, against
 * the unsigned byte order of the rows themselves: rows sharing long prefixes, rows that differ
 * only past sixteen bytes, zero bytes against a shorter row (the prefix words pad with zeros),
 * and repeated rows.
 */
class MemTableSortTest {

    private static final byte[] ALPHABET = {0, 1, '0', '5', '9', 'a', 'u', (byte) 0x7f, (byte) 0x80, (byte) 0xff};

    private static List<byte[]> rows(long seed, int count, int prefixLength, int maxSuffix) {
        Random random = new Random(seed);
        byte[] prefix = new byte[prefixLength];
        for (int i = 0; i < prefixLength; i++) {
            prefix[i] = ALPHABET[random.nextInt(ALPHABET.length)];
        }
        List<byte[]> rows = new ArrayList<>();
        for (int r = 0; r < count; r++) {
            if (!rows.isEmpty() && random.nextInt(20) == 0) {
                rows.add(rows.get(random.nextInt(rows.size())).clone()); // a repeat
                continue;
            }
            byte[] row = Arrays.copyOf(prefix, Math.max(1, prefixLength + random.nextInt(maxSuffix + 1))); // rows are never empty
            for (int i = prefixLength; i < row.length; i++) {
                row[i] = ALPHABET[random.nextInt(ALPHABET.length)];
            }
            rows.add(row);
        }
        return rows;
    }

    private static void assertSorts(List<byte[]> rows) {
        MemTable.RowProbe[] probes = rows.stream().map(r -> new MemTable.RowProbe(
                Cell.of(r, "f".getBytes(), "q".getBytes(), 1, CellType.PUT, new byte[0])))
                .toArray(MemTable.RowProbe[]::new);
        MemTable.RowProbe[] sorted = MemTable.sortRows(probes);
        List<byte[]> expected = new ArrayList<>(rows);
        expected.sort(Arrays::compareUnsigned);
        assertThat(Arrays.stream(sorted).map(p -> p.cell().rowBytes()).toList())
                .usingElementComparator(Arrays::compareUnsigned).containsExactlyElementsOf(expected);
    }

    @Property(tries = 300)
    void sortsAsTheRowsBytesDo(@ForAll long seed, @ForAll @IntRange(max = 3000) int count,
                               @ForAll @IntRange(max = 24) int prefixLength, @ForAll @IntRange(max = 20) int maxSuffix) {
        assertSorts(rows(seed, count, prefixLength, maxSuffix));
    }

    /** YCSB's keys: "user" and up to nineteen digits. */
    @Test
    void sortsYcsbLikeKeys() {
        Random random = new Random(5);
        List<byte[]> rows = new ArrayList<>();
        for (int i = 0; i < 50_000; i++) {
            rows.add(("user" + (random.nextLong() & Long.MAX_VALUE)).getBytes());
        }
        assertSorts(rows);
    }

    @Test
    void zeroBytesShortRowsAndEqualRowsSortToo() {
        assertSorts(List.of(new byte[] {0, 0, 0}, new byte[] {0}, new byte[] {0, 0}, new byte[] {0}, "a".getBytes(),
                "a\0".getBytes()));
        assertSorts(List.of());
        assertSorts(List.of("x".getBytes()));
    }

    @Test
    void shiftedWordTakesTheFirst64BitsOfTheShifted128() {
        long high = 0x0123456789abcdefL;
        long low = 0xfedcba9876543210L;
        assertThat(MemTable.shiftedWord(high, low, 0)).isEqualTo(high);
        assertThat(MemTable.shiftedWord(high, low, 4)).isEqualTo(0x123456789abcdeffL);
        assertThat(MemTable.shiftedWord(high, low, 64)).isEqualTo(low);
        assertThat(MemTable.shiftedWord(high, low, 68)).isEqualTo(0xedcba98765432100L);
        assertThat(MemTable.shiftedWord(high, low, 128)).isZero();
    }
}
