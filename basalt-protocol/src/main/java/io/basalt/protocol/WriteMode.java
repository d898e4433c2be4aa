package io.basalt.protocol;

/** How a channel's outgoing frames reach the socket. */
public enum WriteMode {
    /**
     * Small frames accumulate in one buffer per channel and go out together: one event-loop task
     * and one flush per batch (see {@link GroupedWriter}). The default.
     */
    GROUPED,
    /** Every frame is written and flushed on its own: the lowest latency when requests are rare. */
    FLUSH_EACH
}
