package io.basalt.client;

/**
 * The connection to a server failed or closed while a request was in flight, or could not be
 * made; the message names the server. The request may or may not have been applied.
 */
public final class ConnectionClosedException extends BasaltException {

    private static final long serialVersionUID = 1L;

    public ConnectionClosedException(String message) {
        super(message);
    }

    public ConnectionClosedException(String message, Throwable cause) {
        super(message, cause);
    }
}
