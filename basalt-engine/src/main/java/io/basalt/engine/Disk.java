package io.basalt.engine;

import java.io.Closeable;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;

/**
 * Every file operation the engine makes that changes the disk or reads an SSTable: the one seam
 * through which the write-ahead log, the manifest, SSTable writers and readers, and directory
 * syncs reach the file system. {@link LocalDisk} is the real one; tests wrap it to fail the Nth
 * write, short-write, fail a force, report ENOSPC, or drop everything not yet forced as a power
 * loss would (RocksDB's {@code FaultInjectionTestFS} and LevelDB's fault-injection test play the
 * same part).
 *
 * <p>Why a seam of our own rather than a {@code java.nio.file.FileSystem}: the engine needs to say
 * <em>why</em> it writes (a fault test counts and aims at "the WAL's force" or "a compaction's
 * write", not at a path pattern), and it needs fewer than a tenth of a file system's operations.
 */
interface Disk {

    /** Why a file is written: the places a fault can hit, as tests count and aim at them. */
    enum Purpose {
        /** Write-ahead log segments. */
        WAL,
        /** The manifest and its snapshots. */
        MANIFEST,
        /** SSTables written by a flush. */
        FLUSH,
        /** SSTables written by a compaction. */
        COMPACTION
    }

    /** A file being written, front to back. Not thread-safe: one owner writes it. */
    interface WritableFile extends Closeable {
        /** Writes all of {@code bytes} at the end of the file. */
        void write(ByteBuffer bytes) throws IOException;

        /** Forces what was written to the device (data only, as {@code fdatasync}). */
        void force() throws IOException;

        /** Cuts the file to {@code size} bytes (at most its size) and forces the cut; writes go on from there. */
        void truncate(long size) throws IOException;

        /** Bytes in the file. */
        long size();

        Path path();
    }

    /** A file read at positions, by any number of threads at once. */
    interface ReadableFile extends Closeable {
        /** Fills {@code into} from {@code position}; fails when the file ends first. */
        void read(ByteBuffer into, long position) throws IOException;

        /**
         * Fills {@code into} from {@code position} as {@link #read} does, but only if that needs
         * no wait for the device (all of it is in the OS's memory); false otherwise, having
         * filled nothing the caller may use. Never reports an I/O error: the caller reads the
         * ordinary way, which does. A disk that cannot tell says false.
         */
        default boolean readIfCached(ByteBuffer into, long position) {
            return false;
        }

        long size() throws IOException;
    }

    /** Creates a new file (failing if it exists) for writing. */
    WritableFile create(Path path, Purpose purpose) throws IOException;

    /** Opens an existing file for writing at its end. */
    WritableFile append(Path path, Purpose purpose) throws IOException;

    /**
     * Opens an existing file for writing over it from its start, keeping its bytes until they are
     * written over: the log's recycled segments. {@link WritableFile#size} then counts the bytes
     * written so far, not the file's length, and {@link WritableFile#truncate} cuts the file,
     * stale bytes and all, to at most that.
     */
    WritableFile reuse(Path path, Purpose purpose) throws IOException;

    /** Opens a file for reading. */
    ReadableFile open(Path path) throws IOException;

    /** Forces a directory's entries (creations, renames, deletions in it) to disk. */
    void syncDirectory(Path directory) throws IOException;

    /**
     * Creates {@code directory} and any missing parent, then forces the parent of every level
     * from {@code directory} up to {@code within}, so that none of them vanishes in a power loss
     * with the files later made in it. Every level, not only the ones created now: a level made
     * by an earlier call whose force failed exists but may not be durable.
     */
    void createDirectories(Path directory, Path within) throws IOException;

    /** Renames {@code from} over {@code to} atomically; the caller syncs the directory. */
    void replace(Path from, Path to) throws IOException;

    /** Deletes a file if it exists. */
    void delete(Path path) throws IOException;

    /**
     * Makes {@code link} a new name (a hard link) of the existing file {@code existing}, on the
     * same file system; the caller syncs {@code link}'s directory.
     */
    void link(Path existing, Path link) throws IOException;
}
