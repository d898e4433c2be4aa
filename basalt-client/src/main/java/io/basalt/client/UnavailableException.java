package io.basalt.client;

/**
 * The cluster could not serve the request just now: the region's group has no leader (an
 * election is running), the node asked does not lead it, or the leader did not answer in time.
 * Nothing is known to have been applied; the same request may succeed a moment later. The
 * network client sends it again by itself when that is safe: reads, and writes it sent with a
 * call id (to a cluster).
 */
public class UnavailableException extends BasaltException {

    private static final long serialVersionUID = 1L;

    public UnavailableException(String message) {
        super(message);
    }

    public UnavailableException(String message, Throwable cause) {
        super(message, cause);
    }
}
