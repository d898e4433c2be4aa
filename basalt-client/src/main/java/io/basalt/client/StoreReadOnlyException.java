package io.basalt.client;

/**
 * The store refuses writes because something went wrong that it cannot repair while open: the
 * write-ahead log failed to write or force, or a flush or compaction kept failing. Reads go on;
 * every write, and every admin operation that writes, fails fast with this error until the store
 * is reopened (after the cause is fixed), which replays the log. Retrying the same request does
 * not help, so clients never retry it.
 */
public final class StoreReadOnlyException extends BasaltException {

    private static final long serialVersionUID = 1L;

    private final String reason;

    /**
     * @param reason why the store went read-only (names the file and the error)
     */
    public StoreReadOnlyException(String reason) {
        super("the store is read-only: " + reason + "; reads go on, writes are refused until the store is"
                + " reopened after the cause is fixed");
        this.reason = reason;
    }

    public StoreReadOnlyException(String reason, Throwable cause) {
        this(reason);
        initCause(cause);
    }

    /** Why the store went read-only. */
    public String reason() {
        return reason;
    }
}
