package io.basalt.engine;

import java.io.EOFException;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.Locale;

/**
 * The real {@link Disk}: {@link FileChannel}s on the local file system.
 *
 * <p><b>Interrupts.</b> A {@code FileChannel} is closed for every user the moment a thread blocked
 * in it, or entering it, is interrupted ({@code ClosedByInterruptException}). An SSTable's channel
 * is shared by every reader of the file, so one {@code Future.cancel(true)} in an application
 * would otherwise break that file for everyone until the store is reopened. A {@link Reader}
 * therefore reopens its channel when it finds it closed by an interrupt (its own or another
 * reader's), retries with the caller's interrupt flag cleared, and sets the flag again before it
 * returns: the interrupted caller still learns of its interrupt, and nobody else notices. Files
 * being written are owned by the store's own threads (flusher, compactor, manifest writer), which
 * nothing interrupts, except the write-ahead log: under {@code ASYNC} an application's thread may
 * write it ({@code WriteAheadLog.writeOrWake}), so the log is written through a
 * {@link RandomAccessFile} ({@link LogWriter}), whose {@code java.io} calls an interrupt does not
 * break.
 */
final class LocalDisk implements Disk {

    /** The one instance: it holds no state. */
    static final LocalDisk INSTANCE = new LocalDisk();

    private static final boolean WINDOWS =
            System.getProperty("os.name", "").toLowerCase(Locale.ROOT).contains("win");

    private LocalDisk() {}

    @Override
    public WritableFile create(Path path, Purpose purpose) throws IOException {
        if (purpose == Purpose.WAL) {
            if (Files.exists(path, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
                throw new java.nio.file.FileAlreadyExistsException(path.toString());
            }
            return new LogWriter(path, false);
        }
        return new Writer(path, FileChannel.open(path, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE));
    }

    @Override
    public WritableFile append(Path path, Purpose purpose) throws IOException {
        if (purpose == Purpose.WAL) {
            if (!Files.exists(path)) {
                throw new java.nio.file.NoSuchFileException(path.toString());
            }
            return new LogWriter(path, false);
        }
        FileChannel channel = FileChannel.open(path, StandardOpenOption.WRITE);
        channel.position(channel.size());
        return new Writer(path, channel);
    }

    @Override
    public WritableFile reuse(Path path, Purpose purpose) throws IOException {
        if (purpose != Purpose.WAL) {
            throw new UnsupportedOperationException("only log segments are written over: " + path);
        }
        if (!Files.exists(path)) {
            throw new java.nio.file.NoSuchFileException(path.toString());
        }
        return new LogWriter(path, true);
    }

    @Override
    public ReadableFile open(Path path) throws IOException {
        return new Reader(path);
    }

    @Override
    public void syncDirectory(Path directory) throws IOException {
        try (FileChannel ch = FileChannel.open(directory, StandardOpenOption.READ)) {
            ch.force(true);
        } catch (IOException e) {
            if (!WINDOWS) { // Windows cannot open a directory; NTFS orders its metadata itself
                throw e;
            }
        }
    }

    @Override
    public void createDirectories(Path directory, Path within) throws IOException {
        Files.createDirectories(directory);
        Path top = within.toAbsolutePath().normalize();
        for (Path p = directory.toAbsolutePath().normalize(); p.getParent() != null && !p.equals(top);
             p = p.getParent()) {
            syncDirectory(p.getParent());
        }
    }

    @Override
    public void replace(Path from, Path to) throws IOException {
        Files.move(from, to, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    }

    @Override
    public void link(Path existing, Path link) throws IOException {
        Files.createLink(link, existing);
    }

    @Override
    public void delete(Path path) throws IOException {
        Files.deleteIfExists(path);
    }

    /** A call on a channel. */
    private interface ChannelCall<T> {
        T apply(FileChannel channel) throws IOException;
    }

    /**
     * A write-ahead log segment, written through {@code java.io}: an interrupt of the thread that
     * writes (an application's, under {@code ASYNC}) neither breaks the call nor closes the file.
     * Forces are {@code fsync} (the descriptor's {@code sync}), a little more than the channel's
     * {@code fdatasync}: the syncer forces once a second under {@code ASYNC}, once per group under
     * {@code SYNC}.
     */
    private static final class LogWriter implements WritableFile {
        private final Path path;
        private final RandomAccessFile file;
        /**
         * Bytes written from the start (the file's length, unless it is written over from its
         * start: {@link Disk#reuse}). Written by the writing thread; volatile for a force on
         * another (the log's timed force runs beside writes).
         */
        private volatile long size;

        LogWriter(Path path, boolean fromStart) throws IOException {
            this.path = path;
            this.file = new RandomAccessFile(path.toFile(), "rw");
            this.size = fromStart ? 0 : file.length();
            file.seek(size);
        }

        @Override
        public void write(ByteBuffer bytes) throws IOException {
            int n = bytes.remaining();
            try {
                if (bytes.hasArray()) {
                    file.write(bytes.array(), bytes.arrayOffset() + bytes.position(), n);
                } else {
                    byte[] copy = new byte[n];
                    bytes.duplicate().get(copy);
                    file.write(copy);
                }
            } catch (IOException e) {
                // java.io says nothing of a partial write: the file's length does, and the log cuts
                // back to its acknowledged records by comparing with it ("a short write counts too")
                try {
                    size = Math.max(size, file.length());
                } catch (IOException unknown) {
                    e.addSuppressed(unknown);
                    size = Long.MAX_VALUE / 2; // unknown: make sure a cut back happens
                }
                throw e;
            }
            bytes.position(bytes.position() + n);
            size += n;
        }

        @Override
        public void force() throws IOException {
            file.getFD().sync();
        }

        @Override
        public void truncate(long newSize) throws IOException {
            long cut = Math.min(newSize, size);
            file.setLength(cut);
            file.seek(cut);
            size = cut;
            file.getFD().sync();
        }

        @Override
        public long size() {
            return size;
        }

        @Override
        public Path path() {
            return path;
        }

        @Override
        public void close() throws IOException {
            file.close();
        }
    }

    /** A file being written through one channel. */
    private static final class Writer implements WritableFile {
        private final Path path;
        private final FileChannel channel;
        private long size;

        Writer(Path path, FileChannel channel) throws IOException {
            this.path = path;
            this.channel = channel;
            this.size = channel.position();
        }

        @Override
        public void write(ByteBuffer bytes) throws IOException {
            while (bytes.hasRemaining()) {
                size += channel.write(bytes);
            }
        }

        @Override
        public void force() throws IOException {
            channel.force(false);
        }

        @Override
        public void truncate(long newSize) throws IOException {
            channel.truncate(newSize);
            channel.position(Math.min(newSize, size));
            size = Math.min(newSize, size);
            channel.force(true);
        }

        @Override
        public long size() {
            return size;
        }

        @Override
        public Path path() {
            return path;
        }

        @Override
        public void close() throws IOException {
            channel.close();
        }
    }

    /** A file read at positions, reopened when an interrupt closed its channel (see the class comment). */
    static final class Reader implements ReadableFile {
        private final Path path;
        private volatile FileChannel channel;
        private volatile boolean closed;
        /**
         * A descriptor of its own for {@link NowaitReads}, opened by the first such read (only a
         * server's event loop makes them, so an embedded store never opens one); -1 when it could
         * not be opened or the reader closed first. Set under {@link #nowaitLock}, not this
         * reader's monitor, which {@link #close} holds while the channel's close waits for reads
         * in it: an event loop opening the descriptor must not wait for those.
         */
        private volatile int nowaitFd = NOT_OPENED;
        private static final int NOT_OPENED = -2;
        private final Object nowaitLock = new Object();
        /** The reads in {@link #nowaitFd}: the last of them and the close closes it. */
        private final LastUserCloses nowaitUsers = new LastUserCloses();

        Reader(Path path) throws IOException {
            this.path = path;
            this.channel = FileChannel.open(path, StandardOpenOption.READ);
        }

        private int openNowait() {
            synchronized (nowaitLock) {
                if (nowaitFd == NOT_OPENED) {
                    nowaitFd = closed ? -1 : NowaitReads.open(path);
                }
                return nowaitFd;
            }
        }

        @Override
        public boolean readIfCached(ByteBuffer into, long position) {
            int fd = nowaitFd;
            if (fd == NOT_OPENED) {
                if (!NowaitReads.available()) {
                    return false;
                }
                fd = openNowait();
            }
            if (fd < 0 || !nowaitUsers.enter()) {
                return false; // none, or closed
            }
            try {
                return NowaitReads.readIfCached(fd, into, position);
            } finally {
                if (nowaitUsers.exit()) {
                    NowaitReads.close(fd);
                }
            }
        }

        @Override
        public void read(ByteBuffer into, long position) throws IOException {
            long start = position - into.position(); // the file position of the buffer's index 0
            while (into.hasRemaining()) {
                if (withChannel(ch -> ch.read(into, start + into.position())) < 0) {
                    throw new EOFException(path + " ends before " + (start + into.limit()));
                }
            }
        }

        @Override
        public long size() throws IOException {
            return withChannel(FileChannel::size);
        }

        /** One call on the channel, reopening it and retrying when an interrupt closed it. */
        private <T> T withChannel(ChannelCall<T> call) throws IOException {
            boolean interrupted = false;
            try {
                while (true) {
                    FileChannel ch = channel;
                    try {
                        return call.apply(ch);
                    } catch (ClosedChannelException e) { // an interrupt here or in another reader closed it
                        if (closed) {
                            throw e;
                        }
                        interrupted |= Thread.interrupted();
                        reopen(ch);
                    }
                }
            } finally {
                if (interrupted) {
                    Thread.currentThread().interrupt();
                }
            }
        }

        private synchronized void reopen(FileChannel broken) throws IOException {
            if (channel == broken && !closed) {
                channel = FileChannel.open(path, StandardOpenOption.READ);
            }
        }

        @Override
        public synchronized void close() throws IOException {
            closed = true; // before the descriptor is looked at: openNowait opens none after this
            synchronized (nowaitLock) { // an open under way finishes first, and is closed here
                if (nowaitUsers.close() && nowaitFd >= 0) {
                    NowaitReads.close(nowaitFd);
                }
            }
            channel.close();
        }
    }
}
