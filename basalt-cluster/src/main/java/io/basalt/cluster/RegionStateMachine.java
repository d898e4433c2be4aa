package io.basalt.cluster;

import io.basalt.client.Get;
import io.basalt.client.Result;
import io.basalt.client.ResultScanner;
import io.basalt.client.Scan;
import io.basalt.client.StoreOptions;
import io.basalt.client.TableDescriptor;
import io.basalt.client.net.Messages;
import io.basalt.engine.ReplicaStore;
import io.basalt.protocol.Wire;
import io.netty.buffer.ByteBuf;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import org.apache.ratis.proto.RaftProtos.LogEntryProto;
import org.apache.ratis.protocol.Message;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.server.RaftServer;
import org.apache.ratis.server.protocol.TermIndex;
import org.apache.ratis.server.raftlog.RaftLog;
import org.apache.ratis.server.storage.RaftStorage;
import org.apache.ratis.statemachine.StateMachineStorage;
import org.apache.ratis.statemachine.TransactionContext;
import org.apache.ratis.statemachine.impl.BaseStateMachine;
import org.apache.ratis.util.LifeCycle;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One replica of a replicated region: applies the region's Raft log, in index order, to a
 * {@link ReplicaStore} of its own, and answers reads from it.
 *
 * <p>Writes: a log entry carries the calls the leader grouped ({@link RegionCodec}); each call's
 * operations apply at the entry's index with the leader's clock, and the reply carries each call's
 * outcomes, the same on every replica. A call with a client id applies once ({@link Sessions}).
 *
 * <p>Snapshots ({@link RegionSnapshots}): a checkpoint of the store (hard links) and the sessions
 * table, at the last applied index. On start and after a snapshot was installed, the replica store
 * is rebuilt from the newest snapshot and Ratis applies the log from there: what the store flushed
 * on its own since is thrown away and applied again. That costs a replay of the entries since the
 * last snapshot, and buys exactness: every outcome, recorded for retries, is computed again from
 * the same state, which resuming from the store's own flushed mark could not do.
 *
 * <p>Threads: Ratis applies entries, takes snapshots and reloads on one thread; reads run on
 * others, against whichever store is current (a reload swaps it under a write lock).
 */
public final class RegionStateMachine extends BaseStateMachine {

    private static final Logger LOG = LoggerFactory.getLogger(RegionStateMachine.class);
    /** The most rows one scan query returns; the caller continues after the last. */
    static final int MAX_SCAN_ROWS = 10_000;

    private final StoreOptions options;
    private final RegionSnapshots snapshots = new RegionSnapshots();
    private final ReentrantReadWriteLock swap = new ReentrantReadWriteLock();
    private volatile ReplicaStore replica;
    private Path liveDirectory;
    /** This group's directory's {@code seeds/}: the copies a split made here for its daughters. */
    private Path seedsDirectory;
    /** The node's directory of groups: where a daughter looks for the seed its parent made. */
    private Path groupsDirectory;
    /** Set once the region split (applied here, or in the snapshot loaded); later entries are refused. */
    private volatile Split split;

    /** A split applied here: of which table, and how. */
    record Split(String table, RegionCodec.SplitInfo info) {}
    /** Set while this region is frozen for a merge (applied here, or in the snapshot loaded). */
    private volatile Merge merge;
    /** A merge this region froze for: of which table, how, and this half's rows ({@code [start, end)}). */
    record Merge(String table, RegionCodec.MergeInfo info, byte[] start, byte[] end) {}
    /** Merges aborted (for good) that this region heard of; touched only on the apply thread. */
    private final java.util.Set<java.util.UUID> abortedMerges = new java.util.TreeSet<>();
    /** Touched only on the apply thread. */
    private Sessions sessions = new Sessions();

    public RegionStateMachine(StoreOptions options) {
        this.options = options;
    }

    @Override
    public StateMachineStorage getStateMachineStorage() {
        return snapshots;
    }

    @Override
    public void initialize(RaftServer server, RaftGroupId groupId, RaftStorage storage) throws IOException {
        super.initialize(server, groupId, storage);
        snapshots.init(storage);
        Path root = storage.getStorageDir().getRoot().toPath();
        liveDirectory = root.resolve("replica");
        seedsDirectory = root.resolve("seeds");
        groupsDirectory = root.toAbsolutePath().getParent();
        if (snapshots.latest() == null) {
            adoptSeed(groupId);
        }
        getLifeCycle().startAndTransition(this::load, IOException.class);
    }

    /** Before Ratis installs a snapshot: {@link #reinitialize} follows once it is in place. */
    @Override
    public void pause() {
        paused(getLifeCycle());
    }

    /** Moves a running state machine's life cycle to PAUSED, as Ratis expects before an install. */
    static void paused(LifeCycle life) {
        if (life.getCurrentState() == LifeCycle.State.RUNNING) {
            life.transition(LifeCycle.State.PAUSING);
            life.transition(LifeCycle.State.PAUSED);
        }
    }

    /** After Ratis installed a snapshot from the leader into {@code sm/}: rebuild from it. */
    @Override
    public void reinitialize() throws IOException {
        snapshots.refresh();
        getLifeCycle().startAndTransition(this::load, IOException.class);
    }

    /** (Re)builds the replica store from the newest snapshot, or empty without one. */
    private void load() throws IOException {
        swap.writeLock().lock();
        try {
            closeReplica();
            RegionSnapshots.deleteTree(liveDirectory);
            RegionSnapshots.Snapshot latest = snapshots.latest();
            split = null;
            merge = null;
            abortedMerges.clear();
            if (latest != null) {
                ReplicaStore.restore(latest.store(), liveDirectory);
                sessions = Sessions.readFrom(latest.sessions());
                setLastAppliedTermIndex(latest.termIndex());
                split = readSplit(latest.directory().resolve(SPLIT_FILE));
                readMerges(latest.directory().resolve(MERGE_FILE));
            } else {
                sessions = new Sessions();
            }
            replica = ReplicaStore.open(liveDirectory, options);
            if (split != null) { // a snapshot taken after the split: the daughters may still need their seeds
                makeSeeds(split);
            }
            if (merge != null) { // the same for a merge this half froze for
                makeMergePart(merge);
            }
            LOG.info("{}: replica store rebuilt from {}", this, latest == null ? "nothing (no snapshot yet)"
                    : latest.directory());
        } finally {
            swap.writeLock().unlock();
        }
    }

    @Override
    public void close() throws IOException {
        swap.writeLock().lock();
        try {
            closeReplica();
        } finally {
            swap.writeLock().unlock();
        }
        getLifeCycle().checkStateAndClose();
    }

    /** Under the write lock: closes the current replica store, if any. */
    private void closeReplica() {
        ReplicaStore old = replica;
        replica = null;
        if (old != null) {
            old.close();
        }
    }

    // ------------------------------------------------------------------ writes

    @Override
    public CompletableFuture<Message> applyTransaction(TransactionContext trx) {
        LogEntryProto entry = trx.getLogEntry();
        long index = entry.getIndex();
        Message reply;
        try {
            reply = apply(index, RegionCodec.buffer(entry.getStateMachineLogEntry().getLogData()));
        } catch (io.basalt.client.StoreReadOnlyException e) {
            // This replica's disk failed it; the others go on. Applying past the entry would diverge.
            LOG.error("{}: the replica store refuses writes at index {}; this replica stops", this, index, e);
            throw e;
        }
        updateLastAppliedTermIndex(entry.getTerm(), index);
        return CompletableFuture.completedFuture(reply);
    }

    private Message apply(long index, ByteBuf buf) {
        int kind;
        try {
            kind = RegionCodec.readKind(buf, "log entry");
        } catch (RuntimeException e) {
            return undecodable(index, e);
        }
        return switch (kind) {
            case RegionCodec.CREATE_TABLE -> createTable(index, buf);
            case RegionCodec.WRITE -> write(index, buf, true);
            case RegionCodec.WRITE_WITHOUT_POSITIONS -> write(index, buf, false);
            case RegionCodec.SPLIT -> split(index, buf);
            case RegionCodec.MERGE -> merge(index, buf);
            case RegionCodec.UNMERGE -> unmerge(buf);
            default -> undecodable(index, new IllegalArgumentException("log entry kind " + kind + " is unknown"));
        };
    }

    /** An entry no replica can read fails alike on all: its calls get no outcomes. */
    private Message undecodable(long index, RuntimeException e) {
        LOG.error("{}: log entry {} does not decode; it changes nothing", this, index, e);
        return RegionCodec.reply(List.of());
    }

    private Message createTable(long index, ByteBuf buf) {
        io.basalt.client.UnavailableException away = away();
        if (away != null) {
            return RegionCodec.reply(List.of(RegionCodec.failed(1, away)));
        }
        TableDescriptor table;
        try {
            table = Messages.readTable(buf);
        } catch (RuntimeException e) {
            return undecodable(index, e);
        }
        byte[] outcome;
        try {
            replica.connection().admin().createTable(table).join();
            outcome = RegionCodec.outcomes(java.util.Collections.singletonList(null));
        } catch (CompletionException e) {
            outcome = RegionCodec.failed(1, e.getCause());
        } catch (RuntimeException e) {
            outcome = RegionCodec.failed(1, e);
        }
        return RegionCodec.reply(List.of(outcome));
    }

    private Message write(long index, ByteBuf buf, boolean withPositions) {
        long now;
        String table;
        List<WriteCall> calls;
        try {
            now = Wire.readLong(buf, "entry clock");
            table = Wire.readString(buf, "entry table");
            int count = Wire.readVarint(buf, "entry call count");
            calls = new ArrayList<>(Math.min(count, 1024));
            for (int i = 0; i < count; i++) {
                calls.add(RegionCodec.readCall(buf, withPositions));
            }
        } catch (RuntimeException e) {
            return undecodable(index, e);
        }
        now = sessions.advanceClock(now);
        sessions.expire(now);
        io.basalt.client.UnavailableException away = away();
        // Per call: each operation's outcome bytes by position, as recorded before or applied now.
        List<java.util.Map<Integer, byte[]>> known = new ArrayList<>(calls.size());
        byte[][] replies = new byte[calls.size()][];
        List<Object> operations = new ArrayList<>();
        List<List<Integer>> applying = new ArrayList<>(calls.size()); // positions applied now, per call
        for (int i = 0; i < calls.size(); i++) {
            WriteCall call = calls.get(i);
            java.util.Map<Integer, byte[]> mine = new java.util.HashMap<>();
            known.add(mine);
            List<Integer> fresh = new ArrayList<>();
            applying.add(fresh);
            if (call.clientId() != 0) {
                switch (sessions.lookup(call.clientId(), call.callId(), call.completedBelow(), now)) {
                    case Sessions.Recorded r -> mine.putAll(r.outcomes());
                    case Sessions.Forgotten f -> {
                        replies[i] = RegionCodec.failed(call.operations().size(), new IllegalStateException(f.why()));
                        continue;
                    }
                    case null -> { }
                }
            }
            for (int j = 0; j < call.operations().size(); j++) {
                Integer position = call.positions().get(j);
                if (mine.containsKey(position)) {
                    continue; // applied before, here or in the region this one was made from
                }
                if (away != null) { // not applied, not recorded: the client retries it where its row is now
                    mine.put(position, RegionCodec.outcome(away));
                    continue;
                }
                fresh.add(position);
                operations.add(call.operations().get(j));
            }
        }
        List<Object> outcomes = operations.isEmpty() ? List.of()
                : replica.applyEntry(table, index, now, operations);
        int next = 0;
        for (int i = 0; i < calls.size(); i++) {
            if (replies[i] != null) {
                continue;
            }
            WriteCall call = calls.get(i);
            java.util.Map<Integer, byte[]> applied = new java.util.HashMap<>();
            for (int position : applying.get(i)) {
                Object o = outcomes.get(next++);
                if (o == ReplicaStore.ALREADY_APPLIED) {
                    throw new IllegalStateException(this + ": entry " + index + " was applied before; the store"
                            + " was rebuilt from a snapshot past it");
                }
                applied.put(position, RegionCodec.outcome(o));
            }
            known.get(i).putAll(applied);
            if (call.clientId() != 0 && !applied.isEmpty()) {
                sessions.record(call.clientId(), call.callId(), applied, now);
            }
            List<byte[]> each = new ArrayList<>(call.positions().size());
            for (int position : call.positions()) {
                each.add(known.get(i).get(position));
            }
            replies[i] = RegionCodec.assemble(each);
        }
        return RegionCodec.reply(List.of(replies));
    }

    // ------------------------------------------------------------------ splits

    static final String SPLIT_FILE = "split";
    /**
     * The term of a daughter's seed snapshot: the same on every replica, and 1, the first term a
     * new group elects in, so the daughter's own entries never carry a lower term than it. Not 0:
     * Ratis takes a voter whose last entry has term 0 for one with an empty log and does not count
     * its vote.
     */
    static final long SEED_TERM = 1;

    /** Bytes of SSTable data in this replica (0 while it is not open). */
    long dataBytes() {
        ReplicaStore store = replica;
        return store == null ? 0 : store.dataBytes();
    }

    /** The replica's store metrics, or {@code null} before it opened (or while a snapshot replaces it). */
    io.basalt.engine.StoreMetrics metrics() {
        swap.readLock().lock(); // as a query does: the store is not closed under the walk
        try {
            ReplicaStore store = replica;
            return store == null ? null : store.metrics();
        } finally {
            swap.readLock().unlock();
        }
    }

    /** The split this replica applied, or {@code null} while the region is whole. */
    RegionCodec.SplitInfo splitInfo() {
        Split s = split;
        return s == null ? null : s.info();
    }

    /**
     * Why this region refuses every request, or {@code null} while it takes them: it split (its
     * rows are in its daughters now) or froze for a merge (they are, or are about to be, in the
     * merged region; if the merge is aborted, the region takes requests again).
     */
    private io.basalt.client.UnavailableException away() {
        Split s = split;
        if (s != null) {
            return new io.basalt.client.UnavailableException("region group " + getGroupId() + " split at row '"
                    + io.basalt.bytes.Bytes.toStringBinary(s.info().row()) + "' (log index " + s.info().index()
                    + "); its rows are in two new regions: read the region map again");
        }
        Merge m = merge;
        if (m != null) {
            return new io.basalt.client.UnavailableException("region group " + getGroupId() + " is merging into group "
                    + m.info().merged() + " (log index " + m.info().index() + "): read the region map again");
        }
        return null;
    }

    /**
     * The SPLIT entry at {@code index}: every replica, at this same index, makes one seed per
     * daughter (a copy of its store narrowed to the daughter's range, with the sessions table),
     * and from here on refuses every write and read; the reply names the daughters. A second
     * SPLIT entry answers with the first split.
     */
    private Message split(long index, ByteBuf buf) {
        String table;
        byte[] row;
        try {
            table = Wire.readString(buf, "split table");
            row = Wire.readBytes(buf, "split row");
        } catch (RuntimeException e) {
            return RegionCodec.queryFailed(e);
        }
        if (split != null) {
            return RegionCodec.splitReply(split.info());
        }
        if (merge != null) {
            return RegionCodec.queryFailed(new IllegalStateException("region group " + getGroupId()
                    + " is merging into group " + merge.info().merged() + "; it cannot split"));
        }
        byte[][] range;
        try {
            range = replica.range(table);
        } catch (RuntimeException e) {
            return RegionCodec.queryFailed(e);
        }
        boolean inside = io.basalt.bytes.Bytes.compare(row, range[0]) > 0
                && (range[1].length == 0 || io.basalt.bytes.Bytes.compare(row, range[1]) < 0);
        if (!inside) {
            return RegionCodec.queryFailed(new IllegalArgumentException("split row '"
                    + io.basalt.bytes.Bytes.toStringBinary(row) + "' is not inside the region (after its start,"
                    + " before its end)"));
        }
        Split s = new Split(table, RegionCodec.SplitInfo.of(getGroupId().getUuid(), row, index));
        try {
            makeSeeds(s);
        } catch (IOException e) {
            // This replica cannot copy its store: like a failed disk, it stops rather than diverge.
            throw new java.io.UncheckedIOException(this + ": making the seeds of the split at index " + index, e);
        }
        split = s;
        LOG.info("{}: split at row '{}' (index {}) into groups {} and {}", this,
                io.basalt.bytes.Bytes.toStringBinary(row), index, s.info().low(), s.info().high());
        return RegionCodec.splitReply(s.info());
    }

    /**
     * Makes in {@code seeds/} each daughter's seed that is neither there nor already a group on
     * this node: {@code seeds/<group>/snapshot.1_<index>/} holding {@code store/} (this store's
     * checkpoint, narrowed to the daughter's range) and {@code sessions}. Built under a temporary
     * name and renamed whole.
     */
    private void makeSeeds(Split s) throws IOException {
        RegionCodec.SplitInfo info = s.info();
        byte[][] range = replica.range(s.table());
        Path work = seedsDirectory.resolve(".work-" + info.index());
        RegionSnapshots.deleteTree(work);
        Path checkpoint = work.resolve("parent");
        boolean checkpointed = false;
        Object[][] daughters = {{info.low(), range[0], info.row()}, {info.high(), info.row(), range[1]}};
        for (Object[] d : daughters) {
            String group = d[0].toString();
            Path done = seedsDirectory.resolve(group);
            if (java.nio.file.Files.exists(done) || java.nio.file.Files.exists(groupsDirectory.resolve(group))) {
                continue;
            }
            if (!checkpointed) {
                java.nio.file.Files.createDirectories(work);
                replica.checkpoint(checkpoint);
                checkpointed = true;
            }
            Path storeDir = work.resolve(group);
            ReplicaStore.restore(checkpoint, storeDir);
            Path tmp = seedsDirectory.resolve(".tmp-" + group);
            RegionSnapshots.deleteTree(tmp);
            Path snapshot = tmp.resolve("snapshot." + SEED_TERM + "_" + info.index());
            java.nio.file.Files.createDirectories(snapshot);
            try (ReplicaStore daughter = ReplicaStore.open(storeDir, options)) {
                daughter.narrow(s.table(), (byte[]) d[1], (byte[]) d[2]);
                daughter.checkpoint(snapshot.resolve("store"));
            }
            sessions.writeTo(snapshot.resolve("sessions"));
            RegionSnapshots.sync(snapshot);
            RegionSnapshots.sync(tmp);
            java.nio.file.Files.move(tmp, done, java.nio.file.StandardCopyOption.ATOMIC_MOVE);
            RegionSnapshots.sync(seedsDirectory);
            LOG.info("{}: seed of daughter {} made", this, group);
        }
        RegionSnapshots.deleteTree(work);
    }

    /**
     * A daughter's first start on this node: the seed its parent's replica here made becomes its
     * first snapshot (moved, not copied), so it starts where the parent split, and its log from the
     * next index. Without a seed it starts empty, and only as a replica added to a running group,
     * which its leader brings up to date with a snapshot.
     */
    private void adoptSeed(RaftGroupId group) throws IOException {
        String name = group.getUuid().toString();
        List<Path> found = new ArrayList<>();
        try (java.util.stream.Stream<Path> dirs = java.nio.file.Files.list(groupsDirectory)) {
            for (Path g : dirs.sorted().toList()) {
                if (java.nio.file.Files.isDirectory(g.resolve("seeds").resolve(name))) {
                    found.add(g.resolve("seeds").resolve(name));
                }
            }
        }
        if (found.size() == 2) { // a merge's two halves each made a part
            adoptMergeParts(found);
            return;
        }
        if (found.size() == 1 && java.nio.file.Files.exists(found.getFirst().resolve(MERGE_PART))) {
            // Starting from one half would lose the other's rows, and starting empty would too.
            throw new IOException(this + " is a merge of two regions and only one half's part is here ("
                    + found.getFirst() + "); it starts once the other half's replica here made its part");
        }
        try (java.util.stream.Stream<Path> dirs = java.nio.file.Files.list(groupsDirectory)) {
            for (Path g : dirs.toList()) {
                Path seed = g.resolve("seeds").resolve(name);
                if (!java.nio.file.Files.isDirectory(seed)) {
                    continue;
                }
                try (java.util.stream.Stream<Path> inside = java.nio.file.Files.list(seed)) {
                    for (Path snapshot : inside.toList()) {
                        java.nio.file.Files.move(snapshot, snapshots.getSnapshotDir().toPath()
                                .resolve(snapshot.getFileName()), java.nio.file.StandardCopyOption.ATOMIC_MOVE);
                    }
                }
                RegionSnapshots.sync(snapshots.getSnapshotDir().toPath());
                RegionSnapshots.deleteTree(seed);
                snapshots.refresh();
                LOG.info("{}: starts from the seed its parent {} made here", this, g.getFileName());
                return;
            }
        }
    }

    private static void writeSplit(Path file, Split s) throws IOException {
        writeRecord(file, buf -> {
            Wire.writeString(buf, s.table());
            RegionCodec.writeSplit(buf, s.info());
        });
    }

    private static Split readSplit(Path file) throws IOException {
        return readRecord(file, "split record", buf -> new Split(Wire.readString(buf, "split table"),
                RegionCodec.readSplit(buf)));
    }

    /** Writes {@code file} (which must not exist): what {@code body} writes, a CRC32C of it last, forced. */
    private static void writeRecord(Path file, java.util.function.Consumer<ByteBuf> body) throws IOException {
        io.netty.buffer.ByteBuf buf = io.netty.buffer.Unpooled.buffer();
        body.accept(buf);
        byte[] bytes = new byte[buf.readableBytes()];
        buf.readBytes(bytes);
        java.util.zip.CRC32C crc = new java.util.zip.CRC32C();
        crc.update(bytes);
        byte[] out = java.nio.ByteBuffer.allocate(bytes.length + 4).put(bytes).putInt((int) crc.getValue()).array();
        try (java.nio.channels.FileChannel ch = java.nio.channels.FileChannel.open(file,
                java.nio.file.StandardOpenOption.CREATE_NEW, java.nio.file.StandardOpenOption.WRITE)) {
            ch.write(java.nio.ByteBuffer.wrap(out));
            ch.force(true);
        }
    }

    /** Reads what {@link #writeRecord} wrote, checksum first; {@code null} when there is no file. */
    private static <T> T readRecord(Path file, String what, java.util.function.Function<ByteBuf, T> body)
            throws IOException {
        if (!java.nio.file.Files.exists(file)) {
            return null;
        }
        byte[] all = java.nio.file.Files.readAllBytes(file);
        java.util.zip.CRC32C crc = new java.util.zip.CRC32C();
        crc.update(all, 0, Math.max(0, all.length - 4));
        if (all.length < 4 || (int) crc.getValue() != java.nio.ByteBuffer.wrap(all, all.length - 4, 4).getInt()) {
            throw new IOException(what + " " + file + " is corrupt: its checksum does not match its bytes");
        }
        ByteBuf buf = io.netty.buffer.Unpooled.wrappedBuffer(all, 0, all.length - 4);
        try {
            T t = body.apply(buf);
            Wire.end(buf, what);
            return t;
        } catch (RuntimeException e) {
            throw new IOException(what + " " + file + " does not decode: " + e.getMessage(), e);
        }
    }

    // ------------------------------------------------------------------ merges

    static final String MERGE_FILE = "merge";
    /** Marks a seed that is one half's part of a merge: never a region's whole seed on its own. */
    static final String MERGE_PART = "merge-part";

    /** The merge this replica froze for, or {@code null} while it is not frozen. */
    RegionCodec.MergeInfo mergeInfo() {
        Merge m = merge;
        return m == null ? null : m.info();
    }

    /**
     * The MERGE entry at {@code index}: this half of merge {@code merged} freezes (every replica at
     * this same index), copies its store and sessions as its part of the merged region's seed, and
     * refuses every request from here on. Refused when the region split, froze for another merge,
     * or heard this merge was aborted; again for the same merge it answers with the first freeze.
     */
    private Message merge(long index, ByteBuf buf) {
        String table;
        java.util.UUID merged;
        java.util.UUID left;
        java.util.UUID right;
        byte[] start;
        byte[] end;
        try {
            table = Wire.readString(buf, "merge table");
            merged = new java.util.UUID(Wire.readLong(buf, "merged group"), Wire.readLong(buf, "merged group"));
            left = new java.util.UUID(Wire.readLong(buf, "left group"), Wire.readLong(buf, "left group"));
            right = new java.util.UUID(Wire.readLong(buf, "right group"), Wire.readLong(buf, "right group"));
            start = Wire.readBytes(buf, "merge half start");
            end = Wire.readBytes(buf, "merge half end");
        } catch (RuntimeException e) {
            return RegionCodec.queryFailed(e);
        }
        java.util.UUID self = getGroupId().getUuid();
        Merge m = merge;
        if (m != null && m.info().merged().equals(merged)) {
            return RegionCodec.mergeReply(m.info());
        }
        String refused = split != null ? "it split"
                : m != null ? "it is merging into group " + m.info().merged() + " already"
                : abortedMerges.contains(merged) ? "that merge was aborted"
                : !self.equals(left) && !self.equals(right) ? "it is neither half of that merge"
                : null;
        if (refused != null) {
            return RegionCodec.queryFailed(new IllegalStateException("region group " + self + " cannot freeze for merge "
                    + merged + ": " + refused));
        }
        try {
            byte[][] range = replica.range(table);
            boolean inside = io.basalt.bytes.Bytes.compare(start, range[0]) >= 0
                    && (range[1].length == 0 || (end.length > 0 && io.basalt.bytes.Bytes.compare(end, range[1]) <= 0))
                    && (end.length == 0 || io.basalt.bytes.Bytes.compare(start, end) < 0);
            if (!inside) {
                return RegionCodec.queryFailed(new IllegalStateException("region group " + self + " cannot freeze for"
                        + " merge " + merged + ": its rows are not ['" + io.basalt.bytes.Bytes.toStringBinary(start)
                        + "', '" + io.basalt.bytes.Bytes.toStringBinary(end) + "') any more"));
            }
        } catch (RuntimeException e) {
            return RegionCodec.queryFailed(e);
        }
        Merge frozen = new Merge(table, new RegionCodec.MergeInfo(merged, left, right, index), start, end);
        try {
            makeMergePart(frozen);
        } catch (IOException e) {
            // This replica cannot copy its store: like a failed disk, it stops rather than diverge.
            throw new java.io.UncheckedIOException(this + ": making its part of merge " + merged + " at index " + index,
                    e);
        }
        merge = frozen;
        LOG.info("{}: frozen for merge {} (index {}) of groups {} and {}", this, merged, index, left, right);
        return RegionCodec.mergeReply(frozen.info());
    }

    /**
     * The UNMERGE entry: merge {@code merged} was aborted (the metadata group decided so), so a
     * region frozen for it takes requests again, its copy for the merged region deleted; and a
     * MERGE entry for it is refused from now on, even one that arrives late.
     */
    private Message unmerge(ByteBuf buf) {
        java.util.UUID merged;
        try {
            Wire.readString(buf, "merge table");
            merged = new java.util.UUID(Wire.readLong(buf, "merged group"), Wire.readLong(buf, "merged group"));
        } catch (RuntimeException e) {
            return RegionCodec.queryFailed(e);
        }
        abortedMerges.add(merged);
        Merge m = merge;
        if (m != null && m.info().merged().equals(merged)) {
            merge = null;
            try {
                RegionSnapshots.deleteTree(seedsDirectory.resolve(merged.toString()));
            } catch (IOException e) {
                LOG.warn("{}: could not delete its part of aborted merge {}; it is deleted with the group", this,
                        merged, e);
            }
            LOG.info("{}: merge {} was aborted; the region takes requests again", this, merged);
        }
        return RegionCodec.done();
    }

    /**
     * Makes in {@code seeds/} this half's part of the merged region's seed, unless it is there or
     * the merged region already runs on this node: {@code seeds/<merged>/snapshot.1_<index>/}
     * holding {@code store/} (a checkpoint of this store) and {@code sessions}, built under a
     * temporary name and renamed whole. The merged region's replica here joins the two parts.
     */
    private void makeMergePart(Merge m) throws IOException {
        String group = m.info().merged().toString();
        Path done = seedsDirectory.resolve(group);
        if (java.nio.file.Files.exists(done) || java.nio.file.Files.exists(groupsDirectory.resolve(group))) {
            return;
        }
        Path tmp = seedsDirectory.resolve(".tmp-" + group);
        RegionSnapshots.deleteTree(tmp);
        Path snapshot = tmp.resolve("snapshot." + SEED_TERM + "_" + m.info().index());
        java.nio.file.Files.createDirectories(snapshot);
        // A region made with its table holds the table's whole key space in its store (only its
        // own rows ever reach it): its part is narrowed to its range, so the two parts join.
        Path work = seedsDirectory.resolve(".work-merge");
        RegionSnapshots.deleteTree(work);
        java.nio.file.Files.createDirectories(work);
        replica.checkpoint(work.resolve("checkpoint"));
        ReplicaStore.restore(work.resolve("checkpoint"), work.resolve("store"));
        try (ReplicaStore part = ReplicaStore.open(work.resolve("store"), options)) {
            part.narrow(m.table(), m.start(), m.end());
            part.checkpoint(snapshot.resolve("store"));
        }
        RegionSnapshots.deleteTree(work);
        sessions.writeTo(snapshot.resolve("sessions"));
        java.nio.file.Files.createFile(tmp.resolve(MERGE_PART));
        RegionSnapshots.sync(snapshot);
        RegionSnapshots.sync(tmp);
        java.nio.file.Files.move(tmp, done, java.nio.file.StandardCopyOption.ATOMIC_MOVE);
        RegionSnapshots.sync(seedsDirectory);
        LOG.info("{}: its part of merge {} made", this, group);
    }

    private void writeMerges(Path file) throws IOException {
        Merge m = merge;
        writeRecord(file, buf -> {
            Wire.writeBoolean(buf, m != null);
            if (m != null) {
                Wire.writeString(buf, m.table());
                RegionCodec.writeMerge(buf, m.info());
                Wire.writeBytes(buf, m.start());
                Wire.writeBytes(buf, m.end());
            }
            Wire.writeVarint(buf, abortedMerges.size());
            for (java.util.UUID id : abortedMerges) {
                buf.writeLong(id.getMostSignificantBits()).writeLong(id.getLeastSignificantBits());
            }
        });
    }

    /** Under the write lock, while loading: the merge state a snapshot recorded, if any. */
    private void readMerges(Path file) throws IOException {
        Merge m = readRecord(file, "merge record", buf -> {
            Merge frozen = Wire.readBoolean(buf, "frozen") ? new Merge(Wire.readString(buf, "merge table"),
                    RegionCodec.readMerge(buf), Wire.readBytes(buf, "merge half start"),
                    Wire.readBytes(buf, "merge half end")) : null;
            int aborted = Wire.readVarint(buf, "aborted merges");
            for (int i = 0; i < aborted; i++) {
                abortedMerges.add(new java.util.UUID(Wire.readLong(buf, "aborted merge"),
                        Wire.readLong(buf, "aborted merge")));
            }
            return frozen;
        });
        merge = m;
    }

    /**
     * A merged region's first start on this node: joins the two parts its halves' replicas here
     * made into its first snapshot, {@code snapshot.1_<i>} with {@code i} the larger of the halves'
     * indexes (the same on every replica): the lower half's store absorbs the upper's, and the
     * sessions tables are merged. Built aside and renamed whole; the parts are deleted after.
     */
    private void adoptMergeParts(List<Path> parts) throws IOException {
        List<Path> snapshotsOfParts = new ArrayList<>();
        long index = 0;
        for (Path part : parts) {
            try (java.util.stream.Stream<Path> inside = java.nio.file.Files.list(part)) {
                Path only = inside.filter(p -> p.getFileName().toString().startsWith("snapshot.")).findFirst()
                        .orElseThrow(() -> new IOException("merge part " + part + " holds no snapshot"));
                snapshotsOfParts.add(only);
                String name = only.getFileName().toString();
                index = Math.max(index, Long.parseLong(name.substring(name.indexOf('_') + 1)));
            }
        }
        Path work = snapshots.getSnapshotDir().toPath().resolve(".merge-work");
        RegionSnapshots.deleteTree(work);
        Path built = work.resolve("snapshot." + SEED_TERM + "_" + index);
        java.nio.file.Files.createDirectories(built);
        ReplicaStore.restore(snapshotsOfParts.get(0).resolve("store"), work.resolve("a"));
        ReplicaStore.restore(snapshotsOfParts.get(1).resolve("store"), work.resolve("b"));
        try (ReplicaStore a = ReplicaStore.open(work.resolve("a"), options);
             ReplicaStore b = ReplicaStore.open(work.resolve("b"), options)) {
            String table = a.tables().getFirst();
            a.absorb(table, b);
            a.checkpoint(built.resolve("store"));
        }
        Sessions.merged(Sessions.readFrom(snapshotsOfParts.get(0).resolve("sessions")),
                Sessions.readFrom(snapshotsOfParts.get(1).resolve("sessions"))).writeTo(built.resolve("sessions"));
        RegionSnapshots.sync(built);
        Path target = snapshots.getSnapshotDir().toPath().resolve(built.getFileName());
        java.nio.file.Files.move(built, target, java.nio.file.StandardCopyOption.ATOMIC_MOVE);
        RegionSnapshots.sync(snapshots.getSnapshotDir().toPath());
        RegionSnapshots.deleteTree(work);
        for (Path part : parts) {
            RegionSnapshots.deleteTree(part);
        }
        snapshots.refresh();
        LOG.info("{}: starts from the parts of its merge made here ({})", this, parts);
    }

    // ------------------------------------------------------------------ snapshots

    @Override
    public long takeSnapshot() throws IOException {
        TermIndex last = getLastAppliedTermIndex();
        if (last == null || last.getIndex() <= 0) {
            return RaftLog.INVALID_LOG_INDEX;
        }
        RegionSnapshots.Snapshot latest = snapshots.latest();
        if (latest != null && latest.termIndex().getIndex() >= last.getIndex()) {
            return latest.termIndex().getIndex();
        }
        Path built = snapshots.building(last);
        replica.checkpoint(built.resolve("store"));
        sessions.writeTo(built.resolve("sessions"));
        if (split != null) {
            writeSplit(built.resolve(SPLIT_FILE), split);
        }
        if (merge != null || !abortedMerges.isEmpty()) {
            writeMerges(built.resolve(MERGE_FILE));
        }
        snapshots.commit(built, last);
        LOG.info("{}: snapshot at {}", this, last);
        return last.getIndex();
    }

    // ------------------------------------------------------------------ reads

    @Override
    public CompletableFuture<Message> query(Message request) {
        swap.readLock().lock();
        try {
            ReplicaStore store = replica;
            if (store == null) {
                throw new IllegalStateException(this + " is not open");
            }
            ByteBuf buf = RegionCodec.buffer(request.getContent());
            int kind = RegionCodec.readKind(buf, "query");
            String table = Wire.readString(buf, "query table");
            io.basalt.client.UnavailableException away = away();
            if (away != null && (kind == RegionCodec.GET || kind == RegionCodec.SCAN
                    || kind == RegionCodec.MIDDLE_ROW)) {
                throw away;
            }
            return CompletableFuture.completedFuture(switch (kind) {
                case RegionCodec.MIDDLE_ROW -> RegionCodec.middleRowReply(store.middleRow(table));
                case RegionCodec.GET -> {
                    Get get = Messages.readGet(buf);
                    if (!store.holds(table, get.row())) {
                        throw new io.basalt.client.UnavailableException("row '"
                                + io.basalt.bytes.Bytes.toStringBinary(get.row()) + "' is not in this region any more"
                                + " (it split); read the region map again");
                    }
                    yield RegionCodec.results(List.of(store.connection().table(table).get(get).join()), false);
                }
                case RegionCodec.SCAN -> {
                    Scan scan = Messages.readScan(buf);
                    int limit = Math.clamp(Wire.readVarint(buf, "scan limit"), 1, MAX_SCAN_ROWS);
                    List<Result> rows = new ArrayList<>();
                    boolean more = false;
                    try (ResultScanner scanner = store.connection().table(table).scanner(scan)) {
                        for (Result r; (r = scanner.next()) != null; ) {
                            if (rows.size() == limit) {
                                more = true;
                                break;
                            }
                            rows.add(r);
                        }
                    }
                    yield RegionCodec.results(rows, more);
                }
                case RegionCodec.FLUSH -> {
                    // memtables to SSTables here only: what a replica flushed changes no outcome
                    store.connection().admin().flush(table).join();
                    yield RegionCodec.results(List.of(), false);
                }
                case RegionCodec.COMPACT -> {
                    store.connection().admin().compact(table).join();
                    yield RegionCodec.results(List.of(), false);
                }
                default -> throw new IllegalArgumentException("query kind " + kind + " is unknown");
            });
        } catch (CompletionException e) {
            return CompletableFuture.completedFuture(RegionCodec.queryFailed(e.getCause()));
        } catch (RuntimeException e) {
            return CompletableFuture.completedFuture(RegionCodec.queryFailed(e));
        } finally {
            swap.readLock().unlock();
        }
    }
}
