package io.basalt.client.net;

import io.basalt.client.BasaltException;
import io.basalt.client.ConnectionClosedException;
import io.basalt.client.OperationTimeoutException;
import io.basalt.protocol.CallId;
import io.basalt.protocol.FrameDecoder;
import io.basalt.protocol.OpCode;
import io.basalt.protocol.Transport;
import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.socket.SocketChannel;
import io.netty.handler.flush.FlushConsolidationHandler;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * Sends requests to one server over a few connections ({@link ClientOptions#connections()}),
 * connecting on first use and again after a connection died. Given several addresses (the nodes
 * of a cluster), it talks to one at a time and moves to the next when it cannot connect, when a
 * connection dies, when a request times out, or when a node answers one request
 * {@code UNAVAILABLE} twice in a row (a node cut off from the rest of its cluster keeps answering so).
 *
 * <p>Call ids: to a cluster (several addresses), every write is sent with a {@link CallId}; the
 * cluster applies it once however often it arrives, so such a write is sent again after a lost
 * connection or an {@code UNAVAILABLE} answer (an election), to whichever node answers. Retries
 * of a cluster's requests are spread over at least {@link #CLUSTER_RETRIES} attempts, the pause
 * doubling up to one second, to outlast an election.
 *
 * <p>Retries: a request that was never sent (the connection could not be made, or died before the
 * request was written) is sent again, whatever its op; a request that may have reached the server
 * is sent again only when its op may be ({@link OpCode#resendable()}: reads, not {@code FLUSH},
 * {@code COMPACT} or {@code SCAN_OPEN}). An error response is never retried: the server answered,
 * and a {@code READ_ONLY} store or a missing table answers the same way the next time. Each retry waits
 * {@code retryBackoff} doubled per attempt. When the retries are spent the request fails with the
 * last error, which names the server.
 */
public final class RpcClient implements AutoCloseable {

    /** The fewest attempts a cluster's request gets: together some 10 s, more than an election. */
    static final int CLUSTER_RETRIES = 14;
    /** {@code UNAVAILABLE} answers in a row to one request from one node before the client tries another. */
    static final int UNAVAILABLE_BEFORE_MOVING_ON = 2;
    private static final long MAX_BACKOFF_NANOS = TimeUnit.SECONDS.toNanos(1);

    /** A server's address. */
    public record Address(String host, int port) {
        @Override
        public String toString() {
            return host + ":" + port;
        }
    }

    private final List<Address> addresses;
    /** The address connections go to now; moved on when it fails. */
    private final AtomicInteger current = new AtomicInteger();
    private final CallNumbers calls;
    private final ClientOptions options;
    private final EventLoopGroup group;
    /** Whether {@link #close} stops {@link #group}: not when the group is another client's. */
    private final boolean ownsGroup;
    private final Bootstrap bootstrap;
    /** The TLS context connections are made with, or {@code null} for plaintext. */
    private final io.netty.handler.ssl.SslContext tls;
    private final AtomicReferenceArray<CompletableFuture<RpcChannel>> slots;
    private final AtomicInteger next = new AtomicInteger();
    private final Set<Call<?>> backingOff = ConcurrentHashMap.newKeySet();
    private final RpcChannel.AttemptFailure onFailure = this::retryOrFail;
    private volatile boolean closed;

    public RpcClient(String host, int port, ClientOptions options) {
        this(List.of(new Address(host, port)), options);
    }

    /** A client of the server at one of {@code addresses} (a cluster's nodes: any of them serves). */
    public RpcClient(List<Address> addresses, ClientOptions options) {
        if (addresses.isEmpty()) {
            throw new IllegalArgumentException("no server address");
        }
        this.addresses = List.copyOf(addresses);
        this.options = options;
        Transport transport = Transport.best();
        this.group = transport.group(options.ioThreads(), "basalt-client-io");
        this.ownsGroup = true;
        this.calls = new CallNumbers();
        this.slots = new AtomicReferenceArray<>(options.connections());
        this.tls = options.tls() == null ? null
                : io.basalt.protocol.Tls.client(options.tls().ca(), options.tls().cert(), options.tls().key());
        this.bootstrap = new Bootstrap().group(group).channel(transport.socketChannel())
                .option(ChannelOption.TCP_NODELAY, true)
                .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, (int) Math.min(Integer.MAX_VALUE,
                        options.connectTimeout().toMillis()));
    }

    /**
     * A client of the same cluster as {@code parent} that starts at {@code addresses}' first (the
     * others are where it fails over to): it shares the parent's I/O threads and call numbering,
     * so its writes are calls of the same client, applied once wherever they land.
     */
    RpcClient(List<Address> addresses, RpcClient parent) {
        if (addresses.isEmpty()) {
            throw new IllegalArgumentException("no server address");
        }
        this.addresses = List.copyOf(addresses);
        this.options = parent.options;
        this.tls = parent.tls;
        this.group = parent.group;
        this.ownsGroup = false;
        this.calls = parent.calls;
        this.slots = new AtomicReferenceArray<>(options.connections());
        this.bootstrap = parent.bootstrap.clone();
    }

    List<Address> addresses() {
        return addresses;
    }

    /** {@code host:port} of the server talked to now. */
    public String server() {
        return addresses.get(current.get()).toString();
    }

    /**
     * Whether this client talks to a cluster, so its writes carry call ids and it rides out
     * elections: it was given several addresses, or its one server said at the handshake that it
     * is a cluster node.
     */
    public boolean cluster() {
        return addresses.size() > 1 || clusterNode;
    }

    /** Set once a handshake said the server is a node of a cluster. */
    private volatile boolean clusterNode;

    public ClientOptions options() {
        return options;
    }

    /**
     * Sends a request. {@code body} writes the frame body; {@code decoder} reads the body of an OK
     * response. {@code what} names the request in errors, e.g. {@code "GET on table 't'"}.
     */
    public <T> CompletableFuture<T> call(OpCode op, String what, Consumer<ByteBuf> body, Function<ByteBuf, T> decoder) {
        return call(op, what, 256, body, decoder);
    }

    /** {@link #call(OpCode, String, Consumer, Function)} for a request of about {@code sizeHint} bytes. */
    public <T> CompletableFuture<T> call(OpCode op, String what, int sizeHint, Consumer<ByteBuf> body,
                                         Function<ByteBuf, T> decoder) {
        Call<T> call = new Call<>(op, what, sizeHint, body, decoder);
        attempt(call);
        return call.future;
    }

    /**
     * A connection slot for {@link #callOn}: the next in turn. Requests that must reach the server
     * on one connection (a scanner's: the server serves a scanner only to the connection that
     * opened it) take one slot and send every request on it.
     */
    public int nextSlot() {
        return slots.length() == 1 ? 0 : Math.floorMod(next.getAndIncrement(), slots.length());
    }

    /**
     * {@link #call(OpCode, String, Consumer, Function)} on connection slot {@code slot}, a value
     * {@link #nextSlot} gave.
     *
     * @throws IllegalArgumentException if {@code slot} is negative
     */
    public <T> CompletableFuture<T> callOn(int slot, OpCode op, String what, Consumer<ByteBuf> body,
                                           Function<ByteBuf, T> decoder) {
        if (slot < 0) {
            throw new IllegalArgumentException("connection slot " + slot + " is negative; take one from nextSlot()");
        }
        Call<T> call = new Call<>(op, what, 256, body, decoder);
        call.slot = Math.floorMod(slot, slots.length());
        attempt(call);
        return call.future;
    }

    /**
     * A write that, to a cluster, is sent with a call id: applied once however often it is sent,
     * and so sent again after a lost connection or an election. To one server it is {@link #call}.
     */
    public <T> CompletableFuture<T> write(OpCode op, String what, int sizeHint, Consumer<ByteBuf> body,
                                          Function<ByteBuf, T> decoder) {
        Call<T> call = new Call<>(op, what, sizeHint, body, decoder, null, true);
        attempt(call);
        return call.future;
    }

    /**
     * Gives a write its call id at its first send to a cluster (known by then: several addresses,
     * or the handshake of the connection it goes out on said so), counted outstanding until it
     * completes.
     */
    private void identify(Call<?> call) {
        if (call.write && call.callId == null && cluster()) {
            CallId id = calls.next();
            call.callId = id;
            call.future.whenComplete((_, _) -> calls.done(id.callId()));
        }
    }

    private <T> void attempt(Call<T> call) {
        if (closed) {
            call.future.completeExceptionally(new ConnectionClosedException("the client for " + server()
                    + " is closed; " + call.what + " was not sent"));
            return;
        }
        call.attempts++;
        CompletableFuture<RpcChannel> connection = channel(call.slot);
        if (connection.state() == Future.State.SUCCESS) {
            // Connected: send now, without a completion stage (and its allocations) per request.
            RpcChannel ch = connection.resultNow();
            identify(call);
            call.node = ch.node;
            ch.send(call, onFailure);
            return;
        }
        connection.whenComplete((ch, failure) -> {
            if (failure != null) {
                retryOrFail(call, failure instanceof BasaltException b ? b
                        : new ConnectionClosedException("cannot connect to " + server() + ": " + failure.getMessage(),
                        failure), false);
            } else {
                identify(call);
                call.node = ch.node;
                ch.send(call, onFailure);
            }
        });
    }

    private void retryOrFail(Call<?> call, BasaltException failure, boolean sent) {
        boolean retriable = (!sent || call.op.resendable() || call.callId != null)
                && !(failure instanceof io.basalt.client.security.AuthenticationException);
        int retries = cluster() ? Math.max(options.retries(), CLUSTER_RETRIES) : options.retries();
        if (closed || !retriable || call.attempts > retries) {
            call.future.completeExceptionally(failure);
            return;
        }
        if (cluster() && call.node >= 0) {
            if (failure instanceof OperationTimeoutException) {
                moveOn(call.node); // a node that does not answer in time may be paused: try another
            } else if (failure instanceof io.basalt.client.UnavailableException) {
                // One UNAVAILABLE is most likely an election, over before the retry; a second in a
                // row from the same node says it is cut off from the cluster: another node may serve.
                if (call.unavailableFrom != call.node) {
                    call.unavailableFrom = call.node;
                    call.unavailable = 0;
                }
                if (++call.unavailable >= UNAVAILABLE_BEFORE_MOVING_ON) {
                    moveOn(call.node); // the next attempt goes to another node, whose count starts afresh
                }
            }
        }
        long backoff = Math.min(options.retryBackoff().toNanos() << Math.min(call.attempts - 1, 20), MAX_BACKOFF_NANOS);
        backingOff.add(call);
        if (closed) { // close() may have swept the set before the add
            if (backingOff.remove(call)) {
                call.future.completeExceptionally(failure);
            }
            return;
        }
        group.schedule(() -> {
            if (backingOff.remove(call)) {
                attempt(call);
            }
        }, backoff, TimeUnit.NANOSECONDS);
    }

    /**
     * A ready connection: the one in {@code pinned} (a slot, or -1 for the least recently chosen),
     * connected if it is not.
     */
    private CompletableFuture<RpcChannel> channel(int pinned) {
        // One connection (the default) needs no turn-taking, and no shared counter bumped per request.
        int slot = pinned >= 0 ? pinned : nextSlot();
        while (true) {
            CompletableFuture<RpcChannel> current = slots.get(slot);
            if (current != null && (!current.isDone() || (!current.isCompletedExceptionally()
                    && current.join().usable()))) {
                return current;
            }
            CompletableFuture<RpcChannel> fresh = new CompletableFuture<>();
            if (slots.compareAndSet(slot, current, fresh)) {
                connect(fresh);
                return fresh;
            }
        }
    }

    private void connect(CompletableFuture<RpcChannel> result) {
        int index = current.get();
        Address address = addresses.get(index);
        String server = address.toString();
        Bootstrap b = bootstrap.clone().handler(new ChannelInitializer<SocketChannel>() {
            @Override
            protected void initChannel(SocketChannel ch) {
                if (tls != null) {
                    ch.pipeline().addLast(io.basalt.protocol.Tls.clientHandler(tls, ch.alloc(), address.host(),
                            address.port()));
                }
                if (options.flushConsolidation()) {
                    ch.pipeline().addLast(new FlushConsolidationHandler(1024, true));
                }
                ch.pipeline().addLast(new FrameDecoder(options.maxFrameSize()));
                ch.pipeline().addLast(new RpcChannel(ch, index, server, options));
            }
        });
        ChannelFuture connecting = b.connect(address.host(), address.port());
        connecting.addListener(f -> {
            if (!f.isSuccess()) {
                moveOn(index);
                result.completeExceptionally(new ConnectionClosedException("cannot connect to " + server + ": "
                        + f.cause().getMessage(), f.cause()));
                return;
            }
            Channel ch = connecting.channel();
            RpcChannel rpc = ch.pipeline().get(RpcChannel.class);
            ch.eventLoop().schedule(() -> {
                if (!rpc.ready().isDone()) {
                    rpc.closeWith(new OperationTimeoutException("handshake with " + server + " timed out after "
                            + options.connectTimeout().toMillis() + " ms"));
                    ch.close();
                }
            }, options.connectTimeout().toNanos(), TimeUnit.NANOSECONDS);
            rpc.ready().whenComplete((ok, failure) -> {
                if (failure != null) {
                    if (rpc.clusterNode()) {
                        clusterNode = true; // said at a handshake whose connection failed after (a node not ready to authenticate)
                    }
                    moveOn(index);
                    result.completeExceptionally(failure);
                } else {
                    if (ok.clusterNode()) {
                        clusterNode = true;
                    }
                    result.complete(ok);
                }
            });
            if (closed) {
                rpc.close("closed by the client");
            }
        });
    }

    /**
     * After the server at {@code failed} did not connect or answer, or said twice it cannot serve:
     * the next connection goes to the next address (when another attempt has not moved on
     * already), and the connections to the failed one are retired. Retiring sends nothing new on
     * them but lets requests in flight there finish, so a request that may not be sent twice (a
     * {@code FLUSH}) is not failed by a move it had no part in.
     */
    private void moveOn(int failed) {
        if (addresses.size() > 1 && current.compareAndSet(failed, (failed + 1) % addresses.size())) {
            for (int i = 0; i < slots.length(); i++) {
                CompletableFuture<RpcChannel> f = slots.get(i);
                if (f != null && f.isDone() && !f.isCompletedExceptionally() && slots.compareAndSet(i, f, null)) {
                    RpcChannel ch = f.join();
                    retired.add(ch);
                    ch.onClosed(() -> retired.remove(ch));
                    ch.retire("moved to " + addresses.get(current.get()) + " after " + addresses.get(failed)
                            + " failed");
                    if (closed) { // close() may have swept the set before the add
                        ch.close("closed by the client");
                    }
                }
            }
        }
    }

    /** Connections let go by {@link #moveOn} that still carry requests; closed with the client. */
    private final Set<RpcChannel> retired = ConcurrentHashMap.newKeySet();

    /** Requests in flight over every connection, for tests and metrics. */
    public int inFlight() {
        int n = 0;
        for (int i = 0; i < slots.length(); i++) {
            CompletableFuture<RpcChannel> f = slots.get(i);
            if (f != null && f.isDone() && !f.isCompletedExceptionally()) {
                n += f.join().inFlight();
            }
        }
        return n;
    }

    /** Closes every connection (pending requests fail, naming the server) and stops the I/O threads. */
    @Override
    public void close() {
        closed = true;
        ConnectionClosedException closing = new ConnectionClosedException("the client for " + server() + " was closed");
        for (int i = 0; i < slots.length(); i++) {
            CompletableFuture<RpcChannel> f = slots.get(i);
            if (f != null) {
                f.completeExceptionally(closing);
                f.thenAccept(ch -> ch.close("closed by the client"));
            }
        }
        for (RpcChannel ch : retired) {
            ch.close("closed by the client");
        }
        for (Call<?> call : backingOff) {
            if (backingOff.remove(call)) {
                call.future.completeExceptionally(new ConnectionClosedException("the client for " + server()
                        + " was closed while " + call.what + " waited to be retried"));
            }
        }
        if (ownsGroup) {
            group.shutdownGracefully(0, 2, TimeUnit.SECONDS).syncUninterruptibly();
        }
    }
}
