package io.basalt.protocol;

/**
 * What a frame asks for. The code is the byte on the wire; {@code resendable} says whether a
 * client may send the request again after it may have reached the server (a timeout, a
 * connection lost with it in flight).
 *
 * <p>Only reads whose repetition costs the server no more than the first try are: a second
 * {@code FLUSH} or {@code COMPACT} queues another round of heavy work behind the first, which is
 * most likely still running (that is why it timed out), and a second {@code SCAN_OPEN} opens
 * another scanner while the first holds its snapshot and files until its lease expires. A
 * {@code SCAN_NEXT} sent again is refused by the scanner (its batch number was asked for), and
 * one on a new connection finds no scanner: the client's scanner resumes instead.
 */
public enum OpCode {
    PING(1, true),
    CREATE_TABLE(10, false),
    LIST_TABLES(11, true),
    DESCRIBE_TABLE(12, true),
    DROP_TABLE(13, false),
    FLUSH(14, false),
    COMPACT(15, false),
    LIST_REGIONS(16, true),
    LOCATE_REGION(17, true),
    SPLIT(18, false),
    MERGE_REGIONS(19, false),
    PUT(20, false),
    GET(21, true),
    DELETE(22, false),
    BATCH(23, false),
    CHECK_AND_MUTATE(24, false),
    INCREMENT(25, false),
    APPEND(26, false),
    SCAN_OPEN(30, false),
    SCAN_NEXT(31, false),
    SCAN_CLOSE(32, true),
    TRUNCATE_TABLE(40, false),
    /** A table's new column families (alter). */
    MODIFY_TABLE(42, false),
    /** Disables (true) or enables (false) a table. */
    SET_TABLE_DISABLED(43, true),
    /** Whether a table is disabled. */
    IS_TABLE_DISABLED(44, true),
    /** A cluster's nodes and regions with their leaders (issue 19); a single server answers INVALID_ARGUMENT. */
    CLUSTER_STATUS(41, true),
    /** One store's memory, files, background work and regions with request counts (the shell's status); a cluster node's: the replicas it holds. */
    SERVER_STATUS(45, true),
    /**
     * One step of SASL SCRAM-SHA-256 (issue 23): the mechanism's name and the client's message;
     * answered with the server's. Two steps authenticate the connection.
     */
    AUTHENTICATE(50, false),
    /** Adds a user: its name and credential (made by the client, so no password travels). */
    USER_ADD(51, false),
    USER_REMOVE(52, false),
    /** Sets a user's credential. */
    USER_PASSWORD(53, false),
    USER_LIST(54, true),
    GRANT(55, false),
    REVOKE(56, false),
    /** The grants of a user (or everyone) touching a table (or every table). */
    USER_PERMISSIONS(57, true);

    private static final OpCode[] BY_CODE = new OpCode[256];

    static {
        for (OpCode op : values()) {
            BY_CODE[op.code] = op;
        }
    }

    private final int code;
    private final boolean resendable;

    OpCode(int code, boolean resendable) {
        this.code = code;
        this.resendable = resendable;
    }

    public int code() {
        return code;
    }

    public boolean resendable() {
        return resendable;
    }

    /** The op with this code, or {@code null} when there is none. */
    public static OpCode of(int code) {
        return code >= 0 && code < BY_CODE.length ? BY_CODE[code] : null;
    }
}
