package io.basalt.cell;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.Size;

class CellComparatorTest {

    private static final CellComparator CMP = CellComparator.INSTANCE;

    @Provide
    Arbitrary<Cell> cells() {
        return CellArbitraries.cells();
    }

    /**
     * An independent statement of the order: unsigned lexicographic order on bytes is string
     * order on their fixed-width hex spelling; then newest first; then higher type code first.
     */
    private static int reference(Cell a, Cell b) {
        HexFormat hex = HexFormat.of();
        int c = hex.formatHex(a.rowBytes()).compareTo(hex.formatHex(b.rowBytes()));
        if (c == 0) {
            c = hex.formatHex(a.familyBytes()).compareTo(hex.formatHex(b.familyBytes()));
        }
        if (c == 0) {
            c = hex.formatHex(a.qualifierBytes()).compareTo(hex.formatHex(b.qualifierBytes()));
        }
        if (c == 0) {
            c = -Long.compare(a.timestamp(), b.timestamp());
        }
        if (c == 0) {
            c = -Integer.compare(a.type().code(), b.type().code());
        }
        return c;
    }

    private static EncodedCell encoded(Cell cell) {
        return EncodedCell.decode(CellLayout.encode(cell), 0);
    }

    private static int encodedCompare(Cell a, Cell b) {
        return CellComparator.compareEncoded(MemorySegment.ofArray(CellLayout.encode(a)), 0,
                MemorySegment.ofArray(CellLayout.encode(b)), 0);
    }

    @Property(tries = 3000)
    void everyPathAgreesWithTheReferenceOrder(@ForAll("cells") Cell a, @ForAll("cells") Cell b) {
        int expected = Integer.signum(reference(a, b));

        assertThat(Integer.signum(CMP.compare(a, b))).as("array cells").isEqualTo(expected);
        assertThat(Integer.signum(CMP.compare(encoded(a), encoded(b)))).as("encoded views").isEqualTo(expected);
        assertThat(Integer.signum(CMP.compare(a, encoded(b)))).as("mixed").isEqualTo(expected);
        assertThat(Integer.signum(CMP.compare(encoded(a), b))).as("mixed, encoded first").isEqualTo(expected);
        assertThat(Integer.signum(encodedCompare(a, b))).as("raw encoded keys").isEqualTo(expected);
        assertThat(Integer.signum(arrayKeyCompare(a, b))).as("keys on arrays").isEqualTo(expected);
    }

    /** The array path of {@code compareKeys}, with each key at a different offset of a larger array. */
    private static int arrayKeyCompare(Cell a, Cell b) {
        byte[] x = CellLayout.keyBytes(a);
        byte[] y = CellLayout.keyBytes(b);
        byte[] shiftedX = new byte[x.length + 3];
        System.arraycopy(x, 0, shiftedX, 3, x.length);
        byte[] shiftedY = new byte[y.length + 11];
        System.arraycopy(y, 0, shiftedY, 5, y.length);
        return CellComparator.compareKeys(shiftedX, 3, x.length, shiftedY, 5, y.length);
    }

    /** Cells that share their row, family or qualifier (random cells rarely do) order the same on arrays. */
    @Property(tries = 2000)
    void arrayKeysOrderAsTheReferenceWhenPartsAreShared(@ForAll("cells") Cell a, @ForAll("cells") Cell b,
                                                        @ForAll @net.jqwik.api.constraints.IntRange(min = 0, max = 3) int shared) {
        Cell c = switch (shared) {
            case 0 -> b;
            case 1 -> Cell.of(a.rowBytes(), b.familyBytes(), b.qualifierBytes(), b.timestamp(), b.type(), b.valueBytes());
            case 2 -> Cell.of(a.rowBytes(), a.familyBytes(), b.qualifierBytes(), b.timestamp(), b.type(), b.valueBytes());
            default -> Cell.of(a.rowBytes(), a.familyBytes(), a.qualifierBytes(), b.timestamp(), b.type(), b.valueBytes());
        };
        assertThat(Integer.signum(arrayKeyCompare(a, c))).isEqualTo(Integer.signum(reference(a, c)));
        assertThat(Integer.signum(arrayKeyCompare(c, a))).isEqualTo(Integer.signum(reference(c, a)));
    }

    @Property(tries = 3000)
    void isAntisymmetric(@ForAll("cells") Cell a, @ForAll("cells") Cell b) {
        assertThat(Integer.signum(encodedCompare(a, b))).isEqualTo(-Integer.signum(encodedCompare(b, a)));
    }

    @Property(tries = 1000)
    void isTransitive(@ForAll("cells") Cell a, @ForAll("cells") Cell b, @ForAll("cells") Cell c) {
        List<Cell> sorted = new ArrayList<>(List.of(a, b, c));
        sorted.sort(CMP);
        assertThat(encodedCompare(sorted.get(0), sorted.get(1))).isLessThanOrEqualTo(0);
        assertThat(encodedCompare(sorted.get(1), sorted.get(2))).isLessThanOrEqualTo(0);
        assertThat(encodedCompare(sorted.get(0), sorted.get(2))).isLessThanOrEqualTo(0);
    }

    @Property
    void comparesEqualExactlyWhenTheKeysAreEqual(@ForAll("cells") Cell a, @ForAll("cells") Cell b) {
        boolean sameKey = Cell.of(a.rowBytes(), a.familyBytes(), a.qualifierBytes(), a.timestamp(), a.type(),
                        b.valueBytes())
                .equals(b);
        assertThat(encodedCompare(a, b) == 0).isEqualTo(sameKey);
        assertThat(encodedCompare(a, a)).isZero();
    }

    @Property(tries = 300)
    void sortingEncodedCellsMatchesSortingByTheReference(@ForAll @Size(max = 40) List<@net.jqwik.api.From("cells") Cell> cells) {
        List<Cell> byReference = new ArrayList<>(cells);
        byReference.sort(CellComparatorTest::reference);
        List<Cell> byEncoded = new ArrayList<>(cells.stream().map(CellComparatorTest::encoded).toList());
        byEncoded.sort(CMP);
        for (int i = 0; i < cells.size(); i++) {
            assertThat(reference(byEncoded.get(i), byReference.get(i))).isZero();
        }
    }

    @Example
    void bytesCompareUnsigned() {
        assertThat(CMP.compare(Cell.of(new byte[] {(byte) 0xFF}, new byte[0], new byte[0], 0, CellType.PUT, new byte[0]),
                Cell.of(new byte[] {0x01}, new byte[0], new byte[0], 0, CellType.PUT, new byte[0]))).isPositive();
    }

    @Example
    void shorterRowThatIsAPrefixSortsFirst() {
        assertThat(encodedCompare(Cell.put("ab", "f", "q", 1, ""), Cell.put("abc", "f", "q", 1, ""))).isNegative();
    }

    @Example
    void newerVersionsSortFirst() {
        assertThat(encodedCompare(Cell.put("r", "f", "q", 9, ""), Cell.put("r", "f", "q", 1, ""))).isNegative();
    }

    @Example
    void deleteMarkersSortBeforeThePutTheyMask() {
        Cell put = Cell.put("r", "f", "q", 5, "v");
        Cell delete = Cell.of(put.rowBytes(), put.familyBytes(), put.qualifierBytes(), 5, CellType.DELETE, new byte[0]);
        Cell deleteColumn = Cell.of(put.rowBytes(), put.familyBytes(), put.qualifierBytes(), 5, CellType.DELETE_COLUMN,
                new byte[0]);
        List<Cell> cells = new ArrayList<>(List.of(put, delete, deleteColumn));
        cells.sort(CMP);
        assertThat(cells).containsExactly(deleteColumn, delete, put);
    }

    @Example
    void familyDecidesBeforeQualifier() {
        assertThat(encodedCompare(Cell.put("r", "a", "zzz", 1, ""), Cell.put("r", "b", "a", 1, ""))).isNegative();
    }

    @Example
    void valueDoesNotTakePartInTheOrder() {
        assertThat(encodedCompare(Cell.put("r", "f", "q", 1, "zzz"), Cell.put("r", "f", "q", 1, "a"))).isZero();
    }
}
