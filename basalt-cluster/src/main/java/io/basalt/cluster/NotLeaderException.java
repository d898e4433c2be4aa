package io.basalt.cluster;

import io.basalt.client.UnavailableException;

/**
 * The node asked does not lead the region's Raft group (or its leadership is not ready yet): send
 * the request to {@link #leaderHint()} when known, else ask again after a moment. Nothing was
 * applied for this request by this node.
 */
public final class NotLeaderException extends UnavailableException {

    private static final long serialVersionUID = 1L;

    private final String leaderHint;

    public NotLeaderException(String message, String leaderHint) {
        super(message);
        this.leaderHint = leaderHint;
    }

    /** The peer id the node believes leads, or {@code null} when it knows none. */
    public String leaderHint() {
        return leaderHint;
    }
}
