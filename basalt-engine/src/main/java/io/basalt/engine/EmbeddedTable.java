package io.basalt.engine;

import io.basalt.client.AsyncTable;
import io.basalt.client.CheckAndMutate;
import io.basalt.client.Delete;
import io.basalt.client.Get;
import io.basalt.client.Increment;
import io.basalt.client.Mutation;
import io.basalt.client.Put;
import io.basalt.client.Result;
import io.basalt.client.ResultScanner;
import io.basalt.client.Scan;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * The embedded {@link AsyncTable}: operations run on the calling thread up to the write-ahead log,
 * and futures complete once the write is durable (on the log's completer thread, never under a lock). Reads
 * complete before the call returns.
 */
final class EmbeddedTable implements AsyncTable {

    private final Store store;
    private final String name;

    EmbeddedTable(Store store, String name) {
        this.store = store;
        this.name = name;
    }

    @Override
    public String name() {
        return name;
    }

    /** The table for a read or write: fails with {@link io.basalt.client.TableDisabledException} when it is disabled. */
    private TableRegions table() {
        TableRegions table = store.table(name);
        if (table.disabled()) {
            throw new io.basalt.client.TableDisabledException(name);
        }
        return table;
    }

    @Override
    public CompletableFuture<Void> put(Put put) {
        return mutate(put).thenApply(ignored -> null);
    }

    @Override
    public CompletableFuture<Result> get(Get get) {
        try {
            return CompletableFuture.completedFuture(table().get(get));
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    @Override
    public CompletableFuture<Void> delete(Delete delete) {
        return mutate(delete).thenApply(ignored -> null);
    }

    private CompletableFuture<Object> mutate(Mutation mutation) {
        try {
            return table().mutate(mutation);
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    @Override
    public List<CompletableFuture<Object>> batch(List<? extends Mutation> mutations) {
        TableRegions table;
        try {
            table = table();
        } catch (RuntimeException e) {
            List<CompletableFuture<Object>> failed = new ArrayList<>(mutations.size());
            mutations.forEach(m -> failed.add(CompletableFuture.failedFuture(e)));
            return failed;
        }
        return table.mutateAll(mutations);
    }

    @Override
    public CompletableFuture<Boolean> checkAndMutate(CheckAndMutate checkAndMutate) {
        try {
            return table().checkAndMutate(checkAndMutate);
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    @Override
    public CompletableFuture<Result> increment(Increment increment) {
        return mutate(increment).thenApply(Result.class::cast);
    }

    @Override
    public CompletableFuture<Result> append(io.basalt.client.Append append) {
        return mutate(append).thenApply(Result.class::cast);
    }

    @Override
    public ResultScanner scanner(Scan scan) {
        TableScanner scanner = table().scanner(scan);
        return new ResultScanner() {
            @Override
            public Result next() {
                return scanner.next();
            }

            @Override
            public void close() {
                scanner.close();
            }
        };
    }

    @Override
    public CompletableFuture<List<Result>> scanAll(Scan scan) {
        try (TableScanner scanner = table().scanner(scan)) {
            List<Result> rows = new ArrayList<>();
            for (Result row = scanner.next(); row != null; row = scanner.next()) {
                rows.add(row);
            }
            return CompletableFuture.completedFuture(rows);
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }
}
