package io.basalt.engine;

import static org.assertj.core.api.Assertions.assertThat;

import io.basalt.cell.Cell;
import io.basalt.cell.CellType;
import io.basalt.client.FamilyDescriptor;
import io.basalt.engine.ListSource.Entry;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.lifecycle.AfterContainer;
import net.jqwik.api.lifecycle.BeforeContainer;

/**
 * {@link InternalIterator#seekForward} of an SSTable and of a memtable lands where {@link
 * InternalIterator#seek} would, whether the target is the next entry, a few entries on (the steps
 * it takes instead of searching), many entries on (hot columns with thousands of versions), in a
 * later block, or past the end.
 */
class SeekForwardTest {

    private static BlockCache cache;
    private static Path dir;

    @BeforeContainer
    static void open() throws IOException {
        cache = new BlockCache(4 << 20, "seek-forward-test");
        dir = Files.createTempDirectory("basalt-seek-forward");
    }

    @AfterContainer
    static void close() throws IOException {
        cache.close();
        try (var files = Files.list(dir)) {
            for (Path p : files.toList()) {
                Files.delete(p);
            }
        }
        Files.delete(dir);
    }

    /** Rows with a few columns, some columns with many versions and delete markers, sorted. */
    private static List<Entry> entries(Random random) {
        List<Entry> all = new ArrayList<>();
        long sequence = 1;
        int rows = 1 + random.nextInt(30);
        for (int r = 0; r < rows; r++) {
            for (int q = 0; q < 1 + random.nextInt(4); q++) {
                int versions = random.nextInt(8) == 0 ? 1 + random.nextInt(200) : 1 + random.nextInt(3);
                for (int v = 0; v < versions; v++) {
                    CellType type = random.nextInt(12) == 0 ? CellType.DELETE_COLUMN : CellType.PUT;
                    byte[] value = new byte[type == CellType.PUT ? random.nextInt(60) : 0];
                    random.nextBytes(value);
                    all.add(new Entry(Cell.of(String.format("user%06d", r * 3).getBytes(), "f".getBytes(),
                            ("q" + q).getBytes(), 1 + random.nextInt(50), type, value), sequence++));
                }
            }
        }
        all.sort(ListSource.ORDER);
        return all;
    }

    private static SSTableReader sstable(List<Entry> entries, long number) {
        Path path = dir.resolve(number + ".sst");
        try (SSTableWriter writer = new SSTableWriter(path, FamilyDescriptor.of("f").withBlockSize(1024), entries.size())) {
            for (Entry e : entries) {
                writer.add(e.cell(), e.sequence());
            }
            writer.finish();
            return SSTableReader.open(number, path, cache);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static MemTable memtable(List<Entry> entries) {
        MemTable m = new MemTable();
        for (Entry e : entries) {
            m.add(e.cell(), e.sequence());
        }
        return m;
    }

    private static long counter;

    @Property(tries = 400)
    void landsWhereASeekWould(@ForAll @IntRange(min = 0, max = 1) int kind, @ForAll long seed) {
        Random random = new Random(seed);
        List<Entry> all = entries(random);
        SSTableReader file = kind == 0 ? sstable(all, ++counter) : null;
        MemTable memtable = kind == 1 ? memtable(all) : null;
        try (InternalIterator forward = file != null ? file.newIterator() : memtable.newIterator();
             InternalIterator sought = file != null ? file.newIterator() : memtable.newIterator()) {
            // Where a get leaves a source: sought to a row, then stepped some entries on.
            int start = random.nextInt(all.size());
            Cell startKey = all.get(start).cell();
            forward.seek(SeekKey.firstOnRow(startKey.rowBytes()));
            int at = all.indexOf(all.stream().filter(e -> java.util.Arrays.equals(e.cell().rowBytes(),
                    startKey.rowBytes())).findFirst().orElseThrow());
            for (int steps = random.nextInt(4); steps > 0 && at < all.size() - 1; steps--) {
                forward.next();
                at++;
            }
            assertThat(forward.sequence()).isEqualTo(all.get(at).sequence());
            // A target past the current entry's column, as skipping a column makes, or further on.
            Entry beyond = all.get(at + random.nextInt(all.size() - at));
            Cell target = random.nextInt(6) == 0
                    ? SeekKey.afterRow(beyond.cell().rowBytes())
                    : SeekKey.firstOnColumn(beyond.cell().rowBytes(), beyond.cell().familyBytes(),
                    (new String(beyond.cell().qualifierBytes()) + "\0").getBytes());
            forward.seekForward(target);
            sought.seek(target);
            assertThat(rest(forward)).isEqualTo(rest(sought));
        } finally {
            if (file != null) {
                file.markObsolete();
                file.release();
            }
        }
    }

    private static List<Long> rest(InternalIterator it) {
        List<Long> out = new ArrayList<>();
        for (; it.valid(); it.next()) {
            out.add(it.sequence());
        }
        return out;
    }
}
