package io.basalt.client;

/** A request got no response in time; the message names the operation, the server and the wait. */
public final class OperationTimeoutException extends BasaltException {

    private static final long serialVersionUID = 1L;

    public OperationTimeoutException(String message) {
        super(message);
    }
}
