package io.basalt.engine;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.foreign.SymbolLookup;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.Locale;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads that never wait for a device: Linux's {@code preadv2} with {@code RWF_NOWAIT}, which
 * copies from the page cache when every page asked for is there and fails with {@code EAGAIN}
 * (or returns short) rather than start I/O when one is not. A server's event loop reads a block
 * this way when its block cache misses, and hands the get to a worker only when the OS does not
 * have the block in memory either.
 *
 * <p><b>Why.</b> With a data set larger than the block cache but held by the OS (YCSB's read-only
 * workload on the server: a fifth of the blocks from the cache, nearly all the rest from the page
 * cache), every block-cache miss went to a worker: a thread wake-up there, the read tried a second
 * time from the start, and the answer handed back to the event loop, another wake-up. Allowing the
 * event loop reads from the page cache raised that workload by half in a trial.
 *
 * <p>Everything here is an attempt: a read that cannot be made this way returns "not read", and
 * the caller reads the ordinary way, which reports the errors. Where the system has no
 * {@code preadv2} (not Linux, an old C library) or refuses the flag (a kernel or a file system
 * without it, or a sandbox that forbids the call), {@link #available()} turns false for the whole
 * process and the ordinary way is all there is. A file read this way is opened a second time,
 * with a descriptor of its own beside its {@code FileChannel} (the JDK gives no access to a
 * channel's descriptor), and with {@code O_NOATIME} where the process may: a read ends by
 * updating the file's access time when that is older than its change time (relatime), which can
 * wait on the file system's journal, and the first read of every new SSTable would.
 */
final class NowaitReads {

    private static final Logger LOG = LoggerFactory.getLogger(NowaitReads.class);

    private static final int O_RDONLY = 0;
    private static final int O_CLOEXEC = 0x80000; // Linux, x86-64 and aarch64
    private static final int O_NOATIME = 0x40000; // the same on both
    private static final int EPERM = 1;
    private static final int RWF_NOWAIT = 0x8;
    private static final int EINVAL = 22;
    private static final int ENOSYS = 38;
    private static final int EOPNOTSUPP = 95;
    private static final int POSIX_FADV_DONTNEED = 4;

    private static final MethodHandle OPEN;
    private static final MethodHandle CLOSE;
    private static final MethodHandle PREADV2;
    private static final MethodHandle FADVISE;
    private static final StructLayout CALL_STATE;
    private static final VarHandle ERRNO;
    /** {@code struct iovec}: a base address and a length. */
    private static final long IOVEC_SIZE = 16;
    /** Each thread's iovec and errno slot, made once: the calls allocate nothing. */
    private static final ThreadLocal<MemorySegment> SCRATCH;

    private static volatile boolean available;

    static {
        Natives natives = link();
        OPEN = natives == null ? null : natives.open;
        CLOSE = natives == null ? null : natives.close;
        PREADV2 = natives == null ? null : natives.preadv2;
        FADVISE = natives == null ? null : natives.fadvise;
        CALL_STATE = Linker.Option.captureStateLayout();
        ERRNO = CALL_STATE.varHandle(MemoryLayout.PathElement.groupElement("errno"));
        SCRATCH = ThreadLocal.withInitial(() -> Arena.ofAuto().allocate(IOVEC_SIZE + CALL_STATE.byteSize(), 8));
        available = natives != null;
    }

    private record Natives(MethodHandle open, MethodHandle close, MethodHandle preadv2, MethodHandle fadvise) {}

    /** The C library's calls, or null where they are not to be had (or reads that do not wait are turned off). */
    @SuppressWarnings("restricted") // native calls: the launcher and the tests enable native access
    private static Natives link() {
        String os = System.getProperty("os.name", "").toLowerCase(Locale.ROOT);
        String arch = System.getProperty("os.arch", "");
        if ("false".equals(System.getProperty("basalt.nowaitReads")) || !os.contains("linux")
                || !(arch.equals("amd64") || arch.equals("x86_64") || arch.equals("aarch64"))) {
            return null;
        }
        try {
            Linker linker = Linker.nativeLinker();
            SymbolLookup libc = linker.defaultLookup();
            return new Natives(
                    linker.downcallHandle(libc.find("open").orElseThrow(), FunctionDescriptor.of(ValueLayout.JAVA_INT,
                            ValueLayout.ADDRESS, ValueLayout.JAVA_INT, ValueLayout.JAVA_INT),
                            Linker.Option.firstVariadicArg(2)),
                    linker.downcallHandle(libc.find("close").orElseThrow(),
                            FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT)),
                    linker.downcallHandle(libc.find("preadv2").orElseThrow(), FunctionDescriptor.of(ValueLayout.JAVA_LONG,
                            ValueLayout.JAVA_INT, ValueLayout.ADDRESS, ValueLayout.JAVA_INT, ValueLayout.JAVA_LONG,
                            ValueLayout.JAVA_INT), Linker.Option.captureCallState("errno")),
                    linker.downcallHandle(libc.find("posix_fadvise").orElseThrow(), FunctionDescriptor.of(
                            ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG,
                            ValueLayout.JAVA_INT)));
        } catch (RuntimeException | LinkageError e) {
            LOG.info("Reads that do not wait for the disk are unavailable ({}); a server's event loop hands every"
                    + " block-cache miss to a worker", e.toString());
            return null;
        }
    }

    private NowaitReads() {}

    /** Whether reads that do not wait can be made here (false once the system refused one). */
    static boolean available() {
        return available;
    }

    /** Opens {@code path} for reading; its descriptor, or -1 when it could not (the caller reads the ordinary way). */
    static int open(Path path) {
        if (!available) {
            return -1;
        }
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment name = arena.allocateFrom(path.toString());
            int fd = (int) OPEN.invokeExact(name, O_RDONLY | O_CLOEXEC | O_NOATIME, 0);
            if (fd < 0) { // O_NOATIME is refused (EPERM) on a file another user owns: without it, then
                fd = (int) OPEN.invokeExact(name, O_RDONLY | O_CLOEXEC, 0);
            }
            return fd;
        } catch (Throwable t) {
            return -1;
        }
    }

    /** Closes a descriptor {@link #open} returned. */
    static void close(int fd) {
        if (fd >= 0) {
            try {
                int ignored = (int) CLOSE.invokeExact(fd);
            } catch (Throwable t) {
                // nothing to do: the descriptor is gone or never was
            }
        }
    }

    /**
     * Fills {@code into} (a direct buffer) from its position to its limit with the bytes of
     * {@code fd} from {@code position}, if the OS has them all in memory; returns true and moves
     * the buffer's position to its limit then. Returns false, with the buffer's position where it
     * was and its contents undefined, when any of them would have to be read from the device, the
     * file ends first, or the read fails: the caller reads the ordinary way.
     */
    static boolean readIfCached(int fd, ByteBuffer into, long position) {
        int length = into.remaining();
        if (!available || fd < 0 || !into.isDirect() || length == 0) {
            return false;
        }
        MemorySegment scratch = SCRATCH.get();
        MemorySegment target = MemorySegment.ofBuffer(into); // spans position..limit
        scratch.set(ValueLayout.JAVA_LONG, 0, target.address());
        scratch.set(ValueLayout.JAVA_LONG, 8, length);
        MemorySegment state = scratch.asSlice(IOVEC_SIZE, CALL_STATE.byteSize());
        long read;
        try {
            read = (long) PREADV2.invokeExact(state, fd, scratch, 1, position, RWF_NOWAIT);
        } catch (Throwable t) {
            return false;
        } finally {
            java.lang.ref.Reference.reachabilityFence(into); // the call had only its address
        }
        if (read == length) {
            into.position(into.limit());
            return true;
        }
        if (read < 0) {
            int errno = (int) ERRNO.get(state, 0L);
            // EAGAIN: not all in memory. EOPNOTSUPP, EINVAL, ENOSYS, EPERM: this kernel, file
            // system or sandbox takes no RWF_NOWAIT, so stop trying (a refused attempt costs a
            // system call on every miss). Anything else (EIO, say) is the ordinary read's to report.
            if ((errno == EOPNOTSUPP || errno == EINVAL || errno == ENOSYS || errno == EPERM) && available) {
                available = false;
                LOG.info("Reads that do not wait for the disk were refused (errno {}); a server's event loop now"
                        + " hands every block-cache miss to a worker", errno);
            }
        }
        return false;
    }

    /**
     * Asks the OS to drop the file's clean pages from its cache ({@code posix_fadvise}
     * {@code DONTNEED}), so that tests can make a block "on disk only". True when it was asked.
     */
    static boolean dropCached(Path path) {
        int fd = open(path);
        if (fd < 0) {
            return false;
        }
        try {
            return (int) FADVISE.invokeExact(fd, 0L, 0L, POSIX_FADV_DONTNEED) == 0;
        } catch (Throwable t) {
            return false;
        } finally {
            close(fd);
        }
    }
}
