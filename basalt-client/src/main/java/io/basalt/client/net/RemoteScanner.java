package io.basalt.client.net;

import io.basalt.cell.Cell;
import io.basalt.client.BasaltException;
import io.basalt.client.Result;
import io.basalt.client.ResultScanner;
import io.basalt.client.Scan;
import io.basalt.client.ScannerExpiredException;
import io.basalt.protocol.OpCode;
import io.basalt.protocol.Wire;
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
 * <p>Each batch is decoded once ({@link Messages#readResults}) and its results are handed out
 * from that list: nothing is copied into a second collection. While the caller works through a
 * batch, the next one is fetched (at most one batch ahead, so the prefetch is bounded by the
 * scan's {@code maxResultSize}). When the server forgot the scanner (its lease expired while the
 * caller was busy), the scan resumes from after the last whole row it returned; when the last
 * result was part of a row it cannot, and fails with a {@link ScannerExpiredException}.
 */
final class RemoteScanner implements ResultScanner {

    private record Batch(long scannerId, boolean more, List<Result> results) {}

    private final RpcClient rpc;
    private final String table;
    private final Scan scan;

    private boolean opened;
    private long scannerId = -1;
    private boolean more = true;
    private List<Result> batch = List.of();
    private int index;
    private CompletableFuture<Batch> prefetch;
    private byte[] lastRow;
    private boolean lastPartial;
    private long returned;
    private boolean closed;
    /** Whether parts of rows are joined before the caller sees them. */
    private final boolean stitch;

    RemoteScanner(RpcClient rpc, String table, Scan scan) {
        this.rpc = rpc;
        this.table = table;
        this.scan = scan.copy();
        this.stitch = !scan.allowPartialResults() && scan.batch() == 0;
    }

    private CompletableFuture<Batch> open(Scan s) {
        return rpc.call(OpCode.SCAN_OPEN, "SCAN_OPEN on table '" + table + "'", buf -> {
            Wire.writeString(buf, table);
            Messages.writeScan(buf, s);
        }, buf -> {
            long id = Wire.readVarlong(buf, "scanner id");
            boolean hasMore = Wire.readBoolean(buf, "more");
            return new Batch(id, hasMore, Messages.readResults(buf));
        });
    }

    private CompletableFuture<Batch> fetch(long id) {
        return rpc.call(OpCode.SCAN_NEXT, "SCAN_NEXT of scanner " + id + " on table '" + table + "'",
                buf -> Wire.writeVarlong(buf, id),
                buf -> {
                    boolean hasMore = Wire.readBoolean(buf, "more");
                    return new Batch(id, hasMore, Messages.readResults(buf));
                });
    }

    private void take(Batch b) {
        opened = true;
        scannerId = b.scannerId;
        more = b.more;
        batch = b.results;
        index = 0;
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
        boolean restarted = false;
        while (index >= batch.size()) {
            if (!opened) {
                take(await(open(scan)));
                continue;
            }
            if (!more) {
                closed = true;
                return null;
            }
            CompletableFuture<Batch> pending = prefetch != null ? prefetch : fetch(scannerId);
            prefetch = null;
            try {
                take(await(pending));
            } catch (ScannerExpiredException e) {
                restarted |= lastPartial;
                take(await(resume(e)));
            }
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
        if (more && prefetch == null && index * 2 >= batch.size()) {
            prefetch = fetch(scannerId);
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
                return CompletableFuture.completedFuture(new Batch(-1, false, List.of()));
            }
        }
        return open(rest);
    }

    /** Every row of the scan, fetched batch after batch without blocking a thread. */
    CompletableFuture<List<Result>> collectAll() {
        List<Result> all = new ArrayList<>();
        return open(scan).thenCompose(b -> collect(b, all));
    }

    private CompletableFuture<List<Result>> collect(Batch b, List<Result> all) {
        all.addAll(b.results);
        if (!b.more) {
            return CompletableFuture.completedFuture(stitch ? stitched(all) : all);
        }
        return fetch(b.scannerId).thenCompose(next -> collect(next, all));
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
        if (opened && more && scannerId >= 0) {
            long id = scannerId;
            rpc.call(OpCode.SCAN_CLOSE, "SCAN_CLOSE of scanner " + id, buf -> Wire.writeVarlong(buf, id), _ -> null);
        }
    }
}
