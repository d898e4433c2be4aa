package io.basalt.server;

import io.basalt.protocol.OpCode;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;

/**
 * The engine behind a test's hook: passes each request on to the engine at once, or, when
 * {@link #hold} says so, later, on a virtual thread of its own once {@link #awaitRelease} returns
 * (the body is copied, since the server's is valid only during {@code handle}).
 */
abstract class DeferringHandler implements RequestHandler {

    final EngineHandler engine;

    DeferringHandler(EngineHandler engine) {
        this.engine = engine;
    }

    /** Whether to hold this request back; may read {@code body} through a duplicate. Event loop. */
    abstract boolean hold(OpCode op, ByteBuf body);

    /** Blocks the held request's thread until it may go on to the engine. */
    abstract void awaitRelease() throws InterruptedException;

    @Override
    public final void handle(ServerConnection connection, long requestId, OpCode op, ByteBuf body) {
        if (!hold(op, body)) {
            engine.handle(connection, requestId, op, body);
            return;
        }
        ByteBuf copy = Unpooled.copiedBuffer(body);
        Thread.ofVirtual().name("held-" + op).start(() -> {
            try {
                awaitRelease();
                engine.handle(connection, requestId, op, copy);
            } catch (RuntimeException | InterruptedException | AssertionError e) {
                connection.fail(requestId, op, e);
            } finally {
                copy.release();
            }
        });
    }

    @Override
    public void closed(ServerConnection connection) {
        engine.closed(connection);
    }

    @Override
    public void close() {
        engine.close();
    }
}
