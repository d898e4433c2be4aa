package io.basalt.client.net;

import io.basalt.client.BasaltException;
import io.basalt.client.ConnectionClosedException;
import io.basalt.client.OperationTimeoutException;
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
 * connecting on first use and again after a connection died.
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

    private final String host;
    private final int port;
    private final String server;
    private final ClientOptions options;
    private final EventLoopGroup group;
    private final Bootstrap bootstrap;
    private final AtomicReferenceArray<CompletableFuture<RpcChannel>> slots;
    private final AtomicInteger next = new AtomicInteger();
    private final Set<Call<?>> backingOff = ConcurrentHashMap.newKeySet();
    private final RpcChannel.AttemptFailure onFailure = this::retryOrFail;
    private volatile boolean closed;

    public RpcClient(String host, int port, ClientOptions options) {
        this.host = host;
        this.port = port;
        this.server = host + ":" + port;
        this.options = options;
        Transport transport = Transport.best();
        this.group = transport.group(options.ioThreads(), "basalt-client-io");
        this.slots = new AtomicReferenceArray<>(options.connections());
        this.bootstrap = new Bootstrap().group(group).channel(transport.socketChannel())
                .option(ChannelOption.TCP_NODELAY, true)
                .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, (int) Math.min(Integer.MAX_VALUE,
                        options.connectTimeout().toMillis()));
    }

    /** {@code host:port}. */
    public String server() {
        return server;
    }

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

    private <T> void attempt(Call<T> call) {
        if (closed) {
            call.future.completeExceptionally(new ConnectionClosedException("the client for " + server
                    + " is closed; " + call.what + " was not sent"));
            return;
        }
        call.attempts++;
        CompletableFuture<RpcChannel> connection = channel();
        if (connection.state() == Future.State.SUCCESS) {
            // Connected: send now, without a completion stage (and its allocations) per request.
            connection.resultNow().send(call, onFailure);
            return;
        }
        connection.whenComplete((ch, failure) -> {
            if (failure != null) {
                retryOrFail(call, failure instanceof BasaltException b ? b
                        : new ConnectionClosedException("cannot connect to " + server + ": " + failure.getMessage(),
                        failure), false);
            } else {
                ch.send(call, onFailure);
            }
        });
    }

    private void retryOrFail(Call<?> call, BasaltException failure, boolean sent) {
        boolean retriable = !sent || call.op.resendable();
        if (closed || !retriable || call.attempts > options.retries()) {
            call.future.completeExceptionally(failure);
            return;
        }
        long backoff = options.retryBackoff().toNanos() << Math.min(call.attempts - 1, 20);
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

    /** A ready connection: the least recently chosen slot, connected if it is not. */
    private CompletableFuture<RpcChannel> channel() {
        // One connection (the default) needs no turn-taking, and no shared counter bumped per request.
        int slot = slots.length() == 1 ? 0 : Math.floorMod(next.getAndIncrement(), slots.length());
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
        Bootstrap b = bootstrap.clone().handler(new ChannelInitializer<SocketChannel>() {
            @Override
            protected void initChannel(SocketChannel ch) {
                if (options.flushConsolidation()) {
                    ch.pipeline().addLast(new FlushConsolidationHandler(1024, true));
                }
                ch.pipeline().addLast(new FrameDecoder(options.maxFrameSize()));
                ch.pipeline().addLast(new RpcChannel(ch, server, options));
            }
        });
        ChannelFuture connecting = b.connect(host, port);
        connecting.addListener(f -> {
            if (!f.isSuccess()) {
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
                    result.completeExceptionally(failure);
                } else {
                    result.complete(ok);
                }
            });
            if (closed) {
                rpc.close("closed by the client");
            }
        });
    }

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
        ConnectionClosedException closing = new ConnectionClosedException("the client for " + server + " was closed");
        for (int i = 0; i < slots.length(); i++) {
            CompletableFuture<RpcChannel> f = slots.get(i);
            if (f != null) {
                f.completeExceptionally(closing);
                f.thenAccept(ch -> ch.close("closed by the client"));
            }
        }
        for (Call<?> call : backingOff) {
            if (backingOff.remove(call)) {
                call.future.completeExceptionally(new ConnectionClosedException("the client for " + server
                        + " was closed while " + call.what + " waited to be retried"));
            }
        }
        group.shutdownGracefully(0, 2, TimeUnit.SECONDS).syncUninterruptibly();
    }
}
