package io.basalt.client.spi;

import java.util.function.Supplier;

/**
 * Reads tried on a thread that must not wait: a server's event loop answers a get itself when
 * everything the get needs is in memory, and hands it to a worker only when it is not (RocksDB's
 * {@code kBlockCacheTier} reads, for the same reason).
 *
 * <p><b>Why.</b> A get handed from the event loop to a worker and its answer handed back cost
 * two thread wake-ups, about ten microseconds each on the machines Basalt is measured on, for a
 * read that takes as long again from the block cache. Answering on the event loop where it can
 * raised the server's YCSB workload C at eight client threads by about a third (see
 * docs/benchmarks.md, {@code ycsb}, seventh session).
 *
 * <p><b>The contract.</b> {@link #attempt} runs a read with this thread marked; a store that
 * implements {@link Capable} then waits for nothing but the short locks of its own structures.
 * It may read a block from a file only by a read that cannot wait for the device (the embedded
 * store: Linux's {@code preadv2} with {@code RWF_NOWAIT}, which copies what the OS holds in memory
 * and refuses otherwise). Where it would have to wait for the disk, or after it read {@code blocks}
 * blocks (which bounds how long one attempt holds the event loop, however wide the row), it calls
 * {@link #beforeBlock} or {@link #beforeDiskRead}, which throw {@link WouldWait} before the store
 * takes anything that would need releasing. The caller then runs the read again where waiting
 * is allowed. Marks do not nest.
 */
public final class MemoryOnlyReads {

    private MemoryOnlyReads() {}

    /** A store whose reads keep {@link MemoryOnlyReads}' contract. */
    public interface Capable {}

    /**
     * The read would have waited for the disk, or read more blocks than the attempt allows. One
     * instance, without a stack trace: it is control flow, thrown on every attempt that misses.
     */
    public static final class WouldWait extends RuntimeException {
        private static final long serialVersionUID = 1L;

        private WouldWait() {
            super("the read needs the disk or more blocks than a memory-only attempt may read", null, false, false);
        }
    }

    /** The one {@link WouldWait}. */
    public static final WouldWait WOULD_WAIT = new WouldWait();

    /** The running attempt's blocks left; one per thread, reused. */
    private static final class Attempt {
        int blocksLeft = -1;
    }

    private static final ThreadLocal<Attempt> CURRENT = ThreadLocal.withInitial(Attempt::new);

    /**
     * Runs {@code read} with this thread marked, allowing it {@code blocks} block reads from the
     * cache and none from disk.
     *
     * @throws WouldWait when the read needed more
     * @throws IllegalStateException when an attempt is already running on this thread
     */
    public static <T> T attempt(int blocks, Supplier<T> read) {
        if (blocks < 0) {
            throw new IllegalArgumentException("an attempt may read " + blocks + " blocks: not a count");
        }
        Attempt a = CURRENT.get();
        if (a.blocksLeft >= 0) {
            throw new IllegalStateException("a memory-only read is already running on this thread");
        }
        a.blocksLeft = blocks;
        try {
            return read.get();
        } finally {
            a.blocksLeft = -1;
        }
    }

    /** Whether this thread is in an {@link #attempt}. */
    public static boolean active() {
        return CURRENT.get().blocksLeft >= 0;
    }

    /**
     * Called by a store before it reads a block, from its cache or not.
     *
     * @throws WouldWait when this thread's attempt has read all the blocks it may
     */
    public static void beforeBlock() {
        Attempt a = CURRENT.get();
        if (a.blocksLeft == 0) {
            throw WOULD_WAIT;
        }
        if (a.blocksLeft > 0) {
            a.blocksLeft--;
        }
    }

    /**
     * Called by a store before it reads from disk.
     *
     * @throws WouldWait when this thread is in an attempt
     */
    public static void beforeDiskRead() {
        if (CURRENT.get().blocksLeft >= 0) {
            throw WOULD_WAIT;
        }
    }
}
