package io.basalt.buffer;

import java.util.List;

/**
 * A pooled buffer the leak detector follows and that was not released yet (see
 * {@link BufferPool#unreleasedBuffers()}).
 *
 * @param pool the name of the pool it came from
 * @param size the bytes requested
 * @param sequence the detector's number for it, unique in the JVM, increasing with allocation time
 * @param thread the name of the allocating thread
 * @param unreachable true once the garbage collector found it unreachable: a confirmed leak, which
 *     was reported and whose chunks never return to the pool
 * @param allocationSite the stack of the allocating call, innermost frame (the caller of
 *     {@link BufferPool#allocate}) first
 */
public record UnreleasedBuffer(String pool, int size, long sequence, String thread, boolean unreachable,
                               List<StackTraceElement> allocationSite) {

    public UnreleasedBuffer {
        allocationSite = List.copyOf(allocationSite);
    }

    /** What a person needs to find the missing release: the buffer, and where it was allocated. */
    @Override
    public String toString() {
        return "buffer #" + sequence + " of " + size + " bytes from pool '" + pool + "', allocated by thread '" + thread
                + "'" + (unreachable ? ", leaked (unreachable, never released)" : ", never released") + "; allocated at:"
                + LeakDetector.render(allocationSite.toArray(StackTraceElement[]::new));
    }
}
