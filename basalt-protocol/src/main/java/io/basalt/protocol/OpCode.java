package io.basalt.protocol;

/**
 * What a frame asks for. The code is the byte on the wire; {@code idempotent} says whether a
 * client may send the request again after a failure without risk of applying it twice.
 */
public enum OpCode {
    PING(1, true),
    CREATE_TABLE(10, false),
    LIST_TABLES(11, true),
    DESCRIBE_TABLE(12, true),
    DROP_TABLE(13, false),
    FLUSH(14, true),
    COMPACT(15, true),
    PUT(20, false),
    GET(21, true),
    DELETE(22, false),
    BATCH(23, false),
    CHECK_AND_MUTATE(24, false),
    INCREMENT(25, false),
    SCAN_OPEN(30, true),
    SCAN_NEXT(31, false),
    SCAN_CLOSE(32, true);

    private static final OpCode[] BY_CODE = new OpCode[256];

    static {
        for (OpCode op : values()) {
            BY_CODE[op.code] = op;
        }
    }

    private final int code;
    private final boolean idempotent;

    OpCode(int code, boolean idempotent) {
        this.code = code;
        this.idempotent = idempotent;
    }

    public int code() {
        return code;
    }

    public boolean idempotent() {
        return idempotent;
    }

    /** The op with this code, or {@code null} when there is none. */
    public static OpCode of(int code) {
        return code >= 0 && code < BY_CODE.length ? BY_CODE[code] : null;
    }
}
