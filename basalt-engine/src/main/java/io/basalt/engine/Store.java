package io.basalt.engine;

import io.basalt.cell.EncodedCell;
import io.basalt.client.BasaltException;
import io.basalt.client.FamilyDescriptor;
import io.basalt.client.StoreOptions;
import io.basalt.client.TableDescriptor;
import io.basalt.client.TableExistsException;
import io.basalt.client.RegionInfo;
import io.basalt.client.StoreReadOnlyException;
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
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
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
 * replays the log records that are not yet in SSTables into memtables. A directory that holds
 * data but no manifest is refused: opening it as a new store would delete every SSTable as an
 * orphan.
 *
 * <p><b>Background work.</b> One thread flushes memtables, one compacts; admin flushes and
 * compactions run there too, so a caller's interrupt cannot break them half way. A flush writes
 * the region's frozen memtables oldest first and only once every write in one is durable, so no
 * flushed-up-to mark ever passes a memtable that is not in an SSTable, and no SSTable holds a
 * write whose log record could still fail. A failed flush or compaction leaves everything where
 * it was (the memtable stays where reads and the log protect it) and is retried with a doubling
 * backoff ({@link StoreOptions#backgroundRetries()}); when it keeps failing, the store goes
 * read-only.
 *
 * <p><b>Read-only.</b> A failed log write or force, a manifest whose edit's outcome is unknown, an
 * {@code Error} on the write path, or a flush or compaction that kept failing makes the store
 * read-only: reads go on, every write and every admin operation that writes fails fast with a
 * {@link StoreReadOnlyException} naming the cause, and closing writes nothing more. Reopening,
 * after the cause is fixed, replays the log.
 *
 * <p><b>Stalls.</b> Writers wait, with a log line, when a family has {@link
 * StoreOptions#writeStallFiles()} files, when two memtables of the region are waiting for a flush,
 * or when all memtables together hold {@link StoreOptions#memtableMemoryLimit()} bytes; a stall
 * longer than {@link #STALL_LIMIT_MILLIS} fails the write with an error that says why. Before the
 * memory limit is reached, when the active memtables hold seven eighths of it, the largest is
 * flushed ahead of the stall ({@link #flushAheadBytes}).
 */
final class Store implements Closeable {

    private static final Logger LOG = LoggerFactory.getLogger(Store.class);
    static final long STALL_LIMIT_MILLIS = 60_000;
    private static final int MAX_FLUSHING = 2;
    private static final long MAX_RETRY_BACKOFF_MILLIS = 60_000;
    /**
     * Directories open in this process. A second open of one is refused before it touches the
     * lock file: closing a second channel on that file would drop the process's POSIX lock, which
     * the first open still relies on to keep other processes out.
     */
    private static final Set<Path> OPEN_HERE = ConcurrentHashMap.newKeySet();

    private final Path directory;
    private final Path lockKey;
    private final StoreOptions options;
    private final LongSupplier clock;
    private final Disk disk;
    private final FileChannel lockChannel;
    private final FileLock lock;
    private final Manifest manifest;
    private final Mvcc mvcc;
    private final ReadPoints readPoints;
    private final BlockCache blockCache;
    /** Whole rows as gets returned them; null when {@link StoreOptions#rowCacheSize()} is 0. */
    private final RowCache rowCache;
    /** Null for a replica: its writes come from a replicated log ({@link #applyLogged}). */
    private final WriteAheadLog wal;
    /** Fed by a replicated log instead of clients: no write-ahead log of its own. */
    private final boolean replica;
    private final RegionLocks locks;
    private final Map<String, TableRegions> tables = new ConcurrentHashMap<>();
    private final ScheduledExecutorService flusher = background("basalt-flusher");
    private final ScheduledExecutorService compactor = background("basalt-compactor");
    private final Set<Region> flushRequested = ConcurrentHashMap.newKeySet();
    private final Set<Region> compactionRequested = ConcurrentHashMap.newKeySet();
    private final Set<Region> splitRequested = ConcurrentHashMap.newKeySet();
    /** Directories made durable since this open ({@link #ensureDirectory}). */
    private final Set<Path> durableDirectories = ConcurrentHashMap.newKeySet();
    /** Taken for catalog changes and for committing a flush or compaction, so a drop never races one. */
    private final Object catalog = new Object();
    private final Object room = new Object();
    private volatile StoreReadOnlyException readOnly;
    private final java.util.concurrent.atomic.AtomicLong compactionsRunning = new java.util.concurrent.atomic.AtomicLong();
    private final java.util.concurrent.atomic.AtomicLong compactions = new java.util.concurrent.atomic.AtomicLong();
    private final java.util.concurrent.atomic.AtomicLong longestCompaction = new java.util.concurrent.atomic.AtomicLong();
    private final java.util.concurrent.atomic.AtomicLong compactionNanos = new java.util.concurrent.atomic.AtomicLong();
    private final java.util.concurrent.atomic.AtomicLong compactedBytes = new java.util.concurrent.atomic.AtomicLong();
    private final java.util.concurrent.atomic.AtomicLong flushes = new java.util.concurrent.atomic.AtomicLong();
    private final java.util.concurrent.atomic.AtomicLong flushedBytes = new java.util.concurrent.atomic.AtomicLong();
    private final java.util.concurrent.atomic.AtomicLong flushNanos = new java.util.concurrent.atomic.AtomicLong();
    private final java.util.concurrent.atomic.AtomicLong compactionReadBytes = new java.util.concurrent.atomic.AtomicLong();
    private final java.util.concurrent.atomic.AtomicLong stalls = new java.util.concurrent.atomic.AtomicLong();
    private final java.util.concurrent.atomic.AtomicLong stallNanos = new java.util.concurrent.atomic.AtomicLong();
    /** When a stall was last logged as a warning (ms); see {@link #awaitWriteRoom}. */
    private final java.util.concurrent.atomic.AtomicLong lastStallWarning = new java.util.concurrent.atomic.AtomicLong(Long.MIN_VALUE / 2);
    private final java.util.concurrent.atomic.AtomicLong splits = new java.util.concurrent.atomic.AtomicLong();
    private final java.util.concurrent.atomic.AtomicLong merges = new java.util.concurrent.atomic.AtomicLong();
    private volatile boolean closed;

    private static ScheduledExecutorService background(String name) {
        ScheduledThreadPoolExecutor executor = new ScheduledThreadPoolExecutor(1,
                runnable -> Thread.ofPlatform().name(name).daemon().unstarted(runnable));
        executor.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
        return executor;
    }

    private Store(Path directory, StoreOptions options, LongSupplier clock, RegionLocks locks, Disk disk,
                  boolean replica) throws IOException {
        this.directory = directory;
        this.replica = replica;
        this.options = options;
        this.clock = clock;
        this.locks = locks;
        this.disk = disk;
        disk.createDirectories(directory, directory.toAbsolutePath().getParent());
        this.lockKey = directory.toRealPath();
        if (!OPEN_HERE.add(lockKey)) {
            throw new BasaltException("the store in " + directory + " is already open in this process; close it"
                    + " there first");
        }
        FileChannel lockFile = null;
        FileLock taken = null;
        try {
            lockFile = FileChannel.open(directory.resolve("LOCK"), StandardOpenOption.CREATE, StandardOpenOption.WRITE);
            taken = lockFile.tryLock();
            if (taken == null) {
                throw new BasaltException("the store in " + directory + " is open in another process; close it"
                        + " there first");
            }
        } catch (IOException | RuntimeException e) {
            if (lockFile != null) {
                lockFile.close();
            }
            OPEN_HERE.remove(lockKey);
            throw e;
        }
        this.lockChannel = lockFile;
        this.lock = taken;
        this.blockCache = new BlockCache(options.blockCacheSize(), "block-cache " + directory);
        this.rowCache = options.rowCacheSize() > 0 ? new RowCache(options.rowCacheSize()) : null;
        boolean ok = false;
        Manifest opened = null;
        try {
            refuseDataWithoutManifest();
            opened = Manifest.open(directory, Manifest.REWRITE_SIZE, disk);
            this.manifest = opened;
            Map<Integer, TableRegions> byId = new HashMap<>();
            Map<Integer, Manifest.RegionEntry> entries = new HashMap<>();
            Set<Path> live = new HashSet<>();
            Map<Long, SSTableReader> readersByFile = new HashMap<>(); // one reader per file, shared by the regions listing it
            for (Manifest.TableEntry table : manifest.tables().values()) {
                List<Region> regionsOfTable = new ArrayList<>();
                for (Manifest.RegionEntry entry : table.regions.values()) {
                    Map<String, List<SSTableReader>> files = new LinkedHashMap<>();
                    for (var family : entry.files.entrySet()) {
                        List<SSTableReader> readers = new ArrayList<>();
                        List<ManifestEdit.FileMeta> metas = new ArrayList<>(family.getValue());
                        metas.sort(Comparator.comparingLong(ManifestEdit.FileMeta::maxSequence).reversed());
                        for (ManifestEdit.FileMeta meta : metas) {
                            SSTableReader reader = readersByFile.get(meta.fileNumber());
                            if (reader != null) {
                                reader.retain(); // each region's view holds its own reference
                                reader.list();
                            } else {
                                Path path = sstablePath(table.id, family.getKey(), meta.fileNumber());
                                if (!Files.exists(path)) {
                                    throw new CorruptFileException(path, 0, "SSTable listed in the manifest is missing");
                                }
                                reader = SSTableReader.open(meta.fileNumber(), path, blockCache, disk);
                                readersByFile.put(meta.fileNumber(), reader);
                                live.add(path);
                            }
                            readers.add(reader);
                        }
                        files.put(family.getKey(), readers);
                    }
                    regionsOfTable.add(new Region(entry.id, table.id, entry.start, entry.end, table.descriptor, this,
                            files));
                    entries.put(entry.id, entry);
                }
                TableRegions regions = new TableRegions(table.id, table.descriptor, this, regionsOfTable);
                regions.setDisabled(table.disabled);
                tables.put(table.descriptor.name(), regions);
                byId.put(table.id, regions);
            }
            deleteOrphans(live, byId.keySet());

            long[] replayed = {0};
            if (replica && Files.isDirectory(directory.resolve("wal"))) {
                throw new BasaltException("the store in " + directory + " has a write-ahead log; it was opened as a"
                        + " store of its own, and cannot be opened as a replica fed by a replicated log");
            }
            WriteAheadLog.Replayed log = replica ? new WriteAheadLog.Replayed(0, List.of(), 1)
                    : WriteAheadLog.replay(directory.resolve("wal"), options.walCorruption(),
                    entry -> {
                        TableRegions table = byId.get(entry.tableId());
                        if (table == null) {
                            return; // a dropped table
                        }
                        // A record holds one table's cells, of one region or (a batch written before a
                        // split) several: each cell goes to its row's region, unless that region's
                        // files already hold it.
                        Region region = null;
                        List<io.basalt.cell.Cell> part = new ArrayList<>();
                        for (io.basalt.cell.Cell cell : entry.cells()) {
                            byte[] row = cell.rowBytes();
                            if (region == null || !region.contains(row)) {
                                replayInto(region, entries, part, entry.sequence());
                                region = table.regionFor(row);
                            }
                            part.add(cell);
                        }
                        replayInto(region, entries, part, entry.sequence());
                        replayed[0]++;
                    }, disk);
            // The log may hold no record at all (a flush retired every older segment): sequence
            // numbers then continue from the highest the manifest knows, never from zero, or
            // everything already in SSTables would be invisible and new writes would reuse numbers.
            long lastSequence = log.lastSequence();
            for (Manifest.RegionEntry region : entries.values()) {
                lastSequence = Math.max(lastSequence, region.flushedSequence);
                for (List<ManifestEdit.FileMeta> files : region.files.values()) {
                    for (ManifestEdit.FileMeta file : files) {
                        lastSequence = Math.max(lastSequence, file.maxSequence());
                    }
                }
            }
            log = new WriteAheadLog.Replayed(lastSequence, log.segments(), log.nextSegmentId(), log.free());
            this.mvcc = new Mvcc(lastSequence);
            this.readPoints = new ReadPoints(mvcc::readPoint);
            this.wal = replica ? null : WriteAheadLog.open(directory.resolve("wal"), options, mvcc, log, disk,
                    new WriteAheadLog.Listener() {
                        @Override
                        public void failed(StoreReadOnlyException failure) {
                            goReadOnly("the write-ahead log", failure);
                        }

                        @Override
                        public void rolled() {
                            walRolled();
                        }
                    });
            LOG.info("Opened {} {}: {} tables, {} regions, {} log records replayed, last sequence {}",
                    replica ? "replica store" : "store", directory, tables.size(), entries.size(), replayed[0],
                    lastSequence);
            ok = true;
        } finally {
            if (!ok) {
                for (Region region : allRegions()) {
                    region.close(false);
                }
                if (opened != null) {
                    opened.close();
                }
                flusher.shutdownNow();
                compactor.shutdownNow();
                blockCache.close();
                lock.release();
                lockChannel.close();
                OPEN_HERE.remove(lockKey);
            }
        }
    }

    /**
     * Refuses a directory that has log segments or SSTables but no manifest (deleted by hand, or
     * restored without it): taken for a new store, its SSTables would be deleted as orphans.
     */
    private void refuseDataWithoutManifest() throws IOException {
        if (Files.exists(directory.resolve(Manifest.FILE))) {
            return;
        }
        for (Path dir : List.of(directory.resolve("wal"), tablesDir())) {
            if (!Files.isDirectory(dir)) {
                continue;
            }
            try (Stream<Path> walk = Files.walk(dir)) {
                var data = walk.filter(Files::isRegularFile).findFirst();
                if (data.isPresent()) {
                    throw new BasaltException("the store in " + directory + " has data (" + data.get()
                            + ") but no " + Manifest.FILE + "; refusing to open it, since opening would delete its"
                            + " SSTables as orphans. Restore the " + Manifest.FILE + " file, or move the data away to"
                            + " start a new store");
                }
            }
        }
    }

    /** Replays {@code cells} of one log record into {@code region} unless its files hold them; clears them. */
    private static void replayInto(Region region, Map<Integer, Manifest.RegionEntry> entries,
                                   List<io.basalt.cell.Cell> cells, long sequence) {
        if (region != null && !cells.isEmpty() && sequence > entries.get(region.id()).flushedSequence) {
            region.replay(List.copyOf(cells), sequence);
        }
        cells.clear();
    }

    /** Every region of every table (a snapshot). */
    List<Region> allRegions() {
        List<Region> all = new ArrayList<>();
        for (TableRegions table : tables.values()) {
            all.addAll(table.regions());
        }
        return all;
    }

    /** Opens (creating) the store in {@code directory} on the local disk. */
    static Store open(Path directory, StoreOptions options, LongSupplier clock, RegionLocks locks) throws IOException {
        return open(directory, options, clock, locks, LocalDisk.INSTANCE);
    }

    /** Opens (creating) the store in {@code directory}, every file operation going through {@code disk}. */
    static Store open(Path directory, StoreOptions options, LongSupplier clock, RegionLocks locks, Disk disk)
            throws IOException {
        return new Store(directory, options, clock, locks, disk, false);
    }

    /**
     * Opens (creating) a replica store in {@code directory}: a store without a write-ahead log of
     * its own, written only by {@link #applyLogged} from a replicated log (cluster mode, where a
     * region's Raft log is its write-ahead log). Clients' writes are refused. What was applied but
     * not flushed is gone after a crash by design: the replicated log applies it again from
     * {@link #appliedSequence()} on.
     */
    static Store openReplica(Path directory, StoreOptions options, LongSupplier clock, RegionLocks locks, Disk disk)
            throws IOException {
        return new Store(directory, options, clock, locks, disk, true);
    }

    boolean isReplica() {
        return replica;
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

    /** The row cache, or {@code null} when the store has none. */
    RowCache rowCache() {
        return rowCache;
    }

    Disk disk() {
        return disk;
    }

    Path directory() {
        return directory;
    }

    void checkOpen() {
        if (closed) {
            throw new BasaltException("the store in " + directory + " is closed");
        }
    }

    /** Fails with {@link StoreReadOnlyException} once the store has gone read-only. */
    void checkWritable() {
        checkOpen();
        StoreReadOnlyException cause = readOnly;
        if (cause != null) {
            throw new StoreReadOnlyException(cause.reason(), cause);
        }
    }

    /** Why the store is read-only, or {@code null} while it takes writes. */
    StoreReadOnlyException readOnly() {
        return readOnly;
    }

    // ------------------------------------------------------------------ catalog

    /**
     * Creates a table of {@code splitKeys.size() + 1} regions: {@code [, k1), [k1, k2), ... [kn, )}.
     *
     * @throws IllegalArgumentException when a split key is empty or the keys are not strictly
     *     ascending
     */
    void createTable(TableDescriptor table, List<byte[]> splitKeys) throws IOException {
        List<byte[]> bounds = checkSplitKeys(table.name(), splitKeys);
        synchronized (catalog) {
            checkWritable();
            if (replica && (!tables.isEmpty() || !splitKeys.isEmpty())) {
                // One flushed-up-to mark must say what the replicated log applies again after a crash.
                throw new IllegalArgumentException("a replica store holds one region of one table; the store in "
                        + directory + " " + (tables.isEmpty() ? "was asked for " + (bounds.size() - 1) + " regions"
                        : "already holds table " + tables.keySet().iterator().next()));
            }
            if (tables.containsKey(table.name())) {
                throw new TableExistsException(table.name());
            }
            List<ManifestEdit.Change> changes = new ArrayList<>();
            TableRegions created = newTable(table, bounds, changes);
            try {
                manifest.apply(new ManifestEdit(changes));
            } catch (ManifestBrokenException e) {
                throw goReadOnly("creating table " + table.name(), e);
            }
            tables.put(table.name(), created);
        }
    }

    /**
     * A new table of regions between consecutive {@code bounds}, with fresh table and region ids;
     * adds to {@code changes} what the manifest edit that creates it needs. Catalog lock held.
     */
    private TableRegions newTable(TableDescriptor table, List<byte[]> bounds, List<ManifestEdit.Change> changes) {
        int id = manifest.reserveTableId();
        changes.add(new ManifestEdit.Table(id, table));
        List<Region> regions = new ArrayList<>();
        int last = id;
        for (int i = 0; i + 1 < bounds.size(); i++) {
            last = manifest.reserveTableId();
            changes.add(new ManifestEdit.AddRegion(id, last, bounds.get(i), bounds.get(i + 1), 0));
            regions.add(new Region(last, id, bounds.get(i), bounds.get(i + 1), table, this, Map.of()));
        }
        changes.add(new ManifestEdit.NextTable(last + 1));
        return new TableRegions(id, table, this, regions);
    }

    /** The region bounds that {@code splitKeys} make, from the empty row to the empty row. */
    static List<byte[]> checkSplitKeys(String table, List<byte[]> splitKeys) {
        List<byte[]> bounds = new ArrayList<>();
        bounds.add(new byte[0]);
        for (byte[] key : splitKeys) {
            if (key == null || key.length == 0) {
                throw new IllegalArgumentException("table " + table + ": a split key is empty; the first region"
                        + " always starts at the empty row, so list only the rows where later regions start");
            }
            byte[] previous = bounds.getLast();
            if (bounds.size() > 1 && io.basalt.bytes.Bytes.compare(previous, key) >= 0) {
                throw new IllegalArgumentException("table " + table + ": split keys must be strictly ascending, but '"
                        + io.basalt.bytes.Bytes.toStringBinary(key) + "' follows '"
                        + io.basalt.bytes.Bytes.toStringBinary(previous) + "'");
            }
            bounds.add(key.clone());
        }
        bounds.add(new byte[0]);
        return bounds;
    }

    /**
     * Drops a table. Under the catalog lock, so a flush or compaction of it either committed
     * before (its files go with the table) or sees the drop and discards what it wrote.
     */
    void dropTable(String name) throws IOException {
        synchronized (catalog) {
            checkWritable();
            TableRegions table = table(name);
            try {
                manifest.apply(new ManifestEdit(List.of(new ManifestEdit.DropTable(table.id()))));
            } catch (ManifestBrokenException e) {
                throw goReadOnly("dropping table " + name, e);
            }
            for (Region region : table.regions()) {
                region.drop();
            }
            tables.remove(name);
            for (Region region : table.regions()) {
                region.close(true);
            }
        }
        retireWal();
    }

    /**
     * Empties a table: in one manifest edit the table is dropped and created again with the same
     * descriptor under a new id, as one region or ({@code preserveSplits}, HBase's
     * {@code truncate_preserve}) with the same region boundaries. The old files are deleted once no
     * reader holds them; the old log records are skipped on replay as a dropped table's. A write or
     * read racing the truncate may fail with {@link TableNotFoundException}, as in HBase, where a
     * truncate disables the table first.
     */
    void truncateTable(String name, boolean preserveSplits) throws IOException {
        synchronized (catalog) {
            checkWritable();
            TableRegions old = table(name);
            if (replica) {
                throw new IllegalArgumentException("a replica store is written through its log only");
            }
            List<byte[]> bounds = new ArrayList<>();
            if (preserveSplits) {
                old.regions().forEach(r -> bounds.add(r.start()));
            } else {
                bounds.add(new byte[0]);
            }
            bounds.add(new byte[0]);
            List<ManifestEdit.Change> changes = new ArrayList<>();
            changes.add(new ManifestEdit.DropTable(old.id()));
            TableRegions created = newTable(old.descriptor(), bounds, changes);
            try {
                manifest.apply(new ManifestEdit(changes));
            } catch (ManifestBrokenException e) {
                throw goReadOnly("truncating table " + name, e);
            }
            for (Region region : old.regions()) {
                region.drop();
            }
            tables.put(name, created);
            for (Region region : old.regions()) {
                region.close(true);
            }
            LOG.info("Truncated table {} ({} regions{})", name, created.regionArray().length,
                    preserveSplits ? ", boundaries kept" : "");
        }
        retireWal();
    }

    /**
     * Disables or enables a table, in the manifest (so it stays so after a restart) and then for
     * new operations: reads and writes of a disabled table fail with
     * {@link io.basalt.client.TableDisabledException}. Admin operations still work on it.
     */
    void setTableDisabled(String name, boolean disabled) throws IOException {
        synchronized (catalog) {
            checkWritable();
            TableRegions table = table(name);
            if (table.disabled() == disabled) {
                return;
            }
            try {
                manifest.apply(new ManifestEdit(List.of(new ManifestEdit.TableState(table.id(), disabled))));
            } catch (ManifestBrokenException e) {
                throw goReadOnly((disabled ? "disabling" : "enabling") + " table " + name, e);
            }
            table.setDisabled(disabled);
        }
        LOG.info("{} table {}", disabled ? "Disabled" : "Enabled", name);
    }

    /**
     * Changes a table's families to {@code altered}'s: a family it adds starts empty, a family it
     * leaves out is dropped with its data, and the others take its settings (versions and time to
     * live at once, for reads and compactions; bloom filter, block size and compression for the
     * files written from now on). Online, in the way a split is: each region is flushed while
     * writes go on; then, holding every region's write lock (writes wait, reads go on), what was
     * written meanwhile is flushed and <em>one</em> manifest edit records the new families. The
     * regions are rebuilt with them under the same ids and published together; the old ones are
     * retired, so operations that waited on them run on the new ones, and the dropped family's
     * files are deleted once no reader holds them. A crash leaves the table as it was before the
     * edit or after it.
     *
     * @throws IllegalArgumentException when {@code altered} names another table
     */
    void alterTable(String name, TableDescriptor altered) throws IOException {
        if (!altered.name().equals(name)) {
            throw new IllegalArgumentException("alter of table " + name + " was given a descriptor of table "
                    + altered.name() + "; a table is not renamed");
        }
        if (replica) {
            throw new IllegalArgumentException("a replica store is written through its log only");
        }
        while (true) {
            TableRegions table = table(name);
            List<Region> regions = table.regions();
            for (Region region : regions) {
                flush(region, true); // the bulk, while writes go on
            }
            if (alterLocked(table, regions, altered, 0)) {
                break;
            }
            Thread.onSpinWait(); // a split or merge replaced a region meanwhile: take the new ones
        }
        for (Region region : table(name).regions()) {
            requestCompaction(region, false); // settings such as versions take effect in the files too
        }
        LOG.info("Altered table {}: families {}", name, altered.families());
    }

    /**
     * Takes the compaction and flush locks of {@code regions} from the {@code i}th on, in key
     * order (the order merges take them in), then does the alter; false when a region was replaced
     * before its locks were taken.
     */
    private boolean alterLocked(TableRegions table, List<Region> regions, TableDescriptor altered, int i)
            throws IOException {
        if (i < regions.size()) {
            Region region = regions.get(i);
            synchronized (region.compactionLock) {
                synchronized (region.flushLock) {
                    return alterLocked(table, regions, altered, i + 1);
                }
            }
        }
        synchronized (catalog) {
            // All regions' write locks at once: two region ids may share a lock stripe.
            try (RegionLocks.Lease _ = locks.lockTablesWrite(regions.stream().map(Region::id).toList())) {
                checkWritable();
                if (tables.get(table.name()) != table || regions.stream().anyMatch(Region::isRetired)
                        || !table.regions().equals(regions)) {
                    return false;
                }
                for (Region region : regions) {
                    region.freezeLocked();
                    while (!region.view().flushing().isEmpty()) {
                        writeOut(region, region.view().flushing().getFirst());
                    }
                }
                try {
                    manifest.apply(new ManifestEdit(List.of(new ManifestEdit.AlterTable(table.id(), altered))));
                } catch (ManifestBrokenException e) {
                    throw goReadOnly("altering table " + table.name(), e);
                }
                List<Region> rebuilt = new ArrayList<>();
                for (Region region : regions) {
                    Map<String, List<SSTableReader>> kept = new LinkedHashMap<>();
                    for (FamilyDescriptor family : altered.families()) {
                        kept.put(family.name(), new ArrayList<>(region.view().files().getOrDefault(family.name(), List.of())));
                    }
                    rebuilt.add(new Region(region.id(), table.id(), region.start(), region.end(), altered, this, adopt(kept)));
                }
                table.alter(altered, rebuilt);
                regions.forEach(Region::retireLocked);
            }
        }
        regions.forEach(Region::closeRetired); // a dropped family's files are no longer listed: deleted when unread
        return true;
    }

    List<TableDescriptor> tables() {
        checkOpen();
        return tables.values().stream().map(TableRegions::descriptor)
                .sorted(Comparator.comparing(TableDescriptor::name)).toList();
    }

    TableRegions table(String name) {
        checkOpen();
        TableRegions table = tables.get(name);
        if (table == null) {
            throw new TableNotFoundException(name);
        }
        return table;
    }

    // ------------------------------------------------------------------ flush

    /** Queues a flush of {@code region} on the flusher thread (once, however often asked). */
    void requestFlush(Region region) {
        if (flushRequested.add(region)) {
            submitFlush(region, true, 0);
        }
    }

    /** Queues a flush attempt after {@code delayMillis}; the {@code attempt}th retry when above 0. */
    private void submitFlush(Region region, boolean freeze, int attempt) {
        long delay = attempt == 0 ? 0 : backoffMillis(attempt);
        try {
            flusher.schedule(() -> {
                // The request stands until the memtable is frozen: one made before then is this
                // flush's, and queueing another would freeze what little came in meanwhile.
                Runnable frozen = () -> flushRequested.remove(region);
                try {
                    flush(region, freeze, frozen);
                    region.flushFailures = 0;
                } catch (IOException | RuntimeException e) {
                    retry("flush of table " + region.label(), region, ++region.flushFailures, e,
                            next -> submitFlush(region, false, next));
                } finally {
                    frozen.run();
                }
            }, delay, TimeUnit.MILLISECONDS);
        } catch (RejectedExecutionException e) {
            flushRequested.remove(region); // closed: the log holds what was not flushed
        }
    }

    /**
     * Flushes the region on the flusher thread; the future completes when its memtables are in
     * SSTables, or with why not (the memtables then stay, and a retry is queued). The flush runs
     * to its end however the caller's thread fares.
     */
    CompletableFuture<Void> flushAsync(Region region) {
        CompletableFuture<Void> done = new CompletableFuture<>();
        try {
            flusher.execute(() -> {
                try {
                    flush(region, true);
                    region.flushFailures = 0;
                    done.complete(null);
                } catch (IOException | RuntimeException e) {
                    done.completeExceptionally(e);
                    if (!region.view().flushing().isEmpty()) {
                        retry("flush of table " + region.label(), region, ++region.flushFailures, e,
                                next -> submitFlush(region, false, next));
                    }
                } catch (Error e) {
                    // whoever waits (a close, an admin flush) hears of it instead of waiting for ever
                    done.completeExceptionally(e);
                    throw e;
                }
            });
        } catch (RejectedExecutionException e) {
            done.completeExceptionally(new BasaltException("the store in " + directory + " is closed"));
        }
        return done;
    }

    /**
     * Writes the region's frozen memtables (after freezing the active one, when {@code freeze}) to
     * SSTables, oldest first, one file per family each. Flusher thread only. A memtable whose
     * flush fails stays frozen, where reads and the log still cover it, and stops the ones after
     * it: flushing a later memtable first would record a flushed-up-to sequence beyond the one
     * left behind, and replay would skip its writes.
     */
    void flush(Region region, boolean freeze) throws IOException {
        flush(region, freeze, () -> {});
    }

    /** {@link #flush(Region, boolean)}, running {@code frozen} once the active memtable is frozen (or need not be). */
    private void flush(Region region, boolean freeze, Runnable frozen) throws IOException {
        synchronized (region.flushLock) {
            if (region.isDropped()) {
                return;
            }
            if (freeze && !region.view().active().isEmpty()) {
                checkWritable();
                region.freeze();
            }
            frozen.run();
            while (true) {
                List<MemTable> flushing = region.view().flushing();
                if (flushing.isEmpty() || region.isDropped()) {
                    break;
                }
                writeOut(region, flushing.getFirst());
            }
        }
        synchronized (room) {
            room.notifyAll();
        }
        retireWal();
        requestCompaction(region, false);
        requestSplitIfLarge(region);
    }

    /**
     * Queues a split of {@code region} on the compactor thread when its data passed {@link
     * StoreOptions#regionSplitSize()}. A split that fails leaves the region whole; the next flush
     * or compaction asks again.
     */
    void requestSplitIfLarge(Region region) {
        long limit = options.regionSplitSize();
        if (limit <= 0 || replica || region.isRetired() || region.isDropped() || readOnly != null || closed
                || region.sizeBytes() <= limit || !splitRequested.add(region)) {
            return;
        }
        try {
            compactor.execute(() -> {
                try {
                    if (!region.isRetired() && !region.isDropped() && region.sizeBytes() > limit) {
                        split(region, null);
                    }
                } catch (IOException | RuntimeException e) {
                    if (!closed && readOnly == null) {
                        LOG.warn("Splitting region {} ({} bytes, limit {}) failed; it stays whole for now",
                                region.label(), region.sizeBytes(), limit, e);
                    }
                } finally {
                    splitRequested.remove(region);
                }
            });
        } catch (RejectedExecutionException e) {
            splitRequested.remove(region);
        }
    }

    /**
     * A flush's loop over its memtable's versions, in calls of at most a batch, for the reason
     * {@code Compaction.Copier} gives: one call of a million iterations is compiled on stack, and
     * again whole, every time a rare branch of what it inlines is first taken.
     *
     * <p>Versions no reader can see any more are left out, by the rules compaction applies to a
     * merge of some files (markers stay): a memtable holds every write since the last flush, and
     * under Zipfian updates a hot column has thousands of versions that every read of it, and
     * every compaction, would otherwise step through again.
     */
    private final class FlushCopy {
        private final Region region;
        private final long expected;
        private final Map<String, SSTableWriter> writers;
        private final Iterator<MemTable.Entry> entries;
        private final long readPoint = readPoints.smallest();
        private final long now = clock.getAsLong();
        private final Map<String, Visibility> visibilities = new HashMap<>();
        // The last family's name, writer and rules: rows interleave families, but a table
        // usually has one, and naming it per cell (a String from its bytes) was a tenth of the
        // flusher's time.
        private EncodedCell lastFamily; // a cell of the last family
        private String lastName;
        private SSTableWriter lastWriter; // made on the family's first kept cell
        private Visibility lastVisibility;
        private EncodedCell lastCell;
        long dropped;

        FlushCopy(Region region, MemTable frozen, Map<String, SSTableWriter> writers) {
            this.region = region;
            this.expected = frozen.size();
            this.writers = writers;
            this.entries = frozen.iterator();
        }

        /** Writes up to {@code max} versions to their families' files; false once none is left. */
        boolean copy(int max) throws IOException {
            for (int n = 0; n < max; n++) {
                if (!entries.hasNext()) {
                    return false;
                }
                MemTable.Entry entry = entries.next();
                EncodedCell cell = entry.cell();
                boolean sameFamily = lastFamily != null && lastFamily.sameFamily(cell);
                if (!sameFamily) {
                    String family = new String(cell.familyBytes(), java.nio.charset.StandardCharsets.UTF_8);
                    FamilyDescriptor descriptor = region.family(family);
                    lastFamily = cell;
                    lastName = family;
                    lastWriter = writers.get(family);
                    lastVisibility = visibilities.computeIfAbsent(family, f -> new Visibility(readPoint, descriptor, now));
                }
                if (!sameFamily || !lastCell.sameRow(cell)) {
                    lastVisibility.reset(); // a new row, or a new family of the row
                }
                lastCell = cell;
                if (lastVisibility.judge(cell, entry.sequence()) == Visibility.Verdict.DROP) {
                    dropped++;
                    continue;
                }
                if (lastWriter == null) {
                    lastWriter = newFlushWriter();
                }
                lastWriter.add(cell, entry.sequence());
            }
            return true;
        }

        private SSTableWriter newFlushWriter() throws IOException {
            long number = manifest.reserveFileNumber();
            Path path = sstablePath(region.tableId(), lastName, number);
            ensureDirectory(path.getParent());
            SSTableWriter writer = new SSTableWriter(path, region.family(lastName), expected, disk, Disk.Purpose.FLUSH);
            writers.put(lastName, writer);
            return writer;
        }
    }

    /** Writes one frozen memtable to SSTables and commits them (see {@link #flush}). */
    private void writeOut(Region region, MemTable frozen) throws IOException {
        checkWritable();
        if (!mvcc.awaitReadPoint(frozen.largestSequence(),
                () -> (wal != null && wal.failure() != null) || readOnly != null)) {
            checkWritable();
            throw new StoreReadOnlyException("the write-ahead log failed before a memtable of table "
                    + region.label() + " was durable");
        }
        long started = System.nanoTime();
        Map<String, SSTableWriter> writers = new LinkedHashMap<>();
        Map<String, SSTableReader> readers = new LinkedHashMap<>();
        boolean keepFiles = false;
        long written = 0;
        try {
            FlushCopy copy = new FlushCopy(region, frozen, writers);
            while (copy.copy(Compaction.BATCH)) {
                // each call copies one batch: see FlushCopy
            }
            long dropped = copy.dropped;
            List<ManifestEdit.Change> changes = new ArrayList<>();
            for (var e : writers.entrySet()) {
                SSTableWriter writer = e.getValue();
                SSTableWriter.Info info = writer.finish();
                written += info.fileSize();
                long number = fileNumber(writer.path());
                changes.add(new ManifestEdit.AddFile(region.id(), e.getKey(), new ManifestEdit.FileMeta(number,
                        info.fileSize(), info.entries(), info.maxSequence(), info.firstKey(), info.lastKey())));
                readers.put(e.getKey(), SSTableReader.open(number, writer.path(), blockCache, disk));
            }
            for (SSTableWriter writer : writers.values()) {
                disk.syncDirectory(writer.path().getParent());
            }
            changes.add(new ManifestEdit.Flushed(region.id(), frozen.largestSequence()));
            changes.add(new ManifestEdit.NextFile(manifest.nextFileNumber()));
            synchronized (catalog) {
                if (!region.isDropped()) {
                    try {
                        manifest.apply(new ManifestEdit(changes));
                    } catch (ManifestBrokenException e) {
                        keepFiles = true; // the next open may find the edit applied
                        throw goReadOnly("a flush of table " + region.label(), e);
                    }
                    region.flushed(frozen, readers);
                    long took = System.nanoTime() - started;
                    flushes.incrementAndGet();
                    flushedBytes.addAndGet(written);
                    flushNanos.addAndGet(took);
                    LOG.info("Flushed table {}: {} cells ({} in memory) to {} file(s) of {} bytes in {} ms{}",
                            region.label(), frozen.size(), frozen.bytes(), writers.size(), written,
                            TimeUnit.NANOSECONDS.toMillis(took), dropped > 0 ? "; " + dropped
                                    + " versions no reader can see left out" : "");
                    return;
                }
            }
            LOG.debug("Table {} was dropped while its flush ran; discarding what it wrote", region.label());
            discard(writers, readers, null);
        } catch (IOException | RuntimeException e) {
            if (!keepFiles) {
                discard(writers, readers, e);
            }
            throw e;
        }
    }

    /** Closes and deletes the files of a flush that did not commit. */
    private void discard(Map<String, SSTableWriter> writers, Map<String, SSTableReader> readers, Exception failure) {
        for (SSTableReader reader : readers.values()) {
            reader.markObsolete();
            reader.release();
        }
        for (SSTableWriter writer : writers.values()) {
            try {
                writer.close();
                disk.delete(writer.path());
            } catch (IOException e) {
                if (failure != null) {
                    failure.addSuppressed(e);
                }
            }
        }
    }

    /**
     * Makes {@code dir} (under the store's directory) exist durably, once per open: a power loss
     * must not take a table's directory, with the SSTables the manifest lists in it.
     */
    void ensureDirectory(Path dir) throws IOException {
        if (!durableDirectories.contains(dir)) {
            disk.createDirectories(dir, directory);
            durableDirectories.add(dir);
        }
    }

    private static long fileNumber(Path path) {
        String name = path.getFileName().toString();
        return Long.parseLong(name.substring(0, name.indexOf('.')));
    }

    /** Deletes log segments whose records are all in SSTables. */
    void retireWal() throws IOException {
        if (wal == null) {
            return;
        }
        wal.retireUpTo(oldestUnflushed() - 1);
    }

    /** The lowest sequence number not yet in an SSTable, over every table; past the log's last when none. */
    private long oldestUnflushed() {
        // A write past the read point may sit between its log append and its memtable insert, in
        // no memtable yet: its segment must stay too.
        long oldest = mvcc.readPoint() + 1;
        for (Region region : allRegions()) {
            oldest = Math.min(oldest, region.oldestUnflushedSequence());
        }
        return oldest;
    }

    /**
     * Called when the log rolls to a new segment: when the log has grown past {@link
     * StoreOptions#maxWalSize()}, flushes the table whose unflushed write keeps the oldest segment,
     * so that one rarely written table cannot pin the log (HBase flushes by {@code maxlogs} the
     * same way).
     */
    void walRolled() {
        if (wal.totalBytes() <= options.maxWalSize()) {
            return;
        }
        Region oldest = null;
        long sequence = Long.MAX_VALUE;
        for (Region region : allRegions()) {
            long s = region.oldestUnflushedSequence();
            if (s < sequence) {
                sequence = s;
                oldest = region;
            }
        }
        if (oldest != null) {
            LOG.info("The write-ahead log holds {} bytes (limit {}); flushing table {}, whose write {} keeps its"
                    + " oldest segment", wal.totalBytes(), options.maxWalSize(), oldest.name(), sequence);
            requestFlush(oldest);
        }
    }

    // ------------------------------------------------------------------ compaction

    /** Queues a compaction check of {@code region} on the compactor thread. */
    void requestCompaction(Region region, boolean major) {
        if (major || compactionRequested.add(region)) {
            submitCompaction(region, major, 0);
        }
    }

    private void submitCompaction(Region region, boolean major, int attempt) {
        try {
            compactor.schedule(() -> {
                compactionRequested.remove(region);
                try {
                    compact(region, major);
                    region.compactionFailures = 0;
                } catch (IOException | RuntimeException e) {
                    retry("compaction of table " + region.label(), region, ++region.compactionFailures, e,
                            next -> submitCompaction(region, major, next));
                }
            }, attempt == 0 ? 0 : backoffMillis(attempt), TimeUnit.MILLISECONDS);
        } catch (RejectedExecutionException e) {
            compactionRequested.remove(region);
        }
    }

    /**
     * Queues a read-triggered compaction of {@code region} on the compactor thread: gets have read
     * enough extra files of it ({@link Region#chargeExtraReads}) that merging each family's files
     * into one costs less than going on reading them. Once queued, no other is until it finished.
     */
    void requestReadCompaction(Region region) {
        if (readOnly == null && region.readCompactionQueued.compareAndSet(false, true)) {
            submitReadCompaction(region, 0);
        }
    }

    /** Runs (or retries) a queued read-triggered compaction; the region's flag stays set until no retry follows. */
    private void submitReadCompaction(Region region, int attempt) {
        try {
            compactor.schedule(() -> {
                boolean[] retrying = {false};
                try {
                    compact(region, Kind.READS); // resets the region's charges once every family has one file
                    region.compactionFailures = 0;
                } catch (IOException | RuntimeException e) {
                    retry("read-triggered compaction of table " + region.label(), region, ++region.compactionFailures,
                            e, next -> {
                                retrying[0] = true;
                                submitReadCompaction(region, next);
                            });
                } finally { // an Error too: the flag must not stay set with nothing queued
                    if (!retrying[0]) {
                        region.readCompactionQueued.set(false);
                    }
                }
            }, attempt == 0 ? 0 : backoffMillis(attempt), TimeUnit.MILLISECONDS);
        } catch (RejectedExecutionException e) {
            region.readCompactionQueued.set(false);
        }
    }

    /** What a compaction of a region merges, family by family. */
    enum Kind {
        /** A tier of files of similar size, if one has formed ({@link Compaction#select}). */
        TIERS,
        /** Every file of each family that has more than one: gets read too many of them. */
        READS,
        /** Every file of each family, even a lone one, dropping all that no reader can see. */
        MAJOR
    }

    /** Flushes the region, then compacts every family of it into one file, on the compactor thread. */
    CompletableFuture<Void> compactAsync(Region region) {
        return flushAsync(region).thenCompose(flushed -> onCompactor(() -> {
            compact(region, true);
            return null;
        }));
    }

    /**
     * Compacts each family of the region whose files call for it (or, {@code major}, every family
     * with more than one file or any droppable data) into one file.
     */
    void compact(Region region, boolean major) throws IOException {
        compact(region, major ? Kind.MAJOR : Kind.TIERS);
    }

    /** The bytes of each file that lie in the region's range (all of it, unless a split shared the file). */
    static long[] ownedSizes(Region region, List<SSTableReader> files) {
        long[] sizes = new long[files.size()];
        for (int i = 0; i < sizes.length; i++) {
            sizes[i] = files.get(i).bytesIn(region.start(), region.end());
        }
        return sizes;
    }

    private void compact(Region region, Kind kind) throws IOException {
        boolean major = kind == Kind.MAJOR;
        synchronized (region.compactionLock) {
            for (FamilyDescriptor family : region.descriptor().families()) {
                if (region.isDropped()) {
                    return;
                }
                checkWritable();
                List<SSTableReader> files = region.view().files().get(family.name());
                List<SSTableReader> inputs = switch (kind) {
                    case MAJOR -> files;
                    case READS -> files.size() > 1 ? files : List.of();
                    case TIERS -> Compaction.select(files, ownedSizes(region, files), options.compactionTrigger());
                };
                if (inputs.isEmpty() || (major && files.isEmpty())) {
                    continue;
                }
                if (LOG.isDebugEnabled()) {
                    LOG.debug("Compaction of {} family {} picks {} of its files (newest first, MB): {}", region.label(),
                            family.name(), inputs.size(), files.stream().map(f -> (inputs.contains(f) ? "*" : "")
                                    + f.bytesIn(region.start(), region.end()) / (1 << 20)).toList());
                }
                compactionsRunning.incrementAndGet();
                long started = System.nanoTime();
                long read = 0;
                for (SSTableReader input : inputs) {
                    read += input.fileSize();
                }
                try {
                    long wrote = new Compaction(this, region, family, inputs, inputs.size() == files.size()).run();
                    compactedBytes.addAndGet(wrote);
                    compactionReadBytes.addAndGet(read);
                    LOG.info("Compacted table {} family {}{}: {} file(s) of {} bytes into {} bytes in {} ms",
                            region.label(), family.name(), switch (kind) {
                                case MAJOR -> " (major)";
                                case READS -> " (read-triggered)";
                                case TIERS -> "";
                            }, inputs.size(), read, wrote,
                            TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started));
                } finally {
                    long took = System.nanoTime() - started;
                    compactionsRunning.decrementAndGet();
                    compactions.incrementAndGet();
                    compactionNanos.addAndGet(took);
                    longestCompaction.accumulateAndGet(took, Math::max);
                }
            }
        }
        if (region.view().files().values().stream().allMatch(files -> files.size() <= 1)) {
            region.extraFileReads.reset(); // whatever merged them, gets read one file per family now
        }
        requestSplitIfLarge(region);
        synchronized (room) {
            room.notifyAll();
        }
    }

    /**
     * Commits a compaction's edit and publishes its output, unless the table was dropped meanwhile;
     * returns false then (the caller discards its output).
     */
    boolean commitCompaction(Region region, ManifestEdit edit, Runnable publish) throws IOException {
        synchronized (catalog) {
            if (region.isDropped()) {
                return false;
            }
            try {
                manifest.apply(edit);
            } catch (ManifestBrokenException e) {
                throw goReadOnly("a compaction of table " + region.label(), e);
            }
            publish.run();
            return true;
        }
    }

    Manifest manifest() {
        return manifest;
    }

    /** What {@link StoreMetrics} says of this store now. */
    StoreMetrics metrics() {
        long memtables = 0;
        List<io.basalt.client.ServerStatus.Table> tableMetrics = new ArrayList<>();
        for (TableRegions table : tables.values()) {
            List<io.basalt.client.ServerStatus.Region> regions = new ArrayList<>();
            for (Region region : table.regionArray()) {
                RegionInfo info = region.info();
                memtables += info.memtableBytes();
                regions.add(new io.basalt.client.ServerStatus.Region(info, region.readRequests.sum(), region.writeRequests.sum()));
            }
            tableMetrics.add(new io.basalt.client.ServerStatus.Table(table.name(), table.disabled(), regions));
        }
        tableMetrics.sort(Comparator.comparing(io.basalt.client.ServerStatus.Table::name));
        long waits = 0;
        long timeouts = 0;
        if (locks instanceof StripedRegionLocks striped) {
            for (io.basalt.lock.LockLevelMetrics m : striped.manager().metrics().values()) {
                waits += m.contended();
                timeouts += m.timeouts();
            }
        }
        io.basalt.buffer.BufferPoolMetrics pool = blockCache.poolMetrics();
        StoreReadOnlyException failed = readOnly;
        return new StoreMetrics(statistics(), wal == null ? 0 : wal.forces(), wal == null ? 0 : wal.batches(),
                wal == null ? 0 : wal.bytesWritten(), memtables, blockCache.hits(), blockCache.misses(),
                blockCache.evictions(), blockCache.bytes(), blockCache.capacity(),
                rowCache == null ? 0 : rowCache.hits(), rowCache == null ? 0 : rowCache.misses(),
                rowCache == null ? 0 : rowCache.bytes(),
                pool == null ? 0 : pool.chunksInUse(), pool == null ? 0 : pool.chunksMax(), waits, timeouts,
                failed == null ? null : failed.reason(), tableMetrics);
    }

    EngineStatistics statistics() {
        return new EngineStatistics(compactionsRunning.get(), compactions.get(), longestCompaction.get(),
                compactionNanos.get(), compactedBytes.get(), flushes.get(), splits.get(), merges.get(),
                compactionReadBytes.get(), flushedBytes.get(), flushNanos.get(), stalls.get(), stallNanos.get());
    }

    // ------------------------------------------------------------------ checkpoints

    /**
     * Writes a copy of the store into {@code target}, which must not exist yet, on the same file
     * system: every memtable is flushed first, then, with no flush or compaction committing
     * meanwhile, each live SSTable gets a second name (a hard link: nothing is copied, and later
     * compactions of this store leave the copy alone) and a manifest of the state is written; every
     * new directory is synced. The copy opens as a store of its own (or, made of a replica, as a
     * replica) holding everything flushed by then; writes that arrive after the flushes are not in
     * it. Returns the highest sequence the copy holds. In cluster mode this is a region's Raft
     * snapshot, which a lagging replica installs.
     */
    long checkpoint(Path target) throws IOException {
        checkWritable();
        if (Files.exists(target)) {
            throw new IllegalArgumentException("checkpoint target " + target + " exists already");
        }
        for (Region region : allRegions()) {
            try {
                flushAsync(region).join();
            } catch (java.util.concurrent.CompletionException e) {
                throw new IOException("flushing " + region.label() + " for a checkpoint: " + e.getCause().getMessage(),
                        e.getCause());
            }
        }
        synchronized (catalog) {
            disk.createDirectories(target, target.toAbsolutePath().getParent());
            Set<Path> directories = new HashSet<>();
            long sequence = mvcc.readPoint();
            long held = 0;
            int linked = 0;
            for (Manifest.TableEntry table : manifest.tables().values()) {
                for (Manifest.RegionEntry region : table.regions.values()) {
                    held = Math.max(held, region.flushedSequence);
                    for (var family : region.files.entrySet()) {
                        for (ManifestEdit.FileMeta file : family.getValue()) {
                            Path from = sstablePath(table.id, family.getKey(), file.fileNumber());
                            Path to = target.resolve(directory.relativize(from));
                            if (directories.add(to.getParent())) {
                                disk.createDirectories(to.getParent(), target);
                            }
                            if (!Files.exists(to)) { // a file two regions share is linked once
                                disk.link(from, to);
                                linked++;
                            }
                            held = Math.max(held, file.maxSequence());
                        }
                    }
                }
            }
            manifest.copyTo(target);
            for (Path dir : directories) {
                disk.syncDirectory(dir);
            }
            disk.syncDirectory(target);
            LOG.info("Checkpoint of {} in {}: {} SSTables linked, up to sequence {} (read point {})", directory,
                    target, linked, held, sequence);
            return held;
        }
    }

    // ------------------------------------------------------------------ replica stores

    /** What {@link #applyLogged} returns for a sequence applied before (a replay after a restart). */
    static final Object ALREADY_APPLIED = new Object() {
        @Override
        public String toString() {
            return "already applied";
        }
    };

    /**
     * Applies one operation of a replicated log to a replica store: see {@link Region#applyLogged}.
     * One thread, in sequence order; a sequence at or below {@link #appliedSequence()} was applied
     * before and is skipped ({@link #ALREADY_APPLIED}).
     *
     * @throws IllegalStateException when this store is not a replica
     */
    Object applyLogged(String table, long sequence, long now, Object operation) {
        if (!replica) {
            throw new IllegalStateException("the store in " + directory + " writes its own log; it takes no"
                    + " replicated entries");
        }
        checkWritable();
        if (sequence <= mvcc.readPoint()) {
            return ALREADY_APPLIED;
        }
        byte[] row = switch (operation) {
            case io.basalt.client.Mutation m -> m.row();
            case io.basalt.client.CheckAndMutate c -> c.row();
            default -> throw new IllegalArgumentException("a replicated log entry holds mutations and"
                    + " check-and-mutates, not " + operation.getClass().getName());
        };
        Region region = table(table).regionFor(row);
        if (!region.contains(row)) { // a narrowed replica (a split's daughter): every replica refuses alike
            return new io.basalt.client.UnavailableException("row '" + io.basalt.bytes.Bytes.toStringBinary(row)
                    + "' is not in region " + region.label() + " any more: the region split; read the region map again");
        }
        region.writeRequests.increment(); // each replica counts the writes it applies
        return region.applyLogged(operation, sequence, now);
    }

    /** Bits of a sequence that number the operations of one replicated log entry. */
    static final int OPERATION_BITS = 16;
    /** The most operations one replicated log entry may carry. */
    static final int MAX_OPERATIONS_PER_ENTRY = 1 << OPERATION_BITS;

    /**
     * Applies one entry of a replicated log: its operations in order, operation {@code i} of entry
     * {@code index} at sequence {@code index * 2^16 + i}, so that each keeps a sequence of its own
     * (a delete and a later put of the same row in one entry must not share one) while sequences
     * still follow the log's order. Returns each operation's outcome (see {@link #applyLogged}); an
     * entry applied before returns {@link #ALREADY_APPLIED} for each of its operations.
     *
     * @throws IllegalArgumentException when the entry has more than {@link #MAX_OPERATIONS_PER_ENTRY}
     *     operations, or the index is not positive or too large to number them
     */
    List<Object> applyEntry(String table, long index, long now, List<?> operations) {
        if (operations.size() > MAX_OPERATIONS_PER_ENTRY) {
            throw new IllegalArgumentException("a replicated log entry carries at most " + MAX_OPERATIONS_PER_ENTRY
                    + " operations, not " + operations.size());
        }
        if (index <= 0 || index >= (1L << (63 - OPERATION_BITS))) {
            throw new IllegalArgumentException("log index " + index + " is out of range");
        }
        long first = index << OPERATION_BITS;
        List<Object> outcomes = new ArrayList<>(operations.size());
        for (int i = 0; i < operations.size(); i++) {
            outcomes.add(applyLogged(table, first + i, now, operations.get(i)));
        }
        return outcomes;
    }

    /**
     * The index from which a replicated log must be applied again after opening: every entry up to
     * it is whole in the store's files. The entry the last applied operation belongs to is counted
     * out, since it may have been flushed only in part; applying it again is safe, as its
     * operations already applied are skipped.
     */
    long appliedIndex() {
        return Math.max(0, (appliedSequence() >>> OPERATION_BITS) - 1);
    }

    /**
     * The highest sequence applied: after opening, the highest the store's files hold (what was
     * applied but not flushed before a crash is gone, and the replicated log applies it again).
     * A replica store holds one region of one table, so this one mark is exact.
     */
    long appliedSequence() {
        return mvcc.readPoint();
    }

    // ------------------------------------------------------------------ splits and merges

    /**
     * Splits {@code parent} at {@code at} ({@code null}: its middle row) on the compactor thread;
     * completes with the two daughters. See {@link #split}.
     */
    CompletableFuture<List<Region>> splitAsync(Region parent, byte[] at) {
        return onCompactor(() -> split(parent, at));
    }

    /** Merges two adjacent regions of one table on the compactor thread; completes with the merged one. */
    CompletableFuture<Region> mergeAsync(Region first, Region second) {
        return onCompactor(() -> merge(first, second));
    }

    /** Runs {@code task} on the compactor thread, after everything queued there before it (tests wait for it so). */
    <T> CompletableFuture<T> onCompactor(EmbeddedConnection.IoSupplier<T> task) {
        CompletableFuture<T> done = new CompletableFuture<>();
        try {
            compactor.execute(() -> {
                try {
                    done.complete(task.get());
                } catch (IOException | RuntimeException e) {
                    done.completeExceptionally(e);
                } catch (Error e) {
                    done.completeExceptionally(e); // the caller hears of it, then the thread's handler
                    throw e;
                }
            });
        } catch (RejectedExecutionException e) {
            done.completeExceptionally(new BasaltException("the store in " + directory + " is closed"));
        }
        return done;
    }

    /**
     * Splits a region in two at row {@code at}: {@code [start, at)} and {@code [at, end)}. No data
     * is rewritten: both daughters list the parent's files (each reads only its own range of them),
     * and compactions rewrite them later.
     *
     * <p>The parent is flushed while writes go on; then, holding its write lock (writes to it wait,
     * reads go on), what was written meanwhile is flushed, and <em>one</em> manifest edit drops the
     * parent and adds the daughters with their file lists. A crash before that edit is durable
     * leaves the parent, after it both daughters: never a lost or doubled row. The daughters are
     * published before the parent is retired, so writers that waited on it are routed to them.
     * The daughters' flushed-up-to sequence is the parent's: every write to the parent is in its
     * files by then, and none to a daughter has happened yet.
     *
     * @return the daughters; none when {@code at} is null and the region has too little data to
     *     find a middle row (it stays whole)
     * @throws IllegalArgumentException when {@code at} is not strictly inside the region, or the
     *     region was replaced
     */
    List<Region> split(Region parent, byte[] at) throws IOException {
        if (replica) {
            throw new IllegalArgumentException("a replica store holds one region; a replicated region splits"
                    + " through its log");
        }
        synchronized (parent.compactionLock) {
            current(parent);
            byte[] row = at != null ? at : parent.middleRow();
            if (row == null) {
                flush(parent, true);
                row = parent.middleRow();
                if (row == null) {
                    LOG.debug("Region {} has too little data to find a row to split at; it stays whole", parent.label());
                    return List.of();
                }
            }
            if (!parent.contains(row) || java.util.Arrays.equals(row, parent.start())) {
                throw new IllegalArgumentException("split row '" + io.basalt.bytes.Bytes.toStringBinary(row)
                        + "' is not inside region " + parent.label() + " (after its start, before its end)");
            }
            flush(parent, true); // the bulk, while writes go on
            List<Region> daughters = carve(parent, List.of(new byte[][] {parent.start(), row},
                    new byte[][] {row, parent.end()}), "splitting");
            Region a = daughters.get(0);
            Region b = daughters.get(1);
            parent.closeRetired();
            splits.incrementAndGet();
            LOG.info("Split region {} at '{}' into {} and {}", parent.label(), io.basalt.bytes.Bytes.toStringBinary(row),
                    a.label(), b.label());
            requestCompaction(a, false);
            requestCompaction(b, false);
            return List.of(a, b);
        }
    }

    /**
     * Replaces {@code parent} (flushed just before, while writes went on) by regions over
     * {@code ranges} (each {@code [start, end)}, inside the parent): holding its write lock, what
     * was written meanwhile is flushed, and one manifest edit drops the parent and adds the new
     * regions, each listing the parent's files that overlap its range (no data is rewritten;
     * compactions keep only each region's own rows). The new regions are published before the
     * parent is retired, so writers that waited on it are routed to them.
     */
    private List<Region> carve(Region parent, List<byte[][]> ranges, String what) throws IOException {
        List<Region> made = new ArrayList<>();
        synchronized (parent.flushLock) {
            synchronized (catalog) {
                try (RegionLocks.Lease _ = locks.lockTableWrite(parent.id())) {
                    checkWritable();
                    TableRegions table = current(parent);
                    parent.freezeLocked();
                    while (!parent.view().flushing().isEmpty()) {
                        writeOut(parent, parent.view().flushing().getFirst());
                    }
                    Manifest.RegionState state = manifest.regionState(parent.id());
                    List<ManifestEdit.Change> changes = new ArrayList<>();
                    changes.add(new ManifestEdit.DropRegion(parent.id()));
                    List<Integer> ids = new ArrayList<>();
                    List<Map<String, List<SSTableReader>>> files = new ArrayList<>();
                    for (byte[][] range : ranges) {
                        int id = manifest.reserveTableId();
                        ids.add(id);
                        changes.add(new ManifestEdit.AddRegion(table.id(), id, range[0], range[1],
                                state.flushedSequence()));
                        Map<String, List<SSTableReader>> mine = new LinkedHashMap<>();
                        for (var family : parent.view().files().entrySet()) {
                            Map<Long, ManifestEdit.FileMeta> metas = new HashMap<>();
                            state.files().get(family.getKey()).forEach(m -> metas.put(m.fileNumber(), m));
                            List<SSTableReader> in = new ArrayList<>();
                            for (SSTableReader file : family.getValue()) {
                                if (overlaps(file, range[0], range[1])) {
                                    in.add(file);
                                    changes.add(new ManifestEdit.AddFile(id, family.getKey(),
                                            metas.get(file.fileNumber())));
                                }
                            }
                            mine.put(family.getKey(), in);
                        }
                        files.add(mine);
                    }
                    changes.add(new ManifestEdit.NextTable(manifest.nextTableId()));
                    try {
                        manifest.apply(new ManifestEdit(changes));
                    } catch (ManifestBrokenException e) {
                        throw goReadOnly(what + " region " + parent.label(), e);
                    }
                    for (int i = 0; i < ranges.size(); i++) {
                        made.add(new Region(ids.get(i), table.id(), ranges.get(i)[0], ranges.get(i)[1],
                                table.descriptor(), this, adopt(files.get(i))));
                    }
                    table.replace(List.of(parent), made);
                    parent.retireLocked();
                }
            }
        }
        return made;
    }

    /**
     * Replica stores only: keeps rows {@code [start, end)} of {@code tableName}'s one region and
     * forgets the rest (a daughter of a split replicated region, seeded from its parent's whole
     * store). Reads see only the range at once; compactions drop the other rows' cells.
     */
    void narrowReplica(String tableName, byte[] start, byte[] end) throws IOException {
        if (!replica) {
            throw new IllegalStateException("only a replica store is narrowed; a store of its own splits");
        }
        List<Region> regions = table(tableName).regions();
        if (regions.size() != 1) {
            throw new IllegalStateException("replica store " + directory + " holds " + regions.size() + " regions of "
                    + tableName + "; a replica holds one");
        }
        Region parent = regions.getFirst();
        boolean startInside = io.basalt.bytes.Bytes.compare(start, parent.start()) >= 0;
        boolean endInside = parent.end().length == 0
                || (end.length > 0 && io.basalt.bytes.Bytes.compare(end, parent.end()) <= 0);
        boolean notEmpty = end.length == 0 || io.basalt.bytes.Bytes.compare(start, end) < 0;
        if (!startInside || !endInside || !notEmpty) {
            throw new IllegalArgumentException("range ['" + io.basalt.bytes.Bytes.toStringBinary(start) + "', '"
                    + io.basalt.bytes.Bytes.toStringBinary(end) + "') is not inside region " + parent.label());
        }
        if (java.util.Arrays.equals(start, parent.start()) && java.util.Arrays.equals(end, parent.end())) {
            return;
        }
        synchronized (parent.compactionLock) {
            flush(parent, true);
            Region narrowed = carve(parent, List.<byte[][]>of(new byte[][] {start, end}), "narrowing").getFirst();
            parent.closeRetired();
            LOG.info("Replica region {} narrowed to {}", parent.label(), narrowed.label());
            requestCompaction(narrowed, false);
        }
    }

    /**
     * Replica stores only: widens {@code tableName}'s one region over the neighbouring range that
     * {@code other} (another replica store, closed to writes, of the same table) holds, and takes
     * over its files, hard-linked under new file numbers: what the two halves of a merge of
     * replicated regions become (see {@code docs/cluster.md}). Both sides are first rewritten to
     * their own ranges when a file reaches beyond it (a split shared it), as {@link #merge} does,
     * and one manifest edit then replaces this region by the wide one. {@code other} is left as it
     * was, apart from those compactions; the caller closes and deletes it.
     *
     * <p>Sequence numbers of the two sides come from two different logs; the rows never overlap,
     * so their order across the sides means nothing. The wide region's flushed-up-to sequence is
     * the larger of the two, and this store's read point moves up to it.
     */
    void absorbReplica(String tableName, Store other) throws IOException {
        if (!replica || !other.replica) {
            throw new IllegalStateException("only replica stores absorb each other; a store of its own merges");
        }
        Region mine = onlyRegion(tableName);
        Region theirs = other.onlyRegion(tableName);
        boolean before = java.util.Arrays.equals(theirs.end(), mine.start()) && theirs.end().length > 0;
        boolean after = java.util.Arrays.equals(mine.end(), theirs.start()) && mine.end().length > 0;
        if (!before && !after) {
            throw new IllegalArgumentException("regions " + mine.label() + " and " + theirs.label()
                    + " are not adjacent; only neighbours can be merged");
        }
        if (!table(tableName).descriptor().equals(other.table(tableName).descriptor())) {
            throw new IllegalArgumentException("the two replicas describe table " + tableName + " differently: "
                    + table(tableName).descriptor() + " and " + other.table(tableName).descriptor());
        }
        synchronized (theirs.compactionLock) {
            other.flush(theirs, true);
            if (theirs.hasRowsBeyondItsRange()) {
                other.compact(theirs, true);
            }
        }
        synchronized (mine.compactionLock) {
            flush(mine, true);
            if (mine.hasRowsBeyondItsRange()) {
                compact(mine, true);
            }
            Region wide;
            synchronized (mine.flushLock) {
                synchronized (catalog) {
                    try (RegionLocks.Lease _ = locks.lockTableWrite(mine.id())) {
                        checkWritable();
                        TableRegions table = current(mine);
                        mine.freezeLocked();
                        while (!mine.view().flushing().isEmpty()) {
                            writeOut(mine, mine.view().flushing().getFirst());
                        }
                        Manifest.RegionState one = manifest.regionState(mine.id());
                        Manifest.RegionState two = other.manifest.regionState(theirs.id());
                        long flushed = Math.max(one.flushedSequence(), two.flushedSequence());
                        int id = manifest.reserveTableId();
                        byte[] start = before ? theirs.start() : mine.start();
                        byte[] end = before ? mine.end() : theirs.end();
                        List<ManifestEdit.Change> changes = new ArrayList<>();
                        changes.add(new ManifestEdit.DropRegion(mine.id()));
                        changes.add(new ManifestEdit.AddRegion(table.id(), id, start, end, flushed));
                        Map<String, List<SSTableReader>> linked = new LinkedHashMap<>();
                        List<SSTableReader> opened = new ArrayList<>();
                        Set<Path> directories = new HashSet<>();
                        try {
                            for (var family : mine.view().files().entrySet()) {
                                List<SSTableReader> list = new ArrayList<>();
                                for (ManifestEdit.FileMeta m : one.files().get(family.getKey())) {
                                    changes.add(new ManifestEdit.AddFile(id, family.getKey(), m));
                                }
                                Map<Long, ManifestEdit.FileMeta> metas = new HashMap<>();
                                two.files().get(family.getKey()).forEach(m -> metas.put(m.fileNumber(), m));
                                for (SSTableReader file : theirs.view().files().get(family.getKey())) {
                                    ManifestEdit.FileMeta m = metas.get(file.fileNumber());
                                    long number = manifest.reserveFileNumber();
                                    Path to = sstablePath(table.id(), family.getKey(), number);
                                    Files.createDirectories(to.getParent());
                                    Files.createLink(to, file.path());
                                    directories.add(to.getParent());
                                    SSTableReader reader = SSTableReader.open(number, to, blockCache, disk);
                                    opened.add(reader);
                                    list.add(reader);
                                    changes.add(new ManifestEdit.AddFile(id, family.getKey(), new ManifestEdit.FileMeta(
                                            number, m.fileSize(), m.entries(), m.maxSequence(), m.firstKey(),
                                            m.lastKey())));
                                }
                                linked.put(family.getKey(), list);
                            }
                            for (Path dir : directories) {
                                disk.syncDirectory(dir);
                            }
                            changes.add(new ManifestEdit.NextFile(manifest.nextFileNumber()));
                            changes.add(new ManifestEdit.NextTable(manifest.nextTableId()));
                            manifest.apply(new ManifestEdit(changes));
                        } catch (ManifestBrokenException e) {
                            opened.forEach(SSTableReader::release);
                            throw goReadOnly("absorbing replica region " + theirs.label() + " into " + mine.label(), e);
                        } catch (IOException | RuntimeException e) {
                            opened.forEach(SSTableReader::release);
                            throw e;
                        }
                        // This region's files gain a reference and a listing for the wide region; the
                        // linked ones come with their own (one each, from opening them).
                        Map<String, List<SSTableReader>> files = new LinkedHashMap<>();
                        for (var family : mine.view().files().entrySet()) {
                            files.put(family.getKey(), new ArrayList<>(family.getValue()));
                        }
                        adopt(files);
                        for (var family : files.entrySet()) {
                            family.getValue().addAll(linked.get(family.getKey()));
                            family.getValue().sort(Comparator.comparingLong(SSTableReader::maxSequence).reversed());
                        }
                        wide = new Region(id, table.id(), start, end, table.descriptor(), this, files);
                        table.replace(List.of(mine), List.of(wide));
                        mine.retireLocked();
                        mvcc.advanceIdle(flushed);
                    }
                }
            }
            mine.closeRetired();
            LOG.info("Replica region {} absorbed {} as {}", mine.label(), theirs.label(), wide.label());
        }
    }

    /** A replica store's one region of {@code tableName}. */
    private Region onlyRegion(String tableName) {
        List<Region> regions = table(tableName).regions();
        if (regions.size() != 1) {
            throw new IllegalStateException("replica store " + directory + " holds " + regions.size() + " regions of "
                    + tableName + "; a replica holds one");
        }
        return regions.getFirst();
    }

    /**
     * Merges two adjacent regions of one table into one, {@code [first.start, second.end)}, in one
     * manifest edit, after flushing both (the last part under both write locks). The merged
     * region lists the files of both; its flushed-up-to sequence is the larger of theirs, which
     * is safe because every write to either is in their files by then. A side that still reads a
     * file a split shared (one with rows beyond its range) is compacted first: see the comment in
     * the code.
     */
    Region merge(Region first, Region second) throws IOException {
        if (replica) {
            throw new IllegalArgumentException("a replica store holds one region; replicated regions merge"
                    + " through their logs");
        }
        if (!java.util.Arrays.equals(first.end(), second.start())) {
            throw new IllegalArgumentException("regions " + first.label() + " and " + second.label()
                    + " are not adjacent; only neighbours can be merged");
        }
        Region low = first.id() < second.id() ? first : second;
        Region high = low == first ? second : first;
        synchronized (low.compactionLock) {
            synchronized (high.compactionLock) {
                TableRegions table = current(first);
                if (current(second) != table) {
                    throw new IllegalArgumentException("regions " + first.label() + " and " + second.label()
                            + " belong to different tables");
                }
                flush(first, true);
                flush(second, true);
                // A file a split shared may still hold rows beyond its region, which the region does
                // not read but which may be stale (its sibling's compactions dropped their deletes
                // and older versions elsewhere): merged, the wider range would show them again. So
                // each side first rewrites its files to its own range, as HBase compacts away
                // reference files before a merge.
                for (Region r : List.of(first, second)) {
                    if (r.hasRowsBeyondItsRange()) {
                        compact(r, true);
                    }
                }
                Region merged;
                synchronized (low.flushLock) {
                    synchronized (high.flushLock) {
                        synchronized (catalog) {
                            try (RegionLocks.Lease _ = locks.lockTablesWrite(List.of(first.id(), second.id()))) {
                                checkWritable();
                                current(first);
                                current(second);
                                for (Region r : List.of(first, second)) {
                                    if (r.hasRowsBeyondItsRange()) { // compactions are ours: cannot happen
                                        throw new IllegalStateException("region " + r.label() + " still reads a file"
                                                + " that reaches beyond its range after compacting it");
                                    }
                                }
                                for (Region r : List.of(first, second)) {
                                    r.freezeLocked();
                                    while (!r.view().flushing().isEmpty()) {
                                        writeOut(r, r.view().flushing().getFirst());
                                    }
                                }
                                Manifest.RegionState one = manifest.regionState(first.id());
                                Manifest.RegionState two = manifest.regionState(second.id());
                                int id = manifest.reserveTableId();
                                List<ManifestEdit.Change> changes = new ArrayList<>();
                                changes.add(new ManifestEdit.DropRegion(first.id()));
                                changes.add(new ManifestEdit.DropRegion(second.id()));
                                changes.add(new ManifestEdit.AddRegion(table.id(), id, first.start(), second.end(),
                                        Math.max(one.flushedSequence(), two.flushedSequence())));
                                Map<String, List<SSTableReader>> files = new LinkedHashMap<>();
                                Set<Long> added = new HashSet<>();
                                for (var family : first.view().files().keySet()) {
                                    List<SSTableReader> list = new ArrayList<>();
                                    List<ManifestEdit.FileMeta> metas = new ArrayList<>(one.files().get(family));
                                    metas.addAll(two.files().get(family));
                                    Map<Long, ManifestEdit.FileMeta> byNumber = new HashMap<>();
                                    metas.forEach(m -> byNumber.put(m.fileNumber(), m));
                                    List<SSTableReader> both = new ArrayList<>(first.view().files().get(family));
                                    both.addAll(second.view().files().get(family));
                                    // Newest first, as a view keeps them; a file both listed (shared by
                                    // an earlier split) is listed once.
                                    both.sort(Comparator.comparingLong(SSTableReader::maxSequence).reversed());
                                    for (SSTableReader file : both) {
                                        if (added.add(file.fileNumber())) {
                                            list.add(file);
                                            changes.add(new ManifestEdit.AddFile(id, family,
                                                    byNumber.get(file.fileNumber())));
                                        }
                                    }
                                    files.put(family, list);
                                }
                                changes.add(new ManifestEdit.NextTable(manifest.nextTableId()));
                                try {
                                    manifest.apply(new ManifestEdit(changes));
                                } catch (ManifestBrokenException e) {
                                    throw goReadOnly("merging regions " + first.label() + " and " + second.label(), e);
                                }
                                merged = new Region(id, table.id(), first.start(), second.end(), table.descriptor(),
                                        this, adopt(files));
                                table.replace(List.of(first, second), List.of(merged));
                                first.retireLocked();
                                second.retireLocked();
                            }
                        }
                    }
                }
                first.closeRetired();
                second.closeRetired();
                merges.incrementAndGet();
                LOG.info("Merged regions {} and {} into {}", first.label(), second.label(), merged.label());
                requestCompaction(merged, false);
                return merged;
            }
        }
    }

    /**
     * The table of a region that is still current; fails with {@link TableNotFoundException} when
     * its table was dropped, and with an {@link IllegalArgumentException} when it was replaced.
     */
    private TableRegions current(Region region) {
        TableRegions table = tables.get(region.name());
        if (region.isDropped() || table == null || table.id() != region.tableId()) {
            throw new TableNotFoundException(region.name());
        }
        if (region.isRetired()) { // a stale name, as one that never existed: the caller's to fix
            throw new IllegalArgumentException("region " + region.label() + " was split or merged meanwhile; list"
                    + " the table's regions again");
        }
        return table;
    }

    /** Whether the file has rows that may fall in {@code [start, end)}. */
    private static boolean overlaps(SSTableReader file, byte[] start, byte[] end) {
        if (file.firstKey() == null) {
            return false;
        }
        byte[] first = file.firstKey().rowBytes();
        byte[] last = file.lastKey().rowBytes();
        return io.basalt.bytes.Bytes.compare(last, start) >= 0
                && (end.length == 0 || io.basalt.bytes.Bytes.compare(first, end) < 0);
    }

    /** Takes a reference and a listing on each file, for a new region's view. */
    private static Map<String, List<SSTableReader>> adopt(Map<String, List<SSTableReader>> files) {
        for (List<SSTableReader> list : files.values()) {
            for (SSTableReader file : list) {
                if (!file.retain()) {
                    throw new IllegalStateException(file + " was closed while a split or merge adopted it");
                }
                file.list();
            }
        }
        return files;
    }

    // ------------------------------------------------------------------ stalls and failures

    private long backoffMillis(int attempt) {
        long first = Math.max(1, options.backgroundRetryBackoff().toMillis());
        return Math.min(MAX_RETRY_BACKOFF_MILLIS, first << Math.min(20, attempt - 1));
    }

    /**
     * After a background task's {@code failures}th failure in a row: queues the next attempt, or,
     * past {@link StoreOptions#backgroundRetries()}, makes the store read-only.
     */
    private void retry(String task, Region region, int failures, Exception e, java.util.function.IntConsumer next) {
        if (closed || region.isDropped()) {
            LOG.debug("{} stopped: {}", task, e.toString());
            return;
        }
        if (readOnly != null) {
            LOG.debug("{} failed while the store is read-only: {}", task, e.toString());
            return;
        }
        if (failures > options.backgroundRetries()) {
            goReadOnly(task + " failed " + failures + " times in a row", e);
            return;
        }
        LOG.warn("{} failed (attempt {} of {}); retrying in {} ms", task, failures, options.backgroundRetries() + 1,
                backoffMillis(failures), e);
        next.accept(failures);
        synchronized (room) {
            room.notifyAll();
        }
    }

    /** Makes the store read-only for {@code what} (the first cause wins); returns the error to throw. */
    StoreReadOnlyException goReadOnly(String what, Throwable cause) {
        StoreReadOnlyException failure = cause instanceof StoreReadOnlyException r ? r
                : new StoreReadOnlyException(what + " failed: " + cause, cause);
        synchronized (room) {
            if (readOnly == null) {
                readOnly = failure;
                LOG.error("The store in {} is read-only until reopened: {}", directory, failure.reason(), cause);
            }
            room.notifyAll();
        }
        return new StoreReadOnlyException(readOnly.reason(), readOnly);
    }

    /** Waits while the region or the store has no room for writes; fails after the stall limit. */
    void awaitWriteRoom(Region region) {
        long deadline = 0;
        boolean logged = false;
        boolean warned = false;
        long stalledAt = 0;
        while (true) {
            String reason = stallReason(region);
            if (reason == null) {
                if (logged) {
                    long took = System.nanoTime() - stalledAt;
                    stallNanos.addAndGet(took);
                    if (warned) {
                        LOG.info("Writes to table {} resumed after a stall of {} ms", region.label(),
                                TimeUnit.NANOSECONDS.toMillis(took));
                    }
                }
                return;
            }
            checkWritable();
            long now = System.currentTimeMillis();
            if (deadline == 0) {
                deadline = now + STALL_LIMIT_MILLIS;
                // One warning a second for the store: every writer that meets the same stall
                // logged its own line (eight a stall in YCSB's load, hundreds a minute).
                long last = lastStallWarning.get();
                warned = now - last >= 1000 && lastStallWarning.compareAndSet(last, now);
                if (warned) {
                    LOG.warn("Writes to table {} stall: {}", region.label(), reason);
                } else {
                    LOG.debug("Writes to table {} stall: {}", region.label(), reason);
                }
                logged = true;
                stalledAt = System.nanoTime();
                stalls.incrementAndGet();
                requestCompaction(region, false);
            } else if (now >= deadline) {
                throw new BasaltException("writes to table " + region.label() + " stalled for more than "
                        + STALL_LIMIT_MILLIS / 1000 + " s: " + reason);
            }
            synchronized (room) {
                try {
                    room.wait(Math.max(1, Math.min(100, deadline - now)));
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new BasaltException("interrupted while waiting for a stalled table " + region.label());
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
        MemtableTotals totals = memtableTotals(false);
        if (totals.all() >= options.memtableMemoryLimit()) {
            // A stall waits up to 100 ms at a time: decide it on a fresh sum, never on one taken
            // before a flush freed memory (a sum racing the flush's publish can be).
            totals = memtableTotals(true);
        }
        long total = totals.all();
        long totalActive = totals.active();
        Region largest = totals.largest();
        if (total >= options.memtableMemoryLimit()) {
            if (largest != null) {
                requestFlush(largest);
            }
            return "the memtables of all tables hold " + total + " bytes (memtableMemoryLimit "
                    + options.memtableMemoryLimit() + "); waiting for flushes";
        }
        if (largest != null && totalActive >= flushAheadBytes(options.memtableMemoryLimit())) {
            requestFlush(largest);
        }
        return null;
    }

    /**
     * The memtables' bytes over every region of every table: all of them ({@code all}, frozen ones
     * included, since they are freed only once written), the active ones, and the region whose
     * active memtable is the largest, to flush. The flush asked for is of the largest *active*
     * memtable: asking again for a region whose memtable was already being written out only
     * queued a second flush of it, which froze the few kilobytes written since. In YCSB's load a
     * third of all flushes were such files (under 1 MB, some of a few KB), and with them among its
     * files a region's sizes never formed a tier, so every region was rewritten whole each time
     * eight files had piled up.
     */
    private record MemtableTotals(long all, long active, Region largest, long summedAt) {}

    /** The last {@link MemtableTotals}; null once a region's memtables changed ({@link #memtablesChanged}). */
    private volatile MemtableTotals memtableTotals;
    /** Held by the one writer summing the totals again; the others use the last ones meanwhile. */
    private final AtomicBoolean summingMemtables = new AtomicBoolean();
    /** How old totals a write may go by: what writers add in this time is all they can overshoot by. */
    static final long MEMTABLE_TOTALS_MAX_AGE_NANOS = TimeUnit.MILLISECONDS.toNanos(1);

    /**
     * The memtables' totals, summed again when {@code fresh}, when older than
     * {@link #MEMTABLE_TOTALS_MAX_AGE_NANOS}, or after a region published a new view (a memtable
     * frozen or written out).
     *
     * <p>Why not a sum per write: every write asks, and the sum walks every region. With 512
     * regions it was a fifth of all samples of {@code RegionCountPutBenchmark} and held puts to
     * 61,000 a second against 165,000 with one region; HBase users run hundreds of regions a
     * server. Once a millisecond, a sum costs the same whatever the write rate, and the limits
     * it guards are tens or hundreds of megabytes, far above what writers add in a millisecond.
     */
    private MemtableTotals memtableTotals(boolean fresh) {
        MemtableTotals last = memtableTotals;
        long now = System.nanoTime();
        if (!fresh && last != null && (now - last.summedAt() < MEMTABLE_TOTALS_MAX_AGE_NANOS
                || !summingMemtables.compareAndSet(false, true))) {
            return last; // recent, or another writer is summing them now
        }
        boolean mine = !fresh && last != null; // asked fresh, or with none to fall back on, a writer sums alone
        try {
            long all = 0;
            long active = 0;
            Region largest = null;
            long largestActive = 0;
            for (TableRegions table : tables.values()) {
                for (Region r : table.regionArray()) {
                    all += r.memtableBytes();
                    long bytes = r.view().active().bytes();
                    active += bytes;
                    if (bytes > largestActive) {
                        largest = r;
                        largestActive = bytes;
                    }
                }
            }
            MemtableTotals totals = new MemtableTotals(all, active, largest, now);
            memtableTotals = totals;
            return totals;
        } finally {
            if (mine) {
                summingMemtables.set(false);
            }
        }
    }

    /** A region published a new view: the next write sums the memtables again. */
    void memtablesChanged() {
        memtableTotals = null;
    }

    /**
     * The bytes a memtable starting now can expect to hold before it is flushed, which sizes its
     * row filter: the flush size, unless the store has so many regions that its memory limit
     * flushes memtables before they reach it, then the limit's share per region; and at least
     * what the region's last memtable reached ({@code reached}), capped at the flush size.
     * Asked on a memtable's first write, when a table made with many split keys has all of them.
     */
    long expectedMemtableBytes(long reached) {
        long regions = 0;
        for (TableRegions table : tables.values()) {
            regions += table.regionArray().length;
        }
        long share = options.memtableMemoryLimit() / Math.max(1, regions);
        return Math.min(options.memtableFlushSize(), Math.max(share, reached));
    }

    /**
     * The memory the active memtables of all tables may hold before the largest is flushed ahead of
     * the stall: seven eighths of {@code limit}.
     *
     * <p>Why: with flushes asked for only at the limit, every writer stopped each time the memtables
     * together reached it, until a flush was done. In YCSB's workload A (eight regions, none near
     * its own flush size) that was a stall of 50-200 ms every 3-4 s, 88 in a 40 s run, and the
     * worst seconds of the run. Counting only active memtables keeps one flush under way at a
     * time: the frozen one leaves the count, so the next write does not ask for another.
     */
    static long flushAheadBytes(long limit) {
        return limit - limit / 8;
    }

    /**
     * Fails the store after a write was logged but could not be applied (an {@code Error} between
     * the append and the memtable): the log is failed before the record can be acknowledged, and
     * the store goes read-only. Returns the error for the write's caller.
     */
    StoreReadOnlyException writeFailedAfterLogging(String table, long sequence, Throwable cause) {
        boolean stopped = wal != null && wal.failBeforeSync(sequence, cause);
        StoreReadOnlyException failure = goReadOnly("applying a write to table " + table, cause);
        if (stopped) {
            return failure;
        }
        return new StoreReadOnlyException(failure.reason() + "; this write's log record had already gone to the"
                + " disk, so it will be visible once the store is reopened", failure);
    }

    // ------------------------------------------------------------------ closing

    /**
     * Flushes every table (unless the store is read-only: then the log keeps what is not in
     * SSTables), stops background work and the log, and releases the directory. Writes racing the
     * close fail with an error; none is left unanswered.
     */
    @Override
    public synchronized void close() throws IOException {
        if (closed) {
            return;
        }
        IOException failure = null;
        if (readOnly == null) {
            for (Region region : allRegions()) {
                try {
                    flushAsync(region).join();
                } catch (java.util.concurrent.CompletionException | java.util.concurrent.CancellationException e) {
                    Throwable cause = e.getCause() == null ? e : e.getCause();
                    failure = addTo(failure, new IOException("flushing table " + region.label() + " while closing: "
                            + cause.getMessage() + " (the log keeps its writes; they are replayed on reopening)",
                            cause));
                }
            }
        }
        closed = true;
        shutdown(flusher);
        shutdown(compactor);
        try {
            if (wal != null) {
                wal.close();
            }
        } catch (IOException e) {
            failure = addTo(failure, e);
        }
        for (Region region : allRegions()) {
            region.close(false);
        }
        try {
            manifest.close();
        } catch (IOException e) {
            failure = addTo(failure, e);
        }
        blockCache.close();
        if (rowCache != null) {
            rowCache.clear();
        }
        try {
            lock.release();
            lockChannel.close();
        } finally {
            OPEN_HERE.remove(lockKey);
        }
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
