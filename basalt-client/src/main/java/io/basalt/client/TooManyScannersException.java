package io.basalt.client;

/**
 * The server refused to open a scanner: this client's connection already holds as many open
 * scanners as the server allows ({@code maxScannersPerConnection}). Scanners that were read to
 * their end close by themselves; others hold their server scanner until {@link ResultScanner#close()}
 * or the server's scanner lease. Close the ones that are done, or raise the server's limit.
 */
public final class TooManyScannersException extends BasaltException {

    private static final long serialVersionUID = 1L;

    public TooManyScannersException(String message) {
        super(message);
    }
}
