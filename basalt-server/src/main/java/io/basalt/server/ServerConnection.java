package io.basalt.server;

import io.basalt.client.NoSuchFamilyException;
import io.basalt.client.StoreReadOnlyException;
import io.basalt.client.TableExistsException;
import io.basalt.client.TableNotFoundException;
import io.basalt.client.net.Messages;
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
import io.netty.handler.timeout.IdleStateEvent;
import java.util.List;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
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
 * longer be cut into frames with confidence. A connection that sits with half a frame for
 * {@link ServerConfig#frameTimeout()} is closed.
 */
public final class ServerConnection extends ChannelInboundHandlerAdapter {

    private static final Logger LOG = LoggerFactory.getLogger(ServerConnection.class);

    private final BasaltServer server;
    private final Channel channel;
    private final GroupedWriter writer;
    private final FrameDecoder decoder;
    private final String peer;

    ServerConnection(BasaltServer server, Channel channel, FrameDecoder decoder, ServerConfig config) {
        this.server = server;
        this.channel = channel;
        this.decoder = decoder;
        this.writer = new GroupedWriter(channel, config.writeMode(), config.groupingThreshold(),
                config.linger().toNanos());
        this.peer = String.valueOf(channel.remoteAddress());
    }

    /** The client's address, for messages. */
    public String peer() {
        return peer;
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
        server.requestDone();
    }

    /** Sends an error response for {@code failure}, choosing the status from its type. */
    public void fail(long requestId, OpCode op, Throwable failure) {
        Throwable t = unwrap(failure);
        Status status = statusOf(t);
        if (status == Status.SERVER_ERROR) {
            LOG.warn("{} from {} failed", op, peer, t);
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
        server.requestDone();
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
        return switch (t) {
            case TableNotFoundException _ -> Status.TABLE_NOT_FOUND;
            case TableExistsException _ -> Status.TABLE_EXISTS;
            case NoSuchFamilyException _ -> Status.NO_SUCH_FAMILY;
            case MalformedFrameException _ -> Status.MALFORMED_REQUEST;
            case UnknownScannerException _ -> Status.UNKNOWN_SCANNER;
            case StoreReadOnlyException _ -> Status.READ_ONLY;
            case IllegalArgumentException _ -> Status.INVALID_ARGUMENT;
            default -> Status.SERVER_ERROR;
        };
    }

    /** The values the client rebuilds a typed exception from: table (and family) names, a reason. */
    static List<String> argsOf(Throwable t) {
        return switch (t) {
            case TableNotFoundException e -> List.of(e.table());
            case TableExistsException e -> List.of(e.table());
            case NoSuchFamilyException e -> List.of(e.table(), e.family());
            case StoreReadOnlyException e -> List.of(e.reason());
            default -> List.of();
        };
    }

    // ------------------------------------------------------------------ inbound (event loop)

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
        server.opened(this);
        ctx.fireChannelActive();
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        switch (msg) {
            case Handshake h -> handshake(ctx, h);
            case Frame f -> {
                try {
                    request(f);
                } finally {
                    f.release();
                }
            }
            case FrameDecoder.TooLargeFrame t -> {
                server.requestStarted();
                error(t.requestId(), t.opCode(), Status.FRAME_TOO_LARGE, "request frame of " + t.length()
                        + " bytes is over the server's limit of " + server.config().maxFrameSize() + " bytes; it was"
                        + " discarded unread", List.of());
            }
            default -> throw new IllegalStateException("unexpected message " + msg.getClass());
        }
    }

    private void handshake(ChannelHandlerContext ctx, Handshake h) {
        ByteBuf reply = ctx.alloc().buffer(FrameLayout.HANDSHAKE_SIZE);
        if (h.version() != FrameLayout.VERSION) {
            FrameLayout.writeHandshake(reply, FrameLayout.VERSION, FrameLayout.HANDSHAKE_REFUSED);
            LOG.info("refused {}: it speaks protocol version {}, this server {}", peer, h.version(), FrameLayout.VERSION);
            ctx.writeAndFlush(reply).addListener(ChannelFutureListener.CLOSE);
            return;
        }
        FrameLayout.writeHandshake(reply, FrameLayout.VERSION, FrameLayout.HANDSHAKE_ACCEPTED);
        ctx.writeAndFlush(reply);
    }

    private void request(Frame f) {
        server.requestStarted();
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
        try {
            server.handler().handle(this, f.requestId(), op, f.body());
        } catch (RuntimeException e) {
            fail(f.requestId(), op, e);
        }
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
        if (evt instanceof IdleStateEvent && decoder.partial()) {
            LOG.info("closing {}: half a frame has waited longer than {} ms", peer,
                    server.config().frameTimeout().toMillis());
            ctx.close();
            return;
        }
        ctx.fireUserEventTriggered(evt);
    }

    @Override
    public void channelWritabilityChanged(ChannelHandlerContext ctx) {
        writer.writabilityChanged();
        ctx.fireChannelWritabilityChanged();
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        Throwable t = cause instanceof io.netty.handler.codec.DecoderException && cause.getCause() != null
                ? cause.getCause() : cause;
        if (t instanceof MalformedFrameException) {
            LOG.info("closing {}: {}", peer, t.getMessage());
        } else {
            LOG.warn("closing {} after an error", peer, t);
        }
        ctx.close();
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
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
