package io.basalt.engine;

import java.nio.ByteBuffer;
import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * Direct buffers of {@link #BYTES} for SSTable I/O in large calls: a writer's output
 * ({@link SSTableWriter}) and a compaction input's read-ahead ({@link SSTableReader}). Given back
 * when a writer finishes or an input closes, and handed to the next, so that flushes and
 * compactions do not leave direct memory that only a garbage collection frees (a JVM that collects
 * seldom reaches its direct-memory limit, where the JDK forces a full collection). A buffer not
 * given back is only garbage.
 */
final class IoBuffers {

    /**
     * The size of one buffer, so of one write or read-ahead call. Why large: in YCSB's load
     * {@code perf trace} counted 61,000 {@code write} and 26,000 {@code pread} calls in 5 s on the
     * compactor thread when each 8 KiB block was its own call (and its trailer another write).
     */
    static final int BYTES = 256 * 1024;
    /** Spares kept: a flush's writers, and a compaction's inputs (at most {@link Compaction#MAX_INPUTS}) and output. */
    private static final int MAX_SPARES = 32;
    private static final ConcurrentLinkedQueue<ByteBuffer> SPARES = new ConcurrentLinkedQueue<>();

    private IoBuffers() {
    }

    /** A cleared buffer of {@link #BYTES}: a spare, or a new one. */
    static ByteBuffer take() {
        ByteBuffer spare = SPARES.poll();
        return spare != null ? spare.clear() : ByteBuffer.allocateDirect(BYTES);
    }

    /** Gives {@code buffer} back (one from {@link #take}; others are dropped); nothing may use it after. */
    static void give(ByteBuffer buffer) {
        if (buffer != null && buffer.capacity() == BYTES && buffer.isDirect() && SPARES.size() < MAX_SPARES) {
            SPARES.offer(buffer.clear());
        }
    }

    /** Spares waiting (for tests). */
    static int spares() {
        return SPARES.size();
    }
}
