package io.basalt.engine;

import io.basalt.client.Admin;
import io.basalt.client.AsyncTable;
import io.basalt.client.BasaltException;
import io.basalt.client.BufferedMutator;
import io.basalt.client.Connection;
import io.basalt.client.ConnectionTimer;
import io.basalt.client.RegionInfo;
import io.basalt.client.ServerStatus;
import io.basalt.client.TableDescriptor;
import io.basalt.client.spi.MemoryOnlyReads;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * A {@link Connection} to a store in this process: admin and tables call the engine directly. Its
 * gets keep {@link MemoryOnlyReads}' contract: the only waits on their path are block reads.
 */
final class EmbeddedConnection implements Connection, MemoryOnlyReads.Capable {

    private final Store store;
    private final Admin admin = new EmbeddedAdmin();
    private final ConnectionTimer mutatorTimer;
    private final long openedNanos = System.nanoTime();

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

    /** Users and grants in this store, read and written unchecked: who opens the files owns them. */
    private io.basalt.client.security.AccessControl acl;

    private synchronized io.basalt.client.security.AccessControl acl() {
        if (acl == null) {
            acl = io.basalt.client.security.AccessControl.over(this, java.util.Set.of(), java.time.Duration.ZERO);
        }
        return acl;
    }

    private final class EmbeddedAdmin implements Admin {
        @Override
        public CompletableFuture<Void> addUser(String user, char[] password) {
            return call(() -> {
                acl().addUser(user, io.basalt.client.security.AccessControl.credential(password));
                return null;
            });
        }

        @Override
        public CompletableFuture<Void> removeUser(String user) {
            return call(() -> {
                acl().removeUser(user);
                return null;
            });
        }

        @Override
        public CompletableFuture<Void> changePassword(String user, char[] password) {
            return call(() -> {
                acl().changePassword(user, io.basalt.client.security.AccessControl.credential(password));
                return null;
            });
        }

        @Override
        public CompletableFuture<List<String>> listUsers() {
            return call(() -> {
                acl().reload();
                return acl().users();
            });
        }

        @Override
        public CompletableFuture<Void> grant(io.basalt.client.security.Permission permission) {
            return call(() -> {
                acl().grant(permission);
                return null;
            });
        }

        @Override
        public CompletableFuture<Void> revoke(io.basalt.client.security.Permission permission) {
            return call(() -> {
                acl().revoke(permission);
                return null;
            });
        }

        @Override
        public CompletableFuture<List<io.basalt.client.security.Permission>> permissions(String user, String table) {
            return call(() -> {
                acl().reload();
                return acl().permissions(user, table);
            });
        }

        @Override
        public CompletableFuture<Void> createTable(TableDescriptor table, List<byte[]> splitKeys) {
            return call(() -> {
                store.createTable(table, splitKeys);
                return null;
            });
        }

        @Override
        public CompletableFuture<List<TableDescriptor>> listTables() {
            return call(store::tables);
        }

        @Override
        public CompletableFuture<TableDescriptor> describeTable(String name) {
            return call(() -> store.table(name).descriptor());
        }

        @Override
        public CompletableFuture<Void> dropTable(String name) {
            return call(() -> {
                store.dropTable(name);
                if (!io.basalt.client.security.AccessControl.TABLE.equals(name)) {
                    acl().forgetTable(name); // its grants go with it
                }
                return null;
            });
        }

        @Override
        public CompletableFuture<Void> disableTable(String name) {
            return call(() -> {
                store.setTableDisabled(name, true);
                return null;
            });
        }

        @Override
        public CompletableFuture<Void> enableTable(String name) {
            return call(() -> {
                store.setTableDisabled(name, false);
                return null;
            });
        }

        @Override
        public CompletableFuture<Boolean> isTableDisabled(String name) {
            return call(() -> store.table(name).disabled());
        }

        @Override
        public CompletableFuture<Void> modifyTable(TableDescriptor table) {
            return call(() -> {
                store.alterTable(table.name(), table);
                return null;
            });
        }

        @Override
        public CompletableFuture<Void> truncateTable(String name, boolean preserveSplits) {
            return call(() -> {
                store.truncateTable(name, preserveSplits);
                return null;
            });
        }

        @Override
        public CompletableFuture<Void> flush(String name) {
            return call(() -> regionsNamed(name)).thenCompose(regions -> each(regions, store::flushAsync));
        }

        @Override
        public CompletableFuture<Void> compact(String name) {
            return call(() -> regionsNamed(name)).thenCompose(regions -> each(regions, store::compactAsync));
        }

        /**
         * The regions {@code name} stands for: every region of a table, or one region named as
         * {@link RegionInfo#name()} prints it ({@code table,start,id}; a table name has no comma).
         */
        private List<Region> regionsNamed(String name) {
            int comma = name.indexOf(',');
            if (comma < 0) {
                return store.table(name).regions();
            }
            return List.of(store.table(name.substring(0, comma)).region(name));
        }

        @Override
        public CompletableFuture<List<RegionInfo>> listRegions(String table) {
            return call(() -> store.table(table).regions().stream().map(Region::info).toList());
        }

        @Override
        public CompletableFuture<RegionInfo> locateRegion(String table, byte[] row) {
            java.util.Objects.requireNonNull(row, "row");
            return call(() -> store.table(table).regionFor(row).info());
        }

        @Override
        public CompletableFuture<Void> split(String table, byte[] row) {
            return call(() -> store.table(table)).thenCompose(t -> {
                if (row != null) {
                    return store.splitAsync(t.regionFor(row), row).thenApply(ignored -> (Void) null);
                }
                // Every region at its middle; one too small to cut stays whole (split returns no daughters).
                return CompletableFuture.allOf(t.regions().stream().map(r -> store.splitAsync(r, null))
                        .toArray(CompletableFuture[]::new));
            });
        }

        @Override
        public CompletableFuture<ServerStatus> serverStatus() {
            return call(() -> store.metrics().status("embedded " + store.directory(),
                    java.util.concurrent.TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - openedNanos)));
        }

        @Override
        public CompletableFuture<Void> mergeRegions(String table, String firstRegion, String secondRegion) {
            return call(() -> {
                TableRegions t = store.table(table);
                return List.of(t.region(firstRegion), t.region(secondRegion));
            }).thenCompose(pair -> store.mergeAsync(pair.get(0), pair.get(1))).thenApply(ignored -> null);
        }

        /** Runs {@code action} on each region; completes when all did, or with the first failure. */
        private CompletableFuture<Void> each(List<Region> regions,
                                             java.util.function.Function<Region, CompletableFuture<Void>> action) {
            return CompletableFuture.allOf(regions.stream().map(action).toArray(CompletableFuture[]::new));
        }
    }
}
