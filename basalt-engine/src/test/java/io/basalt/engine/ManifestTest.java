package io.basalt.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.basalt.client.Compression;
import io.basalt.client.FamilyDescriptor;
import io.basalt.client.TableDescriptor;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ManifestTest {

    @TempDir
    Path dir;

    private static final TableDescriptor TABLE = new TableDescriptor("t", List.of(
            FamilyDescriptor.of("f").withMaxVersions(4).withTimeToLive(Duration.ofHours(1))
                    .withCompression(Compression.LZ4).withBloomFilter(false).withBlockSize(8192),
            FamilyDescriptor.of("g").withBloomBitsPerKey(12)));

    private static ManifestEdit.FileMeta file(long number) {
        return new ManifestEdit.FileMeta(number, 1000 + number, 10, 99, new byte[] {1, 2}, new byte[] {3});
    }

    private void populate(Manifest manifest) throws Exception {
        manifest.apply(new ManifestEdit(List.of(new ManifestEdit.CreateTable(1, TABLE), new ManifestEdit.NextTable(2))));
        manifest.apply(new ManifestEdit(List.of(new ManifestEdit.AddFile(1, "f", file(5)),
                new ManifestEdit.AddFile(1, "g", file(6)), new ManifestEdit.Flushed(1, 42),
                new ManifestEdit.NextFile(7))));
        manifest.apply(new ManifestEdit(List.of(new ManifestEdit.RemoveFile(1, "g", 6))));
    }

    /**
     * A manifest written before version 2 of the framing opens, and is rewritten in version 2
     * before anything is appended to it (a version 2 record appended to a version 1 file would
     * not read back).
     */
    @Test
    void aVersionOneManifestOpensAndIsRewrittenBeforeTheNextEdit() throws Exception {
        Files.write(dir.resolve(Manifest.FILE), WriteAheadLogTest.versionOne(Manifest.MAGIC, List.of(
                new ManifestEdit(List.of(new ManifestEdit.CreateTable(1, TABLE), new ManifestEdit.NextTable(2)))
                        .encode(),
                new ManifestEdit(List.of(new ManifestEdit.Flushed(1, 42))).encode())));
        try (Manifest manifest = Manifest.open(dir)) {
            assertThat(manifest.tables().get(1).regions.get(1).flushedSequence).isEqualTo(42);
            manifest.apply(new ManifestEdit(List.of(new ManifestEdit.Flushed(1, 43))));
        }
        byte[] bytes = Files.readAllBytes(dir.resolve(Manifest.FILE));
        assertThat(java.lang.foreign.MemorySegment.ofArray(bytes).get(RecordLogLayout.U16,
                RecordLogLayout.VERSION_OFFSET)).isEqualTo(RecordLogLayout.VERSION);
        try (Manifest manifest = Manifest.open(dir)) {
            assertThat(manifest.tables().get(1).descriptor).isEqualTo(TABLE);
            assertThat(manifest.tables().get(1).regions.get(1).flushedSequence).isEqualTo(43);
        }
    }

    @Test
    void editsSurviveReopening() throws Exception {
        try (Manifest manifest = Manifest.open(dir)) {
            populate(manifest);
        }
        try (Manifest manifest = Manifest.open(dir)) {
            Manifest.TableEntry table = manifest.tables().get(1);
            assertThat(table.descriptor).isEqualTo(TABLE);
            assertThat(table.regions.get(1).flushedSequence).isEqualTo(42);
            assertThat(table.regions.get(1).files.get("f")).extracting(ManifestEdit.FileMeta::fileNumber).containsExactly(5L);
            assertThat(table.regions.get(1).files.get("g")).isEmpty();
            assertThat(manifest.nextFileNumber()).isEqualTo(7);
            assertThat(manifest.nextTableId()).isEqualTo(2);
        }
    }

    @Test
    void tornLastEditIsIgnored() throws Exception {
        try (Manifest manifest = Manifest.open(dir)) {
            populate(manifest);
        }
        Path file = dir.resolve(Manifest.FILE);
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.WRITE)) {
            ch.truncate(Files.size(file) - 3);
        }
        try (Manifest manifest = Manifest.open(dir)) {
            assertThat(manifest.tables().get(1).regions.get(1).files.get("g")).as("the removal was torn off")
                    .extracting(ManifestEdit.FileMeta::fileNumber).containsExactly(6L);
        }
    }

    @Test
    void damagedEditIsRefusedWithFileAndOffset() throws Exception {
        try (Manifest manifest = Manifest.open(dir)) {
            populate(manifest);
        }
        Path file = dir.resolve(Manifest.FILE);
        byte[] bytes = Files.readAllBytes(file);
        int at = RecordLogLayout.HEADER_SIZE + 40;
        bytes[at] ^= 0x10;
        Files.write(file, bytes);
        assertThatThrownBy(() -> Manifest.open(dir))
                .isInstanceOf(CorruptFileException.class)
                .hasMessageContaining(file.toString())
                .satisfies(e -> assertThat(((CorruptFileException) e).offset())
                        .as("the damaged record starts at or before the flipped byte")
                        .isBetween((long) RecordLogLayout.HEADER_SIZE, (long) at));
    }

    @Test
    void rewriteKeepsTheStateAndShrinksTheFile() throws Exception {
        long rewriteSize = 8 * 1024;
        try (Manifest manifest = Manifest.open(dir, rewriteSize)) {
            populate(manifest);
            long largest = 0;
            for (int i = 0; i < 400; i++) {
                manifest.apply(new ManifestEdit(List.of(new ManifestEdit.AddFile(1, "g", file(100 + i)),
                        new ManifestEdit.RemoveFile(1, "g", 100 + i), new ManifestEdit.Flushed(1, 100 + i))));
                largest = Math.max(largest, Files.size(dir.resolve(Manifest.FILE)));
            }
            assertThat(largest).as("rewritten whenever it passed the limit").isLessThanOrEqualTo(rewriteSize + 200);
        }
        try (Manifest manifest = Manifest.open(dir)) {
            assertThat(manifest.tables().get(1).regions.get(1).flushedSequence).isEqualTo(499);
            assertThat(manifest.tables().get(1).regions.get(1).files.get("f")).extracting(ManifestEdit.FileMeta::fileNumber)
                    .containsExactly(5L);
            assertThat(manifest.tables().get(1).regions.get(1).files.get("g")).isEmpty();
        }
    }

    @Test
    void editNamingAMissingTableOrFamilyIsRefusedBeforeItIsWritten() throws Exception {
        try (Manifest manifest = Manifest.open(dir)) {
            populate(manifest);
            long size = Files.size(dir.resolve(Manifest.FILE));
            assertThatThrownBy(() -> manifest.apply(new ManifestEdit(List.of(new ManifestEdit.Flushed(9, 1)))))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("region id 9");
            assertThatThrownBy(() -> manifest.apply(new ManifestEdit(List.of(new ManifestEdit.AddFile(1, "x", file(8))))))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("family 'x'");
            assertThat(Files.size(dir.resolve(Manifest.FILE))).isEqualTo(size);
        }
        try (Manifest manifest = Manifest.open(dir)) {
            assertThat(manifest.tables()).containsOnlyKeys(1);
        }
    }

    /**
     * An alter replaces the table's families (a dropped family's file references go, a new family
     * starts empty) and a table's disabled state is kept: both replay on reopening, and both
     * survive a rewrite of the log as a snapshot.
     */
    @Test
    void alterAndDisabledStateReplayAndSurviveARewrite() throws Exception {
        TableDescriptor altered = new TableDescriptor("t", List.of(FamilyDescriptor.of("f").withMaxVersions(1),
                FamilyDescriptor.of("h")));
        try (Manifest manifest = Manifest.open(dir)) {
            populate(manifest);
            manifest.apply(new ManifestEdit(List.of(new ManifestEdit.AddFile(1, "g", file(7)), new ManifestEdit.NextFile(8))));
            manifest.apply(new ManifestEdit(List.of(new ManifestEdit.AlterTable(1, altered),
                    new ManifestEdit.TableState(1, true))));
            assertThatThrownBy(() -> manifest.apply(new ManifestEdit(List.of(new ManifestEdit.AddFile(1, "g", file(9))))))
                    .as("the dropped family takes no files").isInstanceOf(IllegalArgumentException.class);
        }
        for (long rewrite : new long[] {Long.MAX_VALUE, 1}) {
            try (Manifest manifest = Manifest.open(dir, rewrite)) {
                Manifest.TableEntry table = manifest.tables().get(1);
                assertThat(table.descriptor).isEqualTo(altered);
                assertThat(table.disabled).isTrue();
                assertThat(table.regions.get(1).files).containsOnlyKeys("f", "h");
                assertThat(table.regions.get(1).files.get("f")).extracting(ManifestEdit.FileMeta::fileNumber)
                        .containsExactly(5L);
                assertThat(table.regions.get(1).files.get("h")).isEmpty();
                manifest.apply(new ManifestEdit(List.of(new ManifestEdit.Flushed(1, 50)))); // rewritten with rewrite 1
            }
        }
        try (Manifest manifest = Manifest.open(dir)) {
            manifest.apply(new ManifestEdit(List.of(new ManifestEdit.TableState(1, false))));
        }
        try (Manifest manifest = Manifest.open(dir)) {
            assertThat(manifest.tables().get(1).disabled).isFalse();
        }
    }

    /**
     * A family's bloom byte: 1, what every version before settable bits wrote for "on", reads as
     * the default bits; a code no version writes is damage, not a family.
     */
    @Test
    void aFamilysBloomByteReadsOldManifestsAndRefusesCodesNoVersionWrites() {
        TableDescriptor odd = new TableDescriptor("t", List.of(FamilyDescriptor.of("f").withBloomBitsPerKey(31)));
        byte[] bytes = new ManifestEdit(List.of(new ManifestEdit.CreateTable(1, odd))).encode();
        int at = -1;
        for (int i = 0; i < bytes.length; i++) {
            if (bytes[i] == 31) {
                assertThat(at).as("one byte of 31 in the edit").isEqualTo(-1);
                at = i;
            }
        }
        assertThat(at).isPositive();
        bytes[at] = 1;
        assertThat(decodedFamily(bytes).bloomBitsPerKey()).isEqualTo(FamilyDescriptor.DEFAULT_BLOOM_BITS_PER_KEY);
        bytes[at] = 0;
        assertThat(decodedFamily(bytes).bloomFilter()).isFalse();
        bytes[at] = 33;
        assertThatThrownBy(() -> decodedFamily(bytes)).isInstanceOf(Varints.Damage.class)
                .hasMessageContaining("bloom filter code 33");
    }

    private static FamilyDescriptor decodedFamily(byte[] edit) {
        ManifestEdit decoded = ManifestEdit.decode(java.lang.foreign.MemorySegment.ofArray(edit));
        return ((ManifestEdit.CreateTable) decoded.changes().getFirst()).descriptor().families().getFirst();
    }
}
