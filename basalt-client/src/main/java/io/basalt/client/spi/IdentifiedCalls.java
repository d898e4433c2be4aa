package io.basalt.client.spi;

import io.basalt.client.AsyncTable;
import io.basalt.protocol.CallId;

/**
 * A store that applies a write once however often it is sent, when the write carries the same
 * {@link CallId} each time: a cluster, whose nodes keep the outcomes of recent calls. The network
 * server hands a request that came with a call id to {@link #table}.
 */
public interface IdentifiedCalls {

    /** {@code name} for one call: its writes are applied once as {@code call}. */
    AsyncTable table(String name, CallId call);
}
