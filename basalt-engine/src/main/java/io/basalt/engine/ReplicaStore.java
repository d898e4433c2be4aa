package io.basalt.engine;

import io.basalt.client.Connection;
import io.basalt.client.StoreOptions;
import io.basalt.client.StoreReadOnlyException;
import io.basalt.client.TableDescriptor;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;
import java.util.List;
import java.util.function.LongSupplier;

/**
 * One replica of a replicated region, as the cluster's state machines see it: a store without a
 * write-ahead log of its own, written only by the entries of its Raft log (see
 * {@code docs/cluster.md}). Reads, and creating its one table, go through {@link #connection()};
 * writes only through {@link #applyEntry}, on one thread, in log order.
 */
public final class ReplicaStore implements AutoCloseable {

    /** What {@link #applyEntry} gives for an operation applied before (a replay). */
    public static final Object ALREADY_APPLIED = Store.ALREADY_APPLIED;
    /** The most operations one log entry may carry. */
    public static final int MAX_OPERATIONS_PER_ENTRY = Store.MAX_OPERATIONS_PER_ENTRY;

    private final Store store;
    private final EmbeddedConnection connection;

    private ReplicaStore(Store store) {
        this.store = store;
        this.connection = new EmbeddedConnection(store);
    }

    /** Opens (creating) the replica store in {@code directory}. */
    public static ReplicaStore open(Path directory, StoreOptions options) throws IOException {
        return open(directory, options, System::currentTimeMillis);
    }

    /** Opens (creating) the replica store in {@code directory}; {@code clock} stamps only its own work. */
    public static ReplicaStore open(Path directory, StoreOptions options, LongSupplier clock) throws IOException {
        return new ReplicaStore(Store.openReplica(directory, options, clock, new StripedRegionLocks(), LocalDisk.INSTANCE));
    }

    /** Reads, and the admin calls a replica allows (create its one table, describe, flush). */
    public Connection connection() {
        return connection;
    }

    /**
     * Applies one log entry: operation {@code i} at its own sequence in entry {@code index}, every
     * cell without a timestamp stamped {@code now}. Each outcome is {@code null} (a put or delete),
     * a {@link io.basalt.client.Result} (an increment), a {@link Boolean} (whether a
     * check-and-mutate applied), the {@link RuntimeException} every replica meets alike, or
     * {@link #ALREADY_APPLIED}.
     *
     * @throws StoreReadOnlyException when the store can no longer take writes (a failed flush)
     */
    public List<Object> applyEntry(String table, long index, long now, List<?> operations) {
        return store.applyEntry(table, index, now, operations);
    }

    /** Where the log must be applied again from after opening: see {@link Store#appliedIndex()}. */
    public long appliedIndex() {
        return store.appliedIndex();
    }

    /**
     * Writes a snapshot into {@code target} (which must not exist): memtables flushed, live
     * SSTables hard-linked, a manifest of the state; see {@link Store#checkpoint}.
     */
    public void checkpoint(Path target) throws IOException {
        store.checkpoint(target);
    }

    /**
     * Makes {@code target} (which must not exist) a store directory holding what the checkpoint in
     * {@code checkpoint} holds: its SSTables hard-linked, its manifest copied (a store appends to its
     * manifest, and the checkpoint must stay as it was written), every directory synced. Other
     * files in the checkpoint (a transfer's digests) are left out.
     */
    public static void restore(Path checkpoint, Path target) throws IOException {
        if (Files.exists(target)) {
            throw new IllegalArgumentException("restore target " + target + " exists already");
        }
        if (!Files.isRegularFile(checkpoint.resolve(Manifest.FILE))) {
            throw new IOException("checkpoint " + checkpoint + " has no " + Manifest.FILE);
        }
        List<Path> files;
        try (Stream<Path> walk = Files.walk(checkpoint)) {
            files = walk.filter(Files::isRegularFile).sorted().toList();
        }
        Set<Path> directories = new TreeSet<>();
        Files.createDirectories(target);
        directories.add(target);
        for (Path file : files) {
            Path relative = checkpoint.relativize(file);
            Path to = target.resolve(relative.toString());
            if (relative.toString().equals(Manifest.FILE)) {
                try (Disk.WritableFile out = LocalDisk.INSTANCE.create(to, Disk.Purpose.MANIFEST)) {
                    out.write(java.nio.ByteBuffer.wrap(Files.readAllBytes(file)));
                    out.force();
                }
            } else if (file.getFileName().toString().endsWith(".sst")) {
                Files.createDirectories(to.getParent());
                for (Path dir = to.getParent(); !dir.equals(target); dir = dir.getParent()) {
                    directories.add(dir);
                }
                Files.createLink(to, file);
            }
        }
        for (Path dir : directories) {
            LocalDisk.INSTANCE.syncDirectory(dir);
        }
        LocalDisk.INSTANCE.syncDirectory(target.toAbsolutePath().getParent());
    }

    /**
     * Keeps only rows {@code [start, end)} of {@code table} ({@code end} empty: to the table's end):
     * what a split's daughter does with the copy of its parent's store it starts from. Reads see
     * only the range at once; compactions drop the rest from the files.
     */
    public void narrow(String table, byte[] start, byte[] end) throws IOException {
        store.narrowReplica(table, start, end);
    }

    /**
     * Takes over {@code other}'s rows of {@code table}, the range next to this replica's: what the
     * two halves of a merge of replicated regions become. {@code other} is a copy no one writes to;
     * its files are hard-linked here, and it is left for the caller to close and delete.
     */
    public void absorb(String table, ReplicaStore other) throws IOException {
        store.absorbReplica(table, other.store);
    }

    /** The tables this replica holds (a region's replica holds one once created). */
    public List<String> tables() {
        return store.tables().stream().map(TableDescriptor::name).toList();
    }

    /** {@code table}'s rows in this replica, as {@code {start, end}} ({@code end} empty: to the end). */
    public byte[][] range(String table) {
        Region r = store.table(table).regions().getFirst();
        return new byte[][] {r.start(), r.end()};
    }

    /**
     * A row near the middle of {@code table}'s data here (memtables flushed first when the files
     * alone cannot tell), or {@code null} when there is too little data to split.
     */
    public byte[] middleRow(String table) {
        byte[] row = store.table(table).regions().getFirst().middleRow();
        if (row == null) {
            connection.admin().flush(table).join();
            row = store.table(table).regions().getFirst().middleRow();
        }
        return row;
    }

    /** Bytes of SSTable data in this replica's range (what a region's size-based split looks at). */
    public long dataBytes() {
        long bytes = 0;
        for (Region r : store.allRegions()) {
            bytes += r.sizeBytes();
        }
        return bytes;
    }

    /** What the replica's store has done and holds (its table's one region, its files, its log). */
    public StoreMetrics metrics() {
        return store.metrics();
    }

    /** Whether {@code row} of {@code table} is in this replica's range. */
    public boolean holds(String table, byte[] row) {
        return store.table(table).regionFor(row).contains(row);
    }

    /** Why the store refuses writes, or {@code null} while it takes them. */
    public StoreReadOnlyException readOnly() {
        return store.readOnly();
    }

    public Path directory() {
        return store.directory();
    }

    /** Closes the store (flushing nothing a replica would need: its log holds the rest). */
    @Override
    public void close() {
        connection.close();
    }
}
