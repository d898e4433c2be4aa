package io.basalt.engine;

import io.basalt.client.Admin;
import io.basalt.client.AsyncTable;
import io.basalt.client.BasaltException;
import io.basalt.client.BufferedMutator;
import io.basalt.client.Connection;
import io.basalt.client.ConnectionTimer;
import io.basalt.client.TableDescriptor;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/** A {@link Connection} to a store in this process: admin and tables call the engine directly. */
final class EmbeddedConnection implements Connection {

    private final Store store;
    private final Admin admin = new EmbeddedAdmin();
    private final ConnectionTimer mutatorTimer;

    EmbeddedConnection(Store store) {
        this.store = store;
        this.mutatorTimer = new ConnectionTimer(store.directory().toString());
    }

    Store store() {
        return store;
    }

    @Override
    public Admin admin() {
        return admin;
    }

    @Override
    public AsyncTable table(String name) {
        return new EmbeddedTable(store, name);
    }

    @Override
    public BufferedMutator.Builder bufferedMutator(String name) {
        return mutatorTimer.mutator(table(name));
    }

    @Override
    public String target() {
        return store.directory().toString();
    }

    @Override
    public void close() {
        mutatorTimer.close();
        try {
            store.close();
        } catch (IOException e) {
            throw new UncheckedIOException("closing the store in " + store.directory() + ": " + e.getMessage(), e);
        }
    }

    /** Runs an admin action on the calling thread, reporting failures through the future. */
    static <T> CompletableFuture<T> call(IoSupplier<T> action) {
        try {
            return CompletableFuture.completedFuture(action.get());
        } catch (IOException e) {
            return CompletableFuture.failedFuture(new BasaltException(e.getMessage(), e));
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    /** A supplier that may fail with an I/O error. */
    interface IoSupplier<T> {
        T get() throws IOException;
    }

    private final class EmbeddedAdmin implements Admin {
        @Override
        public CompletableFuture<Void> createTable(TableDescriptor table) {
            return call(() -> {
                store.createTable(table);
                return null;
            });
        }

        @Override
        public CompletableFuture<List<TableDescriptor>> listTables() {
            return call(store::tables);
        }

        @Override
        public CompletableFuture<TableDescriptor> describeTable(String name) {
            return call(() -> store.region(name).descriptor());
        }

        @Override
        public CompletableFuture<Void> dropTable(String name) {
            return call(() -> {
                store.dropTable(name);
                return null;
            });
        }

        @Override
        public CompletableFuture<Void> flush(String name) {
            return call(() -> store.region(name)).thenCompose(store::flushAsync);
        }

        @Override
        public CompletableFuture<Void> compact(String name) {
            return call(() -> store.region(name)).thenCompose(store::compactAsync);
        }
    }
}
