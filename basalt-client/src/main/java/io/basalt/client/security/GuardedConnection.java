package io.basalt.client.security;

import io.basalt.client.Admin;
import io.basalt.client.Append;
import io.basalt.client.AsyncTable;
import io.basalt.client.BufferedMutator;
import io.basalt.client.CheckAndMutate;
import io.basalt.client.ClusterInfo;
import io.basalt.client.Connection;
import io.basalt.client.Delete;
import io.basalt.client.Get;
import io.basalt.client.Increment;
import io.basalt.client.Mutation;
import io.basalt.client.Put;
import io.basalt.client.RegionInfo;
import io.basalt.client.Result;
import io.basalt.client.ResultScanner;
import io.basalt.client.Scan;
import io.basalt.client.ServerStatus;
import io.basalt.client.TableDescriptor;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.Executors;
import java.util.function.Supplier;

/**
 * A store as one user reaches it: every operation is checked by {@link AccessControl} before it
 * goes to the store, and a refused one completes with {@link AccessDeniedException} (a scanner
 * throws it when opened). Closing it leaves the store open.
 */
final class GuardedConnection implements Connection {

    /** Where user and grant operations, which read and write the store in turn, wait. */
    private static final Executor BLOCKING = Executors.newThreadPerTaskExecutor(
            Thread.ofVirtual().name("basalt-acl-", 0).factory());

    private final AccessControl access;
    private final Connection store;
    private final String user;
    private final GuardedAdmin admin;

    GuardedConnection(AccessControl access, Connection store, String user) {
        this.access = access;
        this.store = store;
        this.user = user;
        this.admin = new GuardedAdmin(store.admin());
    }

    @Override
    public Admin admin() {
        return admin;
    }

    @Override
    public AsyncTable table(String name) {
        return new GuardedTable(access, user, store.table(name));
    }

    @Override
    public BufferedMutator.Builder bufferedMutator(String name) {
        return BufferedMutator.builder(table(name));
    }

    @Override
    public String target() {
        return store.target() + " as " + user;
    }

    @Override
    public void close() {
        // the store is its owner's
    }

    /** {@code check}, then {@code call}; a refusal completes the future rather than throwing. */
    private static <T> CompletableFuture<T> checked(Runnable check, Supplier<CompletableFuture<T>> call) {
        try {
            check.run();
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
        return call.get();
    }

    /** A table of the store as the user reaches it. */
    static final class GuardedTable implements AsyncTable {
        private final AccessControl access;
        private final String user;
        private final AsyncTable table;

        GuardedTable(AccessControl access, String user, AsyncTable table) {
            this.access = access;
            this.user = user;
            this.table = table;
        }

        @Override
        public String name() {
            return table.name();
        }

        @Override
        public CompletableFuture<Void> put(Put put) {
            return checked(() -> access.checkWrite(user, name(), put, "put into"), () -> table.put(put));
        }

        @Override
        public CompletableFuture<Result> get(Get get) {
            return checked(() -> access.checkRead(user, name(), get, "get from"), () -> table.get(get));
        }

        @Override
        public CompletableFuture<Void> delete(Delete delete) {
            return checked(() -> access.checkWrite(user, name(), delete, "delete from"), () -> table.delete(delete));
        }

        @Override
        public List<CompletableFuture<Object>> batch(List<? extends Mutation> mutations) {
            List<CompletableFuture<Object>> out = new ArrayList<>(mutations.size());
            List<Mutation> allowed = new ArrayList<>(mutations.size());
            List<Integer> where = new ArrayList<>(mutations.size());
            for (Mutation m : mutations) {
                try {
                    access.checkWrite(user, name(), m, "write (batch) into");
                    where.add(out.size());
                    allowed.add(m);
                    out.add(null);
                } catch (RuntimeException e) {
                    out.add(CompletableFuture.failedFuture(e));
                }
            }
            if (!allowed.isEmpty()) {
                List<CompletableFuture<Object>> done = table.batch(allowed);
                for (int i = 0; i < done.size(); i++) {
                    out.set(where.get(i), done.get(i));
                }
            }
            return out;
        }

        @Override
        public CompletableFuture<Boolean> checkAndMutate(CheckAndMutate check) {
            return checked(() -> access.checkCheckAndMutate(user, name(), check, "check-and-mutate"),
                    () -> table.checkAndMutate(check));
        }

        @Override
        public CompletableFuture<Result> increment(Increment increment) {
            return checked(() -> access.checkWrite(user, name(), increment, "increment in"), () -> table.increment(increment));
        }

        @Override
        public CompletableFuture<Result> append(Append append) {
            return checked(() -> access.checkWrite(user, name(), append, "append to"), () -> table.append(append));
        }

        @Override
        public ResultScanner scanner(Scan scan) {
            access.checkRead(user, name(), scan, "scan");
            return table.scanner(scan);
        }

        @Override
        public CompletableFuture<List<Result>> scanAll(Scan scan) {
            return checked(() -> access.checkRead(user, name(), scan, "scan"), () -> table.scanAll(scan));
        }
    }

    /** The store's admin as the user reaches it. */
    private final class GuardedAdmin implements Admin {
        private final Admin admin;

        GuardedAdmin(Admin admin) {
            this.admin = admin;
        }

        @Override
        public CompletableFuture<Void> createTable(TableDescriptor table, List<byte[]> splitKeys) {
            return checked(() -> {
                if (AccessControl.TABLE.equals(table.name())) {
                    access.checkTable(user, Action.CREATE, table.name(), "create");
                }
                access.checkGlobal(user, Action.CREATE, "create table '" + table.name() + "'");
            }, () -> admin.createTable(table, splitKeys));
        }

        @Override
        public CompletableFuture<List<TableDescriptor>> listTables() {
            return admin.listTables().thenApply(all -> all.stream().filter(t -> access.sees(user, t.name())).toList());
        }

        @Override
        public CompletableFuture<TableDescriptor> describeTable(String name) {
            return checked(() -> access.checkSees(user, name, "describe"), () -> admin.describeTable(name));
        }

        @Override
        public CompletableFuture<Void> dropTable(String name) {
            // the store forgets the table's grants with it (a table made later under the name starts bare)
            return checked(() -> access.checkTable(user, Action.CREATE, name, "drop table '" + name + "'"),
                    () -> admin.dropTable(name).thenRun(access::reload));
        }

        @Override
        public CompletableFuture<Void> truncateTable(String name, boolean preserveSplits) {
            return checked(() -> access.checkTable(user, Action.CREATE, name, "truncate table '" + name + "'"),
                    () -> admin.truncateTable(name, preserveSplits));
        }

        @Override
        public CompletableFuture<Void> modifyTable(TableDescriptor table) {
            return checked(() -> access.checkTable(user, Action.CREATE, table.name(), "alter table '" + table.name() + "'"),
                    () -> admin.modifyTable(table));
        }

        @Override
        public CompletableFuture<Void> disableTable(String name) {
            return checked(() -> access.checkTable(user, Action.CREATE, name, "disable table '" + name + "'"),
                    () -> admin.disableTable(name));
        }

        @Override
        public CompletableFuture<Void> enableTable(String name) {
            return checked(() -> access.checkTable(user, Action.CREATE, name, "enable table '" + name + "'"),
                    () -> admin.enableTable(name));
        }

        @Override
        public CompletableFuture<Boolean> isTableDisabled(String name) {
            return checked(() -> access.checkSees(user, name, "ask whether it disabled"), () -> admin.isTableDisabled(name));
        }

        @Override
        public CompletableFuture<Void> flush(String name) {
            return checked(() -> access.checkTable(user, Action.CREATE, tableOf(name), "flush '" + name + "'"),
                    () -> admin.flush(name));
        }

        @Override
        public CompletableFuture<Void> compact(String name) {
            return checked(() -> access.checkTable(user, Action.CREATE, tableOf(name), "compact '" + name + "'"),
                    () -> admin.compact(name));
        }

        /** The table a flush or compaction names: itself, or the table of a region name ({@code table,start,id}). */
        private static String tableOf(String name) {
            int comma = name.indexOf(',');
            return comma < 0 ? name : name.substring(0, comma);
        }

        @Override
        public CompletableFuture<List<RegionInfo>> listRegions(String table) {
            return checked(() -> access.checkSees(user, table, "list the regions of"), () -> admin.listRegions(table));
        }

        @Override
        public CompletableFuture<RegionInfo> locateRegion(String table, byte[] row) {
            return checked(() -> access.checkSees(user, table, "locate a region of"), () -> admin.locateRegion(table, row));
        }

        @Override
        public CompletableFuture<Void> split(String table, byte[] row) {
            return checked(() -> access.checkTable(user, Action.CREATE, table, "split table '" + table + "'"),
                    () -> admin.split(table, row));
        }

        @Override
        public CompletableFuture<Void> mergeRegions(String table, String firstRegion, String secondRegion) {
            return checked(() -> access.checkTable(user, Action.CREATE, table, "merge regions of table '" + table + "'"),
                    () -> admin.mergeRegions(table, firstRegion, secondRegion));
        }

        @Override
        public CompletableFuture<ServerStatus> serverStatus() {
            return checked(() -> access.checkGlobal(user, Action.ADMIN, "see the server's status"), admin::serverStatus);
        }

        @Override
        public CompletableFuture<ClusterInfo> clusterStatus() {
            return checked(() -> access.checkGlobal(user, Action.ADMIN, "see the cluster's status"), admin::clusterStatus);
        }

        @Override
        public CompletableFuture<Void> addUser(String name, char[] password) {
            return blocking(() -> access.checkUsers(user, name, false, "add user '" + name + "'"),
                    () -> access.addUser(name, AccessControl.credential(password)));
        }

        @Override
        public CompletableFuture<Void> removeUser(String name) {
            return blocking(() -> access.checkUsers(user, name, false, "remove user '" + name + "'"),
                    () -> access.removeUser(name));
        }

        @Override
        public CompletableFuture<Void> changePassword(String name, char[] password) {
            return blocking(() -> access.checkUsers(user, name, true, "change the password of user '" + name + "'"),
                    () -> access.changePassword(name, AccessControl.credential(password)));
        }

        @Override
        public CompletableFuture<List<String>> listUsers() {
            return checked(() -> access.checkUsers(user, null, false, "list the users"),
                    () -> CompletableFuture.completedFuture(access.users()));
        }

        @Override
        public CompletableFuture<Void> grant(Permission permission) {
            return blocking(() -> access.checkGrant(user, permission, "grant"), () -> access.grant(permission));
        }

        @Override
        public CompletableFuture<Void> revoke(Permission permission) {
            return blocking(() -> access.checkGrant(user, permission, "revoke"), () -> access.revoke(permission));
        }

        @Override
        public CompletableFuture<List<Permission>> permissions(String of, String table) {
            return checked(() -> access.checkPermissions(user, of, table),
                    () -> CompletableFuture.completedFuture(access.permissions(of, table)));
        }

        private static CompletableFuture<Void> blocking(Runnable check, Runnable change) {
            return checked(check, () -> CompletableFuture.runAsync(change, BLOCKING));
        }
    }
}
