package io.basalt.bench.scan;

import io.basalt.cell.Cell;
import io.basalt.cell.CellLayout;
import io.basalt.cell.EncodedCell;
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
 *
 * <p>The rows' cells are held as the engine hands them to the server: each an {@link EncodedCell}
 * over its own bytes (the engine's file iterator copies each cell out of its block), so encoding
 * a batch costs what it costs behind a real store, one copy per cell, and not the encoding of
 * cells built from arrays, which only the client's writes go through.
 */
final class RowSourceHandler implements RequestHandler {

    private final List<Result> rows;
    private final long rowBytes;
    private final long totalRows;
    private final Map<Long, long[]> cursors = new ConcurrentHashMap<>();
    private final AtomicLong ids = new AtomicLong();

    RowSourceHandler(List<Result> rows, long totalRows) {
        this.rows = new ArrayList<>(rows.size());
        for (Result r : rows) {
            List<Cell> cells = new ArrayList<>(r.size());
            for (Cell c : r.cells()) {
                cells.add(EncodedCell.decode(CellLayout.encode(c), 0));
            }
            this.rows.add(Result.of(cells));
        }
        this.totalRows = totalRows;
        long bytes = 0;
        for (Cell c : this.rows.getFirst().cells()) {
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
                // rows served, rows per batch, bytes per batch, number of the next batch
                long[] cursor = {0, scan.caching() == 0 ? Integer.MAX_VALUE : scan.caching(), scan.maxResultSize(), 1};
                cursors.put(id, cursor);
                respondBatch(c, requestId, op, id, cursor, true);
            }
            case SCAN_NEXT -> {
                long id = Wire.readVarlong(body, "scanner id");
                long number = Wire.readVarlong(body, "batch number");
                long[] cursor = cursors.get(id);
                if (cursor == null) {
                    c.error(requestId, op.code(), Status.UNKNOWN_SCANNER, "scanner " + id + " is unknown", List.of());
                    return;
                }
                // Requests are handled on the event loop, in the order they came: batch numbers
                // arrive in order, or the client is broken.
                if (number != cursor[3]) {
                    c.error(requestId, op.code(), Status.INVALID_ARGUMENT, "scanner " + id + " was asked for batch "
                            + number + "; the next is " + cursor[3], List.of());
                    return;
                }
                cursor[3]++;
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
        // Every row has the same size, so the hint needs no pass over the cells.
        int sizeHint = (int) Math.min(Integer.MAX_VALUE - 64, 64 + n * (rowBytes + 8));
        c.respond(requestId, op, sizeHint, buf -> {
            if (open) {
                Wire.writeVarlong(buf, id);
            }
            Wire.writeBoolean(buf, more);
            Messages.writeResults(buf, batch);
        });
    }
}
