package io.basalt.cell;

/**
 * Bytes that claim to be an encoded cell are not one: truncated, a length out of range, an
 * unknown type. The message names the field and the offset; the offset is relative to the start
 * of the buffer that was being read, so a caller can report file and position.
 */
public final class MalformedCellException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final long offset;
    private final String problem;

    public MalformedCellException(long offset, String problem) {
        super("malformed cell at offset " + offset + ": " + problem);
        this.offset = offset;
        this.problem = problem;
    }

    /** Where the malformed cell starts in the buffer it was read from. */
    public long offset() {
        return offset;
    }

    /** What is wrong, without the offset. */
    public String problem() {
        return problem;
    }
}
