package io.basalt.lock;

/**
 * A thread asked for a lock of a level while holding a lock of a higher rank (for instance a
 * table lock while holding a row lock). Levels are taken in ascending rank so that no two
 * threads can wait for each other across levels; the request fails at once instead of risking a
 * deadlock.
 */
public final class LockOrderException extends LockException {

    private static final long serialVersionUID = 1L;

    LockOrderException(String message) {
        super(message);
    }
}
