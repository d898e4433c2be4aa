package io.basalt.protocol;

/** A frame or body that does not follow the protocol; the message says what and where. */
public class MalformedFrameException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    public MalformedFrameException(String message) {
        super(message);
    }

    public MalformedFrameException(String message, Throwable cause) {
        super(message, cause);
    }
}
