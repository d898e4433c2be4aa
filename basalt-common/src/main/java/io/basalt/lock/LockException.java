package io.basalt.lock;

/**
 * A lock request that could not be granted: it would break the lock protocol, it waited too
 * long, or its thread was interrupted. The message names the resource asked for and what the
 * thread held.
 */
public abstract sealed class LockException extends RuntimeException
        permits LockOrderException, LockUpgradeException, LockTimeoutException, LockInterruptedException {

    private static final long serialVersionUID = 1L;

    LockException(String message) {
        super(message);
    }
}
