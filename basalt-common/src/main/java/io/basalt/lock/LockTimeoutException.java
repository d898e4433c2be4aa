package io.basalt.lock;

import java.time.Duration;

/** A lock request waited for its whole time limit without being granted; it holds nothing. */
public final class LockTimeoutException extends LockException {

    private static final long serialVersionUID = 1L;

    private final Duration waited;

    LockTimeoutException(String message, Duration waited) {
        super(message);
        this.waited = waited;
    }

    /** How long the request waited before giving up. */
    public Duration waited() {
        return waited;
    }
}
