package io.basalt.lock;

/**
 * One acquisition of one or more stripes, released by {@link #close()}; meant for
 * try-with-resources.
 *
 * <p>A handle belongs to the thread that took it: only that thread may close it, and it closes it
 * once. Handles are recycled by the lock manager (taking a lock allocates nothing), so a handle
 * must not be used after it is closed, like a closed stream.
 */
public interface LockHandle extends AutoCloseable {

    /** Releases this acquisition. */
    @Override
    void close();
}
