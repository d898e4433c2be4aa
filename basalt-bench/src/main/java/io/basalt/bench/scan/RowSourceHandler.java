package io.basalt.bench.scan;

import io.basalt.cell.Cell;
import io.basalt.cell.CellLayout;
import io.basalt.client.Result;
import io.basalt.client.Scan;
import io.basalt.client.net.Messages;
import io.basalt.protocol.OpCode;
import io.basalt.protocol.Status;
import io.basalt.protocol.Wire;
import io.basalt.server.RequestHandler;
import io.basalt.server.ServerConnection;
import io.netty.buffer.ByteBuf;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The end-to-end scan's server: it serves {@code totalRows} rows from memory (a fixed set of
 * rows, cycled) through real server-side scanners — {@code SCAN_OPEN}, {@code SCAN_NEXT},
 * batches cut by the scan's caching and {@code maxResultSize}, encoded per batch — so what is
 * measured is the protocol, the transport and the client, not the storage engine.
 */
final class RowSourceHandler implements RequestHandler {

    private final List<Result> rows;
    private final long rowBytes;
    private final long totalRows;
    private final Map<Long, long[]> cursors = new ConcurrentHashMap<>();
    private final AtomicLong ids = new AtomicLong();

    RowSourceHandler(List<Result> rows, long totalRows) {
        this.rows = rows;
        this.totalRows = totalRows;
        long bytes = 0;
        for (Cell c : rows.getFirst().cells()) {
            bytes += CellLayout.encodedLength(c);
        }
        this.rowBytes = bytes;
    }

    @Override
    public void handle(ServerConnection c, long requestId, OpCode op, ByteBuf body) {
        switch (op) {
            case SCAN_OPEN -> {
                Wire.readString(body, "table");
                Scan scan = Messages.readScan(body);
                long id = ids.incrementAndGet();
                long[] cursor = {0, scan.caching() == 0 ? Integer.MAX_VALUE : scan.caching(), scan.maxResultSize()};
                cursors.put(id, cursor);
                respondBatch(c, requestId, op, id, cursor, true);
            }
            case SCAN_NEXT -> {
                long id = Wire.readVarlong(body, "scanner id");
                long[] cursor = cursors.get(id);
                if (cursor == null) {
                    c.error(requestId, op.code(), Status.UNKNOWN_SCANNER, "scanner " + id + " is unknown", List.of());
                    return;
                }
                respondBatch(c, requestId, op, id, cursor, false);
            }
            case SCAN_CLOSE -> {
                cursors.remove(Wire.readVarlong(body, "scanner id"));
                c.respond(requestId, op, _ -> { });
            }
            default -> c.error(requestId, op.code(), Status.UNKNOWN_OP, "this server only scans", List.of());
        }
    }

    private void respondBatch(ServerConnection c, long requestId, OpCode op, long id, long[] cursor, boolean open) {
        long fitting = Math.max(1, cursor[2] / rowBytes);
        long n = Math.min(Math.min(cursor[1], fitting), totalRows - cursor[0]);
        List<Result> batch = new ArrayList<>((int) n);
        for (long i = 0; i < n; i++) {
            batch.add(rows.get((int) ((cursor[0] + i) % rows.size())));
        }
        cursor[0] += n;
        boolean more = cursor[0] < totalRows;
        if (!more) {
            cursors.remove(id);
        }
        c.respond(requestId, op, buf -> {
            if (open) {
                Wire.writeVarlong(buf, id);
            }
            Wire.writeBoolean(buf, more);
            Messages.writeResults(buf, batch);
        });
    }
}
