package io.basalt.server;

import io.basalt.protocol.FrameDecoder;
import io.basalt.protocol.Transport;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.WriteBufferWaterMark;
import io.netty.channel.socket.SocketChannel;
import io.netty.handler.flush.FlushConsolidationHandler;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A Basalt server: listens on a port, speaks the wire protocol ({@link io.basalt.protocol.FrameLayout})
 * and hands requests to a {@link RequestHandler} — normally {@link EngineHandler}, the store.
 *
 * <p>Stopping ({@link #close()}): the listening socket closes first, so no new connection is
 * accepted; requests that arrive afterwards are answered "shutting down"; requests in flight get
 * up to {@link ServerConfig#shutdownGrace()} to finish; then each connection sends what it has
 * pending and closes, and the handler closes (the engine flushes its memtables).
 *
 * <p>What one client can take (issue #17): at most {@link ServerConfig#maxConnections()}
 * connections are served at once, the rest answered "busy" at their handshake; each connection
 * has at most {@link ServerConfig#maxInFlightPerConnection()} requests executing, and is not read
 * while its responses queue past {@link ServerConfig#outboundHighWaterBytes()} (see
 * {@link ServerConnection}).
 */
public final class BasaltServer implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(BasaltServer.class);
    /** How long a stop waits for the connections to send their last responses and close. */
    private static final Duration CONNECTION_CLOSE_TIMEOUT = Duration.ofSeconds(5);

    private final ServerConfig config;
    private final RequestHandler handler;
    private final EventLoopGroup boss;
    private final EventLoopGroup workers;
    private final Channel listener;
    private final Set<ServerConnection> connections = ConcurrentHashMap.newKeySet();
    private final AtomicLong inFlight = new AtomicLong();
    /** Connections holding one of the {@link ServerConfig#maxConnections()} places. */
    private final AtomicInteger admitted = new AtomicInteger();
    private final AtomicLong refused = new AtomicLong();
    /** When the next refusal may be logged: a flood of them logs one line per interval. */
    private final AtomicLong nextRefusalLog = new AtomicLong(System.nanoTime());
    private final AtomicLong nextTlsFailureLog = new AtomicLong(System.nanoTime());
    private final AtomicLong tlsHandshakeFailures = new AtomicLong();
    /** TLS on the client port, or {@code null}. */
    private final ServerTls tls;
    private final TlsFailures tlsFailures = new TlsFailures();
    private static final long REFUSAL_LOG_INTERVAL_NANOS = TimeUnit.SECONDS.toNanos(10);
    private final Object drained = new Object();
    private final ServerMetrics metrics;
    /** Grouped-write counts of connections that closed. */
    private final AtomicLong closedBatches = new AtomicLong();
    private final AtomicLong closedFrames = new AtomicLong();
    private final HttpEndpoint http;
    private final javax.management.ObjectName mbean;
    private volatile boolean shuttingDown;
    private boolean closed;
    private final long startedNanos = System.nanoTime();
    /** Failed authentications per address (see {@link AuthFailures}). */
    private final AuthFailures authFailures;
    /**
     * Random per start: SCRAM's answer to an unknown user is derived from it, so it looks like a
     * real user's and stays the same for that name while the server runs.
     */
    private final byte[] authSecret = new byte[32];

    private BasaltServer(ServerConfig config, RequestHandler handler) throws InterruptedException {
        this.config = config;
        this.handler = handler;
        String refusal = config.insecureRefusal();
        if (refusal != null) {
            throw new IllegalArgumentException(refusal);
        }
        if (config.insecure() && config.servesStrangers()) {
            LOG.warn("Serving {} without authenticating clients (insecure=true): anyone who reaches it can read and"
                    + " write every table", config.host());
        }
        this.tls = config.tls().enabled() ? new ServerTls(config.tls()) : null; // a bad file fails the start here
        this.authFailures = new AuthFailures(config.auth().maxFailures(), config.auth().failureWindow().toNanos());
        new java.security.SecureRandom().nextBytes(authSecret);
        if (config.auth().mode() == ServerConfig.AuthMode.PASSWORD && !config.tls().enabled()
                && !isLoopback(config.host())) {
            LOG.warn("auth=password without TLS: passwords never cross the network (SCRAM), but the data does, in the"
                    + " clear; set tlsCert and tlsKey");
        }
        this.metrics = new ServerMetrics(config);
        Transport transport = Transport.best();
        this.boss = transport.group(1, "basalt-accept");
        this.workers = transport.group(config.ioThreads(), "basalt-io");
        ServerBootstrap b = new ServerBootstrap().group(boss, workers).channel(transport.serverChannel())
                .option(ChannelOption.SO_REUSEADDR, true)
                .childOption(ChannelOption.TCP_NODELAY, true)
                .childOption(ChannelOption.WRITE_BUFFER_WATER_MARK, new WriteBufferWaterMark(
                        config.outboundLowWaterBytes(), config.outboundHighWaterBytes()))
                .childHandler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        if (tls != null) {
                            ch.pipeline().addLast(tls.newHandler(ch.alloc()));
                            ch.pipeline().addLast(tlsFailures);
                        }
                        if (config.flushConsolidation()) {
                            ch.pipeline().addLast(new FlushConsolidationHandler(1024, true));
                        }
                        boolean admit = admit();
                        if (admit) {
                            ch.closeFuture().addListener(_ -> admitted.decrementAndGet());
                        }
                        FrameDecoder decoder = new FrameDecoder(config.maxFrameSize());
                        ch.pipeline().addLast(decoder);
                        ch.pipeline().addLast(new ServerConnection(BasaltServer.this, ch, decoder, config, admit));
                    }
                });
        try {
            this.listener = b.bind(config.host(), config.port()).sync().channel();
        } catch (RuntimeException | InterruptedException e) {
            boss.shutdownGracefully(0, 1, TimeUnit.SECONDS);
            workers.shutdownGracefully(0, 1, TimeUnit.SECONDS);
            throw e;
        }
        metrics.registerServer(this);
        if (handler.storeMetrics() != null) {
            metrics.registerStore(handler::storeMetrics);
        }
        try {
            this.http = config.httpPort() == ServerConfig.NO_HTTP ? null : HttpEndpoint.start(this);
        } catch (java.io.IOException | RuntimeException e) {
            listener.close().syncUninterruptibly();
            boss.shutdownGracefully(0, 1, TimeUnit.SECONDS);
            workers.shutdownGracefully(0, 1, TimeUnit.SECONDS);
            throw new io.basalt.client.BasaltException("cannot serve HTTP on " + config.host() + ":" + config.httpPort()
                    + " (httpPort; -1 turns it off): " + e.getMessage(), e);
        }
        this.mbean = MetricsMBean.register(metrics, address().getPort());
        if (tls != null) {
            long every = config.tls().reload().toNanos();
            boss.next().scheduleAtFixedRate(tls::reloadIfChanged, every, every, TimeUnit.NANOSECONDS);
        }
        LOG.info("Basalt server listening on {} ({} transport, {} writes){}", address(), transport, config.writeMode(),
                http == null ? "" : "; metrics and status on " + (tls == null ? "http" : "https") + "://" + http.address().getHostString() + ":"
                        + http.address().getPort() + "/");
        LOG.info("Configuration in effect: {}", config.effective());
    }

    /** Time since the server started. */
    public long uptimeMillis() {
        return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startedNanos);
    }

    /** The server's metrics. */
    public ServerMetrics metrics() {
        return metrics;
    }

    /** The address of the HTTP endpoint, or {@code null} when it is off. */
    public InetSocketAddress httpAddress() {
        return http == null ? null : http.address();
    }

    /** Batches of grouped responses written, open and closed connections together. */
    long groupedBatches() {
        long n = closedBatches.get();
        for (ServerConnection c : connections) {
            n += c.groupedBatches();
        }
        return n;
    }

    /** Response frames in those batches. */
    long groupedFrames() {
        long n = closedFrames.get();
        for (ServerConnection c : connections) {
            n += c.groupedFrames();
        }
        return n;
    }

    /**
     * Starts a server whose handler {@code handlers} makes (called once, before listening).
     *
     * @throws io.netty.channel.ChannelException or an {@link java.io.IOException} subclass when the
     *     address cannot be bound
     */
    public static BasaltServer start(ServerConfig config, Function<ServerConfig, RequestHandler> handlers)
            throws InterruptedException {
        RequestHandler handler = handlers.apply(config);
        try {
            return new BasaltServer(config, handler);
        } catch (RuntimeException | InterruptedException e) {
            handler.close();
            throw e;
        }
    }

    /** Starts a server over the store in {@link ServerConfig#dataDir()}. */
    public static BasaltServer start(ServerConfig config) throws InterruptedException {
        return start(config, EngineHandler::open);
    }

    /** The address the server listens on (with the real port when 0 was asked for). */
    public InetSocketAddress address() {
        return (InetSocketAddress) listener.localAddress();
    }

    public ServerConfig config() {
        return config;
    }

    /** Whether this server is a cluster node (its handler applies call-id writes once): said at each handshake. */
    boolean clusterNode() {
        return handler.appliesCallsOnce();
    }

    /** The client port's TLS (the HTTP endpoint serves HTTPS with it), or null without TLS. */
    ServerTls tls() {
        return tls;
    }

    AuthFailures authFailures() {
        return authFailures;
    }

    byte[] authSecret() {
        return authSecret;
    }

    private static boolean isLoopback(String host) {
        try {
            return java.net.InetAddress.getByName(host).isLoopbackAddress();
        } catch (java.net.UnknownHostException e) {
            return false;
        }
    }

    RequestHandler handler() {
        return handler;
    }

    boolean shuttingDown() {
        return shuttingDown;
    }

    /** Connections open now, refused ones still closing included. */
    public int connections() {
        return connections.size();
    }

    /** Connections refused so far because {@link ServerConfig#maxConnections()} were open. */
    public long refusedConnections() {
        return refused.get();
    }

    /** Takes one of the {@link ServerConfig#maxConnections()} places; false when none is free. */
    private boolean admit() {
        for (int n = admitted.get(); n < config.maxConnections(); n = admitted.get()) {
            if (admitted.compareAndSet(n, n + 1)) {
                return true;
            }
        }
        return false;
    }

    /** TLS handshakes that failed: counted, and logged (a flood: one line per interval). */
    @io.netty.channel.ChannelHandler.Sharable
    private final class TlsFailures extends io.netty.channel.ChannelInboundHandlerAdapter {
        @Override
        public void userEventTriggered(io.netty.channel.ChannelHandlerContext ctx, Object event) {
            if (event instanceof io.netty.handler.ssl.SslHandshakeCompletionEvent done && !done.isSuccess()) {
                Audit.refused(String.valueOf(ctx.channel().remoteAddress()),
                        "TLS handshake failed: " + io.basalt.protocol.Tls.explain(done.cause()));
                long n = tlsHandshakeFailures.incrementAndGet();
                long next = nextTlsFailureLog.get();
                long now = System.nanoTime();
                if (now - next >= 0 && nextTlsFailureLog.compareAndSet(next, now + REFUSAL_LOG_INTERVAL_NANOS)) {
                    LOG.info("TLS handshake from {} failed: {}; {} failed since the server started",
                            ctx.channel().remoteAddress(), io.basalt.protocol.Tls.explain(done.cause()), n);
                }
            }
            ctx.fireUserEventTriggered(event);
        }
    }

    /** TLS handshakes that failed since the server started (a plaintext client, an untrusted certificate...). */
    public long tlsHandshakeFailures() {
        return tlsHandshakeFailures.get();
    }

    /** Counts a connection refused at its handshake, and logs it (a flood: one line per interval). */
    void refused(String peer) {
        Audit.refused(peer, config.maxConnections() + " connections are open (maxConnections)");
        long n = refused.incrementAndGet();
        long next = nextRefusalLog.get();
        long now = System.nanoTime();
        if (now - next >= 0 && nextRefusalLog.compareAndSet(next, now + REFUSAL_LOG_INTERVAL_NANOS)) {
            LOG.warn("refused a connection from {}: {} connections are open, the most this server serves"
                    + " (maxConnections); {} refused since it started", peer, config.maxConnections(), n);
        }
    }

    /** Requests received and not yet answered. */
    public long inFlight() {
        return inFlight.get();
    }

    void requestStarted() {
        inFlight.incrementAndGet();
    }

    void requestDone() {
        if (inFlight.decrementAndGet() == 0 && shuttingDown) {
            synchronized (drained) {
                drained.notifyAll();
            }
        }
    }

    void opened(ServerConnection c) {
        connections.add(c);
    }

    void closed(ServerConnection c) {
        if (connections.remove(c)) {
            closedBatches.addAndGet(c.groupedBatches());
            closedFrames.addAndGet(c.groupedFrames());
        }
        handler.closed(c);
    }

    /** Stops as the class comment says. Idempotent. */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        LOG.info("Basalt server on {} stopping: {} connection(s), {} request(s) in flight", address(),
                connections.size(), inFlight.get());
        listener.close().syncUninterruptibly();
        shuttingDown = true;
        long deadline = System.nanoTime() + config.shutdownGrace().toNanos();
        synchronized (drained) {
            while (inFlight.get() > 0 && deadline - System.nanoTime() > 0) {
                try {
                    drained.wait(Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime())));
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    break;
                }
            }
        }
        if (inFlight.get() > 0) {
            LOG.warn("{} request(s) still in flight after {} ms; closing anyway", inFlight.get(),
                    config.shutdownGrace().toMillis());
        }
        // Wait for each connection to send what it has and close before the event loops stop: a
        // stopping event loop closes its channels at once, ahead of tasks still queued on it (the
        // drain that writes the last responses), which would lose those responses.
        List<ChannelFuture> closing = new ArrayList<>();
        for (ServerConnection c : connections) {
            closing.add(c.closeGracefully());
        }
        long closeDeadline = System.nanoTime() + CONNECTION_CLOSE_TIMEOUT.toNanos();
        for (ChannelFuture f : closing) {
            if (!f.awaitUninterruptibly(Math.max(0, closeDeadline - System.nanoTime()), TimeUnit.NANOSECONDS)) {
                LOG.warn("connections still sending after {} ms; closing them anyway",
                        CONNECTION_CLOSE_TIMEOUT.toMillis());
                break;
            }
        }
        workers.shutdownGracefully(0, 5, TimeUnit.SECONDS).syncUninterruptibly();
        boss.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
        if (http != null) {
            http.close();
        }
        MetricsMBean.unregister(mbean);
        handler.close();
        LOG.info("Basalt server stopped");
    }
}
