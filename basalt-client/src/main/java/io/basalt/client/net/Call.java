package io.basalt.client.net;

import io.basalt.protocol.CallId;
import io.basalt.protocol.OpCode;
import io.netty.buffer.ByteBuf;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * One request: what to send, how to read its response, and the future the caller holds. A call
 * may be sent more than once (retries), each time under a new request id.
 */
final class Call<T> {

    final OpCode op;
    /** For messages: the op and its subject, e.g. {@code GET on table 't'}. */
    final String what;
    final Consumer<ByteBuf> body;
    final Function<ByteBuf, T> decoder;
    /** About the size of the request's frame, so a large one is encoded apart from the group. */
    final int sizeHint;
    final CompletableFuture<T> future = new CompletableFuture<>();
    /**
     * Sent with each attempt when not null: the cluster applies the write once (see {@link CallId}).
     * A write to a client of one address gets it at its first send, once the handshake said whether
     * the server is a cluster node; set on the sending path only, before the frame is encoded.
     */
    volatile CallId callId;
    /** A write: sent with a call id whenever the server is a cluster node. */
    final boolean write;
    /** Attempts made so far; touched by one attempt's failure path at a time. */
    int attempts;
    /** The address index ({@link RpcChannel#node}) the latest attempt went to, or -1 before one was sent. */
    int node = -1;
    /** {@code UNAVAILABLE} answers in a row from the node {@link #unavailableFrom}. */
    int unavailable;
    int unavailableFrom = -1;
    /**
     * The connection slot every attempt goes out on, or -1 for the next in turn. A scanner's
     * requests keep to the connection that opened it: the server serves a scanner only to the
     * connection that owns it.
     */
    int slot = -1;

    Call(OpCode op, String what, int sizeHint, Consumer<ByteBuf> body, Function<ByteBuf, T> decoder) {
        this(op, what, sizeHint, body, decoder, null, false);
    }

    Call(OpCode op, String what, int sizeHint, Consumer<ByteBuf> body, Function<ByteBuf, T> decoder, CallId callId,
         boolean write) {
        this.op = op;
        this.callId = callId;
        this.write = write;
        this.sizeHint = sizeHint;
        this.what = what;
        this.body = body;
        this.decoder = decoder;
    }
}
