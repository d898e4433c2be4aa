package io.basalt.engine;

import io.basalt.cell.Cell;
import io.basalt.client.BasaltException;
import io.basalt.client.Durability;
import io.basalt.client.StoreOptions;
import io.basalt.client.StoreReadOnlyException;
import java.io.Closeable;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The store's write-ahead log: numbered segment files of {@link WalRecordLayout} records, written
 * by one syncer thread with group commit; futures complete on a completer thread, a batch at a
 * time.
 *
 * <p><b>Group commit.</b> {@link #append} assigns the next sequence number and copies the framed
 * record into a pending buffer under a short lock, then returns a future. The syncer thread swaps
 * the pending buffer out, writes it, forces it once ({@link Durability#SYNC}) and completes the
 * futures of every record in it. While one force runs, new records pile up in the other buffer and
 * share the next force, so N concurrent writers cost about one {@code fsync} per batch rather than
 * N. Under {@link Durability#ASYNC} the futures complete after the write and the log is forced on a
 * timer.
 *
 * <p><b>Writers that write.</b> Under {@code ASYNC} a record is acknowledged once written to the
 * file (the OS has it; a process crash keeps it), so there is nothing to wait for but the write
 * itself. A writer that appended a record calls {@link #writeOrWake} once it let go of its row
 * locks: when its record is the only one pending, nobody is writing (the token is free) and the
 * record does not fill the segment (rolling is the syncer's), it writes its record on its own
 * thread and completes its future there; otherwise it wakes the syncer, as before. A put then
 * costs no thread hand-off at all when writes do not overlap (the syncer and the completer were two
 * wake-ups, each some ten microseconds on a loaded machine), and the group commit of overlapping
 * writers is unchanged: they find others pending or the token taken and leave their records to
 * the syncer's next batch. This
 * is how RocksDB's writers write their own WAL records. Forces stay on the syncer's timer, made
 * without the token so that writers go on while the disk flushes ({@link #forceAside}), and
 * {@link Durability#SYNC} is unchanged: a force per writer would undo group commit.
 *
 * <p>Futures complete on the completer or on the writer that wrote them, so a later batch written
 * inline may complete before an earlier one still on the completer; what depends on order goes
 * through {@link Mvcc#complete}, which makes writes visible, and runs their callbacks, in
 * sequence order only. Whoever chains work on the futures must keep it short and never block
 * (the region only advances MVCC there and completes the caller's future).
 *
 * <p><b>Failures.</b> A failed write or force (or an {@code Error} on the syncer) fails every
 * record not yet acknowledged and every later append with a {@link StoreReadOnlyException}, cuts
 * the segment back to its acknowledged records so that none of the failed ones is replayed later,
 * and tells the store, which goes read-only until it is reopened. A failed force is never retried
 * (see {@link #fail}).
 *
 * <p><b>Recycled segments.</b> A retired segment is not deleted but renamed to a free file
 * ({@code NNN.free}, up to {@link #MAX_FREE} of them), and the next roll writes over it instead of
 * making a new file. Two costs go: a write into a new file's pages has the kernel find, zero and
 * account a fresh page for every 4 KiB (and, on a virtual machine that hands free memory back to
 * its host, fault that page in from the host), where a recycled file's pages are still cached;
 * and a force of an appending file also commits the file's new size and blocks to the journal,
 * where overwriting blocks already allocated forces data only. RocksDB's
 * {@code recycle_log_file_num} does the same. What makes it safe is the framing's version 3
 * ({@link RecordLogLayout}): every record's checksums start with its segment's salt, the low 32
 * bits of the segment number (numbers only grow, free files' included), so the records of the
 * file's earlier use that lie past the last record of this one fail their checksums and end the
 * log there. Records are sealed under the log's lock with the salt of the segment they will be
 * written to ({@link #salt}); a roll seals again, with the new salt, whatever is still pending.
 * A segment whose header does not carry its own number's salt was being recycled when the process
 * stopped, before anything was written to it as that segment, and is skipped.
 */
final class WriteAheadLog implements Closeable {

    private static final Logger LOG = LoggerFactory.getLogger(WriteAheadLog.class);
    private static final String SUFFIX = ".wal";
    private static final String FREE_SUFFIX = ".free";
    /**
     * Retired segments kept to be written over, at most: a few segments' worth of disk and page
     * cache, enough for a log that retires segments about as fast as it fills them.
     */
    static final int MAX_FREE = 4;

    /** A segment file and the sequence numbers it holds. */
    static final class Segment {
        final long id;
        final Path path;
        volatile long lastSequence;
        /** Bytes in the file (growing while it is the one written). */
        volatile long size;

        Segment(long id, Path path, long lastSequence, long size) {
            this.id = id;
            this.path = path;
            this.lastSequence = lastSequence;
            this.size = size;
        }
    }

    private record Waiter(long sequence, CompletableFuture<Void> future) {}

    private final Path directory;
    private final StoreOptions options;
    private final Mvcc mvcc;
    private final Disk disk;
    private final Listener listener;

    /** What the store hears from its log. */
    interface Listener {
        /** The log failed (told once): the store goes read-only. */
        void failed(StoreReadOnlyException failure);

        /** The log rolled to a new segment (syncer thread; keep it short). */
        void rolled();
    }

    private static final Listener NOBODY = new Listener() {
        @Override
        public void failed(StoreReadOnlyException failure) { }

        @Override
        public void rolled() { }
    };
    /**
     * Completes the futures of a written batch, one task per batch, so the syncer goes straight
     * back to writing while whatever the callers chained on their futures runs here.
     */
    private final java.util.concurrent.ExecutorService completer = java.util.concurrent.Executors
            .newSingleThreadExecutor(r -> Thread.ofPlatform().name("basalt-wal-completer").daemon().unstarted(r));
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition work = lock.newCondition();
    private final List<Segment> segments = new CopyOnWriteArrayList<>();
    private final Thread syncer;

    // Guarded by lock.
    private long lastSequence;
    private byte[] pending = new byte[64 * 1024];
    private int pendingLength;
    private ArrayDeque<Waiter> waiters = new ArrayDeque<>();
    private boolean closing;
    /** The salt of the segment records appended now will be written to (guarded by lock). */
    private int salt;
    /** Free files, the most recently retired last (guarded by itself). */
    private final ArrayDeque<Path> free = new ArrayDeque<>();
    /** Free files being renamed, not yet in {@link #free} (guarded by {@link #free}). */
    private int reserved;
    /** Written under lock; read without it by {@link #failure()}. */
    private volatile StoreReadOnlyException failure;

    /**
     * The write token (guarded by lock): whoever holds it writes the file. The syncer takes it for
     * each batch; under {@link Durability#ASYNC} a writer that finds it free takes it too
     * ({@link #writeOrWake}). {@link #holder} is the thread holding it.
     */
    private boolean writing;
    private Thread holder;
    /**
     * The syncer is forcing the file without the token ({@link #forceAside}); written under lock:
     * meanwhile a writer writes whatever is pending, not only a lone record ({@link #writeOrWake}).
     */
    private volatile boolean forcing;
    /** Whether the failure was told to the listener (once), guarded by lock. */
    private boolean told;
    /**
     * How the syncer waits now (guarded by lock), so that a writer giving the token back wakes it
     * only when it has something to do: pending records, the token it waits for, or a force to time.
     */
    private SyncerWait syncerWait = SyncerWait.NONE;

    private enum SyncerWait { NONE, FOR_TOKEN, UNTIMED, TIMED }

    // The token's holder only (the syncer, or a writer under ASYNC).
    private Disk.WritableFile file;
    /** Whether {@link #file} is a recycled file, which may run on past what this segment wrote. */
    private boolean fileReused;
    /** Volatile: {@link #retireUpTo} reads it on the flusher's thread to spare the segment being written. */
    private volatile Segment current;
    private long currentSize;
    /**
     * Bytes of the current segment whose records were acknowledged (forced under SYNC, written
     * under ASYNC): what a failure cuts the file back to, so that a record whose write failed
     * cannot come back when the log is replayed.
     */
    private long committedSize;
    private byte[] spare = new byte[64 * 1024];
    /** Written by the token's holder; read by the syncer while it waits, to time the next force. */
    private volatile long lastForceNanos = System.nanoTime();
    private volatile boolean unforced;
    private final java.util.concurrent.atomic.AtomicLong forces = new java.util.concurrent.atomic.AtomicLong();
    private final java.util.concurrent.atomic.AtomicLong batches = new java.util.concurrent.atomic.AtomicLong();
    private final java.util.concurrent.atomic.AtomicLong bytesWritten = new java.util.concurrent.atomic.AtomicLong();
    private final java.util.concurrent.atomic.AtomicLong recycled = new java.util.concurrent.atomic.AtomicLong();

    private WriteAheadLog(Path directory, StoreOptions options, Mvcc mvcc, long lastSequence, long nextSegmentId,
                          List<Segment> existing, List<Path> freeFiles, Disk disk, Listener listener)
            throws IOException {
        this.directory = directory;
        this.options = options;
        this.mvcc = mvcc;
        this.disk = disk;
        this.listener = listener;
        this.lastSequence = lastSequence;
        this.segments.addAll(existing);
        this.free.addAll(freeFiles);
        this.salt = (int) nextSegmentId;
        openSegment(nextSegmentId);
        this.syncer = Thread.ofPlatform().name("basalt-wal-syncer").daemon().unstarted(this::runSyncer);
        this.syncer.start();
    }

    // ------------------------------------------------------------------ replay and open

    /**
     * What replay found: the last sequence number, the segments (oldest first), the number the
     * next segment takes (above every segment's and free file's) and the free files (the most
     * recently retired last).
     */
    record Replayed(long lastSequence, List<Segment> segments, long nextSegmentId, List<Path> free) {
        Replayed(long lastSequence, List<Segment> segments, long nextSegmentId) {
            this(lastSequence, segments, nextSegmentId, List.of());
        }
    }

    /**
     * Reads every segment in order and hands each record to {@code sink}. A torn tail of the last
     * segment is cut off (the file is truncated to its last whole record); damage anywhere else is
     * refused or, under {@link StoreOptions.WalCorruptionPolicy#SKIP_AND_REPORT}, logged and skipped.
     */
    static Replayed replay(Path directory, StoreOptions.WalCorruptionPolicy policy,
                           Consumer<WalRecordLayout.Entry> sink) throws IOException {
        return replay(directory, policy, sink, LocalDisk.INSTANCE);
    }

    /** {@link #replay(Path, StoreOptions.WalCorruptionPolicy, Consumer)} through {@code disk}. */
    static Replayed replay(Path directory, StoreOptions.WalCorruptionPolicy policy,
                           Consumer<WalRecordLayout.Entry> sink, Disk disk) throws IOException {
        disk.createDirectories(directory, directory.toAbsolutePath().getParent());
        List<Path> files;
        List<Path> free;
        try (Stream<Path> list = Files.list(directory)) {
            List<Path> all = list.sorted().toList();
            files = all.stream().filter(p -> p.getFileName().toString().endsWith(SUFFIX)).toList();
            free = all.stream().filter(p -> p.getFileName().toString().endsWith(FREE_SUFFIX)).toList();
        }
        long lastSequence = 0;
        long nextId = 1;
        for (Path file : free) { // a recycled file's earlier records carry its old number's salt: never reuse it
            nextId = Math.max(nextId, segmentId(file, FREE_SUFFIX) + 1);
        }
        List<Segment> segments = new ArrayList<>();
        for (int i = 0; i < files.size(); i++) {
            Path file = files.get(i);
            boolean last = i == files.size() - 1;
            long id = segmentId(file, SUFFIX);
            nextId = Math.max(nextId, id + 1);
            long[] max = {0};
            long validEnd;
            try (Arena arena = Arena.ofConfined(); FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
                MemorySegment data = ch.size() == 0 ? MemorySegment.ofArray(new byte[0])
                        : ch.map(FileChannel.MapMode.READ_ONLY, 0, ch.size(), arena);
                if (data.byteSize() < RecordLogLayout.HEADER_SIZE && last) {
                    // A crash while creating the newest segment: nothing in it was ever acknowledged.
                    LOG.warn("Write-ahead log segment {} is an incomplete new file ({} bytes); removing it",
                            file, data.byteSize());
                    disk.delete(file);
                    continue;
                }
                short version = RecordLogLayout.checkHeader(data, WalRecordLayout.MAGIC, file);
                if (version == RecordLogLayout.SALTED_VERSION && RecordLogLayout.salt(data) != (int) id) {
                    if (!last) {
                        throw new CorruptFileException(file, RecordLogLayout.SALT_OFFSET, "segment " + id
                                + " has the salt of another segment (" + RecordLogLayout.salt(data)
                                + ") and is not the newest");
                    }
                    // A free file renamed to be the newest segment, its own header not yet in place
                    // when the process stopped: nothing was written to it as this segment.
                    LOG.warn("Write-ahead log segment {} still holds an earlier use of the file; nothing in it"
                            + " is replayed, and it is removed", file);
                    disk.delete(file);
                    continue;
                }
                long from = RecordLogLayout.HEADER_SIZE;
                while (true) {
                    RecordLogLayout.ScanEnd end = RecordLogLayout.scan(data, from, new Decoder(file, sink, max));
                    if (!end.damaged() && !(end.torn() && !last)) {
                        validEnd = end.validEnd();
                        if (end.torn()) {
                            LOG.warn("Write-ahead log {} ends at offset {} with a torn record, or with what a recycled"
                                    + " segment held before; the log ends there", file, end.damageOffset());
                        }
                        break;
                    }
                    String problem = end.damaged() ? end.damage() : "torn record in a segment that is not the last";
                    if (policy == StoreOptions.WalCorruptionPolicy.REFUSE) {
                        throw new CorruptFileException(file, end.damageOffset(), problem
                                + " (open with walCorruption=SKIP_AND_REPORT to skip damaged records)");
                    }
                    long resume = RecordLogLayout.nextValidRecord(data, end.damageOffset() + 1);
                    LOG.error("Write-ahead log {} is damaged at offset {} ({}); skipping {} bytes", file,
                            end.damageOffset(), problem, (resume < 0 ? data.byteSize() : resume) - end.damageOffset());
                    if (resume < 0) {
                        validEnd = data.byteSize();
                        break;
                    }
                    from = resume;
                }
            }
            if (last && validEnd < Files.size(file)) {
                try (Disk.WritableFile cut = disk.append(file, Disk.Purpose.WAL)) {
                    cut.truncate(validEnd);
                }
            }
            lastSequence = Math.max(lastSequence, max[0]);
            segments.add(new Segment(id, file, max[0], Math.min(validEnd, Files.size(file))));
        }
        return new Replayed(lastSequence, segments, nextId, free);
    }

    /** Feeds decoded records to the sink and tracks the largest sequence number. */
    private record Decoder(Path file, Consumer<WalRecordLayout.Entry> sink, long[] max)
            implements RecordLogLayout.RecordConsumer {
        @Override
        public void accept(long recordOffset, MemorySegment payload) {
            WalRecordLayout.Entry entry = WalRecordLayout.read(payload, file, recordOffset);
            max[0] = Math.max(max[0], entry.sequence());
            sink.accept(entry);
        }
    }

    static WriteAheadLog open(Path directory, StoreOptions options, Mvcc mvcc, Replayed replayed)
            throws IOException {
        return open(directory, options, mvcc, replayed, LocalDisk.INSTANCE, NOBODY);
    }

    /** Opens a new segment after the replayed ones and starts the syncer, telling {@code listener}. */
    static WriteAheadLog open(Path directory, StoreOptions options, Mvcc mvcc, Replayed replayed, Disk disk,
                              Listener listener) throws IOException {
        return new WriteAheadLog(directory, options, mvcc, replayed.lastSequence(), replayed.nextSegmentId(),
                replayed.segments(), replayed.free(), disk, listener);
    }

    /** The file of segment {@code id}, or of the free file it became ({@link #FREE_SUFFIX}). */
    private Path fileOf(long id, String suffix) {
        return directory.resolve(String.format("%020d%s", id, suffix));
    }

    private static long segmentId(Path file, String suffix) {
        String name = file.getFileName().toString();
        try {
            return Long.parseLong(name.substring(0, name.length() - suffix.length()));
        } catch (NumberFormatException e) {
            throw new BasaltException("unexpected file " + file + " in the write-ahead log directory");
        }
    }

    /**
     * Makes segment {@code id} the one written: a free file renamed and written over from its
     * start when there is one, else a new file. Its header (with its salt) is forced and the
     * directory synced before any record goes in. The caller has set {@link #salt} for it.
     */
    private void openSegment(long id) throws IOException {
        Path path = fileOf(id, SUFFIX);
        Path reused;
        synchronized (free) {
            reused = free.pollLast(); // the most recently retired: its pages are the likeliest cached
        }
        Disk.WritableFile created;
        if (reused != null) {
            // Renamed first, then its header written: a segment whose header names another salt
            // is known by replay to be a recycling cut short, and skipped.
            disk.replace(reused, path);
            created = disk.reuse(path, Disk.Purpose.WAL);
            recycled.incrementAndGet();
        } else {
            created = disk.create(path, Disk.Purpose.WAL);
        }
        try {
            created.write(ByteBuffer.wrap(RecordLogLayout.header(WalRecordLayout.MAGIC,
                    RecordLogLayout.SALTED_VERSION, (int) id)));
            created.force();
            disk.syncDirectory(directory);
        } catch (IOException | RuntimeException e) {
            try {
                created.close();
                disk.delete(path);
            } catch (IOException suppressed) {
                e.addSuppressed(suppressed);
            }
            throw e;
        }
        Segment segment = new Segment(id, path, 0, RecordLogLayout.HEADER_SIZE);
        current = segment; // first: a retireUpTo between the two must not take the new segment for an old one
        segments.add(segment);
        file = created;
        fileReused = reused != null;
        currentSize = RecordLogLayout.HEADER_SIZE;
        committedSize = currentSize;
    }

    // ------------------------------------------------------------------ appending

    /**
     * A record's place in the log, its MVCC registration (begun in sequence order, under the
     * log's lock) and the future that completes once it is durable.
     */
    record Appended(long sequence, Mvcc.Write write, CompletableFuture<Void> durable) {}

    /**
     * Logs one mutation: assigns it the next sequence number and queues it for the syncer. The
     * returned future completes (on the syncer thread) once the record is durable as configured.
     *
     * @throws BasaltException when the log has failed or is closed
     */
    Appended append(int tableId, List<? extends Cell> cells) {
        return append(tableId, cells, true);
    }

    /**
     * {@link #append(int, List)}, optionally without waking the syncer: a caller logging a batch
     * of records wakes it once, after the last ({@link #wake()}), so the whole batch shares one
     * force instead of the first record being forced alone while the rest are appended.
     */
    Appended append(int tableId, List<? extends Cell> cells, boolean wake) {
        int payload = WalRecordLayout.payloadSize(cells);
        int framed = RecordLogLayout.RECORD_HEADER_SIZE + payload;
        CompletableFuture<Void> durable = new CompletableFuture<>();
        lock.lock();
        try {
            if (failure != null) {
                throw new StoreReadOnlyException(failure.reason(), failure);
            }
            if (closing) {
                throw new BasaltException("the write-ahead log is closed");
            }
            long sequence = ++lastSequence;
            ensurePending(framed);
            MemorySegment out = MemorySegment.ofArray(pending);
            long at = pendingLength;
            WalRecordLayout.write(sequence, tableId, cells, out, at + RecordLogLayout.RECORD_HEADER_SIZE);
            RecordLogLayout.seal(out, at, payload, RecordLogLayout.SALTED_VERSION, salt);
            pendingLength += framed;
            waiters.add(new Waiter(sequence, durable));
            Mvcc.Write write = mvcc.begin(sequence);
            if (wake) {
                work.signal();
            }
            return new Appended(sequence, write, durable);
        } finally {
            lock.unlock();
        }
    }

    private void ensurePending(int more) {
        if (pendingLength + more > pending.length) {
            long size = Math.max((long) pending.length * 2, (long) pendingLength + more);
            pending = java.util.Arrays.copyOf(pending, (int) Math.min(size, Integer.MAX_VALUE - 8));
        }
    }

    /** How many times the log was forced to disk: with group commit, far fewer than records. */
    long forces() {
        return forces.get();
    }

    /** How many segments were a free file written over rather than a new file. */
    long recycled() {
        return recycled.get();
    }

    /** Bytes of records the syncer wrote. */
    long bytesWritten() {
        return bytesWritten.get();
    }

    /** How many batches of records the syncer wrote. */
    long batches() {
        return batches.get();
    }

    /** Wakes the syncer for records appended without waking it. */
    void wake() {
        lock.lock();
        try {
            work.signal();
        } finally {
            lock.unlock();
        }
    }

    /** The last sequence number handed out. */
    long lastSequence() {
        lock.lock();
        try {
            return lastSequence;
        } finally {
            lock.unlock();
        }
    }

    // ------------------------------------------------------------------ the syncer

    private void runSyncer() {
        try {
            sync();
        } catch (Throwable e) { // an Error too: every waiting writer must be answered, never left hanging
            fail(e, null);
        }
    }

    private void sync() throws InterruptedException {
        long interval = options.asyncSyncInterval().toNanos();
        boolean syncEach = options.durability() == Durability.SYNC;
        while (true) {
            Batch batch;
            lock.lock();
            try {
                while (failure == null && (writing || pendingLength == 0 && !closing && !rollDue())) {
                    if (!writing && unforced) {
                        long wait = interval - (System.nanoTime() - lastForceNanos);
                        if (wait <= 0) {
                            break;
                        }
                        syncerWait = SyncerWait.TIMED;
                        work.awaitNanos(wait);
                    } else {
                        // nothing to do, or a writer holds the token: its release signals
                        syncerWait = writing ? SyncerWait.FOR_TOKEN : SyncerWait.UNTIMED;
                        work.await();
                    }
                    syncerWait = SyncerWait.NONE;
                }
                syncerWait = SyncerWait.NONE;
                if (failure != null || (closing && pendingLength == 0 && !unforced)) {
                    return;
                }
                batch = take();
            } finally {
                lock.unlock();
            }
            if (!writeAndRelease(batch, syncEach || closing, false)) {
                return;
            }
            if (!syncEach && unforced && System.nanoTime() - lastForceNanos >= interval && !forceAside()) {
                return;
            }
        }
    }

    /**
     * The timed force under {@link Durability#ASYNC}, made without the write token: writers go on
     * writing the file while it runs (an {@code fdatasync} of a second's writes took 8-20 ms here,
     * and with the token held every writer arriving then waited for it: updates' p99 of 1.3-7.5 ms
     * in YCSB). What the force covers is what was written when it began, {@code current.size} then;
     * the log counts as forced only if nothing was written meanwhile, else the next interval forces
     * again. Acknowledgement does not depend on it (a record is acknowledged once written), so a
     * failed force cuts nothing back: it fails the log as any failure does (never retried, see
     * {@link #fail}). Syncer only; it alone rolls, so the file cannot change under the force.
     */
    private boolean forceAside() {
        long covers;
        lock.lock();
        try {
            if (failure != null) {
                return false;
            }
            forcing = true;
            covers = current.size;
        } finally {
            lock.unlock();
        }
        Throwable failed = null;
        try {
            file.force();
            forces.incrementAndGet();
        } catch (Throwable e) { // an Error too: the log must fail, not go on unforced
            failed = e;
        }
        lock.lock();
        try {
            forcing = false;
            lastForceNanos = System.nanoTime();
            if (failed == null && current.size == covers) { // the writers' size and flag change together, under lock
                unforced = false;
            }
        } finally {
            lock.unlock();
        }
        if (failed != null) {
            fail(failed, null);
            return false;
        }
        return true;
    }

    /** {@link #write}, then the token given back whatever happened (close waits for it before it closes the file). */
    private boolean writeAndRelease(Batch batch, boolean force, boolean inline) {
        try {
            return write(batch, force, inline);
        } finally {
            release();
        }
    }

    /** Gives the write token back and lets the syncer look again (its next force, pending records). */
    private void release() {
        lock.lock();
        try {
            writing = false;
            holder = null;
            boolean needed = switch (syncerWait) {
                case FOR_TOKEN -> true;
                case UNTIMED -> unforced || pendingLength > 0 || rollDue(); // a force to time, records, a roll
                case TIMED -> pendingLength > 0 || rollDue();
                case NONE -> false; // it looks before it waits
            };
            if (needed || closing || failure != null) {
                work.signalAll();
            }
        } finally {
            lock.unlock();
        }
    }

    /** Whether the segment is full and waits for the syncer to roll it (read under lock, token free). */
    private boolean rollDue() {
        return !writing && current.size >= options.walSegmentSize();
    }

    /**
     * Under {@link Durability#ASYNC}, called by a writer after {@link #append} (outside its row
     * locks): writes what is pending on this thread and completes its future here when its record
     * is the only one pending, the token is free and the record does not fill the segment (the
     * syncer rolls it); otherwise wakes the syncer. Under {@link Durability#SYNC} it wakes the syncer.
     *
     * <p>Only a lone record: when others are pending too, writers overlap, and group commit on
     * the syncer serves them better than one of them writing for all (measured with YCSB at eight
     * threads: writing whatever was pending inline raised update p99 from 0.4 to 1.7 ms and read
     * p99.9 from 0.25 to 2 ms, a writer holding the token being descheduled among eight busy ones;
     * lone records only keep most of the throughput with p99 at 0.7-0.9 ms). The exception is
     * the syncer's timed force ({@link #forceAside}): while it runs, the syncer cannot write, so a
     * writer that finds the token free writes everything pending, and goes on taking what comes
     * in while it wrote until the force is over.
     */
    void writeOrWake() {
        if (options.durability() == Durability.SYNC) {
            wake();
            return;
        }
        for (boolean first = true; ; first = false) {
            Batch batch;
            lock.lock();
            try {
                // after its first batch, a writer takes what came while it wrote only while the syncer forces
                if (!(first || forcing) || !mayWriteInline()) {
                    if (pendingLength > 0) {
                        work.signal();
                    }
                    return;
                }
                batch = take();
            } finally {
                lock.unlock();
            }
            if (!writeAndRelease(batch, false, true) || !forcing) { // release woke the syncer if it has work
                return;
            }
        }
    }

    /**
     * Whether a writer may write what is pending on its own thread now (under lock): the token is
     * free, the log is neither failed nor closing, the records do not fill the segment (a roll is
     * the syncer's: it syncs the directory through a channel, which an interrupt of an application
     * thread would close), and they are one record, or any number while the syncer forces.
     */
    private boolean mayWriteInline() {
        return !writing && !closing && failure == null && pendingLength > 0 && (waiters.size() == 1 || forcing)
                && current.size + pendingLength < options.walSegmentSize();
    }

    /** Records taken from pending to be written: their bytes, their writers and the last sequence among them. */
    private record Batch(byte[] bytes, int length, ArrayDeque<Waiter> done, long last) {}

    /** Takes the write token for this thread and everything pending (under lock). */
    private Batch take() {
        writing = true;
        holder = Thread.currentThread();
        Batch batch = new Batch(pending, pendingLength, waiters, lastSequence);
        pending = spare;
        pendingLength = 0;
        waiters = new ArrayDeque<>();
        return batch;
    }

    /**
     * Writes a batch taken from pending (the caller holds the token), forces it when {@code force}
     * (under {@code ASYNC} the timed force comes after, without the token: {@link #forceAside}),
     * rolls the segment when it is full (the syncer only), and
     * completes the batch's futures: here when {@code inline}, else on the completer. Returns false
     * when the log failed; every future of the batch has its answer either way.
     */
    private boolean write(Batch taken, boolean force, boolean inline) {
        byte[] batch = taken.bytes();
        int length = taken.length();
        ArrayDeque<Waiter> done = taken.done();
        long batchLast = taken.last();
        boolean syncEach = options.durability() == Durability.SYNC;
        spare = batch;
        try {
            if (length > 0) {
                batches.incrementAndGet();
                file.write(ByteBuffer.wrap(batch, 0, length));
                bytesWritten.addAndGet(length);
                currentSize += length;
            }
            if (force && (unforced || length > 0)) { // SYNC, or closing: under ASYNC the timed force is forceAside's
                file.force();
                forces.incrementAndGet();
                unforced = false;
                lastForceNanos = System.nanoTime();
            }
        } catch (Throwable e) { // an Error too: the batch's writers must be answered
            fail(e, done);
            return false;
        }
        StoreReadOnlyException failedMeanwhile;
        lock.lock();
        try {
            failedMeanwhile = failure;
            if (failedMeanwhile == null) {
                if (length > 0) {
                    current.lastSequence = batchLast;
                    // size and flag together, under lock: forceAside decides by the size whether
                    // its force covered everything written
                    current.size = currentSize;
                    if (!force) {
                        unforced = true;
                    }
                }
                if (!syncEach || !unforced) {
                    committedSize = currentSize;
                }
            }
        } finally {
            lock.unlock();
        }
        if (failedMeanwhile != null) { // a writer failed the log while this batch was on its way: it must not count
            fail(failedMeanwhile, done);
            return false;
        }
        Throwable rollFailure = null;
        if (!inline && currentSize >= options.walSegmentSize()) { // before completing, so a caller sees the new segment
            try {
                roll();
                listener.rolled();
            } catch (Throwable e) {
                rollFailure = e;
            }
        }
        if (inline) { // durable whether or not the roll worked
            for (Waiter waiter : done) {
                waiter.future().complete(null);
            }
        } else {
            completer.execute(() -> {
                for (Waiter waiter : done) {
                    waiter.future().complete(null);
                }
            });
        }
        if (rollFailure != null) {
            fail(rollFailure, null);
            return false;
        }
        return true;
    }

    private void roll() throws IOException {
        if (unforced) {
            file.force();
            unforced = false;
        }
        if (fileReused) {
            // A recycled file may run on past this segment's last record with its earlier use's:
            // cut them off (the cut is forced), so only the newest segment ever has a tail to skip.
            file.truncate(currentSize);
        }
        file.close();
        long next = current.id + 1;
        lock.lock();
        try { // what is pending goes to the next segment: sealed again with its salt
            salt = (int) next;
            for (int at = 0; at < pendingLength; ) {
                MemorySegment out = MemorySegment.ofArray(pending);
                int length = out.get(RecordLogLayout.U32, at + RecordLogLayout.LENGTH_OFFSET);
                RecordLogLayout.seal(out, at, length, RecordLogLayout.SALTED_VERSION, salt);
                at += RecordLogLayout.RECORD_HEADER_SIZE + length;
            }
        } finally {
            lock.unlock();
        }
        openSegment(next);
    }

    /**
     * Fails the log for good: every record not yet acknowledged fails ({@code batch}, taken by the
     * syncer, and whatever is pending), every later append fails, the current segment is cut back
     * to its acknowledged records so that none of the failed ones can be replayed, and the store
     * hears of it (it goes read-only). A failed {@code force} is never retried: after one, the
     * kernel may have dropped the pages it could not write and report the next force clean
     * (PostgreSQL's "fsyncgate").
     *
     * <p>Called by the token's holder (the syncer, or a writer writing inline), or by
     * {@link #failBeforeSync} on a writer's thread.
     */
    private void fail(Throwable cause, ArrayDeque<Waiter> batch) {
        StoreReadOnlyException failed;
        ArrayDeque<Waiter> orphans;
        boolean first;
        lock.lock();
        try {
            first = !told;
            told = true;
            if (failure == null) {
                failure = cause instanceof StoreReadOnlyException r ? r : new StoreReadOnlyException(
                        "the write-ahead log failed writing " + (current == null ? directory : current.path) + ": "
                                + cause, cause);
            }
            failed = failure;
            orphans = waiters;
            waiters = new ArrayDeque<>();
            pendingLength = 0;
            work.signalAll();
        } finally {
            lock.unlock();
        }
        if (Thread.currentThread() == holder) { // the token's holder owns the file
            failed = cutBack(failed);
        }
        if (first) {
            LOG.error("Write-ahead log failed; the store is read-only until reopened", cause);
            try {
                listener.failed(failed);
            } catch (RuntimeException e) {
                LOG.error("The store's failure handler failed", e);
            }
        }
        BasaltException answer = failed;
        Runnable failAll = () -> {
            if (batch != null) {
                batch.forEach(w -> w.future().completeExceptionally(answer));
            }
            orphans.forEach(w -> w.future().completeExceptionally(answer));
        };
        try {
            completer.execute(failAll);
        } catch (java.util.concurrent.RejectedExecutionException e) {
            failAll.run();
        }
    }

    /**
     * Cuts the current segment back to its acknowledged records (the token's holder only); returns the
     * failure to report, which says so when the cut failed too.
     */
    private StoreReadOnlyException cutBack(StoreReadOnlyException failed) {
        if (file == null) {
            return failed;
        }
        try {
            // Always cut, even when the sizes say nothing was written past the acknowledged bytes:
            // a write that failed part-way may have left bytes no size counted (java.io does not
            // say how much of a failed write went out).
            boolean known = committedSize < Math.max(currentSize, file.size());
            file.truncate(committedSize);
            if (known) {
                LOG.warn("Cut write-ahead log segment {} back to its {} acknowledged bytes", current.path,
                        committedSize);
            }
            currentSize = committedSize;
            current.size = currentSize;
            return failed;
        } catch (IOException | RuntimeException e) {
            LOG.error("Could not cut write-ahead log segment {} back to its acknowledged records: the failed writes"
                    + " may be replayed when the store is reopened", current.path, e);
            return new StoreReadOnlyException(failed.reason() + "; the log could not be cut back to its"
                    + " acknowledged records (" + e + "), so records of writes that failed may be replayed when"
                    + " the store is reopened", failed);
        }
    }

    /**
     * Fails the log from a writer's thread after it appended a record it could not apply (an
     * {@code Error} between the append and the memtable): the record must not be acknowledged.
     * Returns false when the syncer had already taken the record's batch, which may then become
     * durable; the store is read-only either way.
     */
    boolean failBeforeSync(long sequence, Throwable cause) {
        boolean pendingStill;
        lock.lock();
        try {
            pendingStill = waiters.stream().anyMatch(w -> w.sequence() == sequence);
            if (failure == null) { // in the same hold as the look: no writer may take the record in between
                failure = cause instanceof StoreReadOnlyException r ? r : new StoreReadOnlyException(
                        "a write failed after it was logged (" + cause + "); the log takes no more", cause);
            }
        } finally {
            lock.unlock();
        }
        fail(cause, null);
        return pendingStill;
    }

    /** Why the log failed, or {@code null}. */
    StoreReadOnlyException failure() {
        return failure;
    }

    // ------------------------------------------------------------------ retiring segments

    /**
     * Retires the segments (other than the one being written) whose records are all at or below
     * {@code sequence}: everything in them is safely in SSTables. Each becomes a free file to be
     * written over by a later roll, or is deleted when {@link #MAX_FREE} are free already.
     *
     * <p>A free file is offered to rolls only once its rename is durable (the directory synced):
     * a rename lost in a power loss after the file was written over as a newer segment would
     * leave an older segment's name on a file with a newer segment's salt, which replay must
     * refuse as damage. When the sync fails, the renamed files are deleted instead.
     */
    void retireUpTo(long sequence) throws IOException {
        Segment writing = current;
        List<Path> renamed = new ArrayList<>();
        for (Segment segment : segments) {
            if (segment == writing || segment.lastSequence > sequence || !segments.remove(segment)) {
                continue; // not retirable, or retired by a concurrent call
            }
            boolean keep;
            synchronized (free) {
                keep = free.size() + reserved < MAX_FREE;
                if (keep) {
                    reserved++;
                }
            }
            if (keep) {
                Path to = fileOf(segment.id, FREE_SUFFIX);
                try {
                    disk.replace(segment.path, to);
                } catch (IOException | RuntimeException e) {
                    synchronized (free) {
                        reserved--;
                    }
                    throw e;
                }
                renamed.add(to);
            } else {
                disk.delete(segment.path);
            }
            LOG.debug("Retired write-ahead log segment {} (last sequence {}){}", segment.path,
                    segment.lastSequence, keep ? ", kept to be written over" : "");
        }
        if (renamed.isEmpty()) {
            return;
        }
        boolean durable = false;
        try {
            disk.syncDirectory(directory);
            durable = true;
        } catch (IOException | RuntimeException e) {
            LOG.warn("Could not sync the write-ahead log directory {} after retiring segments ({}); deleting them"
                    + " instead of keeping them to be written over", directory, e.toString());
        } finally {
            synchronized (free) {
                reserved -= renamed.size();
                if (durable) {
                    free.addAll(renamed);
                }
            }
        }
        if (!durable) {
            for (Path path : renamed) {
                disk.delete(path);
            }
        }
    }

    /** The free files a roll will write over, the most recently retired last. */
    List<Path> freeFiles() {
        synchronized (free) {
            return List.copyOf(free);
        }
    }

    /** Bytes in every live segment, the one being written included. */
    long totalBytes() {
        long total = 0;
        for (Segment segment : segments) {
            total += segment.size;
        }
        return total;
    }

    /** The live segment files, oldest first. */
    List<Path> segmentFiles() {
        return segments.stream().map(s -> s.path).toList();
    }

    /**
     * Writes and forces what is pending, completes its futures, then stops; appends after this
     * fail.
     */
    @Override
    public void close() throws IOException {
        lock.lock();
        try {
            closing = true;
            work.signalAll();
        } finally {
            lock.unlock();
        }
        try {
            syncer.join(TimeUnit.SECONDS.toMillis(30));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (syncer.isAlive()) {
            throw new IOException("the write-ahead log syncer did not stop within 30 s");
        }
        lock.lock();
        try { // the syncer stops at once after a failure: a writer may still hold the file
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (writing && System.nanoTime() < deadline) {
                work.awaitNanos(TimeUnit.MILLISECONDS.toNanos(100));
            }
            if (writing) {
                throw new IOException("a writer still writes the log 30 s after close began");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            lock.unlock();
        }
        completer.shutdown();
        try {
            if (!completer.awaitTermination(30, TimeUnit.SECONDS)) {
                throw new IOException("the write-ahead log's completions did not finish within 30 s");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (file != null) {
            if (fileReused && failure == null) {
                // a clean close leaves no earlier use's records after the last one, so the next
                // open has no tail to cut (and says nothing of one)
                try {
                    file.truncate(currentSize);
                } catch (IOException | RuntimeException e) {
                    LOG.warn("Could not cut recycled write-ahead log segment {} to its {} bytes at close ({}); the"
                            + " next open cuts it", current.path, currentSize, e.toString());
                }
            }
            file.close();
        }
    }
}
