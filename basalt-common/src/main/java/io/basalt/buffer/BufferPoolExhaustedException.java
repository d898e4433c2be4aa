package io.basalt.buffer;

/**
 * Thrown by {@link BufferPool#allocate} when every chunk is in use, the pool already holds its
 * configured maximum, and the request may not fall back to the heap. The message says how much was
 * asked, how much is in use, and which setting to change.
 */
public final class BufferPoolExhaustedException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    BufferPoolExhaustedException(String message) {
        super(message);
    }
}
