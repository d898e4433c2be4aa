package io.basalt.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.basalt.cell.Cell;
import io.basalt.client.BasaltException;
import io.basalt.client.StoreOptions;
import io.basalt.client.StoreOptions.WalCorruptionPolicy;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class WriteAheadLogTest {

    @TempDir
    Path dir;

    private final StoreOptions options = StoreOptions.defaults().withWalSegmentSize(64 * 1024);

    private static List<Cell> row(int i) {
        return List.of(Cell.put("row" + i, "f", "a", i, "value-" + i), Cell.put("row" + i, "f", "b", i, "other"));
    }

    private WriteAheadLog open(Mvcc mvcc) throws IOException {
        return open(mvcc, options);
    }

    private WriteAheadLog open(Mvcc mvcc, StoreOptions with) throws IOException {
        WriteAheadLog.Replayed replayed = WriteAheadLog.replay(dir, with.walCorruption(), e -> {});
        return WriteAheadLog.open(dir, with, mvcc, replayed);
    }

    private List<WalRecordLayout.Entry> replay(WalCorruptionPolicy policy) throws IOException {
        List<WalRecordLayout.Entry> entries = new ArrayList<>();
        WriteAheadLog.replay(dir, policy, entries::add);
        return entries;
    }

    private void write(int records) throws Exception {
        Mvcc mvcc = new Mvcc(0);
        try (WriteAheadLog wal = open(mvcc)) {
            List<CompletableFuture<Void>> durable = new ArrayList<>();
            for (int i = 1; i <= records; i++) {
                durable.add(wal.append(7, row(i)).durable());
            }
            CompletableFuture.allOf(durable.toArray(CompletableFuture[]::new)).get(30, TimeUnit.SECONDS);
        }
    }

    /**
     * Appends records {@code from} to {@code to} in waves of fifty, each waited for, so that no
     * batch is much larger than a wave and segments roll at about their size (64 KiB, ~1,200 records).
     */
    private static void appendInWaves(WriteAheadLog wal, int from, int to) throws Exception {
        CompletableFuture<Void> last = null;
        for (int i = from; i <= to; i++) {
            last = wal.append(1, row(i)).durable();
            if ((i - from) % 50 == 49 || i == to) {
                last.get(30, TimeUnit.SECONDS);
            }
        }
    }

    private Path onlySegment() throws IOException {
        try (var files = Files.list(dir)) {
            return files.filter(p -> p.toString().endsWith(".wal")).sorted().findFirst().orElseThrow();
        }
    }

    @Test
    void replayReturnsEveryRecordInSequenceOrderAcrossSegments() throws Exception {
        write(2000);

        List<WalRecordLayout.Entry> entries = replay(WalCorruptionPolicy.REFUSE);

        assertThat(entries).hasSize(2000);
        for (int i = 0; i < entries.size(); i++) {
            assertThat(entries.get(i).sequence()).isEqualTo(i + 1);
            assertThat(entries.get(i).tableId()).isEqualTo(7);
            assertThat(entries.get(i).cells()).isEqualTo(row(i + 1));
        }
        try (var files = Files.list(dir)) {
            // The syncer rolls after a batch that crossed 64 KiB; how many batches 2,000 appends make
            // depends on timing, but 250 KiB of records need at least one roll.
            assertThat(files.count()).as("segments rolled at 64 KiB").isGreaterThanOrEqualTo(2);
        }
    }

    @Test
    void concurrentWritersShareForces() throws Exception {
        Mvcc mvcc = new Mvcc(0);
        try (WriteAheadLog wal = open(mvcc)) {
            List<CompletableFuture<Void>> durable = new ArrayList<>();
            for (int i = 1; i <= 500; i++) {
                durable.add(wal.append(1, row(i)).durable());
            }
            CompletableFuture.allOf(durable.toArray(CompletableFuture[]::new)).get(30, TimeUnit.SECONDS);
            assertThat(wal.forces()).isPositive().isLessThan(500);
            assertThat(wal.batches()).isEqualTo(wal.forces());
        }
    }

    /**
     * Fifty batches of 100 records, each appended without waking the syncer and then woken once:
     * about one force per batch. (Waking on every append forces the first record alone and the
     * rest after it, two per batch; a syncer that happens to be awake may split a batch now and
     * then, hence the margin.)
     */
    @Test
    void aBatchAppendedWithoutWakingSharesOneForce() throws Exception {
        Mvcc mvcc = new Mvcc(0);
        try (WriteAheadLog wal = open(mvcc)) {
            wal.append(1, row(0)).durable().get(30, TimeUnit.SECONDS);
            long before = wal.forces();
            for (int batch = 0; batch < 50; batch++) {
                List<CompletableFuture<Void>> durable = new ArrayList<>();
                for (int i = 1; i <= 100; i++) {
                    durable.add(wal.append(1, row(i), false).durable());
                }
                wal.wake();
                CompletableFuture.allOf(durable.toArray(CompletableFuture[]::new)).get(30, TimeUnit.SECONDS);
            }
            assertThat(wal.forces() - before).isBetween(50L, 74L);
        }
    }

    @Test
    void futuresCompleteOnlyOnceTheRecordIsDurableAndVisibleInOrder() throws Exception {
        Mvcc mvcc = new Mvcc(0);
        try (WriteAheadLog wal = open(mvcc)) {
            WriteAheadLog.Appended first = wal.append(1, row(1));
            WriteAheadLog.Appended second = wal.append(1, row(2));
            second.durable().get(10, TimeUnit.SECONDS);
            assertThat(first.durable()).isDone();
            mvcc.complete(second.write());
            assertThat(mvcc.readPoint()).as("the second write waits for the first").isZero();
            mvcc.complete(first.write());
            assertThat(mvcc.readPoint()).isEqualTo(2);
        }
    }

    @Test
    void tornTailIsTheEndOfTheLogAndIsCutOff() throws Exception {
        write(10);
        Path segment = onlySegment();
        long size = Files.size(segment);
        try (FileChannel ch = FileChannel.open(segment, StandardOpenOption.WRITE)) {
            ch.truncate(size - 5);
        }

        assertThat(replay(WalCorruptionPolicy.REFUSE)).hasSize(9);
        assertThat(Files.size(segment)).as("truncated to the last whole record").isLessThan(size - 5);
        write(1);
        assertThat(replay(WalCorruptionPolicy.REFUSE)).extracting(WalRecordLayout.Entry::sequence)
                .containsExactly(1L, 2L, 3L, 4L, 5L, 6L, 7L, 8L, 9L, 10L);
    }

    @Test
    void zeroFilledTailIsTorn() throws Exception {
        write(3);
        try (FileChannel ch = FileChannel.open(onlySegment(), StandardOpenOption.APPEND)) {
            ch.write(ByteBuffer.allocate(4096));
        }
        assertThat(replay(WalCorruptionPolicy.REFUSE)).hasSize(3);
    }

    @Test
    void damageBeforeValidRecordsIsRefusedWithFileAndOffset() throws Exception {
        write(5);
        Path segment = onlySegment();
        flip(segment, RecordLogLayout.HEADER_SIZE + 20);

        assertThatThrownBy(() -> replay(WalCorruptionPolicy.REFUSE))
                .isInstanceOf(CorruptFileException.class)
                .hasMessageContaining(segment.toString())
                .hasMessageContaining("offset " + RecordLogLayout.HEADER_SIZE)
                .hasMessageContaining("checksum mismatch")
                .hasMessageContaining("SKIP_AND_REPORT");
    }

    @Test
    void skipPolicyDropsOnlyTheDamagedRecord() throws Exception {
        write(5);
        flip(onlySegment(), RecordLogLayout.HEADER_SIZE + 20);

        assertThat(replay(WalCorruptionPolicy.SKIP_AND_REPORT)).extracting(WalRecordLayout.Entry::sequence)
                .containsExactly(2L, 3L, 4L, 5L);
    }

    @Test
    void damagedHeaderIsRefused() throws Exception {
        write(1);
        flip(onlySegment(), 1);
        assertThatThrownBy(() -> replay(WalCorruptionPolicy.SKIP_AND_REPORT))
                .isInstanceOf(CorruptFileException.class).hasMessageContaining("header checksum mismatch");
    }

    @Test
    void everySingleByteFlipIsDetectedOrIsATornTail() throws Exception {
        write(3);
        Path segment = onlySegment();
        byte[] original = Files.readAllBytes(segment);
        for (int at = 0; at < original.length; at++) {
            byte[] damaged = original.clone();
            damaged[at] ^= 0x5A;
            Files.write(segment, damaged);
            try {
                List<WalRecordLayout.Entry> entries = replay(WalCorruptionPolicy.REFUSE);
                // Accepted only as a torn tail: a prefix of the records, each exactly as written.
                assertThat(entries.size()).as("flip at %d", at).isLessThan(3);
                for (int i = 0; i < entries.size(); i++) {
                    assertThat(entries.get(i).cells()).isEqualTo(row(i + 1));
                }
            } catch (CorruptFileException expected) {
                assertThat(expected.file()).isEqualTo(segment);
            }
        }
    }

    @Test
    void appendAfterCloseFails() throws Exception {
        WriteAheadLog wal = open(new Mvcc(0));
        wal.close();
        assertThatThrownBy(() -> wal.append(1, row(1))).isInstanceOf(BasaltException.class)
                .hasMessage("the write-ahead log is closed");
    }

    @Test
    void retiredSegmentsAreKeptToBeWrittenOverUpToALimitAndTheRestDeleted() throws Exception {
        Mvcc mvcc = new Mvcc(0);
        try (WriteAheadLog wal = open(mvcc)) {
            appendInWaves(wal, 1, 9000);
            int before = wal.segmentFiles().size();
            wal.retireUpTo(9000);
            assertThat(before).isGreaterThan(WriteAheadLog.MAX_FREE + 1);
            assertThat(wal.segmentFiles()).hasSize(1);
            assertThat(wal.freeFiles()).hasSize(WriteAheadLog.MAX_FREE);
        }
        try (var files = Files.list(dir)) {
            assertThat(files.count()).as("one segment and the free files; the other retired ones deleted")
                    .isEqualTo(1 + WriteAheadLog.MAX_FREE);
        }
    }

    /**
     * Rolls write over retired segments, whose earlier records (with good checksums of their own)
     * then lie past the new segment's last record: replay returns only what was written since,
     * in order, and a reopened log goes on from there. Without the salted checksums the stale
     * records read as records, and replay returns old sequence numbers after new ones.
     */
    @Test
    void recycledSegmentsReplayOnlyTheirOwnRecords() throws Exception {
        Mvcc mvcc = new Mvcc(0);
        java.util.Set<Object> freedFiles = new java.util.HashSet<>();
        int lastWritten;
        Path newest;
        byte[] newestBytes;
        try (WriteAheadLog wal = open(mvcc)) {
            appendInWaves(wal, 1, 9000);
            wal.retireUpTo(9000);
            assertThat(wal.freeFiles()).hasSize(WriteAheadLog.MAX_FREE);
            for (Path free : wal.freeFiles()) {
                freedFiles.add(Files.readAttributes(free, java.nio.file.attribute.BasicFileAttributes.class).fileKey());
            }
            // onto the first recycled file, a hundred records into it: the newest segment then ends
            // early in a file that holds a whole segment of older records after them
            int written = 9000;
            while (wal.segmentFiles().size() < 2) {
                appendInWaves(wal, written + 1, written + 20);
                written += 20;
            }
            appendInWaves(wal, written + 1, written + 100);
            lastWritten = written + 100;
            assertThat(wal.freeFiles()).as("the roll took a free file").hasSize(WriteAheadLog.MAX_FREE - 1);
            Path newestSegment = wal.segmentFiles().getLast();
            assertThat(Files.readAttributes(newestSegment, java.nio.file.attribute.BasicFileAttributes.class).fileKey())
                    .as("the newest segment is a free file written over").isIn(freedFiles);
            newest = newestSegment;
            newestBytes = Files.readAllBytes(newest); // as a kill -9 now would leave it
        }
        java.lang.foreign.MemorySegment data = java.lang.foreign.MemorySegment.ofArray(newestBytes);
        long[] ownEnd = {RecordLogLayout.HEADER_SIZE};
        RecordLogLayout.ScanEnd end = RecordLogLayout.scan(data, RecordLogLayout.HEADER_SIZE,
                (at, payload) -> ownEnd[0] = at + RecordLogLayout.RECORD_HEADER_SIZE + payload.byteSize());
        assertThat(end.damaged()).isFalse();
        assertThat(newestBytes.length - ownEnd[0]).as("the newest segment runs on with an earlier use's records")
                .isGreaterThan(16 * 1024);
        // and those are whole records, with checksums good for their own (older) salt
        short v = RecordLogLayout.SALTED_VERSION;
        int length = data.get(RecordLogLayout.U32, ownEnd[0] + RecordLogLayout.LENGTH_OFFSET);
        int staleSalt = data.get(RecordLogLayout.U32, ownEnd[0] + RecordLogLayout.LENGTH_CRC_OFFSET);
        assertThat(length).isBetween(1, 4096);
        assertThat(java.util.stream.IntStream.rangeClosed(1, 20)
                .filter(salt -> RecordLogLayout.lengthCrc(data, ownEnd[0], v, salt) == staleSalt).boxed().toList())
                .as("an earlier segment's salt validates the record after the newest segment's last").hasSize(1);
        assertThat(Files.size(newest)).as("a clean close cuts the earlier use's records off").isEqualTo(ownEnd[0]);
        Files.write(newest, newestBytes); // the segment as a process killed before the close left it

        List<WalRecordLayout.Entry> entries = replay(WalCorruptionPolicy.REFUSE);

        // the segment being written when the others retired, then everything after it, in order
        long first = entries.getFirst().sequence();
        assertThat(first).isBetween(2L, 9001L); // 9,001 when the segment holding 9,000 had rolled
        assertThat(entries).extracting(WalRecordLayout.Entry::sequence)
                .containsExactlyElementsOf(java.util.stream.LongStream.rangeClosed(first, lastWritten).boxed().toList());
        for (WalRecordLayout.Entry entry : entries) {
            assertThat(entry.cells()).isEqualTo(row((int) entry.sequence()));
        }
        Mvcc reopened = new Mvcc(lastWritten);
        try (WriteAheadLog wal = open(reopened)) {
            wal.append(1, row(lastWritten + 1)).durable().get(30, TimeUnit.SECONDS);
        }
        assertThat(replay(WalCorruptionPolicy.REFUSE)).extracting(WalRecordLayout.Entry::sequence)
                .containsExactlyElementsOf(java.util.stream.LongStream.rangeClosed(first, lastWritten + 1).boxed().toList());
    }

    /** A roll off a recycled file cuts the earlier use's records after its own, so only the newest segment has a tail. */
    @Test
    void aRolledRecycledSegmentEndsAtItsLastRecord() throws Exception {
        // segments of 128 KiB retired into free files, then written over by segments of 64 KiB
        try (WriteAheadLog wal = open(new Mvcc(0), options.withWalSegmentSize(128 * 1024))) {
            appendInWaves(wal, 1, 12000);
            wal.retireUpTo(12000);
            assertThat(wal.freeFiles()).hasSize(WriteAheadLog.MAX_FREE);
        }
        WriteAheadLog.Replayed found = WriteAheadLog.replay(dir, options.walCorruption(), e -> {});
        // as a store does, sequence numbers go on from what its SSTables hold when the log holds none
        try (WriteAheadLog wal = WriteAheadLog.open(dir, options, new Mvcc(12000), new WriteAheadLog.Replayed(12000,
                found.segments(), found.nextSegmentId(), found.free()))) {
            appendInWaves(wal, 12001, 16000);
        }
        List<Path> segments;
        try (var files = Files.list(dir)) {
            segments = files.filter(p -> p.toString().endsWith(".wal")).sorted().toList();
        }
        assertThat(segments).hasSizeGreaterThan(2);
        for (Path segment : segments.subList(0, segments.size() - 1)) {
            byte[] bytes = Files.readAllBytes(segment);
            java.lang.foreign.MemorySegment data = java.lang.foreign.MemorySegment.ofArray(bytes);
            RecordLogLayout.ScanEnd end = RecordLogLayout.scan(data, RecordLogLayout.HEADER_SIZE, (at, payload) -> {});
            assertThat(end.damaged()).isFalse();
            assertThat(end.torn()).as("%s has nothing after its last record", segment).isFalse();
            assertThat(end.validEnd()).isEqualTo(bytes.length);
        }
        List<WalRecordLayout.Entry> entries = replay(WalCorruptionPolicy.REFUSE);
        long first = entries.getFirst().sequence();
        assertThat(first).isBetween(2L, 12001L); // 12,001 when the segment holding 12,000 had rolled
        assertThat(entries).extracting(WalRecordLayout.Entry::sequence)
                .containsExactlyElementsOf(java.util.stream.LongStream.rangeClosed(first, 16000).boxed().toList());
    }

    /**
     * A retired segment is offered to rolls only once its rename is durable: when the directory
     * sync after the renames fails, the renamed files are deleted, and the log goes on.
     */
    @Test
    void retiredSegmentsWhoseRenameIsNotDurableAreDeletedNotKept() throws Exception {
        FaultyDisk disk = new FaultyDisk();
        WriteAheadLog.Replayed replayed = WriteAheadLog.replay(dir, options.walCorruption(), e -> {}, disk);
        try (WriteAheadLog wal = WriteAheadLog.open(dir, options, new Mvcc(0), replayed, disk,
                new WriteAheadLog.Listener() {
                    @Override
                    public void failed(io.basalt.client.StoreReadOnlyException failure) { }

                    @Override
                    public void rolled() { }
                })) {
            appendInWaves(wal, 1, 6000);
            assertThat(wal.segmentFiles()).hasSizeGreaterThan(2);
            disk.failNext(FaultyDisk.Place.DIRECTORY_SYNC, FaultyDisk.Fault.IO_ERROR);
            wal.retireUpTo(6000);
            assertThat(disk.injected(FaultyDisk.Place.DIRECTORY_SYNC)).isEqualTo(1);
            assertThat(wal.freeFiles()).isEmpty();
            appendInWaves(wal, 6001, 6100);
        }
        try (var files = Files.list(dir)) {
            assertThat(files.filter(p -> p.toString().endsWith(".free")).toList()).isEmpty();
        }
        List<WalRecordLayout.Entry> entries = replay(WalCorruptionPolicy.REFUSE);
        assertThat(entries.getLast().sequence()).isEqualTo(6100);
    }

    /**
     * A free file renamed to be the newest segment whose new header never landed (the process
     * stopped in between) holds only the records of its earlier use: replay skips and removes
     * it, and the numbers of later segments stay above every file's.
     */
    @Test
    void aSegmentLeftMidwayThroughRecyclingIsSkipped() throws Exception {
        write(3);
        Path segment = onlySegment();
        Path renamed = dir.resolve(String.format("%020d.wal", 2));
        Files.copy(segment, renamed); // segment 1's header and records, under segment 2's name

        assertThat(replay(WalCorruptionPolicy.REFUSE)).extracting(WalRecordLayout.Entry::sequence)
                .containsExactly(1L, 2L, 3L);
        assertThat(renamed).doesNotExist();
    }

    /** The same mismatch in a segment that is not the newest cannot come from recycling: it is damage. */
    @Test
    void aSegmentWithAnotherSegmentsSaltBeforeTheNewestIsRefused() throws Exception {
        write(3);
        Path segment = onlySegment();
        Files.copy(segment, dir.resolve(String.format("%020d.wal", 2)));
        Files.copy(segment, dir.resolve(String.format("%020d.wal", 3)));

        assertThatThrownBy(() -> replay(WalCorruptionPolicy.SKIP_AND_REPORT))
                .isInstanceOf(CorruptFileException.class).hasMessageContaining("salt of another segment");
    }

    @Test
    void segmentNumbersStayAboveFreeFiles() throws Exception {
        write(1);
        Files.write(dir.resolve(String.format("%020d.free", 40)), new byte[100]);

        WriteAheadLog.Replayed replayed = WriteAheadLog.replay(dir, WalCorruptionPolicy.REFUSE, e -> {});

        assertThat(replayed.nextSegmentId()).isEqualTo(41);
        assertThat(replayed.free()).containsExactly(dir.resolve(String.format("%020d.free", 40)));
    }

    /**
     * A torn 16 MiB record (its first 8 MiB of random bytes written) is the end of the log. In
     * the version 1 framing the search for a valid record after it checksummed megabytes at a
     * large share of the 8 million offsets (minutes); version 2 tests each offset's length
     * checksum first, so this replays in well under a second.
     */
    @Test
    void aTornLargeRecordIsCutOffInOnePass() throws Exception {
        write(3);
        Path segment = onlySegment();
        long valid = Files.size(segment);
        byte[] torn = new byte[RecordLogLayout.RECORD_HEADER_SIZE + (8 << 20)];
        new java.util.SplittableRandom(17).nextBytes(torn);
        java.lang.foreign.MemorySegment header = java.lang.foreign.MemorySegment.ofArray(torn);
        header.set(RecordLogLayout.U32, RecordLogLayout.LENGTH_OFFSET, 16 << 20);
        header.set(RecordLogLayout.U32, RecordLogLayout.LENGTH_CRC_OFFSET, // the segment's salt: 1, its number
                RecordLogLayout.lengthCrc(header, 0, RecordLogLayout.SALTED_VERSION, 1));
        Files.write(segment, torn, StandardOpenOption.APPEND);

        assertThat(replay(WalCorruptionPolicy.REFUSE)).hasSize(3);
        assertThat(Files.size(segment)).as("cut back to the last whole record").isEqualTo(valid);
    }

    /** A segment written before version 2 of the framing (8-byte record headers) still replays. */
    @Test
    void aVersionOneSegmentReplays() throws Exception {
        Files.write(dir.resolve(String.format("%020d.wal", 1)), versionOne(WalRecordLayout.MAGIC, List.of(
                walPayload(1, row(1)), walPayload(2, row(2)))));

        List<WalRecordLayout.Entry> entries = replay(WalCorruptionPolicy.REFUSE);

        assertThat(entries).extracting(WalRecordLayout.Entry::sequence).containsExactly(1L, 2L);
        assertThat(entries.get(1).cells()).isEqualTo(row(2));
        Mvcc mvcc = new Mvcc(2);
        try (WriteAheadLog wal = open(mvcc)) { // appends go to a new segment, in version 3
            wal.append(7, row(3)).durable().get(30, TimeUnit.SECONDS);
        }
        assertThat(replay(WalCorruptionPolicy.REFUSE)).extracting(WalRecordLayout.Entry::sequence)
                .containsExactly(1L, 2L, 3L);
    }

    private static byte[] walPayload(long sequence, List<Cell> cells) {
        byte[] payload = new byte[WalRecordLayout.payloadSize(cells)];
        WalRecordLayout.write(sequence, 7, cells, java.lang.foreign.MemorySegment.ofArray(payload), 0);
        return payload;
    }

    /** A file in the version 1 framing, written by hand as the code before 2026-11-25 did. */
    static byte[] versionOne(int magic, List<byte[]> payloads) {
        java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
        byte[] header = RecordLogLayout.header(magic);
        java.lang.foreign.MemorySegment h = java.lang.foreign.MemorySegment.ofArray(header);
        h.set(RecordLogLayout.U16, RecordLogLayout.VERSION_OFFSET, (short) 1);
        h.set(RecordLogLayout.U32, RecordLogLayout.HEADER_CRC_OFFSET,
                RecordLogLayout.crc(h, 0, RecordLogLayout.HEADER_CRC_OFFSET));
        out.writeBytes(header);
        for (byte[] payload : payloads) {
            byte[] record = new byte[RecordLogLayout.V1_RECORD_HEADER_SIZE + payload.length];
            java.lang.foreign.MemorySegment r = java.lang.foreign.MemorySegment.ofArray(record);
            r.set(RecordLogLayout.U32, RecordLogLayout.LENGTH_OFFSET, payload.length);
            System.arraycopy(payload, 0, record, RecordLogLayout.V1_RECORD_HEADER_SIZE, payload.length);
            r.set(RecordLogLayout.U32, RecordLogLayout.V1_CRC_OFFSET,
                    RecordLogLayout.recordCrc(r, 0, payload.length, (short) 1));
            out.writeBytes(record);
        }
        return out.toByteArray();
    }

    private static void flip(Path file, long offset) throws IOException {
        byte[] bytes = Files.readAllBytes(file);
        bytes[(int) offset] ^= 0x01;
        Files.write(file, bytes);
    }
}
