package io.basalt.server;

/** A request named a scanner the server does not hold: expired, closed, or never opened. */
final class UnknownScannerException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    UnknownScannerException(String message) {
        super(message);
    }
}
