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

    /** What the manifest says about one table: its descriptor and its regions. */
    static final class TableEntry {
        final int id;
        final TableDescriptor descriptor;
        boolean disabled;
        /** By region id. */
        final Map<Integer, RegionEntry> regions = new LinkedHashMap<>();

        TableEntry(int id, TableDescriptor descriptor) {
            this.id = id;
            this.descriptor = descriptor;
        }
    }

    /** What the manifest says about one region: its key range, files and flushed-up-to sequence. */
    static final class RegionEntry {
        final int id;
        final int tableId;
        /** The first row (empty: the table's start). */
        final byte[] start;
        /** The first row after the region (empty: the table's end). */
        final byte[] end;
        long flushedSequence;
        final Map<String, List<ManifestEdit.FileMeta>> files = new LinkedHashMap<>();

        RegionEntry(int id, int tableId, byte[] start, byte[] end, long flushedSequence, TableDescriptor table) {
            this.id = id;
            this.tableId = tableId;
            this.start = start;
            this.end = end;
            this.flushedSequence = flushedSequence;
            table.families().forEach(f -> files.put(f.name(), new ArrayList<>()));
        }
    }

    private final Path directory;
    private final Path path;
    private final long rewriteSize;
    private final Disk disk;
    /**
     * Writes every edit and snapshot, so that no caller's interrupt can close the file under it
     * (an interrupted {@code FileChannel} is closed for good) and a caller that gives up waiting
     * cannot leave half an edit behind.
     */
    private final java.util.concurrent.ExecutorService writer = java.util.concurrent.Executors.newSingleThreadExecutor(
            r -> Thread.ofPlatform().name("basalt-manifest").daemon().unstarted(r));
    /** Guarded by this; written on the writer thread only. */
    private Disk.WritableFile file;
    /** Why the manifest can take no more edits, once an edit's outcome on disk is unknown. */
    private volatile IOException broken;

    private final Map<Integer, TableEntry> tables = new HashMap<>();
    /** Every table's regions, by region id. */
    private final Map<Integer, RegionEntry> regions = new HashMap<>();
    private long nextFileNumber = 1;
    private int nextTableId = 1;

    private Manifest(Path directory, long rewriteSize, Disk disk) {
        this.directory = directory;
        this.path = directory.resolve(FILE);
        this.rewriteSize = rewriteSize;
        this.disk = disk;
    }

    /** Reads the manifest of {@code directory}, or starts an empty one. */
    static Manifest open(Path directory) throws IOException {
        return open(directory, REWRITE_SIZE, LocalDisk.INSTANCE);
    }

    /** {@link #open(Path)} with the size past which the log is rewritten as a snapshot. */
    static Manifest open(Path directory, long rewriteSize) throws IOException {
        return open(directory, rewriteSize, LocalDisk.INSTANCE);
    }

    /** {@link #open(Path, long)} through {@code disk}. */
    static Manifest open(Path directory, long rewriteSize, Disk disk) throws IOException {
        Manifest manifest = new Manifest(directory, rewriteSize, disk);
        try {
            disk.delete(directory.resolve(FILE + ".tmp"));
            if (Files.exists(manifest.path)) {
                if (manifest.load() == RecordLogLayout.VERSION) {
                    manifest.file = disk.append(manifest.path, Disk.Purpose.MANIFEST);
                } else { // an older format: rewritten in the current one before anything is appended
                    manifest.writeSnapshot();
                }
            } else {
                manifest.writeSnapshot();
            }
        } catch (IOException | RuntimeException e) {
            manifest.writer.shutdownNow();
            throw e;
        }
        return manifest;
    }

    /** Reads the file into the state; returns its format version. */
    private short load() throws IOException {
        long validEnd;
        short version;
        try (Arena arena = Arena.ofConfined(); FileChannel ch = FileChannel.open(path, StandardOpenOption.READ)) {
            MemorySegment data = ch.size() == 0 ? MemorySegment.ofArray(new byte[0])
                    : ch.map(FileChannel.MapMode.READ_ONLY, 0, ch.size(), arena);
            version = RecordLogLayout.checkHeader(data, MAGIC, path);
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
            try (Disk.WritableFile cut = disk.append(path, Disk.Purpose.MANIFEST)) {
                cut.truncate(validEnd);
            }
        }
        return version;
    }

    /**
     * Appends and forces an edit, then applies it to the state.
     *
     * <p>When the append or the force fails, the edit did not happen: the manifest rolls to a
     * fresh snapshot of the state before it (written beside, forced, renamed over the old file),
     * so that half an edit left in the old file can neither break the next open nor come back,
     * and the caller gets the I/O error. Only when that roll fails too is the edit's fate
     * unknown; the manifest then takes no more edits ({@link ManifestBrokenException}) until the
     * store is reopened, and the caller must keep every file the edit named, since the next open
     * may find it applied.
     *
     * @throws IllegalArgumentException when the edit names a table or family that does not exist;
     *     nothing is written then
     * @throws ManifestBrokenException when the edit may or may not be on disk
     * @throws IOException when the edit is certainly not on disk
     */
    void apply(ManifestEdit edit) throws IOException {
        IOException failed = broken;
        if (failed != null) {
            throw new ManifestBrokenException("the manifest " + path + " takes no edits since an earlier one failed: "
                    + failed.getMessage(), failed);
        }
        java.util.concurrent.Future<?> done = writer.submit(() -> {
            applyOnWriter(edit);
            return null;
        });
        boolean interrupted = false;
        try {
            while (true) {
                try {
                    done.get();
                    return;
                } catch (InterruptedException e) {
                    interrupted = true; // the edit runs to its end either way; its outcome is the caller's
                } catch (java.util.concurrent.ExecutionException e) {
                    switch (e.getCause()) {
                        case IOException io -> throw io;
                        case RuntimeException re -> throw re;
                        case Error error -> throw error;
                        default -> throw new IOException(e.getCause());
                    }
                }
            }
        } catch (java.util.concurrent.RejectedExecutionException e) {
            throw new IOException("the manifest " + path + " is closed");
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private synchronized void applyOnWriter(ManifestEdit edit) throws IOException {
        IOException failed = broken;
        if (failed != null) {
            throw new ManifestBrokenException("the manifest " + path + " takes no edits since an earlier one failed: "
                    + failed.getMessage(), failed);
        }
        check(edit);
        byte[] payload = edit.encode();
        byte[] framed = new byte[RecordLogLayout.RECORD_HEADER_SIZE + payload.length];
        RecordLogLayout.frame(payload, payload.length, MemorySegment.ofArray(framed), 0);
        try {
            file.write(ByteBuffer.wrap(framed));
            file.force();
        } catch (IOException | RuntimeException e) {
            rollAfter(e);
            if (broken != null) {
                throw new ManifestBrokenException("a manifest edit failed (" + e.getMessage() + ") and its outcome on"
                        + " disk is unknown: " + broken.getMessage(), e);
            }
            throw e instanceof IOException io ? io : new IOException(e.getMessage(), e);
        }
        replay(edit);
        if (file.size() > rewriteSize) {
            try {
                writeSnapshot();
            } catch (IOException e) {
                // The edit is durable in the old file; a snapshot that did not get in place changes nothing.
                LOG.warn("Could not rewrite the manifest {} as a snapshot; it keeps growing: {}", path, e.toString());
            }
        }
    }

    /** After a failed append: replaces the file by a snapshot of the state, or gives up edits. */
    private void rollAfter(Exception cause) {
        try {
            writeSnapshot();
            LOG.warn("A manifest edit failed ({}); rolled {} to a fresh snapshot without it", cause.toString(), path);
        } catch (IOException | RuntimeException e) {
            e.addSuppressed(cause);
            broken = e instanceof IOException io ? io : new IOException(e.getMessage(), e);
            LOG.error("A manifest edit failed and so did rolling {} to a fresh snapshot; the manifest takes no more"
                    + " edits until the store is reopened", path, e);
        }
    }

    /**
     * Rejects an edit that would not replay: one that names a missing table, region or family, or
     * gives a region an id that is taken.
     */
    private void check(ManifestEdit edit) {
        Map<Integer, java.util.Set<String>> tableFamilies = new HashMap<>();
        tables.forEach((id, t) -> tableFamilies.put(id, familyNames(t.descriptor)));
        Map<Integer, Integer> regionTables = new HashMap<>();
        regions.forEach((id, r) -> regionTables.put(id, r.tableId));
        for (ManifestEdit.Change change : edit.changes()) {
            switch (change) {
                case ManifestEdit.CreateTable c -> {
                    requireFree(tableFamilies, regionTables, c.tableId(), -1);
                    tableFamilies.put(c.tableId(), familyNames(c.descriptor()));
                    regionTables.put(c.tableId(), c.tableId());
                }
                case ManifestEdit.Table c -> {
                    requireFree(tableFamilies, regionTables, c.tableId(), -1);
                    tableFamilies.put(c.tableId(), familyNames(c.descriptor()));
                }
                case ManifestEdit.TableState t -> requireTable(tableFamilies, t.tableId());
                case ManifestEdit.AlterTable a -> {
                    requireTable(tableFamilies, a.tableId());
                    tableFamilies.put(a.tableId(), familyNames(a.descriptor()));
                }
                case ManifestEdit.DropTable d -> {
                    requireTable(tableFamilies, d.tableId());
                    tableFamilies.remove(d.tableId());
                    regionTables.values().removeIf(t -> t == d.tableId());
                }
                case ManifestEdit.AddRegion r -> {
                    requireTable(tableFamilies, r.tableId());
                    requireFree(tableFamilies, regionTables, r.regionId(), r.tableId());
                    regionTables.put(r.regionId(), r.tableId());
                }
                case ManifestEdit.DropRegion d -> {
                    requireRegion(regionTables, d.regionId());
                    regionTables.remove(d.regionId());
                }
                case ManifestEdit.AddFile a -> requireFamily(tableFamilies, regionTables, a.regionId(), a.family());
                case ManifestEdit.RemoveFile r -> requireFamily(tableFamilies, regionTables, r.regionId(), r.family());
                case ManifestEdit.Flushed f -> requireRegion(regionTables, f.regionId());
                case ManifestEdit.NextFile n -> { }
                case ManifestEdit.NextTable t -> { }
            }
        }
    }

    private static java.util.Set<String> familyNames(TableDescriptor descriptor) {
        return java.util.Set.copyOf(descriptor.families().stream().map(f -> f.name()).toList());
    }

    /**
     * A new table or region id must not be live as either; only a region may share the id of its
     * own table (the first region of a table created before regions).
     */
    private static void requireFree(Map<Integer, java.util.Set<String>> tables, Map<Integer, Integer> regions, int id,
                                    int ownTable) {
        if (regions.containsKey(id) || (tables.containsKey(id) && id != ownTable)) {
            throw new IllegalArgumentException("edit gives id " + id + " to a new table or region, but it is taken");
        }
    }

    private static void requireTable(Map<Integer, java.util.Set<String>> known, int id) {
        if (!known.containsKey(id)) {
            throw new IllegalArgumentException("edit names table id " + id + ", which does not exist");
        }
    }

    private static void requireRegion(Map<Integer, Integer> regions, int id) {
        if (!regions.containsKey(id)) {
            throw new IllegalArgumentException("edit names region id " + id + ", which does not exist");
        }
    }

    private static void requireFamily(Map<Integer, java.util.Set<String>> tables, Map<Integer, Integer> regions,
                                      int regionId, String family) {
        requireRegion(regions, regionId);
        int tableId = regions.get(regionId);
        if (!tables.get(tableId).contains(family)) {
            throw new IllegalArgumentException("edit names family '" + family + "' of table id " + tableId
                    + ", which has no such family");
        }
    }

    private void replay(ManifestEdit edit) {
        for (ManifestEdit.Change change : edit.changes()) {
            switch (change) {
                case ManifestEdit.CreateTable c -> {
                    TableEntry table = new TableEntry(c.tableId(), c.descriptor());
                    tables.put(c.tableId(), table);
                    addRegion(new RegionEntry(c.tableId(), c.tableId(), new byte[0], new byte[0], 0, c.descriptor()));
                }
                case ManifestEdit.Table c -> tables.put(c.tableId(), new TableEntry(c.tableId(), c.descriptor()));
                case ManifestEdit.TableState t -> table(t.tableId()).disabled = t.disabled();
                case ManifestEdit.AlterTable a -> {
                    TableEntry altered = new TableEntry(a.tableId(), a.descriptor());
                    altered.regions.putAll(table(a.tableId()).regions);
                    altered.disabled = table(a.tableId()).disabled;
                    tables.put(a.tableId(), altered);
                    java.util.Set<String> names = familyNames(a.descriptor());
                    for (RegionEntry region : altered.regions.values()) {
                        region.files.keySet().retainAll(names);
                        names.forEach(name -> region.files.putIfAbsent(name, new ArrayList<>()));
                    }
                }
                case ManifestEdit.DropTable d -> {
                    TableEntry table = tables.remove(d.tableId());
                    if (table != null) {
                        table.regions.keySet().forEach(regions::remove);
                    }
                }
                case ManifestEdit.AddRegion r -> addRegion(new RegionEntry(r.regionId(), r.tableId(), r.start(),
                        r.end(), r.flushedSequence(), table(r.tableId()).descriptor));
                case ManifestEdit.DropRegion d -> {
                    RegionEntry region = region(d.regionId());
                    regions.remove(d.regionId());
                    table(region.tableId).regions.remove(d.regionId());
                }
                case ManifestEdit.AddFile a -> familyFiles(a.regionId(), a.family()).add(a.file());
                case ManifestEdit.RemoveFile r ->
                        familyFiles(r.regionId(), r.family()).removeIf(f -> f.fileNumber() == r.fileNumber());
                case ManifestEdit.Flushed f -> region(f.regionId()).flushedSequence =
                        Math.max(region(f.regionId()).flushedSequence, f.sequence());
                case ManifestEdit.NextFile n -> nextFileNumber = Math.max(nextFileNumber, n.fileNumber());
                case ManifestEdit.NextTable t -> nextTableId = Math.max(nextTableId, t.tableId());
            }
        }
    }

    private void addRegion(RegionEntry region) {
        regions.put(region.id, region);
        table(region.tableId).regions.put(region.id, region);
    }

    private TableEntry table(int id) {
        TableEntry table = tables.get(id);
        if (table == null) {
            throw new IllegalArgumentException("edit names table id " + id + ", which does not exist");
        }
        return table;
    }

    private RegionEntry region(int id) {
        RegionEntry region = regions.get(id);
        if (region == null) {
            throw new IllegalArgumentException("edit names region id " + id + ", which does not exist");
        }
        return region;
    }

    private List<ManifestEdit.FileMeta> familyFiles(int regionId, String family) {
        List<ManifestEdit.FileMeta> files = region(regionId).files.get(family);
        if (files == null) {
            throw new IllegalArgumentException("edit names family '" + family + "' of region id " + regionId
                    + ", which has no such family");
        }
        return files;
    }

    /**
     * Replaces the log with one record that recreates the current state: written beside, forced,
     * renamed over the file, and the directory forced. A failure before the rename leaves the old
     * file in use; a failure after it (the rename may not be durable) breaks the manifest, since
     * edits appended to the new file could vanish with the rename.
     */
    private void writeSnapshot() throws IOException {
        byte[] bytes = snapshotBytes();
        Path tmp = directory.resolve(FILE + ".tmp");
        disk.delete(tmp);
        try (Disk.WritableFile out = disk.create(tmp, Disk.Purpose.MANIFEST)) {
            out.write(ByteBuffer.wrap(bytes));
            out.force();
        } catch (IOException | RuntimeException e) {
            try {
                disk.delete(tmp);
            } catch (IOException suppressed) {
                e.addSuppressed(suppressed);
            }
            throw e;
        }
        replaceWith(tmp);
    }

    /**
     * Writes a manifest holding the current state into {@code target} (another store's directory,
     * a checkpoint), forced; the caller syncs {@code target}.
     */
    synchronized void copyTo(Path target) throws IOException {
        try (Disk.WritableFile out = disk.create(target.resolve(FILE), Disk.Purpose.MANIFEST)) {
            out.write(ByteBuffer.wrap(snapshotBytes()));
            out.force();
        }
    }

    /** The whole file that recreates the current state: the header and one record. */
    private byte[] snapshotBytes() {
        List<ManifestEdit.Change> changes = new ArrayList<>();
        changes.add(new ManifestEdit.NextFile(nextFileNumber));
        changes.add(new ManifestEdit.NextTable(nextTableId));
        for (TableEntry table : tables.values()) {
            changes.add(new ManifestEdit.Table(table.id, table.descriptor));
            if (table.disabled) {
                changes.add(new ManifestEdit.TableState(table.id, true));
            }
            for (RegionEntry region : table.regions.values()) {
                changes.add(new ManifestEdit.AddRegion(table.id, region.id, region.start, region.end,
                        region.flushedSequence));
                region.files.forEach((family, files) ->
                        files.forEach(f -> changes.add(new ManifestEdit.AddFile(region.id, family, f))));
            }
        }
        byte[] payload = new ManifestEdit(changes).encode();
        byte[] header = RecordLogLayout.header(MAGIC);
        byte[] bytes = new byte[header.length + RecordLogLayout.RECORD_HEADER_SIZE + payload.length];
        System.arraycopy(header, 0, bytes, 0, header.length);
        RecordLogLayout.frame(payload, payload.length, MemorySegment.ofArray(bytes), header.length);
        return bytes;
    }

    /** Renames the forced snapshot {@code tmp} over the file and starts appending to it. */
    private void replaceWith(Path tmp) throws IOException {
        disk.replace(tmp, path);
        Disk.WritableFile previous = file;
        try {
            disk.syncDirectory(directory);
            file = disk.append(path, Disk.Purpose.MANIFEST);
        } catch (IOException | RuntimeException e) {
            broken = e instanceof IOException io ? io : new IOException(e.getMessage(), e);
            throw e;
        } finally {
            if (previous != null) {
                try {
                    previous.close();
                } catch (IOException e) {
                    LOG.debug("Closing the replaced manifest: {}", e.toString());
                }
            }
        }
    }

    /** The tables by id. The entries are live state: read them only while no edit runs (opening). */
    synchronized Map<Integer, TableEntry> tables() {
        return Map.copyOf(tables);
    }

    /** A region's flushed-up-to sequence and files (copies), or null when there is no such region. */
    synchronized RegionState regionState(int id) {
        RegionEntry r = regions.get(id);
        if (r == null) {
            return null;
        }
        Map<String, List<ManifestEdit.FileMeta>> files = new LinkedHashMap<>();
        r.files.forEach((family, list) -> files.put(family, List.copyOf(list)));
        return new RegionState(r.flushedSequence, files);
    }

    /** What {@link #regionState} returns. */
    record RegionState(long flushedSequence, Map<String, List<ManifestEdit.FileMeta>> files) {}

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
    public void close() throws IOException {
        writer.shutdown();
        try {
            if (!writer.awaitTermination(30, java.util.concurrent.TimeUnit.SECONDS)) {
                writer.shutdownNow();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        synchronized (this) {
            if (file != null) {
                file.close();
            }
        }
    }
}
