package io.basalt.protocol;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.basalt.cell.Cell;
import io.basalt.cell.CellLayout;
import io.basalt.cell.CellType;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import java.util.ArrayList;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.From;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Positive;
import net.jqwik.api.constraints.Size;
import org.junit.jupiter.api.Test;

/** {@link Wire}: the body primitives, and how they refuse bytes that lie about their lengths. */
class WireTest {

    private static ByteBuf of(int... bytes) {
        ByteBuf buf = Unpooled.buffer();
        for (int b : bytes) {
            buf.writeByte(b);
        }
        return buf;
    }

    @Property(tries = 2000)
    void varlongsRoundTripInAtMostTenBytes(@ForAll long value) {
        ByteBuf buf = Unpooled.buffer();
        Wire.writeVarlong(buf, value);
        assertThat(buf.readableBytes()).isBetween(1, 10);
        assertThat(Wire.readVarlong(buf, "v")).isEqualTo(value);
        assertThat(buf.isReadable()).isFalse();
    }

    @Property(tries = 2000)
    void nonNegativeVarintsRoundTripInAtMostFiveBytes(@ForAll @IntRange(min = 0, max = Integer.MAX_VALUE) int value) {
        ByteBuf buf = Unpooled.buffer();
        Wire.writeVarint(buf, value);
        assertThat(buf.readableBytes()).isBetween(1, 5);
        assertThat(Wire.readVarint(buf, "v")).isEqualTo(value);
        assertThat(buf.isReadable()).isFalse();
    }

    @Property(tries = 500)
    void aNegativeIntIsWrittenUnsignedAndRefusedAsAnInt(@ForAll @IntRange(min = Integer.MIN_VALUE, max = -1) int value) {
        ByteBuf buf = Unpooled.buffer();
        Wire.writeVarint(buf, value);
        assertThat(buf.readableBytes()).isEqualTo(5);
        ByteBuf copy = buf.copy();
        assertThat(Wire.readVarlong(copy, "v")).isEqualTo(value & 0xFFFFFFFFL);
        assertThatThrownBy(() -> Wire.readVarint(buf, "row length")).isInstanceOf(MalformedFrameException.class)
                .hasMessageContaining("row length").hasMessageContaining(Long.toString(value & 0xFFFFFFFFL));
    }

    @Test
    void varintBoundariesTakeTheExpectedBytes() {
        long[] values = {0, 127, 128, 16383, 16384, (1L << 35) - 1, 1L << 35, Long.MAX_VALUE, -1};
        int[] sizes = {1, 1, 2, 2, 3, 5, 6, 9, 10};
        for (int i = 0; i < values.length; i++) {
            ByteBuf buf = Unpooled.buffer();
            Wire.writeVarlong(buf, values[i]);
            assertThat(buf.readableBytes()).as("%d", values[i]).isEqualTo(sizes[i]);
        }
    }

    @Property(tries = 500)
    void everyTruncatedVarintNamesTheField(@ForAll @IntRange(min = 128) long value) {
        ByteBuf buf = Unpooled.buffer();
        Wire.writeVarlong(buf, value);
        for (int cut = 0; cut < buf.readableBytes(); cut++) {
            ByteBuf prefix = buf.slice(0, cut);
            assertThatThrownBy(() -> Wire.readVarlong(prefix, "cell count")).isInstanceOf(MalformedFrameException.class)
                    .hasMessageContaining("cell count").hasMessageContaining("ends inside a varint");
        }
    }

    @Test
    void anOverlongVarintIsRefused() {
        ByteBuf eleven = Unpooled.buffer();
        for (int i = 0; i < 10; i++) {
            eleven.writeByte(0x80);
        }
        eleven.writeByte(0);
        assertThatThrownBy(() -> Wire.readVarlong(eleven, "limit")).isInstanceOf(MalformedFrameException.class)
                .hasMessageContaining("limit").hasMessageContaining("overflows");
        ByteBuf endless = Unpooled.buffer();
        for (int i = 0; i < 20; i++) {
            endless.writeByte(0xFF);
        }
        assertThatThrownBy(() -> Wire.readVarlong(endless, "limit")).isInstanceOf(MalformedFrameException.class)
                .hasMessageContaining("limit");
        // ten bytes whose last carries more than the 64th bit
        ByteBuf overflow = Unpooled.buffer();
        for (int i = 0; i < 9; i++) {
            overflow.writeByte(0xFF);
        }
        overflow.writeByte(0x02);
        assertThatThrownBy(() -> Wire.readVarlong(overflow, "scanner id")).isInstanceOf(MalformedFrameException.class)
                .hasMessageContaining("scanner id").hasMessageContaining("overflows 64 bits");
        // the largest legal ten-byte varint still reads
        ByteBuf max = Unpooled.buffer();
        for (int i = 0; i < 9; i++) {
            max.writeByte(0xFF);
        }
        max.writeByte(0x01);
        assertThat(Wire.readVarlong(max, "v")).isEqualTo(-1L);
    }

    @Property(tries = 300)
    void bytesRoundTripAndEveryTruncationIsMalformed(@ForAll @Size(max = 400) byte[] bytes) {
        ByteBuf buf = Unpooled.buffer();
        Wire.writeBytes(buf, bytes);
        ByteBuf copy = buf.copy();
        assertThat(Wire.readBytes(copy, "value")).isEqualTo(bytes);
        assertThat(copy.isReadable()).isFalse();
        for (int cut = 0; cut < buf.readableBytes(); cut++) {
            ByteBuf prefix = buf.slice(0, cut);
            assertThatThrownBy(() -> Wire.readBytes(prefix, "value")).isInstanceOf(MalformedFrameException.class)
                    .hasMessageContaining("value");
        }
    }

    @Test
    void aForgedBytesLengthIsRefusedWithoutAllocating() {
        ByteBuf buf = Unpooled.buffer();
        Wire.writeVarint(buf, Integer.MAX_VALUE);
        buf.writeBytes(new byte[] {1, 2, 3});
        assertThatThrownBy(() -> Wire.readBytes(buf, "qualifier")).isInstanceOf(MalformedFrameException.class)
                .hasMessageContaining("qualifier").hasMessageContaining(Integer.toString(Integer.MAX_VALUE))
                .hasMessageContaining("3 left");
        ByteBuf over = Unpooled.buffer();
        Wire.writeVarlong(over, 1L << 40);
        assertThatThrownBy(() -> Wire.readString(over, "table name")).isInstanceOf(MalformedFrameException.class)
                .hasMessageContaining("table name length");
    }

    @Test
    void strictBooleansAndFixedFields() {
        assertThat(Wire.readBoolean(of(1), "b")).isTrue();
        assertThat(Wire.readBoolean(of(0), "b")).isFalse();
        assertThatThrownBy(() -> Wire.readBoolean(of(2), "reversed")).isInstanceOf(MalformedFrameException.class)
                .hasMessageContaining("reversed");
        assertThatThrownBy(() -> Wire.readBoolean(of(), "reversed")).isInstanceOf(MalformedFrameException.class)
                .hasMessageContaining("reversed");
        assertThatThrownBy(() -> Wire.readLong(of(1, 2, 3, 4, 5, 6, 7), "timestamp"))
                .isInstanceOf(MalformedFrameException.class).hasMessageContaining("timestamp");
        assertThatThrownBy(() -> Wire.readUnsignedByte(of(), "kind")).isInstanceOf(MalformedFrameException.class)
                .hasMessageContaining("kind");
        assertThatThrownBy(() -> Wire.need(of(1), -1, "x")).isInstanceOf(MalformedFrameException.class);
        assertThatThrownBy(() -> Wire.end(of(1, 2), "PING")).isInstanceOf(MalformedFrameException.class)
                .hasMessageContaining("PING").hasMessageContaining("2 unexpected bytes");
        Wire.end(of(), "PING");
    }

    // ------------------------------------------------------------------ cell blocks

    @Provide
    Arbitrary<Cell> cells() {
        Arbitrary<byte[]> row = Arbitraries.bytes().array(byte[].class).ofMinSize(1).ofMaxSize(20);
        Arbitrary<byte[]> family = Arbitraries.bytes().array(byte[].class).ofMaxSize(8);
        Arbitrary<byte[]> qualifier = Arbitraries.bytes().array(byte[].class).ofMaxSize(20);
        Arbitrary<byte[]> value = Arbitraries.bytes().array(byte[].class).ofMaxSize(200);
        return Combinators.combine(row, family, qualifier, Arbitraries.longs().between(0, Long.MAX_VALUE),
                Arbitraries.of(CellType.class), value).as(Cell::of);
    }

    static void assertSameCell(Cell actual, Cell expected) {
        assertThat(actual.rowBytes()).isEqualTo(expected.rowBytes());
        assertThat(actual.familyBytes()).isEqualTo(expected.familyBytes());
        assertThat(actual.qualifierBytes()).isEqualTo(expected.qualifierBytes());
        assertThat(actual.timestamp()).isEqualTo(expected.timestamp());
        assertThat(actual.type()).isEqualTo(expected.type());
        assertThat(actual.valueBytes()).isEqualTo(expected.valueBytes());
    }

    @Property(tries = 300)
    void cellBlocksRoundTripAndEveryTruncationIsMalformed(@ForAll @Size(max = 10) List<@From("cells") Cell> cells) {
        ByteBuf buf = Unpooled.buffer();
        Wire.writeCells(buf, cells);
        ByteBuf copy = buf.copy();
        List<Cell> back = Wire.readCells(copy, "put");
        assertThat(copy.isReadable()).isFalse();
        assertThat(back).hasSameSizeAs(cells);
        for (int i = 0; i < cells.size(); i++) {
            assertSameCell(back.get(i), cells.get(i));
        }
        for (int cut = 0; cut < buf.readableBytes(); cut++) {
            ByteBuf prefix = buf.slice(0, cut);
            assertThatThrownBy(() -> Wire.readCells(prefix, "put")).isInstanceOf(MalformedFrameException.class)
                    .hasMessageContaining("put");
        }
    }

    /** Whatever a block holds, reading it is either cells or a MalformedFrameException, never another failure. */
    @Property(tries = 1000)
    void aCorruptedCellBlockIsMalformedNeverAnotherFailure(@ForAll @Size(min = 1, max = 6) List<@From("cells") Cell> cells,
                                                          @ForAll @Positive int where, @ForAll @IntRange(min = 1, max = 255) int mask) {
        ByteBuf buf = Unpooled.buffer();
        Wire.writeCells(buf, cells);
        int at = where % buf.readableBytes();
        buf.setByte(at, buf.getByte(at) ^ mask);
        try {
            Wire.readCells(buf, "put");
        } catch (MalformedFrameException e) {
            assertThat(e).hasMessageContaining("put");
        }
    }

    @Property(tries = 1000)
    void randomBytesAreCellsOrMalformed(@ForAll @Size(max = 100) byte[] bytes) {
        try {
            Wire.readCells(Unpooled.wrappedBuffer(bytes), "results");
        } catch (MalformedFrameException e) {
            assertThat(e).hasMessageContaining("results");
        }
    }

    @Test
    void aCellCountThatCannotFitIsRefusedBeforeAnyListIsSized() {
        ByteBuf buf = Unpooled.buffer();
        Wire.writeVarint(buf, Integer.MAX_VALUE);
        Wire.writeVarint(buf, 30);
        buf.writeZero(30);
        assertThatThrownBy(() -> Wire.readCells(buf, "mutation")).isInstanceOf(MalformedFrameException.class)
                .hasMessageContaining("mutation").hasMessageContaining("cannot fit in 30 bytes");
    }

    @Test
    void aForgedBlockLengthIsRefused() {
        ByteBuf buf = Unpooled.buffer();
        Wire.writeVarint(buf, 1);
        Wire.writeVarint(buf, Integer.MAX_VALUE);
        buf.writeZero(100);
        assertThatThrownBy(() -> Wire.readCells(buf, "mutation")).isInstanceOf(MalformedFrameException.class)
                .hasMessageContaining("mutation cell block").hasMessageContaining("100 left");
    }

    @Test
    void aBlockWithBytesAfterItsCellsIsRefused() {
        List<Cell> one = List.of(Cell.put("r", "f", "q", 1, "v"));
        ByteBuf good = Unpooled.buffer();
        Wire.writeCells(good, one);
        ByteBuf block = good.slice();
        int count = Wire.readVarint(block, "c");
        int length = Wire.readVarint(block, "l");
        ByteBuf bad = Unpooled.buffer();
        Wire.writeVarint(bad, count);
        Wire.writeVarint(bad, length + 3);
        bad.writeBytes(block, length).writeZero(3);
        assertThatThrownBy(() -> Wire.readCells(bad, "mutation")).isInstanceOf(MalformedFrameException.class)
                .hasMessageContaining("mutation").hasMessageContaining("end at byte " + length);
        // and a count that claims more cells than the block has
        ByteBuf more = Unpooled.buffer();
        Wire.writeVarint(more, 2);
        Wire.writeVarint(more, length);
        more.writeBytes(good, good.readerIndex() + good.readableBytes() - length, length);
        assertThatThrownBy(() -> Wire.readCells(more, "mutation")).isInstanceOf(MalformedFrameException.class)
                .hasMessageContaining("mutation");
    }

    @Test
    void aBlockOfAThousandCellsRoundTrips() {
        List<Cell> cells = new ArrayList<>();
        long bytes = 0;
        for (int i = 0; i < 1000; i++) {
            cells.add(Cell.put("row" + i, "f", "q", i, "value" + i));
            bytes += CellLayout.encodedLength(cells.getLast());
        }
        ByteBuf buf = Unpooled.buffer();
        Wire.writeCells(buf, cells);
        // the count's varint, and the length's, padded so it can be filled in after the cells
        assertThat(buf.readableBytes()).isEqualTo(bytes + 2 + Wire.PADDED_VARINT_SIZE);
        List<Cell> back = Wire.readCells(buf, "results");
        assertThat(back).hasSize(1000);
        for (int i = 0; i < 1000; i++) {
            assertSameCell(back.get(i), cells.get(i));
        }
    }

    @Test
    void aBlockWrittenInPartsReadsBackAsOneBlock() {
        List<List<Cell>> parts = new ArrayList<>();
        List<Cell> all = new ArrayList<>();
        for (int p = 0; p < 50; p++) {
            List<Cell> part = new ArrayList<>();
            for (int i = 0; i < p % 7; i++) { // some parts empty
                part.add(Cell.put("row" + p, "f", "q" + i, i, "v".repeat(p * 10)));
            }
            parts.add(part);
            all.addAll(part);
        }
        // A small buffer, so the block outgrows it part by part.
        ByteBuf buf = Unpooled.buffer(16);
        Wire.writeCellBlock(buf, all.size(), parts);
        List<Cell> back = Wire.readCells(buf, "results");
        assertThat(buf.isReadable()).isFalse();
        assertThat(back).hasSize(all.size());
        for (int i = 0; i < all.size(); i++) {
            assertSameCell(back.get(i), all.get(i));
        }
    }

    @Test
    void aBlockWhosePartsDoNotHoldTheAnnouncedCountIsRefused() {
        List<Cell> part = List.of(Cell.put("r", "f", "q", 1, "v"));
        assertThatThrownBy(() -> Wire.writeCellBlock(Unpooled.buffer(), 2, List.of(part)))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("announced 2 cells and holds 1");
    }

    @Test
    void aSmallBlockIsItsCountThenItsPaddedLengthThenItsCells() {
        // Gathered in one array and copied once, the bytes must be those of the layout: count,
        // length as a five-byte varint, cells. On a direct buffer, as the grouped writer's.
        Cell cell = Cell.put("row", "f", "q", 7, "value");
        byte[] encoded = CellLayout.encode(cell);
        ByteBuf buf = Unpooled.directBuffer(8);
        try {
            buf.writeByte(9); // the block need not start the buffer
            Wire.writeCells(buf, List.of(cell));
            byte[] expected = new byte[1 + 1 + Wire.PADDED_VARINT_SIZE + encoded.length];
            expected[0] = 9;
            expected[1] = 1;
            expected[2] = (byte) (encoded.length | 0x80);
            expected[3] = (byte) 0x80;
            expected[4] = (byte) 0x80;
            expected[5] = (byte) 0x80;
            expected[6] = 0;
            System.arraycopy(encoded, 0, expected, 7, encoded.length);
            assertThat(encoded.length).isLessThan(128);
            assertThat(ByteBufUtil.getBytes(buf)).isEqualTo(expected);
        } finally {
            buf.release();
        }
    }

    @Test
    void thePaddedLengthReadsAsAPlainVarint() {
        for (int value : new int[] {0, 1, 127, 128, 300, 1 << 20, Integer.MAX_VALUE}) {
            ByteBuf buf = Unpooled.buffer();
            buf.writeZero(Wire.PADDED_VARINT_SIZE);
            Wire.setPaddedVarint(buf, 0, value);
            assertThat(Wire.readVarint(buf, "length")).isEqualTo(value);
            assertThat(buf.isReadable()).isFalse();
            buf.readerIndex(0);
            for (int i = 0; i < Wire.PADDED_VARINT_SIZE; i++) {
                int group = (value >>> (7 * i)) & 0x7F;
                assertThat((int) buf.getUnsignedByte(i)).as("byte %d of %d", i, value)
                        .isEqualTo(i < Wire.PADDED_VARINT_SIZE - 1 ? group | 0x80 : group);
            }
        }
    }

    @Test
    void encodedCellsGatheredThroughTheScratchArrayKeepTheirPlaceAmongOtherCells() {
        // Array-backed encoded cells (gathered), cells from arrays and from native memory (written
        // directly), and cells larger than the gathering array, interleaved, over many parts.
        java.util.Random random = new java.util.Random(7);
        List<List<Cell>> parts = new ArrayList<>();
        List<Cell> all = new ArrayList<>();
        try (java.lang.foreign.Arena arena = java.lang.foreign.Arena.ofConfined()) {
            for (int p = 0; p < 30; p++) {
                List<Cell> part = new ArrayList<>();
                for (int i = 0; i < 20; i++) {
                    int size = random.nextInt(10) == 0 ? Wire.GATHER_SIZE + random.nextInt(1000) : random.nextInt(3000);
                    Cell plain = Cell.put("row" + p, "f", "q" + i, i, "v".repeat(size));
                    byte[] encoded = io.basalt.cell.CellLayout.encode(plain);
                    Cell cell = switch (random.nextInt(3)) {
                        case 0 -> plain;
                        case 1 -> io.basalt.cell.EncodedCell.decode(encoded, 0);
                        default -> io.basalt.cell.EncodedCell.decode(
                                arena.allocate(encoded.length).copyFrom(java.lang.foreign.MemorySegment.ofArray(encoded)), 0);
                    };
                    part.add(cell);
                    all.add(plain);
                }
                parts.add(part);
            }
            ByteBuf buf = Unpooled.directBuffer(64);
            Wire.writeCellBlock(buf, all.size(), parts);
            List<Cell> back = Wire.readCells(buf, "results");
            assertThat(back).hasSize(all.size());
            for (int i = 0; i < all.size(); i++) {
                assertSameCell(back.get(i), all.get(i));
            }
            buf.release();
        }
    }

    /**
     * Rows of every size, many larger than the gathering array and with headers on either side of
     * its flushes, read back as written: each header's counts and byte length, then the cells.
     */
    @Property(tries = 60)
    void rowSectionsReadBackAsWritten(@ForAll @Size(max = 12) List<@IntRange(max = 120) Integer> cellsPerRow,
                                      @ForAll @IntRange(min = 0, max = 3000) int valueSize) {
        List<List<Cell>> rows = new ArrayList<>();
        for (int r = 0; r < cellsPerRow.size(); r++) {
            List<Cell> cells = new ArrayList<>();
            for (int q = 0; q < cellsPerRow.get(r); q++) {
                cells.add(Cell.put(("row" + r).getBytes(), new byte[] {'f'}, ("q" + q).getBytes(), q,
                        new byte[(valueSize * (q + 1)) % 3001]));
            }
            rows.add(cells);
        }
        ByteBuf buf = Unpooled.buffer();
        buf.writeByte(42); // the section need not start the body
        Wire.writeRows(buf, Wire.Rows.of(rows, r -> r % 2 == 1));
        buf.writeByte(43);
        assertThat(buf.readByte()).isEqualTo((byte) 42);
        Wire.RowSection section = Wire.readRows(buf, "rows");
        assertThat(buf.readByte()).isEqualTo((byte) 43);
        assertThat(section.count()).isEqualTo(rows.size());
        ByteBuf in = Unpooled.wrappedBuffer(section.bytes(), section.from(), section.to() - section.from());
        for (int r = 0; r < rows.size(); r++) {
            assertThat(Wire.readVarint(in, "cells")).isEqualTo(rows.get(r).size());
            assertThat(Wire.readBoolean(in, "partial")).isEqualTo(r % 2 == 1);
            int length = Wire.readVarint(in, "bytes");
            ByteBuf expected = Unpooled.buffer();
            for (Cell c : rows.get(r)) {
                expected.writeBytes(CellLayout.encode(c));
            }
            assertThat(length).isEqualTo(expected.readableBytes());
            byte[] actual = new byte[length];
            in.readBytes(actual);
            assertThat(actual).isEqualTo(io.netty.buffer.ByteBufUtil.getBytes(expected));
        }
        assertThat(in.isReadable()).isFalse();
    }

    @Test
    void aForgedRowCountIsRefusedBeforeAnyListIsSized() {
        ByteBuf buf = Unpooled.buffer();
        Wire.writeVarint(buf, 1000);
        Wire.writeVarint(buf, 30);
        buf.writeZero(30);
        assertThatThrownBy(() -> Wire.readRows(buf, "rows")).isInstanceOf(MalformedFrameException.class)
                .hasMessageContaining("1000 rows cannot fit in 30 bytes");
        ByteBuf shortBody = Unpooled.buffer();
        Wire.writeVarint(shortBody, 1);
        Wire.writeVarint(shortBody, 30);
        shortBody.writeZero(29);
        assertThatThrownBy(() -> Wire.readRows(shortBody, "rows")).isInstanceOf(MalformedFrameException.class)
                .hasMessageContaining("rows needs 30 bytes");
    }

    @Test
    void aCellThatFitsTheGatheringArrayOnlyAfterAFlushIsWritten() {
        // 30 KB gathered, then 40 KB: the array, grown to its largest (64 KiB), cannot hold both.
        List<Cell> cells = List.of(Cell.put("r".getBytes(), new byte[] {'f'}, new byte[] {'a'}, 1, new byte[30_000]),
                Cell.put("r".getBytes(), new byte[] {'f'}, new byte[] {'b'}, 1, new byte[40_000]));
        ByteBuf buf = Unpooled.buffer();
        Wire.writeCells(buf, cells);
        assertThat(Wire.readCells(buf, "cells")).containsExactlyElementsOf(cells);
    }
}
