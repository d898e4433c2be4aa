package io.basalt.client;

/**
 * Something the store refused or could not do, with a message that says what and why. Futures of
 * the table API complete exceptionally with this type (or a subclass); blocking calls throw it.
 */
public class BasaltException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    public BasaltException(String message) {
        super(message);
    }

    public BasaltException(String message, Throwable cause) {
        super(message, cause);
    }
}
