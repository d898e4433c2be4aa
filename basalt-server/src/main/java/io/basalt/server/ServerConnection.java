package io.basalt.server;

import io.basalt.client.NoSuchFamilyException;
import io.basalt.client.StoreReadOnlyException;
import io.basalt.client.TableExistsException;
import io.basalt.client.TableNotFoundException;
import io.basalt.client.net.Errors;
import io.basalt.client.net.Messages;
import io.basalt.protocol.CallId;
import io.basalt.protocol.Frame;
import io.basalt.protocol.FrameDecoder;
import io.basalt.protocol.FrameLayout;
import io.basalt.protocol.GroupedWriter;
import io.basalt.protocol.Handshake;
import io.basalt.protocol.MalformedFrameException;
import io.basalt.protocol.OpCode;
import io.basalt.protocol.Status;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.concurrent.ScheduledFuture;
import java.util.ArrayDeque;
import java.util.List;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One client connection on the server: checks the handshake and each frame, hands requests to
 * the {@link RequestHandler}, and writes responses through a {@link GroupedWriter}.
 *
 * <p>What a bad frame gets: an unknown op, a request with the response flag or a status set, or
 * a body that does not decode is answered with an error and the connection carries on; a frame
 * over the size limit is discarded unread and answered with an error; a checksum mismatch, a bad
 * handshake or a length below the header size closes the connection, since the stream can no
 * longer be cut into frames with confidence. Frames sent after a handshake the server refused are
 * never run, not even those that came in the same packet as the handshake.
 *
 * <h2>Timeouts</h2>
 * The handshake must arrive within {@link ServerConfig#frameTimeout()} of the accept, and each
 * frame within that time of its first byte ({@link FrameDecoder#partialSince()}): a peer that
 * trickles a frame a byte at a time is closed as surely as one that stops half-way. A connection
 * with no frame under way may stay idle as long as it likes.
 *
 * <h2>Backpressure (issue #17)</h2>
 * A client that sends requests and never reads the responses must not make the server queue
 * responses without bound. The server stops reading a connection (Netty's {@code autoRead} off)
 * while either holds, and reads again once neither does:
 * <ul>
 *   <li>its responses are queued past {@link ServerConfig#outboundHighWaterBytes()}: the channel
 *       is not writable (Netty's write-buffer water marks, which also stop the
 *       {@link GroupedWriter}'s drain), until they drain below the low-water mark;</li>
 *   <li>it has {@link ServerConfig#maxInFlightPerConnection()} requests executing. Frames of a
 *       read already made when the limit is reached wait here, decoded, and start as requests
 *       finish; a read is at most one receive buffer, so they are few.</li>
 * </ul>
 * So the memory one connection holds in responses is bounded by the high-water mark plus the
 * responses of the requests it has executing, plus (with {@link ServerConfig#inlineGets()}) the
 * answers to gets made on the event loop since its last read ended, which {@link #mayAnswerInline}
 * holds to one more high-water mark: a read of a few kilobytes can carry thousands of gets, and
 * answers made on the event loop are never "executing", so the in-flight limit does not see them.
 * While the server has stopped reading, a frame's clock does not run: its bytes wait in the
 * socket by the server's choice.
 */
public final class ServerConnection extends ChannelInboundHandlerAdapter {

    private static final Logger LOG = LoggerFactory.getLogger(ServerConnection.class);

    private final BasaltServer server;
    private final Channel channel;
    private final GroupedWriter writer;
    private final FrameDecoder decoder;
    private final String peer;
    /** Whether this connection holds one of the server's places; one that does not is refused "busy". */
    private final boolean admitted;
    private final int maxInFlight;
    /** Most bytes of answers made on the event loop between two reads' ends ({@link #mayAnswerInline}). */
    private final long inlineLimit;
    /** Bytes of answers made on the event loop since the last read ended; event loop only. */
    private long answeredInline;
    private final long frameTimeoutNanos;
    /** Requests started and not yet answered. */
    private final AtomicInteger inFlight = new AtomicInteger();
    /**
     * {@link ServerConfig#requestMetrics()}: whether requests are timed and counted. Off, neither
     * {@link #times} nor {@link #metrics} is touched per request.
     */
    private final boolean requestMetrics;
    /** When each of them started, for its latency; null when {@link #requestMetrics} is off. */
    private final RequestTimes times;
    private final ServerMetrics metrics;

    // Event loop only.
    /** Decoded frames waiting for a request to finish ({@link #maxInFlight} were executing). */
    private final ArrayDeque<Object> waiting = new ArrayDeque<>();
    private boolean accepted;
    /** The SCRAM exchange under way, between its two steps. */
    private io.basalt.client.security.Scram.Server scram;
    /** The user this connection authenticated as, or null (any thread reads it). */
    private volatile String authenticated;
    /** The store as {@link #authenticated} reaches it, set with it. */
    private volatile io.basalt.client.Connection view;
    private boolean handshakeSeen;
    private long openedAt;
    /**
     * Scanners the handler holds open for this connection, counted from before the store's scanner
     * opens until it is closed ({@link ServerConfig#maxScannersPerConnection()}); any thread.
     */
    final java.util.concurrent.atomic.AtomicInteger openScanners = new java.util.concurrent.atomic.AtomicInteger();
    private ScheduledFuture<?> clock;

    ServerConnection(BasaltServer server, Channel channel, FrameDecoder decoder, ServerConfig config,
                     boolean admitted) {
        this.server = server;
        this.channel = channel;
        this.decoder = decoder;
        this.admitted = admitted;
        this.maxInFlight = config.maxInFlightPerConnection();
        this.inlineLimit = config.outboundHighWaterBytes();
        this.frameTimeoutNanos = config.frameTimeout().toNanos();
        this.writer = new GroupedWriter(channel, config.writeMode(), config.groupingThreshold(),
                config.linger().toNanos());
        this.peer = String.valueOf(channel.remoteAddress());
        this.requestMetrics = config.requestMetrics();
        this.times = requestMetrics ? new RequestTimes(maxInFlight) : null;
        this.metrics = server.metrics();
    }

    /** The client's address, for messages. */
    public String peer() {
        return peer;
    }

    /** Batches of grouped responses written so far. */
    long groupedBatches() {
        return writer.batches();
    }

    /** Response frames written in those batches. */
    long groupedFrames() {
        return writer.frames();
    }

    /** False once the connection closed: nobody will read what is sent on it. */
    public boolean isOpen() {
        return channel.isActive();
    }

    // ------------------------------------------------------------------ responses (any thread)

    /** Sends an OK response whose body {@code body} writes (a small one). */
    public void respond(long requestId, OpCode op, Consumer<ByteBuf> body) {
        respond(requestId, op, 128, body);
    }

    /**
     * Sends an OK response whose body {@code body} writes; {@code sizeHint} is about the frame's
     * size, so a large response is encoded into a buffer of its own rather than the group's.
     */
    public void respond(long requestId, OpCode op, int sizeHint, Consumer<ByteBuf> body) {
        try {
            writer.write(sizeHint, buf -> {
                int start = FrameLayout.begin(buf, requestId, op, Status.OK, true);
                body.accept(buf);
                FrameLayout.finish(buf, start);
            });
        } catch (RuntimeException e) {
            fail(requestId, op, e);
            return;
        }
        finished(requestId, op, Status.OK);
    }

    /**
     * Who the client is: the user it authenticated as; else the common name (or, without one, the
     * whole subject) of the certificate it presented under mutual TLS; else {@code anonymous}.
     */
    String user() {
        String user = authenticated;
        if (user != null) {
            return user;
        }
        String named = certificateName();
        return named != null ? named : "anonymous";
    }

    /**
     * The store as this connection's user reaches it: {@code store} itself when the server does not
     * authenticate, else a view checking each operation against the user's grants.
     */
    io.basalt.client.Connection view(io.basalt.client.Connection store) {
        if (server.handler().access() == null) {
            return store;
        }
        io.basalt.client.Connection v = view;
        if (v == null) {
            throw new io.basalt.client.security.AuthenticationException("the connection is not authenticated");
        }
        return v;
    }

    /** The name in the client's certificate under mutual TLS, or null without one. */
    private String certificateName() {
        io.netty.handler.ssl.SslHandler tls = channel.pipeline().get(io.netty.handler.ssl.SslHandler.class);
        if (tls == null) {
            return null;
        }
        try {
            java.security.cert.Certificate[] chain = tls.engine().getSession().getPeerCertificates();
            if (chain.length > 0 && chain[0] instanceof java.security.cert.X509Certificate x) {
                String subject = x.getSubjectX500Principal().getName();
                for (javax.naming.ldap.Rdn rdn : new javax.naming.ldap.LdapName(subject).getRdns()) {
                    if (rdn.getType().equalsIgnoreCase("CN")) {
                        return String.valueOf(rdn.getValue());
                    }
                }
                return subject;
            }
        } catch (javax.net.ssl.SSLPeerUnverifiedException | javax.naming.InvalidNameException e) {
            // no certificate presented (tlsClientAuth none or optional)
        }
        return null;
    }

    /** The server this connection is to. */
    BasaltServer server() {
        return server;
    }

    /** Sends an error response for {@code failure}, choosing the status from its type. */
    public void fail(long requestId, OpCode op, Throwable failure) {
        Throwable t = unwrap(failure);
        Status status = statusOf(t);
        if (status == Status.SERVER_ERROR) {
            LOG.warn("{} from {} failed", op, peer, t);
        } else if (status == Status.PERMISSION_DENIED) {
            Audit.denied(this, op, message(t));
        }
        error(requestId, op == null ? 0 : op.code(), status, message(t), argsOf(t));
    }

    /** Sends an error response with this status and message. */
    public void error(long requestId, int opCode, Status status, String message, List<String> args) {
        writer.write(64 + 3 * message.length(), buf -> {
            int start = buf.writerIndex();
            buf.writeInt(0).writeInt(0).writeLong(requestId).writeByte(opCode).writeByte(status.code())
                    .writeShort(FrameLayout.FLAG_RESPONSE);
            Messages.writeError(buf, message, args);
            FrameLayout.finish(buf, start);
        });
        finished(requestId, OpCode.of(opCode), status);
    }

    private void started(long requestId) {
        inFlight.incrementAndGet();
        server.requestStarted();
        if (requestMetrics) {
            times.start(requestId, System.nanoTime());
        }
    }

    /**
     * A request was answered: recorded in the metrics (unless they are off); one fewer executing;
     * the first below the limit lets waiting frames start.
     */
    private void finished(long requestId, OpCode op, Status status) {
        if (requestMetrics) {
            metrics.requestDone(op, status, times.finish(requestId), peer);
        }
        server.requestDone();
        if (inFlight.decrementAndGet() == maxInFlight - 1 && channel.isActive()) {
            try {
                channel.eventLoop().execute(this::startWaiting);
            } catch (RejectedExecutionException e) {
                // the event loop has stopped: the connection is gone, nothing waits
            }
        }
    }

    static Throwable unwrap(Throwable t) {
        while ((t instanceof CompletionException || t instanceof ExecutionException) && t.getCause() != null) {
            t = t.getCause();
        }
        return t;
    }

    private static String message(Throwable t) {
        return t.getMessage() != null ? t.getMessage() : t.getClass().getSimpleName();
    }

    static Status statusOf(Throwable t) {
        return t instanceof UnknownScannerException ? Status.UNKNOWN_SCANNER : Errors.statusOf(t);
    }

    static List<String> argsOf(Throwable t) {
        return Errors.argsOf(t);
    }

    // ------------------------------------------------------------------ inbound (event loop)

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
        server.opened(this);
        openedAt = System.nanoTime();
        long period = Math.clamp(frameTimeoutNanos / 4, TimeUnit.MILLISECONDS.toNanos(1), TimeUnit.SECONDS.toNanos(1));
        clock = ctx.executor().scheduleAtFixedRate(this::checkFrameTimeout, period, period, TimeUnit.NANOSECONDS);
        ctx.fireChannelActive();
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (msg instanceof Handshake h) {
            handshake(ctx, h);
        } else if (!accepted) {
            ReferenceCountUtil.release(msg); // after a refused handshake: never run
        } else if (!waiting.isEmpty() || inFlight.get() >= maxInFlight) {
            waiting.add(msg);
            updateReading();
        } else {
            start(msg);
        }
    }

    /**
     * Whether a request may be answered here on the event loop (event loop only): while the
     * responses queued for the connection are under the high-water mark and those answered here
     * since the last read ended are too. Past that, requests go to workers, where the in-flight
     * limit bounds them.
     */
    boolean mayAnswerInline() {
        return answeredInline < inlineLimit && channel.isWritable();
    }

    /** Counts an answer of about {@code bytes} made on the event loop. */
    void answeredInline(long bytes) {
        answeredInline += bytes;
    }

    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) {
        // The responses answered during the read are drained by a task that runs before the next
        // read; if they pass the high-water mark the channel turns unwritable and reading stops.
        answeredInline = 0;
        ctx.fireChannelReadComplete();
    }

    /** Starts the request a decoded frame carries (releasing the frame). */
    private void start(Object msg) {
        switch (msg) {
            case Frame f -> {
                try {
                    request(f);
                } finally {
                    f.release();
                }
            }
            case FrameDecoder.TooLargeFrame t -> {
                started(t.requestId());
                error(t.requestId(), t.opCode(), Status.FRAME_TOO_LARGE, "request frame of " + t.length()
                        + " bytes is over the server's limit of " + server.config().maxFrameSize() + " bytes; it was"
                        + " discarded unread", List.of());
            }
            default -> throw new IllegalStateException("unexpected message " + msg.getClass());
        }
    }

    /** On the event loop, once a request finished: starts waiting frames while there is room. */
    private void startWaiting() {
        while (!waiting.isEmpty() && inFlight.get() < maxInFlight && channel.isActive()) {
            start(waiting.poll());
        }
        updateReading();
    }

    /**
     * Reads the connection only while it has room for more requests and its responses are not
     * queued past the high-water mark (the class comment says why). A frame partly read when
     * reading stops has its clock restarted when reading resumes.
     */
    private void updateReading() {
        if (!accepted) {
            return;
        }
        boolean read = waiting.isEmpty() && inFlight.get() < maxInFlight && channel.isWritable();
        if (channel.config().isAutoRead() != read) {
            if (read) {
                decoder.restartPartialClock();
            }
            channel.config().setAutoRead(read);
        }
    }

    private void handshake(ChannelHandlerContext ctx, Handshake h) {
        handshakeSeen = true;
        ByteBuf reply = ctx.alloc().buffer(FrameLayout.HANDSHAKE_SIZE);
        int word = !admitted ? FrameLayout.HANDSHAKE_BUSY
                : h.version() != FrameLayout.VERSION ? FrameLayout.HANDSHAKE_REFUSED
                : server.clusterNode() ? FrameLayout.HANDSHAKE_CLUSTER_NODE : FrameLayout.HANDSHAKE_ACCEPTED;
        FrameLayout.writeHandshake(reply, FrameLayout.VERSION, word);
        if (word == FrameLayout.HANDSHAKE_ACCEPTED || word == FrameLayout.HANDSHAKE_CLUSTER_NODE) {
            accepted = true;
            ctx.writeAndFlush(reply);
            return;
        }
        if (word == FrameLayout.HANDSHAKE_BUSY) {
            server.refused(peer);
        } else {
            LOG.info("Refused a connection from {}: it speaks protocol version {}, this server {}", peer, h.version(),
                    FrameLayout.VERSION);
        }
        channel.config().setAutoRead(false);
        ctx.writeAndFlush(reply).addListener(ChannelFutureListener.CLOSE);
    }

    /**
     * Closes a connection whose handshake has not arrived within the frame timeout of the accept,
     * or whose frame under way began longer ago than that. Not while the server has stopped
     * reading: then the bytes wait by its choice.
     */
    private void checkFrameTimeout() {
        long now = System.nanoTime();
        if (!handshakeSeen) {
            if (now - openedAt > frameTimeoutNanos) {
                LOG.info("closing {}: no handshake within {} ms", peer, TimeUnit.NANOSECONDS.toMillis(frameTimeoutNanos));
                channel.close();
            }
            return;
        }
        long since = decoder.partialSince();
        if (since != FrameDecoder.NOT_PARTIAL && channel.config().isAutoRead() && now - since > frameTimeoutNanos) {
            LOG.info("closing {}: a frame begun {} ms ago has not arrived whole (frame timeout {} ms)", peer,
                    TimeUnit.NANOSECONDS.toMillis(now - since), TimeUnit.NANOSECONDS.toMillis(frameTimeoutNanos));
            channel.close();
        }
    }

    private void request(Frame f) {
        started(f.requestId());
        OpCode op = f.op();
        if (f.response() || f.statusCode() != 0) {
            error(f.requestId(), f.opCode(), Status.MALFORMED_REQUEST, "a request must have neither the response flag"
                    + " nor a status (flags response=" + f.response() + ", status " + f.statusCode() + ")", List.of());
            return;
        }
        if (op == null) {
            error(f.requestId(), f.opCode(), Status.UNKNOWN_OP, "op code " + f.opCode() + " is unknown", List.of());
            return;
        }
        if (server.shuttingDown()) {
            error(f.requestId(), f.opCode(), Status.SHUTTING_DOWN, "the server is shutting down", List.of());
            return;
        }
        io.basalt.client.security.AccessControl access = server.handler().access();
        if (op == OpCode.AUTHENTICATE) {
            authenticate(f, access);
            return;
        }
        if (access != null && authenticated == null && op != OpCode.PING && !adoptCertificate(access)) {
            error(f.requestId(), f.opCode(), Status.UNAUTHENTICATED, "this server requires authentication before "
                    + op + ": connect with a user and password (ClientOptions.credentials, the shell's --user)",
                    List.of());
            return;
        }
        try {
            if (f.call()) {
                server.handler().handle(this, f.requestId(), op, CallId.read(f.body()), f.body());
            } else {
                server.handler().handle(this, f.requestId(), op, f.body());
            }
        } catch (RuntimeException e) {
            fail(f.requestId(), op, e);
        }
    }

    private static final java.security.SecureRandom RANDOM = new java.security.SecureRandom();

    /**
     * Under {@code auth=certificate}: the connection is its certificate's name, from its first
     * request. False when the server takes passwords, or no name could be read.
     */
    private boolean adoptCertificate(io.basalt.client.security.AccessControl access) {
        if (server.config().auth().mode() != ServerConfig.AuthMode.CERTIFICATE) {
            return false;
        }
        String name = certificateName();
        if (name == null) {
            return false;
        }
        try {
            view = access.as(name);
        } catch (IllegalArgumentException e) {
            LOG.info("Refusing {}: its certificate's name '{}' is not a valid user name", peer, name);
            return false;
        }
        authenticated = name;
        Audit.authentication(this, name, null);
        return true;
    }

    /**
     * One step of SCRAM-SHA-256 (event loop; the server's side costs two HMACs and a hash, no key
     * derivation). A failure is answered {@code UNAUTHENTICATED} with the same words for a wrong
     * password and an unknown user, counted against the client's address, and audited; an address
     * over its failures is refused before any check.
     */
    private void authenticate(Frame f, io.basalt.client.security.AccessControl access) {
        long id = f.requestId();
        String mechanism;
        byte[] message;
        try {
            mechanism = io.basalt.protocol.Wire.readString(f.body(), "mechanism");
            message = io.basalt.protocol.Wire.readBytes(f.body(), "SCRAM message");
            io.basalt.protocol.Wire.end(f.body(), "AUTHENTICATE");
        } catch (MalformedFrameException e) {
            error(id, f.opCode(), Status.MALFORMED_REQUEST, e.getMessage(), List.of());
            return;
        }
        if (access == null || server.config().auth().mode() != ServerConfig.AuthMode.PASSWORD) {
            error(id, f.opCode(), Status.UNAUTHENTICATED, "this server does not take passwords (auth="
                    + server.config().auth().mode().name().toLowerCase(java.util.Locale.ROOT)
                    + "): connect without a user", List.of());
            return;
        }
        if (authenticated != null) {
            error(id, f.opCode(), Status.UNAUTHENTICATED, "the connection is authenticated already, as '"
                    + authenticated + "'", List.of());
            return;
        }
        java.net.InetAddress address = channel.remoteAddress() instanceof java.net.InetSocketAddress a
                ? a.getAddress() : null;
        AuthFailures failures = server.authFailures();
        long now = System.nanoTime();
        try {
            if (!io.basalt.client.security.Scram.MECHANISM.equals(mechanism)) {
                throw new io.basalt.client.security.AuthenticationException("mechanism '" + mechanism
                        + "' is not supported: use " + io.basalt.client.security.Scram.MECHANISM);
            }
            byte[] reply;
            if (!access.loaded()) {
                // a cluster node that has not read its users yet: "try again", not "wrong password"
                error(id, f.opCode(), Status.UNAVAILABLE, "this node has not read its users yet; try again shortly",
                        List.of());
                return;
            }
            if (scram == null) {
                long wait = address == null ? 0 : failures.refusedFor(address, now);
                if (wait > 0) {
                    String why = "too many failed authentications from " + address.getHostAddress() + "; try again in "
                            + Math.max(1, TimeUnit.NANOSECONDS.toSeconds(wait)) + " s";
                    Audit.authentication(this, null, why);
                    error(id, f.opCode(), Status.UNAUTHENTICATED, why, List.of());
                    return;
                }
                scram = new io.basalt.client.security.Scram.Server(access::credential, server.authSecret(), RANDOM);
                reply = scram.first(message);
            } else {
                io.basalt.client.security.Scram.Server exchange = scram;
                scram = null;
                reply = exchange.finish(message);
                view = access.as(exchange.user());
                authenticated = exchange.user();
                Audit.authentication(this, exchange.user(), null);
            }
            respond(id, OpCode.AUTHENTICATE, 64 + reply.length, buf -> io.basalt.protocol.Wire.writeBytes(buf, reply));
        } catch (io.basalt.client.security.AuthenticationException e) {
            String user = scram != null ? scram.user() : null;
            scram = null;
            if (address != null) {
                failures.failed(address, now);
            }
            LOG.info("Authentication from {} failed: {}", peer, e.getMessage());
            Audit.authentication(this, user, e.getMessage());
            error(id, f.opCode(), Status.UNAUTHENTICATED, e.getMessage(), List.of());
        } catch (RuntimeException e) {
            scram = null;
            fail(id, OpCode.AUTHENTICATE, e); // answered, so the client does not wait out its timeout
        }
    }

    @Override
    public void channelWritabilityChanged(ChannelHandlerContext ctx) {
        writer.writabilityChanged();
        updateReading();
        ctx.fireChannelWritabilityChanged();
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        Throwable t = cause instanceof io.netty.handler.codec.DecoderException && cause.getCause() != null
                ? cause.getCause() : cause;
        if (t instanceof MalformedFrameException) {
            LOG.info("closing {}: {}", peer, t.getMessage());
        } else if (io.basalt.protocol.Tls.isTlsFailure(t)) {
            LOG.debug("closing {} after a TLS failure: {}", peer, io.basalt.protocol.Tls.explain(t)); // counted and logged by the server
        } else {
            LOG.warn("closing {} after an error", peer, t);
        }
        ctx.close();
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        if (clock != null) {
            clock.cancel(false);
        }
        for (Object msg; (msg = waiting.poll()) != null; ) {
            ReferenceCountUtil.release(msg);
        }
        writer.close();
        server.closed(this);
        ctx.fireChannelInactive();
    }

    /**
     * Sends what is pending, then closes. The returned future completes once the channel closed:
     * the caller must not stop the event loop before, or the responses still queued on it are lost.
     */
    ChannelFuture closeGracefully() {
        channel.eventLoop().execute(() ->
                channel.writeAndFlush(Unpooled.EMPTY_BUFFER).addListener(ChannelFutureListener.CLOSE));
        return channel.closeFuture();
    }
}
