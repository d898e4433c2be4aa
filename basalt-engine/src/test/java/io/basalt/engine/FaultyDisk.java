package io.basalt.engine;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;

/**
 * A {@link Disk} for tests that fails operations on demand and simulates power loss: the engine's
 * counterpart of RocksDB's {@code FaultInjectionTestFS} and LevelDB's fault-injection test.
 *
 * <p><b>Faults.</b> Each operation belongs to a {@link Place}. A test arms a place to fail its
 * next operation ({@link #failNext}) or sets a probability for random faults ({@link #random});
 * a fault is an I/O error, a full disk (ENOSPC), or for writes a short write (part of the bytes
 * reach the file, then the error). The disk counts the operations and the faults injected at each
 * place, so a test can prove a fault actually hit where it meant.
 *
 * <p><b>Power loss.</b> The disk tracks, for every file written through it, how much of it was
 * forced, whether its directory entry was forced, which directories were created and not yet
 * forced in their parent, and which renames were not yet forced. {@link #crash()} makes every
 * later operation fail (as a machine that stopped); after the store is closed,
 * {@link #loseUnsynced} changes the files on disk to what a power loss could leave: every file
 * is cut somewhere between its forced length and its end, files and directories whose entries were
 * never forced vanish, and an unforced rename is undone. A file written over from its start
 * ({@link #reuse}) keeps its new bytes up to somewhere between its forced length and what was
 * written, and its old bytes from there on. Not simulated: deletions that were not forced coming
 * back, and reordering of forced writes.
 */
final class FaultyDisk implements Disk {

    /** An operation held at its start until the test lets it go. */
    static final class Pause {
        final java.util.concurrent.CountDownLatch reached = new java.util.concurrent.CountDownLatch(1);
        final java.util.concurrent.CountDownLatch resume = new java.util.concurrent.CountDownLatch(1);

        /** Waits (bounded) until the operation is held. */
        void awaitReached() throws InterruptedException {
            if (!reached.await(30, java.util.concurrent.TimeUnit.SECONDS)) {
                throw new AssertionError("no operation reached the pause within 30 s");
            }
        }

        void release() {
            resume.countDown();
        }
    }

    /** Where a fault can hit. */
    enum Place {
        WAL_APPEND, WAL_FORCE, FLUSH, COMPACTION, MANIFEST, DIRECTORY_SYNC
    }

    /** What a fault does. */
    enum Fault {
        IO_ERROR, NO_SPACE, SHORT_WRITE,
        /**
         * Half the bytes written, then an error, and the file's size left as before the write:
         * a {@code java.io} write, which cannot say how much of a failed call went out (never
         * chosen at random).
         */
        SILENT_PARTIAL_WRITE,
        /** An {@code OutOfMemoryError} instead of an I/O error (never chosen at random). */
        ERROR
    }

    /** What the disk knows about one file written through it. */
    private static final class FileState {
        long forced;
        long size;
        boolean entryForced;
        /**
         * A file written over from its start ({@link #reuse}): its bytes before, which a power
         * loss leaves wherever the new ones were not forced; null for other files.
         */
        byte[] overwritten;
    }

    private final Disk real = LocalDisk.INSTANCE;
    private final Map<Place, AtomicLong> operations = new EnumMap<>(Place.class);
    private final Map<Place, AtomicLong> injected = new EnumMap<>(Place.class);
    private final Map<Place, Fault> armed = new ConcurrentHashMap<>();
    private final Map<Place, Pause> pauses = new ConcurrentHashMap<>();
    private final Map<Path, FileState> files = new HashMap<>();
    private final List<Path> unsyncedDirectories = new ArrayList<>();
    /** Renamed-over files whose rename is not yet forced: their content before the rename. */
    private final Map<Path, byte[]> unsyncedRenames = new HashMap<>();
    private volatile SplittableRandom random;
    private volatile double probability;
    private volatile java.util.Set<Place> randomPlaces = java.util.Set.of();
    private volatile boolean dead;
    /** Operations at every place together, for {@link #atOperation}. */
    private final AtomicLong allOperations = new AtomicLong();
    private volatile long stepAt = -1;
    private volatile Fault stepFault;

    FaultyDisk() {
        for (Place place : Place.values()) {
            operations.put(place, new AtomicLong());
            injected.put(place, new AtomicLong());
        }
    }

    // ------------------------------------------------------------------ arming

    /** The next operation at {@code place} fails with {@code fault}. */
    FaultyDisk failNext(Place place, Fault fault) {
        armed.put(place, fault);
        return this;
    }

    /** Holds the next operation at {@code place} at its start until {@link Pause#release()}. */
    Pause pauseNext(Place place) {
        Pause pause = new Pause();
        pauses.put(place, pause);
        return pause;
    }

    /** Each operation at one of {@code places} fails with {@code probability} (0 turns it off). */
    FaultyDisk random(SplittableRandom seeded, double chance, java.util.Set<Place> places) {
        this.random = seeded;
        this.randomPlaces = java.util.Set.copyOf(places);
        this.probability = chance;
        return this;
    }

    /**
     * The {@code n}th operation from now, at any place, fails with {@code fault}, or, with
     * {@code fault} null, finds the power gone ({@link #crash()} first). With {@link
     * #operationsSoFar()} this walks a multi-step operation one step at a time.
     */
    FaultyDisk atOperation(long n, Fault fault) {
        stepFault = fault;
        stepAt = allOperations.get() + n;
        return this;
    }

    /** Operations at every place so far. */
    long operationsSoFar() {
        return allOperations.get();
    }

    /** Operations seen at {@code place}. */
    long operations(Place place) {
        return operations.get(place).get();
    }

    /** Faults injected at {@code place}. */
    long injected(Place place) {
        return injected.get(place).get();
    }

    /** The fault to inject for this operation at {@code place}, or null. */
    private Fault fault(Place place) throws IOException {
        if (dead) {
            throw new IOException("simulated power loss: the disk is gone");
        }
        operations.get(place).incrementAndGet();
        if (allOperations.incrementAndGet() == stepAt) {
            if (stepFault == null) {
                crash();
                throw new IOException("simulated power loss: the disk is gone");
            }
            injected.get(place).incrementAndGet();
            return stepFault;
        }
        Pause pause = pauses.remove(place);
        if (pause != null) {
            pause.reached.countDown();
            try {
                if (!pause.resume.await(60, java.util.concurrent.TimeUnit.SECONDS)) {
                    throw new IOException("a paused " + place + " was never released");
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IOException("interrupted while paused at " + place);
            }
        }
        Fault fault = armed.remove(place);
        if (fault == null && probability > 0 && randomPlaces.contains(place)) {
            SplittableRandom r = random;
            synchronized (this) {
                if (r.nextDouble() < probability) {
                    fault = RANDOM_FAULTS[r.nextInt(RANDOM_FAULTS.length)];
                }
            }
        }
        if (fault != null) {
            injected.get(place).incrementAndGet();
        }
        return fault;
    }

    private static final Fault[] RANDOM_FAULTS = {Fault.IO_ERROR, Fault.NO_SPACE, Fault.SHORT_WRITE};

    private static IOException error(Fault fault, Place place, Path path) {
        if (fault == Fault.ERROR) {
            throw new OutOfMemoryError("injected at " + place + ", " + path);
        }
        return new IOException(fault == Fault.NO_SPACE ? "No space left on device (injected at " + place + ", " + path + ")"
                : "Input/output error (injected " + fault + " at " + place + ", " + path + ")");
    }

    private static Place writePlace(Purpose purpose) {
        return switch (purpose) {
            case WAL -> Place.WAL_APPEND;
            case MANIFEST -> Place.MANIFEST;
            case FLUSH -> Place.FLUSH;
            case COMPACTION -> Place.COMPACTION;
        };
    }

    private static Place forcePlace(Purpose purpose) {
        return purpose == Purpose.WAL ? Place.WAL_FORCE : writePlace(purpose);
    }

    // ------------------------------------------------------------------ the Disk

    @Override
    public WritableFile create(Path path, Purpose purpose) throws IOException {
        Fault fault = fault(writePlace(purpose));
        if (fault != null) {
            throw error(fault, writePlace(purpose), path);
        }
        WritableFile file = real.create(path, purpose);
        synchronized (this) {
            files.put(path, new FileState());
        }
        return new Tracked(file, purpose);
    }

    @Override
    public WritableFile append(Path path, Purpose purpose) throws IOException {
        if (dead) {
            throw new IOException("simulated power loss: the disk is gone");
        }
        WritableFile file = real.append(path, purpose);
        synchronized (this) {
            FileState state = files.computeIfAbsent(path, p -> { // there before: on disk for good
                FileState s = new FileState();
                s.entryForced = true;
                s.forced = file.size();
                return s;
            });
            state.size = file.size();
        }
        return new Tracked(file, purpose);
    }

    @Override
    public WritableFile reuse(Path path, Purpose purpose) throws IOException {
        Fault fault = fault(writePlace(purpose));
        if (fault != null) {
            throw error(fault, writePlace(purpose), path);
        }
        byte[] before = Files.readAllBytes(path);
        WritableFile file = real.reuse(path, purpose);
        synchronized (this) {
            FileState state = files.computeIfAbsent(path, p -> { // there before: on disk for good
                FileState s = new FileState();
                s.entryForced = true;
                return s;
            });
            state.forced = 0;
            state.size = 0;
            state.overwritten = before;
        }
        return new Tracked(file, purpose);
    }

    @Override
    public ReadableFile open(Path path) throws IOException {
        return real.open(path);
    }

    @Override
    public void syncDirectory(Path directory) throws IOException {
        Fault fault = fault(Place.DIRECTORY_SYNC);
        if (fault != null) {
            throw error(fault, Place.DIRECTORY_SYNC, directory);
        }
        real.syncDirectory(directory);
        Path dir = directory.toAbsolutePath().normalize();
        synchronized (this) {
            files.forEach((path, state) -> {
                if (dir.equals(path.toAbsolutePath().normalize().getParent())) {
                    state.entryForced = true;
                }
            });
            unsyncedDirectories.removeIf(d -> dir.equals(d.getParent()));
            unsyncedRenames.keySet().removeIf(p -> dir.equals(p.toAbsolutePath().normalize().getParent()));
        }
    }

    @Override
    public void createDirectories(Path directory, Path within) throws IOException {
        List<Path> missing = new ArrayList<>();
        for (Path p = directory.toAbsolutePath().normalize(); p != null && !Files.isDirectory(p); p = p.getParent()) {
            missing.addFirst(p);
        }
        for (Path created : missing) {
            if (dead) {
                throw new IOException("simulated power loss: the disk is gone");
            }
            Files.createDirectories(created);
            synchronized (this) {
                unsyncedDirectories.add(created);
            }
        }
        Path top = within.toAbsolutePath().normalize();
        for (Path p = directory.toAbsolutePath().normalize(); p.getParent() != null && !p.equals(top);
             p = p.getParent()) {
            syncDirectory(p.getParent());
        }
    }

    @Override
    public void replace(Path from, Path to) throws IOException {
        if (dead) {
            throw new IOException("simulated power loss: the disk is gone");
        }
        byte[] before = Files.exists(to) ? Files.readAllBytes(to) : null;
        real.replace(from, to);
        synchronized (this) {
            FileState moved = files.remove(from);
            if (moved != null) {
                moved.entryForced = before != null; // a rename over an existing entry keeps a name either way
                files.put(to, moved);
            }
            if (before != null) {
                unsyncedRenames.putIfAbsent(to, before);
            }
        }
    }

    @Override
    public void delete(Path path) throws IOException {
        if (dead) {
            throw new IOException("simulated power loss: the disk is gone");
        }
        real.delete(path);
        synchronized (this) {
            files.remove(path);
        }
    }

    /** A new name of a file whose content is on the device already: the name is lost until its directory is synced. */
    @Override
    public void link(Path existing, Path link) throws IOException {
        if (dead) {
            throw new IOException("simulated power loss: the disk is gone");
        }
        real.link(existing, link);
        synchronized (this) {
            FileState state = new FileState();
            state.size = Files.size(link);
            state.forced = state.size;
            files.put(link, state);
        }
    }

    /** A file written through this disk. */
    private final class Tracked implements WritableFile {
        private final WritableFile file;
        private final Purpose purpose;
        /** Bytes a {@link Fault#SILENT_PARTIAL_WRITE} wrote and {@link #size()} does not count. */
        private long hidden;

        Tracked(WritableFile file, Purpose purpose) {
            this.file = file;
            this.purpose = purpose;
        }

        @Override
        public void write(ByteBuffer bytes) throws IOException {
            Place place = writePlace(purpose);
            Fault fault = fault(place);
            if (fault == Fault.SILENT_PARTIAL_WRITE && bytes.remaining() > 1) {
                ByteBuffer part = bytes.duplicate();
                part.limit(part.position() + bytes.remaining() / 2);
                long before = file.size();
                file.write(part);
                hidden += file.size() - before;
                record();
            }
            if (fault == Fault.SHORT_WRITE && bytes.remaining() > 1) {
                ByteBuffer part = bytes.duplicate();
                part.limit(part.position() + bytes.remaining() / 2);
                file.write(part);
                record();
            }
            if (fault != null) {
                throw error(fault, place, file.path());
            }
            file.write(bytes);
            record();
        }

        private void record() {
            synchronized (FaultyDisk.this) {
                FileState state = files.get(file.path());
                if (state != null) {
                    state.size = file.size();
                }
            }
        }

        @Override
        public void force() throws IOException {
            Place place = forcePlace(purpose);
            Fault fault = fault(place);
            if (fault != null) {
                throw error(fault, place, file.path()); // and, as after a real failed fsync, nothing counts as forced
            }
            // what was written before the force began: a write beside it (the log's writers go on
            // during its timed force) may or may not be covered, so it does not count
            long covered = file.size();
            file.force();
            synchronized (FaultyDisk.this) {
                FileState state = files.get(file.path());
                if (state != null) {
                    state.forced = Math.max(state.forced, Math.min(covered, state.size));
                }
            }
        }

        @Override
        public void truncate(long size) throws IOException {
            if (dead) {
                throw new IOException("simulated power loss: the disk is gone");
            }
            file.truncate(size);
            hidden = 0;
            synchronized (FaultyDisk.this) {
                FileState state = files.get(file.path());
                if (state != null) {
                    state.size = file.size();
                    state.forced = Math.min(state.forced, file.size());
                    if (state.overwritten != null && state.overwritten.length > state.size) {
                        // the cut is forced: the old bytes past it are gone for good
                        state.overwritten = java.util.Arrays.copyOf(state.overwritten, (int) state.size);
                    }
                }
            }
        }

        @Override
        public long size() {
            return file.size() - hidden;
        }

        @Override
        public Path path() {
            return file.path();
        }

        @Override
        public void close() throws IOException {
            file.close();
        }
    }

    // ------------------------------------------------------------------ power loss

    /** The machine stops: every later operation fails. */
    void crash() {
        dead = true;
    }

    /** A file written over from its start: new bytes to a cut between forced and written, the old ones after. */
    private static void loseOverwritten(Path path, FileState state, SplittableRandom random) throws IOException {
        long written = state.size;
        long keep = state.forced >= written ? written : state.forced + random.nextLong(written - state.forced + 1);
        byte[] old = state.overwritten;
        try (FileChannel ch = FileChannel.open(path, StandardOpenOption.WRITE)) {
            if (keep < old.length) {
                ch.write(ByteBuffer.wrap(old, (int) keep, old.length - (int) keep), keep);
                ch.truncate(old.length);
            } else {
                ch.truncate(keep);
            }
        }
    }

    /**
     * Leaves on disk what a power loss could have (see the class comment), choosing cut points
     * with {@code random}, then brings the disk back with everything on it counted as forced.
     * Call it after the store that used this disk is closed.
     */
    synchronized void loseUnsynced(SplittableRandom random) throws IOException {
        for (var e : unsyncedRenames.entrySet()) {
            Files.write(e.getKey(), e.getValue());
            files.remove(e.getKey());
        }
        for (var e : files.entrySet()) {
            Path path = e.getKey();
            FileState state = e.getValue();
            if (!Files.exists(path)) {
                continue;
            }
            if (!state.entryForced) {
                Files.delete(path);
                continue;
            }
            if (state.overwritten != null) {
                loseOverwritten(path, state, random);
                continue;
            }
            long size = Files.size(path);
            long keep = state.forced >= size ? size : state.forced + random.nextLong(size - state.forced + 1);
            if (keep < size) {
                try (FileChannel ch = FileChannel.open(path, StandardOpenOption.WRITE)) {
                    ch.truncate(keep);
                }
            }
        }
        for (Path dir : unsyncedDirectories) {
            if (Files.exists(dir)) {
                try (Stream<Path> walk = Files.walk(dir)) {
                    for (Path p : walk.sorted(Comparator.reverseOrder()).toList()) {
                        Files.delete(p);
                    }
                }
            }
        }
        files.clear();
        unsyncedDirectories.clear();
        unsyncedRenames.clear();
        armed.clear();
        probability = 0;
        dead = false;
    }
}
