package io.basalt.client;

/**
 * The server no longer knows a scanner: it was idle longer than the server's scanner lease, or
 * the server restarted. A scanner resumes by itself after the last whole row it returned; this
 * is raised when it cannot (the last result was part of a row).
 */
public final class ScannerExpiredException extends BasaltException {

    private static final long serialVersionUID = 1L;

    public ScannerExpiredException(String message) {
        super(message);
    }
}
