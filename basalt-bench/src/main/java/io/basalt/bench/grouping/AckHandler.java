package io.basalt.bench.grouping;

import io.basalt.client.net.Messages;
import io.basalt.protocol.OpCode;
import io.basalt.protocol.Status;
import io.basalt.protocol.Wire;
import io.basalt.server.RequestHandler;
import io.basalt.server.ServerConnection;
import io.netty.buffer.ByteBuf;
import java.util.List;

/**
 * The {@code grouping} suite's server with the engine off: it decodes each PUT in full (table
 * name and mutation, as the real handler does) and acknowledges it at once, on the event loop.
 * What is left to measure is the transport: framing, the pipeline, writes, flushes and syscalls.
 */
final class AckHandler implements RequestHandler {

    @Override
    public void handle(ServerConnection connection, long requestId, OpCode op, ByteBuf body) {
        if (op != OpCode.PUT) {
            connection.error(requestId, op.code(), Status.UNKNOWN_OP, "the acknowledging server only takes PUT",
                    List.of());
            return;
        }
        Wire.readString(body, "table name");
        Messages.readMutation(body);
        Wire.end(body, "PUT");
        connection.respond(requestId, op, _ -> { });
    }
}
