package io.basalt.cell;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Arrays;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;

class CellLayoutTest {

    @Provide
    Arbitrary<Cell> cells() {
        return CellArbitraries.cells();
    }

    @Property
    void roundTripsThroughAHeapArrayAtAnyOffset(@ForAll("cells") Cell cell,
                                                 @ForAll @IntRange(max = 17) int before,
                                                 @ForAll @IntRange(max = 17) int after) {
        byte[] encoded = CellLayout.encode(cell);
        byte[] framed = new byte[before + encoded.length + after];
        Arrays.fill(framed, (byte) 0xA5);
        System.arraycopy(encoded, 0, framed, before, encoded.length);

        EncodedCell decoded = EncodedCell.decode(framed, before);

        assertThat(decoded).isEqualTo(cell);
        assertThat(decoded.hashCode()).isEqualTo(cell.hashCode());
        assertThat(decoded.encodedLength()).isEqualTo(encoded.length).isEqualTo(CellLayout.encodedLength(cell));
        assertThat(decoded.rowBytes()).isEqualTo(cell.rowBytes());
        assertThat(decoded.familyBytes()).isEqualTo(cell.familyBytes());
        assertThat(decoded.qualifierBytes()).isEqualTo(cell.qualifierBytes());
        assertThat(decoded.valueBytes()).isEqualTo(cell.valueBytes());
        assertThat(decoded.timestamp()).isEqualTo(cell.timestamp());
        assertThat(decoded.type()).isEqualTo(cell.type());
    }

    @Property
    void roundTripsThroughOffHeapMemoryWithoutCopying(@ForAll("cells") Cell cell) {
        try (Arena arena = Arena.ofConfined()) {
            long length = CellLayout.encodedLength(cell);
            MemorySegment segment = arena.allocate(length + 3);
            assertThat(CellLayout.write(cell, segment, 3)).isEqualTo(length);

            EncodedCell decoded = EncodedCell.decode(segment, 3);

            assertThat(decoded).isEqualTo(cell);
            assertThat(decoded.value().address()).isEqualTo(segment.address() + 3 + length - cell.value().byteSize());
            assertThat(decoded.segment()).isSameAs(segment);
        }
    }

    @Property
    void everyTruncationIsRejectedAsMalformed(@ForAll("cells") Cell cell) {
        byte[] encoded = CellLayout.encode(cell);
        MemorySegment segment = MemorySegment.ofArray(encoded);
        for (int cut = 0; cut < encoded.length; cut++) {
            int limit = cut;
            assertThatThrownBy(() -> CellLayout.validate(segment, 0, limit))
                    .as("truncated to %d of %d bytes", cut, encoded.length)
                    .isInstanceOf(MalformedCellException.class)
                    .hasMessageContaining("offset 0");
        }
    }

    @Property(tries = 3000)
    void randomBytesAreMalformedOrAnExactCell(@ForAll @Size(max = 64) byte[] bytes) {
        assertMalformedOrExact(bytes);
    }

    @Property(tries = 3000)
    void mutatedEncodingsAreMalformedOrAnExactCell(@ForAll("cells") Cell cell,
                                                    @ForAll("mutations") int[] positionsAndValues) {
        byte[] encoded = CellLayout.encode(cell);
        for (int i = 0; i + 1 < positionsAndValues.length; i += 2) {
            encoded[Math.floorMod(positionsAndValues[i], encoded.length)] = (byte) positionsAndValues[i + 1];
        }
        assertMalformedOrExact(encoded);
    }

    @Property(tries = 2000)
    void forgedLengthFieldsAreMalformedOrAnExactCell(@ForAll("cells") Cell cell,
                                                     @ForAll @IntRange(min = 0, max = Integer.MAX_VALUE) int keyLength,
                                                     @ForAll @IntRange(min = 0, max = Integer.MAX_VALUE) int valueLength) {
        byte[] original = CellLayout.encode(cell);
        EncodedCell parsed = EncodedCell.decode(original, 0);
        long keyStart = parsed.keyOffset();
        byte[] forged = new byte[10 + original.length];
        MemorySegment out = MemorySegment.ofArray(forged);
        int at = CellLayout.writeVarint(out, 0, keyLength);
        at += CellLayout.writeVarint(out, at, valueLength);
        System.arraycopy(original, (int) keyStart, forged, at, original.length - (int) keyStart);
        assertMalformedOrExact(Arrays.copyOf(forged, at + original.length - (int) keyStart));
    }

    /**
     * A file's reader builds cells with {@link EncodedCell#ofWritten}, knowing the two lengths it
     * wrote: with the key's bytes mutated, it must refuse exactly what {@code decode} refuses and
     * otherwise read the same cell.
     */
    @Property(tries = 3000)
    void aCellBuiltFromKnownLengthsChecksItsKeyAsDecodeDoes(@ForAll("cells") Cell cell,
                                                            @ForAll("mutations") int[] positionsAndValues) {
        byte[] encoded = CellLayout.encode(cell);
        EncodedCell original = EncodedCell.decode(encoded, 0);
        int keyOffset = (int) original.keyOffset();
        int keyLength = original.keyLength();
        for (int i = 0; i + 1 < positionsAndValues.length; i += 2) {
            encoded[keyOffset + Math.floorMod(positionsAndValues[i], keyLength)] = (byte) positionsAndValues[i + 1];
        }
        Throwable refused = catchThrowable(() -> EncodedCell.decode(encoded, 0));
        Throwable built = catchThrowable(() -> EncodedCell.ofWritten(encoded, keyOffset, keyLength,
                original.valueLength()));
        if (refused != null) {
            assertThat(refused).isInstanceOf(MalformedCellException.class);
            assertThat(built).as("what decode refuses").isInstanceOf(MalformedCellException.class)
                    .as("for the same reason: the key is checked on the array as decode checks it on a segment")
                    .hasMessage(refused.getMessage());
            return;
        }
        assertThat(built).isNull();
        assertThat(EncodedCell.ofWritten(encoded, keyOffset, keyLength, original.valueLength()))
                .isEqualTo(EncodedCell.decode(encoded, 0));
    }

    @Example
    void aCellBuiltFromKnownLengthsMustFitItsArray() {
        byte[] encoded = CellLayout.encode(Cell.put("r".getBytes(), "f".getBytes(), "q".getBytes(), 1, "v".getBytes()));
        EncodedCell cell = EncodedCell.decode(encoded, 0);
        assertThatThrownBy(() -> EncodedCell.ofWritten(encoded, (int) cell.keyOffset(), cell.keyLength(),
                cell.valueLength() + 1)).isInstanceOf(IndexOutOfBoundsException.class).hasMessageContaining("does not fit");
        assertThat(EncodedCell.ofWritten(encoded, (int) cell.keyOffset(), cell.keyLength(), cell.valueLength()))
                .isEqualTo(cell);
    }

    /**
     * A cell built from known lengths reads its array directly and makes its segment only when
     * asked; the segment and the slices of it show the same bytes as a decoded cell's.
     */
    @Property(tries = 300)
    void aCellBuiltFromKnownLengthsShowsItsBytesThroughItsSegment(@ForAll("cells") Cell cell) {
        byte[] encoded = CellLayout.encode(cell);
        EncodedCell decoded = EncodedCell.decode(encoded, 0);
        EncodedCell built = EncodedCell.ofWritten(encoded, (int) decoded.keyOffset(), decoded.keyLength(),
                decoded.valueLength());
        assertThat(built.hasRow(cell.rowBytes())).isTrue();
        assertThat(built.timestamp()).isEqualTo(cell.timestamp());
        assertThat(built.qualifierBytes()).isEqualTo(cell.qualifierBytes());
        assertThat(built.segment().byteSize()).isEqualTo(encoded.length);
        assertThat(built.segment()).isSameAs(built.segment());
        assertThat(built.key().toArray(ValueLayout.JAVA_BYTE)).isEqualTo(decoded.key().toArray(ValueLayout.JAVA_BYTE));
        assertThat(built.value().toArray(ValueLayout.JAVA_BYTE)).isEqualTo(cell.valueBytes());
        assertThat(built.row().toArray(ValueLayout.JAVA_BYTE)).isEqualTo(cell.rowBytes());
        assertThat(built.sameColumn(decoded)).isTrue();
        assertThat(built).isEqualTo(decoded);
    }

    @Provide
    Arbitrary<int[]> mutations() {
        return Arbitraries.integers().between(0, 255).array(int[].class).ofMinSize(2).ofMaxSize(8);
    }

    /**
     * The decoder's contract on arbitrary input: it either names a problem with
     * {@link MalformedCellException}, or the cell it read re-encodes to exactly the bytes it
     * consumed (so it read no garbage and invented nothing).
     */
    private static void assertMalformedOrExact(byte[] bytes) {
        MemorySegment segment = MemorySegment.ofArray(bytes);
        Throwable thrown = catchThrowable(() -> CellLayout.validate(segment, 0, bytes.length));
        int arrayLength = CellLayout.validLength(bytes, 0, bytes.length);
        if (thrown != null) {
            assertThat(thrown).isInstanceOf(MalformedCellException.class);
            assertThat(((MalformedCellException) thrown).offset()).isZero();
            assertThat(arrayLength).as("the array check rejects what validate rejects").isEqualTo(-1);
            return;
        }
        assertThat(arrayLength).as("the array check accepts what validate accepts, with its length")
                .isEqualTo(CellLayout.validate(segment, 0, bytes.length));
        EncodedCell cell = EncodedCell.decode(bytes, 0);
        Cell copy = Cell.of(cell.rowBytes(), cell.familyBytes(), cell.qualifierBytes(), cell.timestamp(),
                cell.type(), cell.valueBytes());
        assertThat(CellLayout.encode(copy)).isEqualTo(Arrays.copyOf(bytes, (int) cell.encodedLength()));
    }

    @Property
    void varintSizeMatchesWhatIsWritten(@ForAll @IntRange(min = 0, max = Integer.MAX_VALUE) int value) {
        byte[] out = new byte[5];
        int written = CellLayout.writeVarint(MemorySegment.ofArray(out), 0, value);
        assertThat(written).isEqualTo(CellLayout.varintSize(value));
        assertThat(CellLayout.readTrustedVarint(MemorySegment.ofArray(out), 0)).isEqualTo(value);
    }

    @Example
    void varintBoundaries() {
        assertThat(CellLayout.varintSize(0)).isEqualTo(1);
        assertThat(CellLayout.varintSize(127)).isEqualTo(1);
        assertThat(CellLayout.varintSize(128)).isEqualTo(2);
        assertThat(CellLayout.varintSize(16_383)).isEqualTo(2);
        assertThat(CellLayout.varintSize(16_384)).isEqualTo(3);
        assertThat(CellLayout.varintSize(Integer.MAX_VALUE)).isEqualTo(5);
    }

    @Example
    void smallCellCostsOneByteForEachLength() {
        Cell cell = Cell.put("r", "f", "q", 1, "v");
        // 2 varints + (2 + 1 row + 1 + 1 family + 1 qualifier + 8 + 1) key + 1 value
        assertThat(CellLayout.encode(cell)).hasSize(2 + 15 + 1);
    }

    @Example
    void nonCanonicalVarintIsRejected() {
        byte[] encoded = CellLayout.encode(Cell.put("r", "f", "q", 1, "v"));
        byte[] padded = new byte[encoded.length + 1];
        padded[0] = (byte) (encoded[0] | 0x80);
        padded[1] = 0;
        System.arraycopy(encoded, 1, padded, 2, encoded.length - 1);
        assertThatThrownBy(() -> CellLayout.validate(MemorySegment.ofArray(padded), 0, padded.length))
                .isInstanceOf(MalformedCellException.class)
                .hasMessageContaining("key length varint is not in its shortest form");
    }

    @Example
    void sixByteVarintIsRejected() {
        byte[] bytes = {(byte) 0x81, (byte) 0x80, (byte) 0x80, (byte) 0x80, (byte) 0x80, 0x01};
        assertThatThrownBy(() -> CellLayout.validate(MemorySegment.ofArray(bytes), 0, bytes.length))
                .isInstanceOf(MalformedCellException.class)
                .hasMessageContaining("longer than 5 bytes");
    }

    @Example
    void varintAboveIntRangeIsRejected() {
        byte[] bytes = {(byte) 0xFF, (byte) 0xFF, (byte) 0xFF, (byte) 0xFF, 0x0F, 0, 0, 0};
        assertThatThrownBy(() -> CellLayout.validate(MemorySegment.ofArray(bytes), 0, bytes.length))
                .isInstanceOf(MalformedCellException.class)
                .hasMessageContaining("key length 4294967295 exceeds 2147483647");
    }

    @Example
    void unknownTypeCodeIsRejected() {
        byte[] encoded = CellLayout.encode(Cell.put("r", "f", "q", 1, "v"));
        encoded[encoded.length - 2] = 5;
        assertThatThrownBy(() -> EncodedCell.decode(encoded, 0))
                .isInstanceOf(MalformedCellException.class)
                .hasMessageContaining("unknown cell type code 5");
    }

    @Example
    void negativeTimestampIsRejected() {
        byte[] encoded = CellLayout.encode(Cell.put("r", "f", "q", 1, "v"));
        encoded[encoded.length - 10] = (byte) 0x80;
        assertThatThrownBy(() -> EncodedCell.decode(encoded, 0))
                .isInstanceOf(MalformedCellException.class)
                .hasMessageContaining("timestamp")
                .hasMessageContaining("is negative");
    }

    @Example
    void emptyRowIsRejectedOnTheWire() {
        byte[] encoded = CellLayout.encode(Cell.put("r", "f", "q", 1, "v"));
        encoded[2] = 0;
        encoded[3] = 0;
        assertThatThrownBy(() -> EncodedCell.decode(encoded, 0))
                .isInstanceOf(MalformedCellException.class)
                .hasMessageContaining("row length 0 is outside 1..32767");
    }

    @Example
    void familyLongerThanTheKeyIsRejected() {
        byte[] encoded = CellLayout.encode(Cell.put("r", "f", "q", 1, "v"));
        encoded[5] = (byte) 200;
        assertThatThrownBy(() -> EncodedCell.decode(encoded, 0))
                .isInstanceOf(MalformedCellException.class)
                .hasMessageContaining("family length 200 does not fit in a key of 15 bytes");
    }

    @Example
    void errorNamesTheOffsetOfTheCellInItsBuffer() {
        byte[] encoded = CellLayout.encode(Cell.put("r", "f", "q", 1, "v"));
        byte[] framed = new byte[100 + encoded.length - 1];
        System.arraycopy(encoded, 0, framed, 100, encoded.length - 1);
        assertThatThrownBy(() -> EncodedCell.decode(framed, 100))
                .isInstanceOf(MalformedCellException.class)
                .hasMessageStartingWith("malformed cell at offset 100: truncated")
                .extracting(e -> ((MalformedCellException) e).offset()).isEqualTo(100L);
    }

    @Example
    void writingIntoTooSmallABufferSaysSo() {
        Cell cell = Cell.put("row", "f", "q", 1, "value");
        MemorySegment small = MemorySegment.ofArray(new byte[5]);
        assertThatThrownBy(() -> CellLayout.write(cell, small, 0))
                .isInstanceOf(IndexOutOfBoundsException.class)
                .hasMessageContaining("does not fit at offset 0 of a 5-byte buffer");
        assertThat(small.toArray(ValueLayout.JAVA_BYTE)).containsOnly(0);
    }

    /**
     * {@link Cell#hasRow} (which a put decoded from a frame relies on to keep each cell in its
     * row) agrees with comparing copies, for each kind of cell: arrays, an encoding in a heap array
     * at an offset (read straight from the array), and an encoding off the heap. The candidates
     * are the row itself, the row with one byte changed, the row one byte shorter or longer, and
     * an arbitrary key.
     */
    @Property
    void hasRowAgreesWithComparingCopies(@ForAll("cells") Cell cell, @ForAll @IntRange(max = 17) int before,
                                         @ForAll @IntRange(max = 255) int flip, @ForAll byte[] other) {
        byte[] row = cell.rowBytes();
        byte[] changed = row.clone();
        changed[flip % row.length] ^= (byte) (1 + flip % 255);
        byte[][] candidates = {row.clone(), changed, Arrays.copyOf(row, row.length - 1),
            Arrays.copyOf(row, row.length + 1), other};
        byte[] encoded = CellLayout.encode(cell);
        byte[] framed = new byte[before + encoded.length];
        System.arraycopy(encoded, 0, framed, before, encoded.length);
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment offHeap = arena.allocate(encoded.length + 3);
            CellLayout.write(cell, offHeap, 3);
            Cell[] forms = {cell, EncodedCell.decode(framed, before), EncodedCell.decode(offHeap, 3)};
            for (Cell form : forms) {
                for (byte[] candidate : candidates) {
                    assertThat(form.hasRow(candidate))
                            .as("%s against %s", form.getClass().getSimpleName(), Arrays.toString(candidate))
                            .isEqualTo(Arrays.equals(row, candidate));
                }
            }
        }
    }

    /** {@code a}'s view three ways: on an array at an offset (the array path), on the same array's segment, off heap. */
    private static EncodedCell[] views(Cell cell, Arena arena) {
        byte[] encoded = CellLayout.encode(cell);
        byte[] shifted = new byte[encoded.length + 5];
        System.arraycopy(encoded, 0, shifted, 5, encoded.length);
        MemorySegment offHeap = arena.allocate(encoded.length + 3);
        MemorySegment.copy(MemorySegment.ofArray(encoded), 0, offHeap, 3, encoded.length);
        return new EncodedCell[] {
            EncodedCell.decode(MemorySegment.ofArray(shifted), shifted, 5, shifted.length),
            EncodedCell.decode(MemorySegment.ofArray(shifted), 5, shifted.length),
            EncodedCell.decode(offHeap, 3, offHeap.byteSize())};
    }

    /**
     * The part comparisons of encoded cells (rows, families, qualifiers, columns) and their
     * timestamps and copies say the same on the array path and the segment paths, for cells that
     * share some parts and differ in others.
     */
    @Property(tries = 1500)
    void partComparisonsAgreeOnArraysAndSegments(@ForAll("cells") Cell a, @ForAll("cells") Cell b,
                                                  @ForAll @IntRange(min = 0, max = 3) int shared) {
        Cell c = switch (shared) {
            case 0 -> b;
            case 1 -> Cell.of(a.rowBytes(), b.familyBytes(), b.qualifierBytes(), b.timestamp(), b.type(), b.valueBytes());
            case 2 -> Cell.of(b.rowBytes(), a.familyBytes(), a.qualifierBytes(), b.timestamp(), b.type(), b.valueBytes());
            default -> Cell.of(a.rowBytes(), a.familyBytes(), a.qualifierBytes(), b.timestamp(), b.type(), b.valueBytes());
        };
        boolean sameRow = Arrays.equals(a.rowBytes(), c.rowBytes());
        boolean sameFamily = Arrays.equals(a.familyBytes(), c.familyBytes());
        boolean sameQualifier = Arrays.equals(a.qualifierBytes(), c.qualifierBytes());
        try (Arena arena = Arena.ofConfined()) {
            EncodedCell[] as = views(a, arena);
            EncodedCell[] cs = views(c, arena);
            assertThat(as[0].array()).isNotNull();
            for (EncodedCell x : as) {
                assertThat(x.timestamp()).isEqualTo(a.timestamp());
                assertThat(x.type()).isEqualTo(a.type());
                assertThat(x.valueBytes()).isEqualTo(a.valueBytes());
                assertThat(x.qualifierBytes()).isEqualTo(a.qualifierBytes());
                assertThat(x.hasRow(c.rowBytes())).isEqualTo(sameRow);
                assertThat(x.hasFamily(c.familyBytes())).isEqualTo(sameFamily);
                for (EncodedCell y : cs) {
                    assertThat(x.sameRow(y)).isEqualTo(sameRow);
                    assertThat(x.sameFamily(y)).isEqualTo(sameFamily);
                    assertThat(x.sameQualifier(y)).isEqualTo(sameQualifier);
                    assertThat(x.sameColumn(y)).isEqualTo(sameRow && sameFamily && sameQualifier);
                }
            }
        }
    }

    @Example
    void aSharedSegmentMustViewTheWholeArray() {
        byte[] encoded = CellLayout.encode(Cell.put("r", "f", "q", 1, "v"));
        byte[] other = new byte[encoded.length + 1];
        assertThatThrownBy(() -> EncodedCell.decode(MemorySegment.ofArray(other), encoded, 0, encoded.length))
                .isInstanceOf(IllegalArgumentException.class);
    }
    /**
     * Cells encoded back to back into one array, as a cache keeps a row, read back through {@link
     * EncodedCell#ofEncoded} as what they were, with read-only segments, long lengths included.
     */
    @Property(tries = 500)
    void cellsEncodedBackToBackReadBackAsViews(@ForAll("cells") Cell a, @ForAll("cells") Cell b,
                                               @ForAll("cells") Cell c) {
        Cell[] cells = {a, b, c};
        long total = 0;
        for (Cell cell : cells) {
            total += CellLayout.encodedLength(cell);
        }
        byte[] bytes = new byte[(int) total];
        long at = 0;
        for (Cell cell : cells) {
            at += CellLayout.write(cell, MemorySegment.ofArray(bytes), at);
        }
        int offset = 0;
        for (Cell cell : cells) {
            EncodedCell view = EncodedCell.ofEncoded(bytes, offset);
            EncodedCell checked = EncodedCell.decode(bytes, offset, bytes.length);
            assertThat(view.array()).isSameAs(bytes);
            assertThat(view.offset()).isEqualTo(offset);
            assertThat(view.encodedLength()).isEqualTo(checked.encodedLength());
            assertThat(view.keyOffset()).isEqualTo(checked.keyOffset());
            assertThat(view.rowBytes()).isEqualTo(cell.rowBytes());
            assertThat(view.familyBytes()).isEqualTo(cell.familyBytes());
            assertThat(view.qualifierBytes()).isEqualTo(cell.qualifierBytes());
            assertThat(view.timestamp()).isEqualTo(cell.timestamp());
            assertThat(view.type()).isEqualTo(cell.type());
            assertThat(view.valueBytes()).isEqualTo(cell.valueBytes());
            assertThat(view.sameColumn(checked)).isTrue();
            assertThat(view.segment().isReadOnly()).isTrue();
            offset += (int) view.encodedLength();
        }
        assertThat(offset).isEqualTo(bytes.length);
    }
    /** A cell made of arrays, written from them, encodes as the same cell read through its segments. */
    @Property(tries = 500)
    void anArrayCellEncodesAsTheSegmentPathDoes(@ForAll("cells") Cell cell, @ForAll @IntRange(max = 9) int at) {
        Cell arrays = Cell.of(cell.rowBytes(), cell.familyBytes(), cell.qualifierBytes(), cell.timestamp(), cell.type(),
                cell.valueBytes());
        Cell segments = new AbstractCell() { // no array fast path applies to it
            public MemorySegment row() { return arrays.row(); }
            public MemorySegment family() { return arrays.family(); }
            public MemorySegment qualifier() { return arrays.qualifier(); }
            public long timestamp() { return arrays.timestamp(); }
            public CellType type() { return arrays.type(); }
            public MemorySegment value() { return arrays.value(); }
        };
        assertThat(arrays).isInstanceOf(ArrayCell.class);
        long length = CellLayout.encodedLength(arrays);
        assertThat(length).isEqualTo(CellLayout.encodedLength(segments));
        byte[] a = new byte[(int) length + at];
        byte[] b = new byte[(int) length + at];
        assertThat(CellLayout.write(arrays, MemorySegment.ofArray(a), at)).isEqualTo(length);
        assertThat(CellLayout.write(segments, MemorySegment.ofArray(b), at)).isEqualTo(length);
        assertThat(a).isEqualTo(b);
        assertThatThrownBy(() -> CellLayout.write(arrays, MemorySegment.ofArray(new byte[(int) length + at - 1]), at))
                .isInstanceOf(IndexOutOfBoundsException.class);
    }
}
