package io.basalt.engine;

import java.util.concurrent.atomic.AtomicInteger;

/**
 * The bookkeeping of a resource that any number of threads use at once and one thread closes:
 * no use begins once it is closed, and whichever finishes last, the close or the uses under way
 * when it came, releases the resource, once. {@link LocalDisk}'s readers use it for the file
 * descriptor of their reads that do not wait, which must not be closed while a read is in it: the
 * system may give the number to another file the moment it is, and the read would read that file.
 *
 * <p>One int: the uses under way, plus {@code Integer.MIN_VALUE} once closed.
 */
final class LastUserCloses {

    private static final int CLOSED = Integer.MIN_VALUE;

    private final AtomicInteger state = new AtomicInteger();

    /** Begins a use; false, beginning none, once closed. */
    boolean enter() {
        while (true) {
            int s = state.get();
            if (s < 0) {
                return false;
            }
            if (state.compareAndSet(s, s + 1)) {
                return true;
            }
        }
    }

    /** Ends a use {@link #enter} began; true when the caller must now release the resource. */
    boolean exit() {
        return state.decrementAndGet() == CLOSED;
    }

    /**
     * Closes: no use begins after it. True when the caller must release the resource now (no use
     * was under way); false when the last use will, or when it was closed before.
     */
    boolean close() {
        while (true) {
            int s = state.get();
            if (s < 0) {
                return false;
            }
            if (state.compareAndSet(s, s + CLOSED)) {
                return s == 0;
            }
        }
    }
}
