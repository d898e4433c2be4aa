package io.basalt.protocol;

/** The outcome a response carries. Anything but {@link #OK} comes with a message body. */
public enum Status {
    OK(0),
    /** The body did not decode: truncated, a bad length, an unknown tag. */
    MALFORMED_REQUEST(1),
    /** The op code is not one this server knows. */
    UNKNOWN_OP(2),
    /** The frame is larger than the server accepts; it was discarded unread. */
    FRAME_TOO_LARGE(3),
    TABLE_NOT_FOUND(4),
    TABLE_EXISTS(5),
    NO_SUCH_FAMILY(6),
    /** The request decoded but asks for something invalid (an empty put, a bad name...). */
    INVALID_ARGUMENT(7),
    /** The scanner id is unknown: it expired, was closed, or never existed. */
    UNKNOWN_SCANNER(8),
    /** The server is shutting down and takes no new requests. */
    SHUTTING_DOWN(9),
    /** The request failed on the server for a reason the message gives. */
    SERVER_ERROR(10),
    /**
     * The store has gone read-only (its log failed, or flushes kept failing) and refuses every
     * write until it is reopened; reads go on. The one argument is the reason. Sending the request
     * again does not help, so clients never do.
     */
    READ_ONLY(11),
    /**
     * A cluster could not serve the request now (no leader for the region, an election running,
     * a leader that did not answer in time). A read, or a write sent with a call id, may be sent
     * again after a pause; clients do.
     */
    UNAVAILABLE(12),
    /** The table is disabled: reads and writes are refused until it is enabled. The one argument is the table. */
    TABLE_DISABLED(13),
    /**
     * The server needs the connection authenticated before this request, or the authentication
     * failed (a wrong password, an unknown user, too many failures from this address). Never retried.
     */
    UNAUTHENTICATED(14),
    /** The user lacks the permission the request needs; the message names it. Never retried. */
    PERMISSION_DENIED(15),
    /**
     * The connection holds as many open scanners as the server allows; the message gives the
     * limit. Closing scanners that are done makes room; sending the open again at once does not.
     */
    TOO_MANY_SCANNERS(16);

    private static final Status[] BY_CODE = new Status[256];

    static {
        for (Status s : values()) {
            BY_CODE[s.code] = s;
        }
    }

    private final int code;

    Status(int code) {
        this.code = code;
    }

    public int code() {
        return code;
    }

    /** The status with this code, or {@code null} when there is none. */
    public static Status of(int code) {
        return code >= 0 && code < BY_CODE.length ? BY_CODE[code] : null;
    }
}
