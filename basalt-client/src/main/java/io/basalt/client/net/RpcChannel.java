package io.basalt.client.net;

import io.basalt.client.BasaltException;
import io.basalt.client.ConnectionClosedException;
import io.basalt.client.OperationTimeoutException;
import io.basalt.client.security.AuthenticationException;
import io.basalt.client.security.Scram;
import io.basalt.protocol.Frame;
import io.basalt.protocol.FrameDecoder;
import io.basalt.protocol.FrameLayout;
import io.basalt.protocol.GroupedWriter;
import io.basalt.protocol.Handshake;
import io.basalt.protocol.MalformedFrameException;
import io.basalt.protocol.Status;
import io.basalt.protocol.Wire;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.util.concurrent.ScheduledFuture;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One connection to a server: requests multiplexed over it by id, responses matched back, and
 * every request still pending failed with an error naming the server when the connection dies.
 *
 * <p>Outgoing frames go through a {@link GroupedWriter}. Responses are decoded, and their futures
 * completed, on the connection's event-loop thread: callbacks attached to them must not block.
 * A sweep on the event loop fails requests whose deadline passed.
 */
final class RpcChannel extends ChannelInboundHandlerAdapter {

    private final Channel channel;
    private final String server;
    private final ClientOptions options;
    private final GroupedWriter writer;
    /** Ids wrap around the ring after this many requests; a request still waiting then overflows. */
    private static final int PENDING_SLOTS = 1 << 14;

    private final PendingRequests<Attempt<?>> pending = new PendingRequests<>(PENDING_SLOTS);
    private final AtomicLong ids = new AtomicLong();
    private final CompletableFuture<RpcChannel> ready = new CompletableFuture<>();
    private final long timeoutNanos;
    private volatile BasaltException closed;
    private ScheduledFuture<?> sweep;

    /** The index, among its client's addresses, of the server this connection goes to. */
    final int node;

    RpcChannel(Channel channel, int node, String server, ClientOptions options) {
        this.channel = channel;
        this.node = node;
        this.server = server;
        this.options = options;
        this.timeoutNanos = options.operationTimeout().toNanos();
        this.writer = new GroupedWriter(channel, options.writeMode(), options.groupingThreshold(),
                options.linger().toNanos());
    }

    /** Completes when the handshake is done; fails when it is refused or the connection fails first. */
    CompletableFuture<RpcChannel> ready() {
        return ready;
    }

    boolean usable() {
        return closed == null && !retiring && channel.isActive();
    }

    /** Set by {@link #retire}: no new requests come, and the connection closes once none is pending. */
    private volatile boolean retiring;
    private volatile String retireReason;

    /**
     * Lets the connection go without failing what is in flight on it: the client sends nothing
     * new here ({@link #usable()} turns false), requests already sent get their answers (or time
     * out), and the sweep closes the connection once none is pending.
     */
    void retire(String reason) {
        retireReason = reason;
        retiring = true;
        channel.eventLoop().execute(this::closeIfDrained);
    }

    private void closeIfDrained() {
        if (retiring && closed == null && pending.size() == 0) {
            close(retireReason);
        }
    }

    /** Runs {@code action} once the connection is closed. */
    void onClosed(Runnable action) {
        channel.closeFuture().addListener(_ -> action.run());
    }

    String server() {
        return server;
    }

    int inFlight() {
        return pending.size();
    }

    /**
     * Sends one attempt of {@code call}; {@code onFailure} sees a connection failure or timeout of
     * this attempt (the caller decides whether to retry), every other outcome completes the call.
     */
    <T> void send(Call<T> call, AttemptFailure onFailure) {
        long id = ids.incrementAndGet();
        pending.put(id, new Attempt<>(call, onFailure, System.nanoTime() + timeoutNanos));
        BasaltException failure = closed;
        if (failure != null) {
            if (pending.remove(id) != null) {
                onFailure.failed(call, failure, false);
            }
            return;
        }
        boolean written;
        try {
            written = writer.write(call.sizeHint, buf -> {
                int start = FrameLayout.begin(buf, id, call.op, Status.OK,
                        call.callId == null ? 0 : FrameLayout.FLAG_CALL);
                if (call.callId != null) {
                    call.callId.write(buf);
                }
                call.body.accept(buf);
                FrameLayout.finish(buf, start);
                int size = buf.writerIndex() - start;
                if (size > options.maxFrameSize()) {
                    throw new IllegalArgumentException(call.what + " is a " + size
                            + "-byte frame, over the largest frame of " + options.maxFrameSize() + " bytes");
                }
            });
        } catch (RuntimeException e) {
            if (pending.remove(id) != null) {
                call.future.completeExceptionally(e);
            }
            return;
        }
        if (!written && pending.remove(id) != null) {
            onFailure.failed(call, closedError("closed"), false);
        }
    }

    /** What to do when an attempt fails because of the connection or a timeout. */
    interface AttemptFailure {
        /** {@code sent}: the request may have reached the server. */
        void failed(Call<?> call, BasaltException failure, boolean sent);
    }

    /** An attempt of a call under one request id, with its deadline. */
    private record Attempt<T>(Call<T> call, AttemptFailure onFailure, long deadline) {}

    // ------------------------------------------------------------------ inbound (event loop)

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
        ByteBuf hello = ctx.alloc().buffer(FrameLayout.HANDSHAKE_SIZE);
        FrameLayout.writeHandshake(hello, FrameLayout.VERSION, 0);
        ctx.writeAndFlush(hello);
        long period = Math.clamp(timeoutNanos / 10, TimeUnit.MILLISECONDS.toNanos(5), TimeUnit.SECONDS.toNanos(1));
        sweep = ctx.executor().scheduleAtFixedRate(this::expire, period, period, TimeUnit.NANOSECONDS);
        ctx.fireChannelActive();
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        switch (msg) {
            case Handshake h -> handshake(ctx, h);
            case Frame f -> {
                try {
                    response(f);
                } finally {
                    f.release();
                }
            }
            case FrameDecoder.TooLargeFrame t -> {
                Attempt<?> a = pending.remove(t.requestId());
                if (a != null) {
                    a.call.future.completeExceptionally(new BasaltException("the response to " + a.call.what + " from "
                            + server + " is " + t.length() + " bytes, over this client's largest frame of "
                            + options.maxFrameSize() + " bytes"));
                }
            }
            default -> throw new IllegalStateException("unexpected message " + msg.getClass());
        }
    }

    /** Whether the server said at the handshake that it is a node of a cluster. */
    boolean clusterNode() {
        return clusterNode;
    }

    private volatile boolean clusterNode;

    private void handshake(ChannelHandlerContext ctx, Handshake h) {
        boolean accepted = h.word() == FrameLayout.HANDSHAKE_ACCEPTED || h.word() == FrameLayout.HANDSHAKE_CLUSTER_NODE;
        if (!accepted || h.version() != FrameLayout.VERSION) {
            BasaltException refused = new ConnectionClosedException(h.word() == FrameLayout.HANDSHAKE_BUSY
                    ? "server " + server + " refused the connection: it has as many connections as it accepts"
                    + " (its maxConnections)"
                    : "server " + server + " refused the handshake: it speaks protocol version " + h.version()
                    + ", this client " + FrameLayout.VERSION);
            ready.completeExceptionally(refused);
            closed = refused;
            ctx.close();
            return;
        }
        clusterNode = h.word() == FrameLayout.HANDSHAKE_CLUSTER_NODE;
        if (options.credentials() == null) {
            ready.complete(this);
        } else {
            authenticate(ctx, options.credentials());
        }
    }

    private static final java.security.SecureRandom RANDOM = new java.security.SecureRandom();

    /**
     * SCRAM-SHA-256 over two {@code AUTHENTICATE} requests; the connection is ready once the
     * server proved it knows the credential too. A failure fails {@link #ready()} with an
     * {@link AuthenticationException} (never retried) and closes the connection.
     */
    private void authenticate(ChannelHandlerContext ctx, ClientOptions.Credentials credentials) {
        char[] password = credentials.password();
        Scram.Client scram;
        try {
            scram = new Scram.Client(credentials.user(), password, RANDOM);
        } finally {
            java.util.Arrays.fill(password, '\0');
        }
        String what = "authentication as '" + credentials.user() + "'";
        authStep(scram.first(), what).thenCompose(serverFirst -> authStep(scram.finish(serverFirst), what))
                .whenComplete((serverFinal, failure) -> {
                    try {
                        if (failure != null) {
                            throw failure instanceof java.util.concurrent.CompletionException c && c.getCause() != null
                                    ? c.getCause() : failure;
                        }
                        scram.verify(serverFinal);
                        ready.complete(this);
                    } catch (Throwable t) {
                        BasaltException e = t instanceof BasaltException b ? b : new AuthenticationException(what + " with "
                                + server + " failed: " + t);
                        if (t instanceof io.basalt.client.ServerException && t.getMessage().contains("UNKNOWN_OP")) {
                            e = new AuthenticationException(what + ": server " + server + " does not support"
                                    + " authentication (it is older than this client); connect without a user");
                        }
                        ready.completeExceptionally(e);
                        closed = e;
                        ctx.close();
                    }
                });
    }

    private CompletableFuture<byte[]> authStep(byte[] message, String what) {
        Call<byte[]> call = new Call<>(io.basalt.protocol.OpCode.AUTHENTICATE, what, 64 + message.length, buf -> {
            Wire.writeString(buf, Scram.MECHANISM);
            Wire.writeBytes(buf, message);
        }, b -> Wire.readBytes(b, "SCRAM message"));
        send(call, (c, failure, sent) -> c.future.completeExceptionally(failure));
        return call.future;
    }

    private void response(Frame f) {
        if (!f.response()) {
            throw new MalformedFrameException("server " + server + " sent a frame without the response flag");
        }
        Attempt<?> attempt = pending.remove(f.requestId());
        if (attempt != null) { // else it timed out already
            complete(attempt, f);
        }
    }

    private <T> void complete(Attempt<T> attempt, Frame f) {
        Call<T> call = attempt.call;
        ByteBuf body = f.body();
        try {
            Status status = f.status();
            if (status == Status.OK) {
                T value = call.decoder.apply(body);
                Wire.end(body, "response to ", call.what);
                call.future.complete(value);
            } else if (status == Status.UNAVAILABLE && (call.callId != null || call.op.resendable())) {
                // An election or a lost leader: safe to send again, the client decides when.
                attempt.onFailure.failed(call, Errors.of(call.what, server, status, f.statusCode(),
                        Messages.readError(body)), true);
            } else {
                call.future.completeExceptionally(Errors.of(call.what, server, status, f.statusCode(),
                        Messages.readError(body)));
            }
        } catch (MalformedFrameException e) {
            call.future.completeExceptionally(new BasaltException("malformed response to " + call.what + " from "
                    + server + ": " + e.getMessage(), e));
        } catch (RuntimeException e) {
            call.future.completeExceptionally(e);
        }
    }

    private void expire() {
        long now = System.nanoTime();
        pending.forEach((id, a) -> {
            if (now - a.deadline > 0 && pending.remove(id, a)) {
                a.onFailure.failed(a.call, new OperationTimeoutException(a.call.what + " to " + server + " timed out after "
                        + options.operationTimeout().toMillis() + " ms (request " + id + ")"), true);
            }
        });
        closeIfDrained();
    }

    @Override
    public void channelWritabilityChanged(ChannelHandlerContext ctx) {
        writer.writabilityChanged();
        ctx.fireChannelWritabilityChanged();
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        closeWith(new ConnectionClosedException(io.basalt.protocol.Tls.isTlsFailure(cause)
                ? "TLS with " + server + " failed: " + io.basalt.protocol.Tls.explain(cause)
                : "connection to " + server + " failed: " + cause.getMessage(), cause));
        ctx.close();
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        closeWith(closedError(ready.isDone() ? "closed" : options.tls() == null
                ? "closed by the server before the handshake finished (a server that serves TLS closes plaintext"
                        + " connections: connect with basalts:// or ClientOptions.tls)"
                : "closed by the server before the handshake finished (it may not trust this client's certificate,"
                        + " or may not serve TLS)"));
        ctx.fireChannelInactive();
    }

    private ConnectionClosedException closedError(String how) {
        return new ConnectionClosedException("connection to " + server + " " + how);
    }

    /** Fails every pending request with {@code cause} and refuses new ones. */
    void closeWith(BasaltException cause) {
        if (closed == null) {
            closed = cause;
        }
        if (sweep != null) {
            sweep.cancel(false);
        }
        writer.close();
        ready.completeExceptionally(closed);
        BasaltException failure = closed;
        pending.forEach((id, a) -> {
            if (pending.remove(id, a)) {
                a.onFailure.failed(a.call, new ConnectionClosedException(failure.getMessage() + " with " + a.call.what
                        + " in flight (request " + id + ")", failure), true);
            }
        });
    }

    /** Closes the connection; pending requests fail with a message naming the server. */
    void close(String reason) {
        closeWith(closedError(reason));
        channel.close();
    }
}
