package io.basalt.server;

import io.basalt.protocol.CallId;
import io.basalt.protocol.OpCode;
import io.netty.buffer.ByteBuf;

/**
 * What the server does with a request. The server has checked the frame (checksum, size, flags,
 * a known op); the handler decodes the body and answers through {@code connection} exactly once
 * per request, from any thread.
 */
public interface RequestHandler extends AutoCloseable {

    /**
     * Handles one request, on the connection's event-loop thread: decode here (the body is valid
     * only until this returns), and hand anything that may block to another thread.
     */
    void handle(ServerConnection connection, long requestId, OpCode op, ByteBuf body);

    /**
     * Handles a request that carried a {@link CallId} (already read off the body): a write the
     * client may send again after a lost answer, to be applied once. A handler over a store that
     * cannot tell calls apart handles it as any request (the client resends such writes only to a
     * cluster, whose nodes can).
     */
    default void handle(ServerConnection connection, long requestId, OpCode op, CallId call, ByteBuf body) {
        handle(connection, requestId, op, body);
    }

    /** Scanners open now, for the metrics. */
    default int openScanners() {
        return 0;
    }

    /** The store's metrics now, or {@code null} when the handler has no embedded store to ask. */
    default io.basalt.engine.StoreMetrics storeMetrics() {
        return null;
    }

    /**
     * The users and grants requests are checked against, or {@code null} when the server does
     * not authenticate (auth=none): then every client may do everything.
     */
    default io.basalt.client.security.AccessControl access() {
        return null;
    }

    /**
     * The cluster this handler's node belongs to (its nodes and regions with their leaders and
     * replicas), for the status page; {@code null} for a server of its own.
     */
    default io.basalt.client.ClusterInfo clusterInfo() {
        return null;
    }

    /** The connection closed: release what it held (scanners...). */
    default void closed(ServerConnection connection) {}

    /**
     * Whether writes sent with a call id apply once however often they are sent (a cluster node):
     * said to each client at its handshake, so a client of one address resends them too.
     */
    default boolean appliesCallsOnce() {
        return false;
    }

    /**
     * Called once when the server stops, after every request finished or the shutdown grace ran
     * out. What still runs then is abandoned: this must not wait for it without bound.
     */
    @Override
    default void close() {}
}
