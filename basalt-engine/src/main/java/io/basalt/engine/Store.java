package io.basalt.engine;

import io.basalt.client.BasaltException;
import io.basalt.client.FamilyDescriptor;
import io.basalt.client.StoreOptions;
import io.basalt.client.TableDescriptor;
import io.basalt.client.TableExistsException;
import io.basalt.client.TableNotFoundException;
import java.io.Closeable;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An open store directory: catalog and files ({@link Manifest}), write-ahead log, MVCC, block
 * cache, the tables' regions, and the background flusher and compactor.
 *
 * <pre>
 *  DIR/LOCK                                   held while open: one process per directory
 *  DIR/MANIFEST                               catalog and live SSTables
 *  DIR/wal/NNNNNNNNNNNNNNNNNNNN.wal           write-ahead log segments
 *  DIR/tables/TABLEID/FAMILY/NNNNNN.sst       SSTables
 * </pre>
 *
 * <p><b>Opening</b> reads the manifest, opens every live SSTable (checking footers and indexes),
 * deletes files the manifest does not list (left by a crash mid-flush or mid-compaction), then
 * replays the log records that are not yet in SSTables into memtables.
 *
 * <p><b>Background work.</b> One thread flushes memtables, one compacts. A failed flush or
 * compaction is logged and makes the store refuse further writes with an error that says why
 * (the data stays safe in the log; reopening retries). Writers stall, with a log line, when a
 * family has {@link StoreOptions#writeStallFiles()} files or two memtables are already waiting for
 * a flush; a stall longer than {@link #STALL_LIMIT_MILLIS} fails the write with an error.
 */
final class Store implements Closeable {

    private static final Logger LOG = LoggerFactory.getLogger(Store.class);
    static final long STALL_LIMIT_MILLIS = 60_000;
    private static final int MAX_FLUSHING = 2;

    private final Path directory;
    private final StoreOptions options;
    private final LongSupplier clock;
    private final FileChannel lockChannel;
    private final FileLock lock;
    private final Manifest manifest;
    private final Mvcc mvcc;
    private final ReadPoints readPoints;
    private final BlockCache blockCache;
    private final WriteAheadLog wal;
    private final RegionLocks locks;
    private final Map<String, Region> regions = new ConcurrentHashMap<>();
    private final ExecutorService flusher = Executors.newSingleThreadExecutor(daemon("basalt-flusher"));
    private final ExecutorService compactor = Executors.newSingleThreadExecutor(daemon("basalt-compactor"));
    private final Set<Region> flushRequested = ConcurrentHashMap.newKeySet();
    private final Set<Region> compactionRequested = ConcurrentHashMap.newKeySet();
    private final Object room = new Object();
    private volatile BasaltException backgroundFailure;
    private volatile boolean closed;

    private static java.util.concurrent.ThreadFactory daemon(String name) {
        return runnable -> Thread.ofPlatform().name(name).daemon().unstarted(runnable);
    }

    private Store(Path directory, StoreOptions options, LongSupplier clock, RegionLocks locks) throws IOException {
        this.directory = directory;
        this.options = options;
        this.clock = clock;
        this.locks = locks;
        Files.createDirectories(directory);
        this.lockChannel = FileChannel.open(directory.resolve("LOCK"), StandardOpenOption.CREATE, StandardOpenOption.WRITE);
        FileLock taken;
        try {
            taken = lockChannel.tryLock();
        } catch (java.nio.channels.OverlappingFileLockException e) {
            taken = null;
        }
        if (taken == null) {
            lockChannel.close();
            throw new BasaltException("the store in " + directory + " is open in another process (or elsewhere in this"
                    + " one); close it there first");
        }
        this.lock = taken;
        this.blockCache = new BlockCache(options.blockCacheSize(), "block-cache " + directory);
        boolean ok = false;
        Manifest opened = null;
        try {
            opened = Manifest.open(directory);
            this.manifest = opened;
            Map<Integer, Region> byId = new HashMap<>();
            Set<Path> live = new HashSet<>();
            for (Manifest.TableEntry table : manifest.tables().values()) {
                Map<String, List<SSTableReader>> files = new LinkedHashMap<>();
                for (var family : table.files.entrySet()) {
                    List<SSTableReader> readers = new ArrayList<>();
                    List<ManifestEdit.FileMeta> metas = new ArrayList<>(family.getValue());
                    metas.sort(Comparator.comparingLong(ManifestEdit.FileMeta::maxSequence).reversed());
                    for (ManifestEdit.FileMeta meta : metas) {
                        Path path = sstablePath(table.id, family.getKey(), meta.fileNumber());
                        if (!Files.exists(path)) {
                            throw new CorruptFileException(path, 0, "SSTable listed in the manifest is missing");
                        }
                        readers.add(SSTableReader.open(meta.fileNumber(), path, blockCache));
                        live.add(path);
                    }
                    files.put(family.getKey(), readers);
                }
                Region region = new Region(table.id, table.descriptor, this, files);
                regions.put(table.descriptor.name(), region);
                byId.put(table.id, region);
            }
            deleteOrphans(live, byId.keySet());

            long[] replayed = {0};
            WriteAheadLog.Replayed log = WriteAheadLog.replay(directory.resolve("wal"), options.walCorruption(),
                    entry -> {
                        Region region = byId.get(entry.tableId());
                        Manifest.TableEntry table = manifest.tables().get(entry.tableId());
                        if (region != null && table != null && entry.sequence() > table.flushedSequence) {
                            region.replay(entry.cells(), entry.sequence());
                            replayed[0]++;
                        }
                    });
            // The log may hold no record at all (a flush retired every older segment): sequence
            // numbers then continue from the highest the manifest knows, never from zero, or
            // everything already in SSTables would be invisible and new writes would reuse numbers.
            long lastSequence = log.lastSequence();
            for (Manifest.TableEntry table : manifest.tables().values()) {
                lastSequence = Math.max(lastSequence, table.flushedSequence);
                for (List<ManifestEdit.FileMeta> files : table.files.values()) {
                    for (ManifestEdit.FileMeta file : files) {
                        lastSequence = Math.max(lastSequence, file.maxSequence());
                    }
                }
            }
            log = new WriteAheadLog.Replayed(lastSequence, log.segments(), log.nextSegmentId());
            this.mvcc = new Mvcc(lastSequence);
            this.readPoints = new ReadPoints(mvcc::readPoint);
            this.wal = WriteAheadLog.open(directory.resolve("wal"), options, mvcc, log);
            LOG.info("Opened store {}: {} tables, {} log records replayed, last sequence {}", directory,
                    regions.size(), replayed[0], lastSequence);
            ok = true;
        } finally {
            if (!ok) {
                for (Region region : regions.values()) {
                    region.close(false);
                }
                if (opened != null) {
                    opened.close();
                }
                blockCache.close();
                lock.release();
                lockChannel.close();
            }
        }
    }

    /** Opens (creating) the store in {@code directory}. */
    static Store open(Path directory, StoreOptions options, LongSupplier clock, RegionLocks locks) throws IOException {
        return new Store(directory, options, clock, locks);
    }

    private Path tablesDir() {
        return directory.resolve("tables");
    }

    Path sstablePath(int tableId, String family, long fileNumber) {
        return tablesDir().resolve(Integer.toString(tableId)).resolve(family).resolve(String.format("%06d.sst", fileNumber));
    }

    /** Deletes SSTables and table directories the manifest does not know (crash leftovers, drops). */
    private void deleteOrphans(Set<Path> live, Set<Integer> tableIds) throws IOException {
        Path tables = tablesDir();
        if (!Files.isDirectory(tables)) {
            return;
        }
        List<Path> all;
        try (Stream<Path> walk = Files.walk(tables)) {
            all = walk.sorted(Comparator.reverseOrder()).toList();
        }
        for (Path path : all) {
            if (path.equals(tables)) {
                continue;
            }
            Path relative = tables.relativize(path);
            boolean knownTable;
            try {
                knownTable = tableIds.contains(Integer.parseInt(relative.getName(0).toString()));
            } catch (NumberFormatException e) {
                knownTable = false;
            }
            if (Files.isRegularFile(path) && !live.contains(path)) {
                LOG.info("Deleting {}: not listed in the manifest (left by a crash or a dropped table)", path);
                Files.delete(path);
            } else if (Files.isDirectory(path) && !knownTable && isEmpty(path)) {
                Files.delete(path);
            }
        }
    }

    private static boolean isEmpty(Path dir) throws IOException {
        try (Stream<Path> list = Files.list(dir)) {
            return list.findAny().isEmpty();
        }
    }

    // ------------------------------------------------------------------ what regions use

    StoreOptions options() {
        return options;
    }

    LongSupplier clock() {
        return clock;
    }

    WriteAheadLog wal() {
        return wal;
    }

    Mvcc mvcc() {
        return mvcc;
    }

    ReadPoints readPoints() {
        return readPoints;
    }

    RegionLocks locks() {
        return locks;
    }

    BlockCache blockCache() {
        return blockCache;
    }

    Path directory() {
        return directory;
    }

    void checkOpen() {
        if (closed) {
            throw new BasaltException("the store in " + directory + " is closed");
        }
    }

    void checkWritable() {
        checkOpen();
        BasaltException failure = backgroundFailure;
        if (failure != null) {
            throw new BasaltException("the store refuses writes since a background task failed: " + failure.getMessage()
                    + "; no acknowledged write is lost, reopen the store to recover", failure);
        }
    }

    // ------------------------------------------------------------------ catalog

    synchronized void createTable(TableDescriptor table) throws IOException {
        checkWritable();
        if (regions.containsKey(table.name())) {
            throw new TableExistsException(table.name());
        }
        int id = manifest.reserveTableId();
        manifest.apply(new ManifestEdit(List.of(new ManifestEdit.CreateTable(id, table),
                new ManifestEdit.NextTable(id + 1))));
        regions.put(table.name(), new Region(id, table, this, Map.of()));
    }

    synchronized void dropTable(String name) throws IOException {
        checkWritable();
        Region region = region(name);
        region.drop();
        manifest.apply(new ManifestEdit(List.of(new ManifestEdit.DropTable(region.id()))));
        regions.remove(name);
        region.close(true);
        retireWal();
    }

    List<TableDescriptor> tables() {
        checkOpen();
        return regions.values().stream().map(Region::descriptor).sorted(Comparator.comparing(TableDescriptor::name))
                .toList();
    }

    Region region(String name) {
        checkOpen();
        Region region = regions.get(name);
        if (region == null) {
            throw new TableNotFoundException(name);
        }
        return region;
    }

    // ------------------------------------------------------------------ flush

    /** Queues a flush of {@code region} on the flusher thread (once, however often asked). */
    void requestFlush(Region region) {
        if (flushRequested.add(region) && !closed) {
            flusher.execute(() -> {
                flushRequested.remove(region);
                try {
                    flush(region);
                } catch (IOException | RuntimeException e) {
                    background("flush of table " + region.name(), e);
                }
            });
        }
    }

    /** Writes the region's active memtable to SSTables, one per family, and records them. */
    void flush(Region region) throws IOException {
        synchronized (region.flushLock) {
            MemTable frozen = region.freeze();
            if (frozen == null) {
                return;
            }
            Map<String, SSTableWriter> writers = new LinkedHashMap<>();
            Map<String, SSTableReader> readers = new LinkedHashMap<>();
            List<ManifestEdit.Change> changes = new ArrayList<>();
            try {
                var entries = frozen.iterator();
                while (entries.hasNext()) {
                    MemTable.Entry entry = entries.next();
                    String family = new String(entry.cell().familyBytes(), java.nio.charset.StandardCharsets.UTF_8);
                    SSTableWriter writer = writers.get(family);
                    if (writer == null) {
                        FamilyDescriptor descriptor = region.family(family);
                        long number = manifest.reserveFileNumber();
                        Path path = sstablePath(region.id(), family, number);
                        Files.createDirectories(path.getParent());
                        writer = new SSTableWriter(path, descriptor, frozen.size());
                        writers.put(family, writer);
                    }
                    writer.add(entry.cell(), entry.sequence());
                }
                for (var e : writers.entrySet()) {
                    SSTableWriter writer = e.getValue();
                    SSTableWriter.Info info = writer.finish();
                    long number = fileNumber(writer.path());
                    changes.add(new ManifestEdit.AddFile(region.id(), e.getKey(), new ManifestEdit.FileMeta(number,
                            info.fileSize(), info.entries(), info.maxSequence(), info.firstKey(), info.lastKey())));
                    readers.put(e.getKey(), SSTableReader.open(number, writer.path(), blockCache));
                }
                for (SSTableWriter writer : writers.values()) {
                    Fsync.directory(writer.path().getParent());
                }
                changes.add(new ManifestEdit.Flushed(region.id(), frozen.largestSequence()));
                changes.add(new ManifestEdit.NextFile(manifest.nextFileNumber()));
                manifest.apply(new ManifestEdit(changes));
            } catch (IOException | RuntimeException e) {
                for (SSTableWriter writer : writers.values()) {
                    try {
                        writer.close();
                    } catch (IOException suppressed) {
                        e.addSuppressed(suppressed);
                    }
                }
                readers.values().forEach(SSTableReader::release);
                throw e;
            }
            region.flushed(frozen, readers);
            LOG.debug("Flushed {} cells of table {} into {} files", frozen.size(), region.name(), readers.size());
        }
        synchronized (room) {
            room.notifyAll();
        }
        retireWal();
        requestCompaction(region, false);
    }

    private static long fileNumber(Path path) {
        String name = path.getFileName().toString();
        return Long.parseLong(name.substring(0, name.indexOf('.')));
    }

    /** Deletes log segments whose records are all in SSTables. */
    void retireWal() throws IOException {
        long oldest = Long.MAX_VALUE;
        for (Region region : regions.values()) {
            oldest = Math.min(oldest, region.oldestUnflushedSequence());
        }
        wal.retireUpTo(oldest == Long.MAX_VALUE ? wal.lastSequence() : oldest - 1);
    }

    // ------------------------------------------------------------------ compaction

    /** Queues a compaction check of {@code region} on the compactor thread. */
    void requestCompaction(Region region, boolean major) {
        if ((major || compactionRequested.add(region)) && !closed) {
            compactor.execute(() -> {
                compactionRequested.remove(region);
                try {
                    compact(region, major);
                } catch (IOException | RuntimeException e) {
                    background("compaction of table " + region.name(), e);
                }
            });
        }
    }

    /**
     * Compacts each family of the region whose files call for it (or, {@code major}, every family
     * with more than one file or any droppable data) into one file.
     */
    void compact(Region region, boolean major) throws IOException {
        synchronized (region.compactionLock) {
            for (FamilyDescriptor family : region.descriptor().families()) {
                List<SSTableReader> files = region.view().files().get(family.name());
                List<SSTableReader> inputs = major ? files : Compaction.select(files, options.compactionTrigger());
                if (inputs.isEmpty() || (major && files.isEmpty())) {
                    continue;
                }
                new Compaction(this, region, family, inputs, inputs.size() == files.size()).run();
            }
        }
        synchronized (room) {
            room.notifyAll();
        }
    }

    Manifest manifest() {
        return manifest;
    }

    // ------------------------------------------------------------------ stalls and failures

    /** Waits while the region has too many files or memtables waiting; fails after the stall limit. */
    void awaitWriteRoom(Region region) {
        long deadline = 0;
        boolean logged = false;
        while (true) {
            String reason = stallReason(region);
            if (reason == null) {
                if (logged) {
                    LOG.info("Writes to table {} resumed", region.name());
                }
                return;
            }
            checkWritable();
            long now = System.currentTimeMillis();
            if (deadline == 0) {
                deadline = now + STALL_LIMIT_MILLIS;
                LOG.warn("Writes to table {} stall: {}", region.name(), reason);
                logged = true;
                requestCompaction(region, false);
            } else if (now >= deadline) {
                throw new BasaltException("writes to table " + region.name() + " stalled for more than "
                        + STALL_LIMIT_MILLIS / 1000 + " s: " + reason);
            }
            synchronized (room) {
                try {
                    room.wait(Math.max(1, Math.min(100, deadline - now)));
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new BasaltException("interrupted while waiting for a stalled table " + region.name());
                }
            }
        }
    }

    private String stallReason(Region region) {
        View view = region.view();
        if (view.flushing().size() >= MAX_FLUSHING) {
            return view.flushing().size() + " memtables are waiting to be flushed";
        }
        for (var e : view.files().entrySet()) {
            if (e.getValue().size() >= options.writeStallFiles()) {
                return "family " + e.getKey() + " has " + e.getValue().size() + " SSTables (limit "
                        + options.writeStallFiles() + ") waiting for compaction";
            }
        }
        return null;
    }

    private void background(String task, Exception e) {
        if (closed) {
            LOG.debug("{} stopped by close: {}", task, e.toString());
            return;
        }
        LOG.error("Background {} failed; the store refuses writes until reopened", task, e);
        backgroundFailure = new BasaltException(task + " failed: " + e.getMessage(), e);
        synchronized (room) {
            room.notifyAll();
        }
    }

    /** The failure of a background task, if one failed. */
    BasaltException backgroundFailure() {
        return backgroundFailure;
    }

    // ------------------------------------------------------------------ closing

    /**
     * Flushes every table, stops background work and the log, and releases the directory. Writes
     * racing the close fail with an error; none is left unanswered.
     */
    @Override
    public synchronized void close() throws IOException {
        if (closed) {
            return;
        }
        IOException failure = null;
        try {
            if (backgroundFailure == null) {
                for (Region region : regions.values()) {
                    flush(region);
                }
            }
        } catch (IOException | RuntimeException e) {
            failure = e instanceof IOException io ? io : new IOException(e.getMessage(), e);
        }
        closed = true;
        shutdown(flusher);
        shutdown(compactor);
        try {
            wal.close();
        } catch (IOException e) {
            failure = addTo(failure, e);
        }
        for (Region region : regions.values()) {
            region.close(false);
        }
        try {
            manifest.close();
        } catch (IOException e) {
            failure = addTo(failure, e);
        }
        blockCache.close();
        lock.release();
        lockChannel.close();
        if (failure != null) {
            throw failure;
        }
    }

    private static IOException addTo(IOException first, IOException next) {
        if (first == null) {
            return next;
        }
        first.addSuppressed(next);
        return first;
    }

    private static void shutdown(ExecutorService executor) {
        executor.shutdown();
        try {
            if (!executor.awaitTermination(60, TimeUnit.SECONDS)) {
                executor.shutdownNow();
            }
        } catch (InterruptedException e) {
            executor.shutdownNow();
            Thread.currentThread().interrupt();
        }
    }
}
