package io.basalt.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.basalt.cell.Cell;
import io.basalt.cell.CellComparator;
import io.basalt.cell.CellType;
import io.basalt.client.Compression;
import io.basalt.client.FamilyDescriptor;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

class SSTableTest {

    @TempDir
    Path dir;

    // Room for 128 chunks: small test blocks still take a 64 KiB chunk each.
    private final BlockCache cache = new BlockCache(8 << 20, "test");

    @org.junit.jupiter.api.AfterEach
    void closeCache() {
        cache.close();
    }

    private record Stored(Cell cell, long sequence) {}

    /** Sorted cells with shared prefixes, several versions and all types. */
    private static List<Stored> cells(int rows, long seed) {
        Random random = new Random(seed);
        TreeMap<Stored, Boolean> sorted = new TreeMap<>((a, b) -> {
            int c = CellComparator.INSTANCE.compare(a.cell, b.cell);
            return c != 0 ? c : Long.compare(b.sequence, a.sequence);
        });
        long sequence = 1;
        for (int r = 0; r < rows; r++) {
            String row = String.format("user%08d", r * 7);
            for (int q = 0; q < 1 + random.nextInt(4); q++) {
                for (int v = 0; v < 1 + random.nextInt(3); v++) {
                    CellType type = random.nextInt(10) == 0 ? CellType.DELETE_COLUMN : CellType.PUT;
                    byte[] value = new byte[type == CellType.PUT ? random.nextInt(200) : 0];
                    random.nextBytes(value);
                    Cell cell = Cell.of(row.getBytes(), "f".getBytes(), ("q" + q).getBytes(), 100 + random.nextInt(5),
                            type, value);
                    sorted.put(new Stored(cell, sequence++), true);
                }
            }
        }
        return new ArrayList<>(sorted.keySet());
    }

    private SSTableReader write(Path path, List<Stored> cells, FamilyDescriptor family) throws IOException {
        try (SSTableWriter writer = new SSTableWriter(path, family, cells.size())) {
            for (Stored s : cells) {
                writer.add(s.cell, s.sequence);
            }
            SSTableWriter.Info info = writer.finish();
            assertThat(info.entries()).isEqualTo(cells.size());
            assertThat(info.fileSize()).isEqualTo(Files.size(path));
        }
        return SSTableReader.open(1, path, cache);
    }

    private static List<Stored> readAll(SSTableReader reader) {
        List<Stored> out = new ArrayList<>();
        try (InternalIterator it = reader.newIterator()) {
            for (; it.valid(); it.next()) {
                out.add(new Stored(it.cell(), it.sequence()));
            }
        }
        return out;
    }

    @ParameterizedTest
    @EnumSource(Compression.class)
    void readsBackExactlyWhatWasWritten(Compression compression) throws IOException {
        List<Stored> cells = cells(2000, 1);
        SSTableReader reader = write(dir.resolve("t.sst"), cells,
                FamilyDescriptor.of("f").withBlockSize(4096).withCompression(compression));
        try {
            assertThat(reader.blockCount()).isGreaterThan(10);
            assertThat(readAll(reader)).isEqualTo(cells);
            assertThat(reader.entries()).isEqualTo(cells.size());
            assertThat(reader.maxSequence()).isEqualTo(cells.stream().mapToLong(Stored::sequence).max().orElseThrow());
            assertThat(reader.firstKey()).isEqualTo(withoutValue(cells.getFirst().cell));
        } finally {
            reader.release();
        }
    }

    /**
     * A file of format version 1 (no flags in its index), written by the build before version 2
     * from {@code cells(60, 11)} in 1 KiB blocks, still reads: whole, and row by row through a
     * get's iterator, which treats every block as going on into the next.
     */
    @Test
    void aVersionOneFileStillReads() throws IOException {
        Path path = dir.resolve("v1.sst");
        try (var in = SSTableTest.class.getResourceAsStream("/fixtures/sstable-format-v1.sst")) {
            Files.copy(in, path);
        }
        List<Stored> cells = cells(60, 11);
        SSTableReader reader = SSTableReader.open(1, path, cache);
        try {
            assertThat(reader.blockCount()).isGreaterThan(10);
            assertThat(readAll(reader)).isEqualTo(cells);
            for (int b = 0; b < reader.blockCount(); b++) {
                assertThat(reader.rowContinuesAfter(b)).isTrue();
            }
            int spanning = 0;
            for (List<Stored> row : rows(cells)) {
                spanning += reader.blockFor(row.getFirst().cell) == reader.blockFor(row.getLast().cell) ? 0 : 1;
                assertThat(readRow(reader.newRowIterator(), row.getFirst().cell.rowBytes())).isEqualTo(row);
            }
            assertThat(spanning).as("rows cut across blocks, as version 1's writer did").isPositive();
            for (List<Stored> row : rows(cells)) { // its filter is of the spread layout, read as such
                assertThat(reader.mightContainRow(row.getFirst().cell.rowBytes())).isTrue();
            }
            int absentPassed = 0;
            for (int i = 0; i < 1_000; i++) {
                absentPassed += reader.mightContainRow(("absent" + i).getBytes()) ? 1 : 0;
            }
            assertThat(absentPassed).as("absent rows the filter let through").isLessThan(100);
        } finally {
            reader.release();
        }
    }

    /** A flag bit this build does not know is damage, reported with the file, not ignored. */
    @Test
    void anUnknownIndexFlagIsReportedAsDamage() throws IOException {
        List<Stored> cells = cells(40, 12);
        Path path = dir.resolve("flags.sst");
        write(path, cells, FamilyDescriptor.of("f").withBlockSize(1024)).release();
        byte[] bytes = Files.readAllBytes(path);
        java.nio.ByteBuffer footer = java.nio.ByteBuffer.wrap(bytes, bytes.length - SSTableLayout.FOOTER_SIZE,
                SSTableLayout.FOOTER_SIZE).slice();
        int indexOffset = (int) footer.getLong(SSTableLayout.FOOTER_INDEX_OFFSET);
        int indexSize = footer.getInt(SSTableLayout.FOOTER_INDEX_SIZE);
        int payload = indexSize - SSTableLayout.BLOCK_TRAILER_SIZE;
        int lastFlag = indexOffset + payload - 1; // the last entry's flags varint: 0, the file's last block
        assertThat(bytes[lastFlag]).isZero();
        bytes[lastFlag] = 2;
        java.util.zip.CRC32C crc = new java.util.zip.CRC32C(); // a well-formed block, so only the flag is wrong
        crc.update(bytes, indexOffset, payload + 5);
        java.nio.ByteBuffer.wrap(bytes).putInt(indexOffset + payload + 5, (int) crc.getValue());
        Path damaged = dir.resolve("flags-damaged.sst");
        Files.write(damaged, bytes);
        assertThatThrownBy(() -> SSTableReader.open(2, damaged, cache)).isInstanceOf(CorruptFileException.class)
                .hasMessageContaining("flags of data block");
    }

    /** 600 rows of 1 to 12 cells of 100-160 bytes, as YCSB's; every 50th row has 40, more than a 4 KiB block. */
    private static List<Stored> ycsbLikeRows(long seed) {
        Random random = new Random(seed);
        List<Stored> cells = new ArrayList<>();
        long sequence = 1;
        for (int r = 0; r < 600; r++) {
            byte[] row = String.format("user%019d", r).getBytes();
            int columns = r % 50 == 49 ? 40 : 1 + random.nextInt(12);
            for (int q = 0; q < columns; q++) {
                byte[] value = new byte[100 + random.nextInt(60)];
                random.nextBytes(value);
                cells.add(new Stored(Cell.of(row, "f".getBytes(), String.format("field%02d", q).getBytes(), 100,
                        CellType.PUT, value), sequence++));
            }
        }
        return cells;
    }

    /**
     * A get's iterator ({@link SSTableReader#newRowIterator}) stops where its row ends a block, so
     * it reads one block for a row that fits one; a plain iterator reads the next block to see the
     * next row begin. Every row read both ways gives the same cells.
     */
    @Test
    void aGetReadsOneBlockForARowThatEndsOne() throws IOException {
        List<Stored> cells = ycsbLikeRows(8);
        SSTableReader reader = write(dir.resolve("get.sst"), cells, FamilyDescriptor.of("f").withBlockSize(4096));
        try {
            int rowsEndingABlock = 0;
            List<List<Stored>> rows = rows(cells);
            for (int r = 0; r < rows.size(); r++) {
                List<Stored> expected = rows.get(r);
                byte[] row = expected.getFirst().cell.rowBytes();
                int lastBlock = reader.blockFor(expected.getLast().cell);
                boolean oneBlock = reader.blockFor(expected.getFirst().cell) == lastBlock;
                boolean endsBlock = r + 1 < rows.size() && lastBlock != reader.blockFor(rows.get(r + 1).getFirst().cell);
                long before = cache.hits() + cache.misses();
                assertThat(readRow(reader.newRowIterator(), row)).isEqualTo(expected);
                long rowReads = cache.hits() + cache.misses() - before;
                before = cache.hits() + cache.misses();
                assertThat(readRow(reader.newIterator(), row)).isEqualTo(expected);
                long plainReads = cache.hits() + cache.misses() - before;
                if (oneBlock) {
                    assertThat(rowReads).as("blocks read for row %s", new String(row)).isEqualTo(1);
                }
                if (oneBlock && endsBlock) {
                    rowsEndingABlock++;
                    assertThat(plainReads).isEqualTo(2);
                }
            }
            assertThat(rowsEndingABlock).isGreaterThan(100);
        } finally {
            reader.release();
        }
    }

    /** {@code cells} cut into rows: each row's cells, in order. */
    private static List<List<Stored>> rows(List<Stored> cells) {
        List<List<Stored>> rows = new ArrayList<>();
        for (int i = 0, first = 0; i < cells.size(); i++) {
            if (i + 1 == cells.size() || !java.util.Arrays.equals(cells.get(i + 1).cell.rowBytes(),
                    cells.get(i).cell.rowBytes())) {
                rows.add(cells.subList(first, i + 1));
                first = i + 1;
            }
        }
        return rows;
    }

    /** Seeks to the row and reads its cells as a get does: until the next cell is of another row. */
    private static List<Stored> readRow(InternalIterator it, byte[] row) {
        List<Stored> out = new ArrayList<>();
        try (it) {
            it.seek(SeekKey.firstOnRow(row));
            for (; it.valid() && java.util.Arrays.equals(it.cell().rowBytes(), row); it.next()) {
                out.add(new Stored(it.cell(), it.sequence()));
            }
        }
        return out;
    }

    /**
     * A row that fits a block lies in one, so a get that misses the cache reads one block: rows of
     * ten 150-byte cells (YCSB's) in 4 KiB blocks, cut at any cell, spanned two blocks about a
     * third of the time. A row larger than a block still spans, and every block still fits its size.
     */
    @ParameterizedTest
    @EnumSource(Compression.class)
    void aRowThatFitsABlockIsNeverCutAcrossTwo(Compression compression) throws IOException {
        List<Stored> cells = ycsbLikeRows(7);
        int blockSize = 4096;
        SSTableReader reader = write(dir.resolve("rows.sst"), cells,
                FamilyDescriptor.of("f").withBlockSize(blockSize).withCompression(compression));
        try {
            assertThat(readAll(reader)).isEqualTo(cells);
            int spanned = 0;
            int large = 0;
            for (List<Stored> row : rows(cells)) {
                int rowBytes = 0;
                for (Stored c : row) {
                    rowBytes += io.basalt.cell.CellLayout.encode(c.cell).length;
                }
                boolean oneBlock = reader.blockFor(row.getFirst().cell) == reader.blockFor(row.getLast().cell);
                if (rowBytes < blockSize / 2) {
                    assertThat(oneBlock).as("row %s of %d bytes", new String(row.getFirst().cell.rowBytes()), rowBytes)
                            .isTrue();
                } else if (rowBytes > blockSize) {
                    large++;
                    spanned += oneBlock ? 0 : 1;
                }
            }
            assertThat(large).isEqualTo(12);
            assertThat(spanned).isEqualTo(large);
            for (int b = 0; b < reader.blockCount(); b++) {
                assertThat(reader.blockDiskSize(b)).isLessThanOrEqualTo(blockSize);
            }
        } finally {
            reader.release();
        }
    }

    private static Cell withoutValue(Cell cell) {
        return Cell.of(cell.rowBytes(), cell.familyBytes(), cell.qualifierBytes(), cell.timestamp(), cell.type(),
                new byte[0]);
    }

    @Test
    void lz4MakesCompressibleDataSmaller() throws IOException {
        List<Stored> cells = new ArrayList<>();
        for (int i = 0; i < 1000; i++) {
            cells.add(new Stored(Cell.put(String.format("row%06d", i), "f", "q", 1, "x".repeat(100)), i + 1));
        }
        SSTableReader plain = write(dir.resolve("plain.sst"), cells, FamilyDescriptor.of("f").withBloomBitsPerKey(10));
        SSTableReader lz4 = write(dir.resolve("lz4.sst"), cells, FamilyDescriptor.of("f").withCompression(Compression.LZ4));
        try {
            assertThat(lz4.fileSize()).isLessThan(plain.fileSize() / 3);
            assertThat(readAll(lz4)).isEqualTo(cells);
        } finally {
            plain.release();
            lz4.release();
        }
    }

    /**
     * Entry headers are decoded from one eight-byte read when they fit; headers that do not (long
     * sequence numbers, long suffixes and values) and entries at a block's end take the byte path.
     */
    @Test
    void entriesWithHeadersLongerThanEightBytesReadBackAndSeek() throws IOException {
        List<Stored> cells = new ArrayList<>();
        Random random = new Random(5);
        for (int i = 0; i < 3000; i++) {
            long sequence = switch (i % 3) {
                case 0 -> 1 + i;
                case 1 -> (1L << 50) + i;
                default -> Long.MAX_VALUE - i;
            };
            byte[] value = new byte[random.nextInt(3) == 0 ? 20_000 : random.nextInt(300)];
            random.nextBytes(value);
            String qualifier = i % 7 == 0 ? "q".repeat(200) : "q";
            cells.add(new Stored(Cell.put(String.format("row%06d", i).getBytes(), "f".getBytes(), qualifier.getBytes(),
                    1, value), sequence));
        }
        SSTableReader reader = write(dir.resolve("t.sst"), cells, FamilyDescriptor.of("f").withBlockSize(4096));
        try {
            assertThat(readAll(reader)).isEqualTo(cells);
            try (InternalIterator it = reader.newIterator()) {
                for (int i = 0; i < cells.size(); i += 7) {
                    it.seek(SeekKey.firstOnRow(cells.get(i).cell.rowBytes()));
                    assertThat(new Stored(it.cell(), it.sequence())).isEqualTo(cells.get(i));
                }
            }
        } finally {
            reader.release();
        }
    }

    /**
     * The index search decides most steps by the first sixteen bytes of each block's last row
     * ({@link io.basalt.bytes.Bytes#word}): rows here are built to make those words tie or
     * mislead, sharing eight or sixteen bytes, shorter than a word, ending in zero bytes (which
     * the padding imitates), so every seek must still land on the first cell at or after its row.
     */
    @Test
    void seeksAgreeWhereRowPrefixesTieOrArePadded() throws IOException {
        Random random = new Random(11);
        java.util.TreeSet<byte[]> rows = new java.util.TreeSet<>(java.util.Arrays::compareUnsigned);
        byte[][] stems = {new byte[0], "abcdefgh".getBytes(), "abcdefghijklmnop".getBytes(), {'a', 0, 0}};
        while (rows.size() < 3000) {
            byte[] stem = stems[random.nextInt(stems.length)];
            byte[] row = java.util.Arrays.copyOf(stem, stem.length + random.nextInt(12));
            for (int i = stem.length; i < row.length; i++) {
                row[i] = (byte) (random.nextInt(3) == 0 ? 0 : random.nextInt(4) * 60);
            }
            if (row.length > 0) {
                rows.add(row);
            }
        }
        List<Stored> cells = new ArrayList<>();
        long sequence = 1;
        for (byte[] row : rows) {
            cells.add(new Stored(Cell.of(row, "f".getBytes(), "q".getBytes(), 1, CellType.PUT, new byte[40]), sequence++));
        }
        SSTableReader reader = write(dir.resolve("t.sst"), cells, FamilyDescriptor.of("f").withBlockSize(1024));
        try {
            assertThat(reader.blockCount()).isGreaterThan(50);
            List<byte[]> sorted = new ArrayList<>(rows);
            try (InternalIterator it = reader.newIterator()) {
                for (int i = 0; i < 3000; i++) {
                    byte[] target = i % 2 == 0 ? sorted.get(random.nextInt(sorted.size()))
                            : java.util.Arrays.copyOf(sorted.get(random.nextInt(sorted.size())), 1 + random.nextInt(14));
                    byte[] expected = rows.ceiling(target);
                    it.seek(SeekKey.firstOnRow(target));
                    if (expected == null) {
                        assertThat(it.valid()).isFalse();
                    } else {
                        assertThat(it.valid()).isTrue();
                        assertThat(it.cell().rowBytes()).as("seek to %s", java.util.Arrays.toString(target))
                                .isEqualTo(expected);
                    }
                }
            }
        } finally {
            reader.release();
        }
    }

    @Test
    void seekFindsTheFirstEntryAtOrAfterTheKey() throws IOException {
        List<Stored> cells = cells(500, 2);
        SSTableReader reader = write(dir.resolve("t.sst"), cells, FamilyDescriptor.of("f").withBlockSize(1024));
        Random random = new Random(3);
        try (InternalIterator it = reader.newIterator()) {
            for (int i = 0; i < 500; i++) {
                String row = String.format("user%08d", random.nextInt(500 * 7 + 10));
                it.seek(SeekKey.firstOnRow(row.getBytes()));
                Stored expected = cells.stream()
                        .filter(s -> CellComparator.INSTANCE.compare(s.cell, SeekKey.firstOnRow(row.getBytes())) >= 0)
                        .findFirst().orElse(null);
                if (expected == null) {
                    assertThat(it.valid()).isFalse();
                } else {
                    assertThat(it.valid()).isTrue();
                    assertThat(it.cell()).isEqualTo(expected.cell);
                    assertThat(it.sequence()).isEqualTo(expected.sequence);
                }
            }
        } finally {
            reader.release();
        }
    }

    @Test
    void rowBeforeFindsThePreviousRow() throws IOException {
        List<Stored> cells = cells(300, 4);
        SSTableReader reader = write(dir.resolve("t.sst"), cells, FamilyDescriptor.of("f").withBlockSize(1024));
        try {
            assertThat(new String(reader.rowBefore(null))).isEqualTo(String.format("user%08d", 299 * 7));
            assertThat(reader.rowBefore("user00000000".getBytes())).isNull();
            assertThat(new String(reader.rowBefore("user00000700".getBytes()))).isEqualTo("user00000693");
            assertThat(new String(reader.rowBefore("user00000701".getBytes()))).isEqualTo("user00000700");
        } finally {
            reader.release();
        }
    }

    /**
     * A family's bits per row size the file's filter for the rows it holds (not its entries, which
     * made YCSB's filters ten times the size asked for); the file keeps its probes, so reading
     * needs no setting.
     */
    @Test
    void theFamilysBloomBitsSizeTheFilterTheFileCarries() throws IOException {
        List<Stored> cells = cells(2000, 1);
        SSTableReader plain = write(dir.resolve("plain.sst"), cells, FamilyDescriptor.of("f").withBloomBitsPerKey(10));
        SSTableReader wide = write(dir.resolve("wide.sst"), cells, FamilyDescriptor.of("f").withBloomBitsPerKey(24));
        try {
            // the filter is sized for the rows the file holds, not its entries (several a row here)
            long rows = cells.stream().map(c -> new String(c.cell().rowBytes())).distinct().count();
            assertThat(cells.size()).isGreaterThan((int) rows * 2);
            assertThat(wide.fileSize() - plain.fileSize()).isEqualTo(rows * 24 / 8 - rows * 10 / 8);
            int plainPositives = 0;
            int widePositives = 0;
            for (int i = 0; i < 20_000; i++) {
                byte[] absent = String.format("absent%08d", i).getBytes();
                plainPositives += plain.mightContainRow(absent) ? 1 : 0;
                widePositives += wide.mightContainRow(absent) ? 1 : 0;
            }
            for (Stored c : cells) {
                assertThat(wide.mightContainRow(c.cell().rowBytes())).isTrue();
            }
            assertThat(plainPositives).as("10 bits a row: about 0.8%% of 20,000").isBetween(60, 350);
            assertThat(widePositives).as("24 bits a row: about 0.001%%").isLessThan(10);

        } finally {
            plain.release();
            wide.release();
        }
    }

    @Test
    void bloomFilterRulesOutAbsentRows() throws IOException {
        List<Stored> cells = cells(1000, 5);
        SSTableReader reader = write(dir.resolve("t.sst"), cells, FamilyDescriptor.of("f"));
        try {
            int falsePositives = 0;
            for (int i = 0; i < 1000; i++) {
                assertThat(reader.mightContainRow(String.format("user%08d", i * 7).getBytes())).isTrue();
                if (reader.mightContainRow(String.format("absent%08d", i).getBytes())) {
                    falsePositives++;
                }
            }
            assertThat(falsePositives).as("about 1%% expected").isLessThan(50);
        } finally {
            reader.release();
        }
    }

    /**
     * Flips one bit at each of 1,500 positions (every byte of the index, meta, bloom and footer at
     * the end of the file, a seeded sample of the data blocks): each must be reported as damage.
     */
    @Test
    void byteFlipsAreReportedAsDamageNeverReadAsData() throws IOException {
        List<Stored> cells = cells(40, 6);
        Path path = dir.resolve("t.sst");
        SSTableReader clean = write(path, cells, FamilyDescriptor.of("f").withBlockSize(1024)
                .withCompression(Compression.LZ4));
        clean.release();
        byte[] original = Files.readAllBytes(path);
        Path damaged = dir.resolve("damaged.sst");
        java.util.SortedSet<Integer> positions = new java.util.TreeSet<>();
        int tail = Math.min(original.length, 700);
        for (int at = original.length - tail; at < original.length; at++) {
            positions.add(at);
        }
        Random random = new Random(9);
        while (positions.size() < Math.min(original.length, 1500)) {
            positions.add(random.nextInt(original.length));
        }
        for (int at : positions) {
            byte[] bytes = original.clone();
            bytes[at] ^= (byte) (1 << (at % 8));
            Files.write(damaged, bytes);
            int position = at;
            assertThatThrownBy(() -> {
                SSTableReader reader = SSTableReader.open(2, damaged, new BlockCache(0, "test"));
                try {
                    readAll(reader);
                } finally {
                    reader.release();
                }
            }).as("flip at byte %d of %d", position, original.length)
                    .isInstanceOf(CorruptFileException.class)
                    .hasMessageContaining(damaged.toString());
        }
    }

    private static List<Stored> readAllForCompaction(SSTableReader reader) {
        List<Stored> out = new ArrayList<>();
        try (InternalIterator it = reader.newCompactionIterator()) {
            for (; it.valid(); it.next()) {
                out.add(new Stored(io.basalt.cell.EncodedCell.decode(io.basalt.cell.CellLayout.encode(it.cell()), 0),
                        it.sequence()));
            }
        }
        return out;
    }

    /**
     * A compaction's input reads {@link IoBuffers#BYTES} at a time: a file several
     * times that size, with cells large enough that their blocks are read on their own between
     * read-ahead ones, reads back whole and in order, compressed or not.
     */
    @ParameterizedTest
    @EnumSource(Compression.class)
    void aCompactionsReadAheadReadsBackExactlyWhatWasWritten(Compression compression) throws IOException {
        List<Stored> cells = new ArrayList<>(cells(3000, 21));
        Random random = new Random(22);
        for (int r : new int[] {10, 1500, 2999}) {
            byte[] huge = new byte[IoBuffers.BYTES / 2 + 1000 * r % 7919];
            random.nextBytes(huge);
            String row = String.format("user%08d", r * 7) + "x"; // between two rows of cells(...)
            cells.add(new Stored(Cell.of(row.getBytes(), "f".getBytes(), "q".getBytes(), 100, CellType.PUT, huge), 1));
        }
        cells.sort((a, b) -> {
            int c = CellComparator.INSTANCE.compare(a.cell, b.cell);
            return c != 0 ? c : Long.compare(b.sequence, a.sequence);
        });
        SSTableReader reader = write(dir.resolve("t.sst"), cells,
                FamilyDescriptor.of("f").withBlockSize(4096).withCompression(compression));
        try {
            assertThat(Files.size(dir.resolve("t.sst"))).isGreaterThan(3L * IoBuffers.BYTES);
            assertThat(readAllForCompaction(reader)).isEqualTo(cells);
        } finally {
            reader.release();
        }
    }

    /** The local disk, counting the reads of the files it opens and the writes of those it creates. */
    private static Disk countingDisk(java.util.concurrent.atomic.AtomicInteger reads,
                                     java.util.concurrent.atomic.AtomicInteger writes) {
        return (Disk) java.lang.reflect.Proxy.newProxyInstance(Disk.class.getClassLoader(),
                new Class<?>[] {Disk.class}, (proxy, method, args) -> {
                    Object result;
                    try {
                        result = method.invoke(LocalDisk.INSTANCE, args);
                    } catch (java.lang.reflect.InvocationTargetException e) {
                        throw e.getCause();
                    }
                    if (result instanceof Disk.ReadableFile file) {
                        return new Disk.ReadableFile() {
                            @Override
                            public void read(java.nio.ByteBuffer into, long position) throws IOException {
                                reads.incrementAndGet();
                                file.read(into, position);
                            }

                            @Override
                            public long size() throws IOException {
                                return file.size();
                            }

                            @Override
                            public void close() throws IOException {
                                file.close();
                            }
                        };
                    }
                    if (result instanceof Disk.WritableFile file) {
                        return (Disk.WritableFile) java.lang.reflect.Proxy.newProxyInstance(
                                Disk.class.getClassLoader(), new Class<?>[] {Disk.WritableFile.class}, (p, m, a) -> {
                                    if (m.getName().equals("write")) {
                                        writes.incrementAndGet();
                                    }
                                    try {
                                        return m.invoke(file, a);
                                    } catch (java.lang.reflect.InvocationTargetException e) {
                                        throw e.getCause();
                                    }
                                });
                    }
                    return result;
                });
    }

    /** A writer writes in writes of {@link IoBuffers#BYTES}, not one or two per block. */
    @Test
    void aWriterWritesInLargeWrites() throws IOException {
        Path path = dir.resolve("t.sst");
        List<Stored> cells = cells(3000, 26);
        java.util.concurrent.atomic.AtomicInteger writes = new java.util.concurrent.atomic.AtomicInteger();
        Disk counting = countingDisk(new java.util.concurrent.atomic.AtomicInteger(), writes);
        try (SSTableWriter writer = new SSTableWriter(path, FamilyDescriptor.of("f").withBlockSize(4096), cells.size(),
                counting, Disk.Purpose.FLUSH)) {
            for (Stored c : cells) {
                writer.add(c.cell, c.sequence);
            }
            assertThat(writer.finish().fileSize()).isEqualTo(Files.size(path));
        }
        assertThat(Files.size(path)).isGreaterThan(3L * IoBuffers.BYTES);
        assertThat(writes.get()).isLessThanOrEqualTo((int) (Files.size(path) / IoBuffers.BYTES) + 1);
        SSTableReader reader = SSTableReader.open(1, path, cache);
        try {
            assertThat(readAll(reader)).isEqualTo(cells);
        } finally {
            reader.release();
        }
    }

    /** A compaction reads its inputs in reads of {@link IoBuffers#BYTES}, not one per block. */
    @Test
    void aCompactionReadsItsInputInLargeReads() throws IOException {
        Path path = dir.resolve("t.sst");
        List<Stored> cells = cells(3000, 25);
        write(path, cells, FamilyDescriptor.of("f").withBlockSize(4096)).release();
        java.util.concurrent.atomic.AtomicInteger reads = new java.util.concurrent.atomic.AtomicInteger();
        Disk counting = countingDisk(reads, new java.util.concurrent.atomic.AtomicInteger());
        SSTableReader reader = SSTableReader.open(1, path, new BlockCache(0, "test"), counting);
        try {
            int opening = reads.get();
            assertThat(readAllForCompaction(reader)).isEqualTo(cells);
            long size = Files.size(path);
            assertThat(reader.blockCount()).isGreaterThan(100);
            assertThat(reads.get() - opening).isLessThanOrEqualTo((int) (size / IoBuffers.BYTES) + 2);
        } finally {
            reader.release();
        }
    }

    /** A closed compaction input gives its read-ahead buffer back, and the next input takes it. */
    @Test
    void aClosedCompactionInputsBufferServesTheNext() throws IOException {
        List<Stored> cells = cells(300, 27);
        SSTableReader reader = write(dir.resolve("t.sst"), cells, FamilyDescriptor.of("f").withBlockSize(4096));
        try {
            assertThat(readAllForCompaction(reader)).isEqualTo(cells); // leaves a spare, or finds one
            int spares = IoBuffers.spares();
            assertThat(spares).isPositive();
            try (InternalIterator it = reader.newCompactionIterator()) {
                assertThat(it.valid()).isTrue();
                assertThat(IoBuffers.spares()).as("taken by the open input").isEqualTo(spares - 1);
            }
            assertThat(IoBuffers.spares()).as("given back on close").isEqualTo(spares);
        } finally {
            reader.release();
        }
    }

    /** A flipped bit in a data block read ahead for a compaction is reported, never read as data. */
    @Test
    void aFlipInABlockReadAheadIsReportedAsDamage() throws IOException {
        List<Stored> cells = cells(2000, 23);
        Path path = dir.resolve("t.sst");
        SSTableReader clean = write(path, cells, FamilyDescriptor.of("f").withBlockSize(4096));
        long dataEnd;
        try {
            dataEnd = clean.blockOffset(clean.blockCount() - 1) + clean.blockSize(clean.blockCount() - 1);
        } finally {
            clean.release();
        }
        byte[] original = Files.readAllBytes(path);
        Path damaged = dir.resolve("damaged.sst");
        Random random = new Random(24);
        for (int n = 0; n < 200; n++) {
            int at = random.nextInt((int) dataEnd);
            byte[] bytes = original.clone();
            bytes[at] ^= (byte) (1 << (at % 8));
            Files.write(damaged, bytes);
            SSTableReader reader = SSTableReader.open(2, damaged, new BlockCache(0, "test"));
            try {
                assertThatThrownBy(() -> readAllForCompaction(reader)).as("flip at byte %d", at)
                        .satisfies(e -> assertThat(e instanceof CorruptFileException ? e : e.getCause())
                                .isInstanceOf(CorruptFileException.class).hasMessageContaining(damaged.toString()));
            } finally {
                reader.release();
            }
        }
    }

    @Test
    void truncatedFileIsReported() throws IOException {
        Path path = dir.resolve("t.sst");
        write(path, cells(10, 7), FamilyDescriptor.of("f")).release();
        byte[] bytes = Files.readAllBytes(path);
        Files.write(path, java.util.Arrays.copyOf(bytes, bytes.length - 10));
        assertThatThrownBy(() -> SSTableReader.open(1, path, new BlockCache(0, "test")))
                .isInstanceOf(CorruptFileException.class).hasMessageContaining("magic");
    }

    @Test
    void blockCacheServesRepeatedReadsAndCountsThem() throws IOException {
        Path path = dir.resolve("t.sst");
        try (SSTableWriter writer = new SSTableWriter(path, FamilyDescriptor.of("f").withBlockSize(1024), 100)) {
            for (Stored s : cells(100, 8)) {
                writer.add(s.cell, s.sequence);
            }
            writer.finish();
        }
        SSTableReader reader = SSTableReader.open(1, path, cache);
        try {
            readAll(reader);
            long misses = cache.misses();
            readAll(reader);
            assertThat(cache.misses()).isEqualTo(misses);
            assertThat(cache.hits()).isGreaterThanOrEqualTo(reader.blockCount());
        } finally {
            reader.release();
        }
        assertThat(cache.bytes()).as("closing the file evicts its blocks").isZero();
    }

    /**
     * Cells on heap arrays (memtables, compactions) and cells on native segments make the same
     * file, at block sizes that cut rows, move them to the next block and span blocks.
     */
    @ParameterizedTest
    @org.junit.jupiter.params.provider.ValueSource(ints = {1024, 4096, 16384})
    void cellsOnArraysAndOffHeapWriteTheSameFile(int blockSize) throws IOException {
        List<Stored> cells = cells(300, 17);
        FamilyDescriptor family = FamilyDescriptor.of("f").withBlockSize(blockSize);
        Path onHeap = dir.resolve("heap.sst");
        Path offHeap = dir.resolve("native.sst");
        try (java.lang.foreign.Arena arena = java.lang.foreign.Arena.ofConfined();
             SSTableWriter heapWriter = new SSTableWriter(onHeap, family, cells.size());
             SSTableWriter nativeWriter = new SSTableWriter(offHeap, family, cells.size())) {
            for (Stored s : cells) {
                byte[] encoded = io.basalt.cell.CellLayout.encode(s.cell);
                io.basalt.cell.EncodedCell heap = io.basalt.cell.EncodedCell.decode(encoded, 0);
                java.lang.foreign.MemorySegment segment = arena.allocate(encoded.length + 7);
                java.lang.foreign.MemorySegment.copy(java.lang.foreign.MemorySegment.ofArray(encoded), 0, segment, 7,
                        encoded.length);
                io.basalt.cell.EncodedCell offHeapCell = io.basalt.cell.EncodedCell.decode(segment, 7, segment.byteSize());
                assertThat(heap.array()).isNotNull();
                assertThat(offHeapCell.array()).isNull();
                heapWriter.add(heap, s.sequence);
                nativeWriter.add(offHeapCell, s.sequence);
            }
            heapWriter.finish();
            nativeWriter.finish();
        }
        assertThat(Files.readAllBytes(onHeap)).isEqualTo(Files.readAllBytes(offHeap));
        SSTableReader reader = SSTableReader.open(1, onHeap, cache);
        try {
            assertThat(readAll(reader)).isEqualTo(cells);
        } finally {
            reader.release();
        }
    }
    /**
     * A compaction's path, entries copied by key and value from a file's iterator (through a
     * merge, as a compaction reads them) with no cell made, writes the same file as the cells do,
     * at block sizes that cut rows, move them to the next block and span blocks.
     */
    @ParameterizedTest
    @org.junit.jupiter.params.provider.ValueSource(ints = {1024, 4096, 16384})
    void entriesCopiedFromAFileWriteTheSameFileAsItsCells(int blockSize) throws IOException {
        List<Stored> cells = cells(300, 23);
        FamilyDescriptor family = FamilyDescriptor.of("f").withBlockSize(blockSize);
        Path original = dir.resolve("cells.sst");
        Path copy = dir.resolve("entries.sst");
        SSTableReader reader = write(original, cells, family);
        try (MergingIterator merged = new MergingIterator(List.of(reader.newCompactionIterator()));
             SSTableWriter writer = new SSTableWriter(copy, family, cells.size())) {
            for (; merged.valid(); merged.next()) {
                merged.checkKey();
                assertThat(merged.keyArray()).isNotNull();
                writer.add(merged, merged.keyArray(), (int) merged.keyOffset(), merged.keyLength());
            }
            assertThat(writer.finish().entries()).isEqualTo(cells.size());
        } finally {
            reader.release();
        }
        assertThat(Files.readAllBytes(copy)).isEqualTo(Files.readAllBytes(original));
    }

    /**
     * An entry whose key is not a cell's (a bug that wrote one, or damage the checksum missed) is
     * refused by the check a compaction makes before it copies the entry, as making its cell is.
     */
    @Test
    void aMalformedKeyIsReportedByTheCheckACompactionMakes() throws IOException {
        // Between two good entries: opening the file checks its first and last keys.
        List<byte[]> keys = new ArrayList<>();
        for (String row : List.of("a", "m", "z")) {
            keys.add(io.basalt.cell.CellLayout.keyBytes(Cell.of(row.getBytes(), "f".getBytes(), "q".getBytes(), 5,
                    CellType.PUT, new byte[0])));
        }
        byte[] bad = keys.get(1);
        bad[bad.length - 1] = (byte) 0x7E; // no cell type has this code
        InternalIterator values = new ListSource(List.of(new ListSource.Entry(Cell.of("v".getBytes(),
                "f".getBytes(), "q".getBytes(), 5, CellType.PUT, "v".getBytes()), 9)));
        Path path = dir.resolve("bad.sst");
        try (SSTableWriter writer = new SSTableWriter(path, FamilyDescriptor.of("f"), 3)) {
            for (byte[] key : keys) {
                writer.add(values, key, 0, key.length);
            }
            writer.finish();
        }
        SSTableReader reader = SSTableReader.open(1, path, cache);
        try (InternalIterator it = reader.newCompactionIterator()) {
            it.checkKey();
            it.next();
            assertThat(it.valid()).isTrue();
            assertThatThrownBy(it::checkKey).isInstanceOf(CorruptFileException.class)
                    .hasMessageContaining("unknown cell type code 126");
            assertThatThrownBy(it::cell).isInstanceOf(CorruptFileException.class);
        } finally {
            reader.release();
        }
    }
}
