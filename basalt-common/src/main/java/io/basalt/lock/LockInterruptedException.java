package io.basalt.lock;

/**
 * The thread was interrupted while it waited for a lock; the request holds nothing and the
 * thread's interrupt status is set again, so code further up still sees the interruption.
 */
public final class LockInterruptedException extends LockException {

    private static final long serialVersionUID = 1L;

    LockInterruptedException(String message, InterruptedException cause) {
        super(message);
        initCause(cause);
    }
}
