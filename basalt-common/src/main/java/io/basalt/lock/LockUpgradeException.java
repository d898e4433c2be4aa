package io.basalt.lock;

/**
 * A thread asked for a write lock on a stripe it holds for reading. Upgrading would deadlock as
 * soon as two readers of the stripe tried it, so it fails at once: release the read lock first,
 * or take the write lock from the start.
 */
public final class LockUpgradeException extends LockException {

    private static final long serialVersionUID = 1L;

    LockUpgradeException(String message) {
        super(message);
    }
}
