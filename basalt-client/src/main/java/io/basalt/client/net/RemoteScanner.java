package io.basalt.client.net;

import io.basalt.cell.Cell;
import io.basalt.client.BasaltException;
import io.basalt.client.Result;
import io.basalt.client.ResultScanner;
import io.basalt.client.Scan;
import io.basalt.client.ScannerExpiredException;
import io.basalt.protocol.MalformedFrameException;
import io.basalt.protocol.OpCode;
import io.basalt.protocol.Wire;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

/**
 * A scan served by a server-side scanner, one batch per round trip.
 *
 * <p>The server may split a row larger than the scan's {@code maxResultSize} over several
 * batches, as partial results. Unless the caller allowed partial results (or set a batch size,
 * which asks for parts), the parts are joined back into one result before the caller sees it:
 * the only case where cells are copied into a new list.
 *
 * <p>Each batch is decoded once and its results are handed out from that list: nothing is
 * copied into a second collection. The event loop only reads a batch's count and length; the
 * results are framed ({@link Messages.EncodedResults#decode}) on the caller's thread when it
 * reaches the batch, and each result's cells are checked when the caller first reads them, so a
 * busy reader does not hold up the connection's other responses and reads each row's bytes
 * while they are in its cache.
 *
 * <p>While the caller works through a batch, the next ones are already requested: as many as
 * {@link ClientOptions#scanPrefetchBatches} allows for the scan's {@code maxResultSize}, so the
 * read-ahead is bounded in bytes. With one batch ahead, the server sits idle while a batch
 * crosses the network and is decoded; with two, it prepares one while the other travels. Each
 * request carries its batch's number, which keeps the batches in order on the server.
 *
 * <p>When the server forgot the scanner (its lease expired while the caller was busy), the scan
 * resumes from after the last whole row it returned; when the last result was part of a row it
 * cannot, and fails with a {@link ScannerExpiredException}. Any other failure of a batch fails the
 * scanner for good: going on would skip that batch's rows.
 */
final class RemoteScanner implements ResultScanner {

    /** A batch as the event loop hands it over: its cells are checked by whoever takes it. */
    private record Batch(long scannerId, boolean more, Messages.EncodedResults encoded) {}

    private final RpcClient rpc;
    /**
     * The connection every request of this scan goes out on. The server serves a scanner only to
     * the connection that opened it; with requests spread over a client's connections, a
     * {@code SCAN_NEXT} on another one was refused as an unknown scanner, the scan resumed on a
     * new server scanner, and the old one stayed open until its lease ran out (in YCSB's E over
     * two connections, about a third of all scans, until their scanners filled the server's heap).
     */
    private final int slot;
    private final String table;
    private final Scan scan;

    private boolean opened;
    private long scannerId = -1;
    private boolean more = true;
    private List<Result> batch = List.of();
    private int index;
    /** Batches requested ahead of the one being read, oldest first: at most {@link #depth}. */
    private final ArrayDeque<CompletableFuture<Batch>> ahead = new ArrayDeque<>();
    /** How many batches to keep requested ahead. */
    private final int depth;
    /** The number of the last batch requested from the current server scanner (its first is 0). */
    private long requested;
    private byte[] lastRow;
    private boolean lastPartial;
    private long returned;
    private boolean closed;
    /** Why the scan cannot go on: a batch was lost, so no later row may be handed out. */
    private BasaltException broken;
    /** Whether parts of rows are joined before the caller sees them. */
    private final boolean stitch;

    RemoteScanner(RpcClient rpc, String table, Scan scan) {
        this.rpc = rpc;
        this.table = table;
        this.scan = scan.copy();
        this.stitch = !scan.allowPartialResults() && scan.batch() == 0;
        this.depth = rpc.options().scanPrefetchBatches(scan.maxResultSize());
        this.slot = rpc.nextSlot();
    }

    private CompletableFuture<Batch> open(Scan s) {
        return rpc.callOn(slot, OpCode.SCAN_OPEN, "SCAN_OPEN on table '" + table + "'", buf -> {
            Wire.writeString(buf, table);
            Messages.writeScan(buf, s);
            Messages.writeConsistency(buf, s);
        }, buf -> {
            long id = Wire.readVarlong(buf, "scanner id");
            boolean hasMore = Wire.readBoolean(buf, "more");
            return new Batch(id, hasMore, Messages.readEncodedResults(buf));
        });
    }

    private CompletableFuture<Batch> fetch(long id, long number) {
        return rpc.callOn(slot, OpCode.SCAN_NEXT, "SCAN_NEXT of scanner " + id + " on table '" + table + "'",
                buf -> {
                    Wire.writeVarlong(buf, id);
                    Wire.writeVarlong(buf, number);
                },
                buf -> {
                    boolean hasMore = Wire.readBoolean(buf, "more");
                    return new Batch(id, hasMore, Messages.readEncodedResults(buf));
                });
    }

    private void take(Batch b) {
        opened = true;
        if (b.scannerId != scannerId) {
            requested = 0; // a new server scanner: its open request was batch 0
        }
        scannerId = b.scannerId;
        more = b.more;
        batch = results(b);
        index = 0;
    }

    /** The batch's results, its cells checked here, on the caller's thread. */
    private List<Result> results(Batch b) {
        if (b.encoded == null) {
            return List.of();
        }
        try {
            return b.encoded.decode("a scan batch from " + rpc.server() + " for table '" + table + "'");
        } catch (MalformedFrameException e) {
            throw new BasaltException("malformed scan batch from " + rpc.server() + " for table '" + table + "': "
                    + e.getMessage(), e);
        }
    }

    @Override
    public Result next() {
        if (!stitch) {
            return nextRaw();
        }
        List<Cell> row = null;
        while (true) {
            Result r;
            try {
                r = nextRaw();
            } catch (RowRestarted e) {
                row = null; // the scan resumed at the start of the row being stitched
                continue;
            }
            if (r == null) {
                if (row != null) {
                    throw new BasaltException("the scan of table '" + table + "' ended inside a partial row");
                }
                return null;
            }
            if (row == null && !r.isPartial()) {
                return r;
            }
            if (row == null) {
                row = new ArrayList<>(r.cells());
            } else {
                row.addAll(r.cells());
            }
            if (!r.isPartial()) {
                return Result.of(row);
            }
        }
    }

    /** The resumed scan starts again at the row whose parts were being stitched. */
    private static final class RowRestarted extends RuntimeException {
        private static final long serialVersionUID = 1L;

        RowRestarted() {
            super(null, null, false, false);
        }
    }

    /** The next result as the server sent it, whole row or part. */
    private Result nextRaw() {
        if (closed) {
            return null;
        }
        if (broken != null) {
            throw broken;
        }
        boolean restarted = false;
        try {
            while (index >= batch.size()) {
                if (!opened) {
                    take(await(open(scan)));
                    continue;
                }
                if (!more) {
                    closed = true;
                    return null;
                }
                CompletableFuture<Batch> pending = ahead.isEmpty() ? fetch(scannerId, ++requested) : ahead.poll();
                try {
                    take(await(pending));
                } catch (ScannerExpiredException e) {
                    restarted |= lastPartial;
                    ahead.clear(); // asked of the scanner that expired: they fail too, unread
                    take(await(resume(e)));
                }
            }
        } catch (BasaltException e) {
            // A batch that failed is lost: going on would skip its rows, so the scan stays failed.
            broken = e;
            throw e;
        }
        if (restarted) {
            lastPartial = false;
            throw new RowRestarted();
        }
        Result r = batch.get(index++);
        lastRow = r.row();
        lastPartial = r.isPartial();
        if (!lastPartial) {
            returned++;
        }
        while (more && ahead.size() < depth) {
            ahead.add(fetch(scannerId, ++requested));
        }
        return r;
    }

    /**
     * Opens a new server scanner just after the last whole row returned; or, when this scanner
     * stitches parts of rows and was inside one, at that row again (its parts are dropped).
     */
    private CompletableFuture<Batch> resume(ScannerExpiredException e) {
        if (lastPartial && !stitch) {
            throw new ScannerExpiredException(e.getMessage() + "; the scan cannot resume because its last result "
                    + "was part of a row");
        }
        Scan rest = scan.copy();
        if (lastRow != null) {
            rest.withStartRow(lastRow, lastPartial);
        }
        if (scan.limit() > 0) {
            rest.setLimit(scan.limit() - returned);
            if (rest.limit() == 0) {
                return CompletableFuture.completedFuture(new Batch(-1, false, null));
            }
        }
        return open(rest);
    }

    /** Every row of the scan, fetched batch after batch without blocking a thread. */
    CompletableFuture<List<Result>> collectAll() {
        List<Result> all = new ArrayList<>();
        return open(scan).thenCompose(b -> collect(b, all, 1));
    }

    private CompletableFuture<List<Result>> collect(Batch b, List<Result> all, long number) {
        all.addAll(results(b));
        if (!b.more) {
            return CompletableFuture.completedFuture(stitch ? stitched(all) : all);
        }
        return fetch(b.scannerId, number).thenCompose(next -> collect(next, all, number + 1));
    }

    /** Joins each run of partial results with the result that ends it. */
    private static List<Result> stitched(List<Result> results) {
        List<Result> out = new ArrayList<>(results.size());
        List<Cell> row = null;
        for (Result r : results) {
            if (row == null && !r.isPartial()) {
                out.add(r);
                continue;
            }
            if (row == null) {
                row = new ArrayList<>();
            }
            row.addAll(r.cells());
            if (!r.isPartial()) {
                out.add(Result.of(row));
                row = null;
            }
        }
        if (row != null) {
            throw new BasaltException("the scan ended inside a partial row");
        }
        return out;
    }

    private static <T> T await(CompletableFuture<T> f) {
        try {
            return f.join();
        } catch (CompletionException e) {
            if (e.getCause() instanceof BasaltException b) {
                throw b;
            }
            throw new BasaltException(e.getCause().getMessage(), e.getCause());
        }
    }

    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        ahead.clear();
        if (opened && more && scannerId >= 0) {
            long id = scannerId;
            rpc.callOn(slot, OpCode.SCAN_CLOSE, "SCAN_CLOSE of scanner " + id, buf -> Wire.writeVarlong(buf, id),
                    _ -> null);
        }
    }
}
