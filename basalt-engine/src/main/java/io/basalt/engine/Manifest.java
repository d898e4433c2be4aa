package io.basalt.engine;

import io.basalt.client.TableDescriptor;
import java.io.Closeable;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The store's catalog and live file set, kept as a log of {@link ManifestEdit}s in one file
 * ({@code MANIFEST}, framed by {@link RecordLogLayout}, magic {@link #MAGIC}).
 *
 * <p>An edit is durable when {@link #apply} returns: it is appended and forced before the
 * in-memory state changes. When the log grows past {@link #REWRITE_SIZE} it is replaced by a
 * snapshot: the snapshot is written to {@code MANIFEST.tmp}, forced, and renamed over
 * {@code MANIFEST} (an atomic rename), then the directory is forced. A crash at any moment leaves
 * either the old or the new file, each complete up to a possibly torn last record, which opening
 * ignores.
 */
final class Manifest implements Closeable {

    private static final Logger LOG = LoggerFactory.getLogger(Manifest.class);

    /** "BMAN". */
    static final int MAGIC = 0x424D414E;
    static final String FILE = "MANIFEST";
    /** Default size past which the log is replaced by a snapshot. */
    static final long REWRITE_SIZE = 4L * 1024 * 1024;

    /** What the manifest says about one table. */
    static final class TableEntry {
        final int id;
        final TableDescriptor descriptor;
        long flushedSequence;
        final Map<String, List<ManifestEdit.FileMeta>> files = new LinkedHashMap<>();

        TableEntry(int id, TableDescriptor descriptor) {
            this.id = id;
            this.descriptor = descriptor;
            descriptor.families().forEach(f -> files.put(f.name(), new ArrayList<>()));
        }
    }

    private final Path directory;
    private final Path path;
    private final long rewriteSize;
    private FileChannel channel;
    private long size;

    private final Map<Integer, TableEntry> tables = new HashMap<>();
    private long nextFileNumber = 1;
    private int nextTableId = 1;

    private Manifest(Path directory, long rewriteSize) {
        this.directory = directory;
        this.path = directory.resolve(FILE);
        this.rewriteSize = rewriteSize;
    }

    /** Reads the manifest of {@code directory}, or starts an empty one. */
    static Manifest open(Path directory) throws IOException {
        return open(directory, REWRITE_SIZE);
    }

    /** {@link #open(Path)} with the size past which the log is rewritten as a snapshot. */
    static Manifest open(Path directory, long rewriteSize) throws IOException {
        Manifest manifest = new Manifest(directory, rewriteSize);
        Files.deleteIfExists(directory.resolve(FILE + ".tmp"));
        if (Files.exists(manifest.path)) {
            manifest.load();
            manifest.channel = FileChannel.open(manifest.path, StandardOpenOption.WRITE);
            manifest.channel.position(manifest.size);
        } else {
            manifest.writeSnapshot();
        }
        return manifest;
    }

    private void load() throws IOException {
        long validEnd;
        try (Arena arena = Arena.ofConfined(); FileChannel ch = FileChannel.open(path, StandardOpenOption.READ)) {
            MemorySegment data = ch.size() == 0 ? MemorySegment.ofArray(new byte[0])
                    : ch.map(FileChannel.MapMode.READ_ONLY, 0, ch.size(), arena);
            RecordLogLayout.checkHeader(data, MAGIC, path);
            RecordLogLayout.ScanEnd end = RecordLogLayout.scan(data, RecordLogLayout.HEADER_SIZE, (offset, payload) -> {
                try {
                    replay(ManifestEdit.decode(payload));
                } catch (Varints.Damage | IllegalArgumentException e) {
                    throw new CorruptFileException(path, offset, "manifest record: " + e.getMessage());
                }
            });
            if (end.damaged()) {
                throw new CorruptFileException(path, end.damageOffset(), end.damage());
            }
            if (end.torn()) {
                LOG.warn("Manifest {} ends with a torn record at offset {}; the edit it held was never acknowledged",
                        path, end.damageOffset());
            }
            validEnd = end.validEnd();
        }
        if (validEnd < Files.size(path)) {
            try (FileChannel ch = FileChannel.open(path, StandardOpenOption.WRITE)) {
                ch.truncate(validEnd);
                ch.force(true);
            }
        }
        size = validEnd;
    }

    /**
     * Appends and forces an edit, then applies it to the state.
     *
     * @throws IllegalArgumentException when the edit names a table or family that does not exist;
     *     nothing is written then
     */
    synchronized void apply(ManifestEdit edit) throws IOException {
        check(edit);
        byte[] payload = edit.encode();
        byte[] framed = new byte[RecordLogLayout.RECORD_HEADER_SIZE + payload.length];
        RecordLogLayout.frame(payload, payload.length, MemorySegment.ofArray(framed), 0);
        ByteBuffer buffer = ByteBuffer.wrap(framed);
        while (buffer.hasRemaining()) {
            channel.write(buffer);
        }
        channel.force(false);
        size += framed.length;
        replay(edit);
        if (size > rewriteSize) {
            writeSnapshot();
        }
    }

    /** Rejects an edit that would not replay: one that names a missing table or family. */
    private void check(ManifestEdit edit) {
        Map<Integer, java.util.Set<String>> known = new HashMap<>();
        tables.forEach((id, t) -> known.put(id, t.files.keySet()));
        for (ManifestEdit.Change change : edit.changes()) {
            switch (change) {
                case ManifestEdit.CreateTable c -> known.put(c.tableId(), java.util.Set.copyOf(
                        c.descriptor().families().stream().map(f -> f.name()).toList()));
                case ManifestEdit.DropTable d -> requireTable(known, d.tableId());
                case ManifestEdit.AddFile a -> requireFamily(known, a.tableId(), a.family());
                case ManifestEdit.RemoveFile r -> requireFamily(known, r.tableId(), r.family());
                case ManifestEdit.Flushed f -> requireTable(known, f.tableId());
                case ManifestEdit.NextFile n -> { }
                case ManifestEdit.NextTable t -> { }
            }
        }
    }

    private static void requireTable(Map<Integer, java.util.Set<String>> known, int id) {
        if (!known.containsKey(id)) {
            throw new IllegalArgumentException("edit names table id " + id + ", which does not exist");
        }
    }

    private static void requireFamily(Map<Integer, java.util.Set<String>> known, int id, String family) {
        requireTable(known, id);
        if (!known.get(id).contains(family)) {
            throw new IllegalArgumentException("edit names family '" + family + "' of table id " + id
                    + ", which has no such family");
        }
    }

    private void replay(ManifestEdit edit) {
        for (ManifestEdit.Change change : edit.changes()) {
            switch (change) {
                case ManifestEdit.CreateTable c -> tables.put(c.tableId(), new TableEntry(c.tableId(), c.descriptor()));
                case ManifestEdit.DropTable d -> tables.remove(d.tableId());
                case ManifestEdit.AddFile a -> familyFiles(a.tableId(), a.family()).add(a.file());
                case ManifestEdit.RemoveFile r ->
                        familyFiles(r.tableId(), r.family()).removeIf(f -> f.fileNumber() == r.fileNumber());
                case ManifestEdit.Flushed f -> table(f.tableId()).flushedSequence =
                        Math.max(table(f.tableId()).flushedSequence, f.sequence());
                case ManifestEdit.NextFile n -> nextFileNumber = Math.max(nextFileNumber, n.fileNumber());
                case ManifestEdit.NextTable t -> nextTableId = Math.max(nextTableId, t.tableId());
            }
        }
    }

    private TableEntry table(int id) {
        TableEntry table = tables.get(id);
        if (table == null) {
            throw new IllegalArgumentException("edit names table id " + id + ", which does not exist");
        }
        return table;
    }

    private List<ManifestEdit.FileMeta> familyFiles(int tableId, String family) {
        List<ManifestEdit.FileMeta> files = table(tableId).files.get(family);
        if (files == null) {
            throw new IllegalArgumentException("edit names family '" + family + "' of table id " + tableId
                    + ", which has no such family");
        }
        return files;
    }

    /** Replaces the log with one record that recreates the current state. */
    private void writeSnapshot() throws IOException {
        List<ManifestEdit.Change> changes = new ArrayList<>();
        changes.add(new ManifestEdit.NextFile(nextFileNumber));
        changes.add(new ManifestEdit.NextTable(nextTableId));
        for (TableEntry table : tables.values()) {
            changes.add(new ManifestEdit.CreateTable(table.id, table.descriptor));
            table.files.forEach((family, files) ->
                    files.forEach(f -> changes.add(new ManifestEdit.AddFile(table.id, family, f))));
            changes.add(new ManifestEdit.Flushed(table.id, table.flushedSequence));
        }
        byte[] payload = new ManifestEdit(changes).encode();
        byte[] header = RecordLogLayout.header(MAGIC);
        byte[] file = new byte[header.length + RecordLogLayout.RECORD_HEADER_SIZE + payload.length];
        System.arraycopy(header, 0, file, 0, header.length);
        RecordLogLayout.frame(payload, payload.length, MemorySegment.ofArray(file), header.length);
        Path tmp = directory.resolve(FILE + ".tmp");
        try (FileChannel ch = FileChannel.open(tmp, StandardOpenOption.CREATE, StandardOpenOption.TRUNCATE_EXISTING,
                StandardOpenOption.WRITE)) {
            ByteBuffer buffer = ByteBuffer.wrap(file);
            while (buffer.hasRemaining()) {
                ch.write(buffer);
            }
            ch.force(true);
        }
        if (channel != null) {
            channel.close();
        }
        Files.move(tmp, path, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        Fsync.directory(directory);
        channel = FileChannel.open(path, StandardOpenOption.WRITE);
        channel.position(file.length);
        size = file.length;
    }

    synchronized Map<Integer, TableEntry> tables() {
        return Map.copyOf(tables);
    }

    /** Takes the next file number; the caller records it with a {@link ManifestEdit.NextFile}. */
    synchronized long reserveFileNumber() {
        return nextFileNumber++;
    }

    synchronized long nextFileNumber() {
        return nextFileNumber;
    }

    /** Takes the next table id; the caller records it with a {@link ManifestEdit.NextTable}. */
    synchronized int reserveTableId() {
        return nextTableId++;
    }

    synchronized int nextTableId() {
        return nextTableId;
    }

    @Override
    public synchronized void close() throws IOException {
        channel.close();
    }
}
