package io.basalt.cluster;

import io.basalt.client.Admin;
import io.basalt.client.AsyncTable;
import io.basalt.client.BufferedMutator;
import io.basalt.client.CheckAndMutate;
import io.basalt.client.Connection;
import io.basalt.client.ConnectionTimer;
import io.basalt.client.Delete;
import io.basalt.client.Get;
import io.basalt.client.Increment;
import io.basalt.client.Mutation;
import io.basalt.client.Put;
import io.basalt.client.RegionInfo;
import io.basalt.client.Result;
import io.basalt.client.ResultScanner;
import io.basalt.client.Scan;
import io.basalt.client.TableDescriptor;
import io.basalt.client.net.CallNumbers;
import io.basalt.client.spi.IdentifiedCalls;
import io.basalt.protocol.CallId;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

/**
 * The cluster as one store, from one node: a {@link Connection} whose tables route each row to
 * its region's Raft group (proposed here when this node leads it, forwarded otherwise) and whose
 * admin calls go to the metadata group. The node's network server serves clients through it, so
 * every node answers every request.
 *
 * <p>Writes are sent as {@link WriteCall}s with this connection's client id and increasing call
 * ids: a call Ratis resends after a lost reply, even to a new leader, applies once.
 */
final class ClusterConnection implements Connection, IdentifiedCalls {

    /** Rows one scan query fetches from a region. */
    static final int SCAN_PAGE_ROWS = 1000;
    /** Where regions are described: asking a replica for its leader may wait a second, off the event loop. */
    private static final java.util.concurrent.Executor DESCRIBE = r -> Thread.ofVirtual().name("describe-regions").start(r);

    private final BasaltNode node;
    private final ConnectionTimer timer;
    private final CallNumbers calls = new CallNumbers();

    ClusterConnection(BasaltNode node) {
        this.node = node;
        this.timer = new ConnectionTimer("cluster node " + node.id());
    }

    @Override
    public Admin admin() {
        return new ClusterAdmin();
    }

    @Override
    public AsyncTable table(String name) {
        return new ClusterTable(name, null);
    }

    /**
     * {@code name} for one call of a network client: its writes go to the regions under the
     * client's own id and call id, so the client's resend (through any node) applies once. A batch
     * over several regions is one call per region, all under the client's call id, each operation
     * at its index in the batch (see {@link WriteCall#positions()}).
     */
    @Override
    public AsyncTable table(String name, CallId call) {
        return new ClusterTable(name, call);
    }

    @Override
    public BufferedMutator.Builder bufferedMutator(String name) {
        return timer.mutator(table(name));
    }

    @Override
    public String target() {
        return "cluster node " + node.id();
    }

    @Override
    public void close() {
        timer.close();
    }

    /**
     * Writes {@code operations} (all of one region) as one call; completes with their outcomes.
     * With {@code identity} (a network client's call), the part of that call at {@code positions};
     * else a call of this connection's own.
     */
    private CompletableFuture<List<Object>> call(MetaState.Region region, List<?> operations, CallId identity,
                                                 List<Integer> positions) {
        if (identity != null) {
            return suspectSplit(region, node.cluster().write(region.groupId(), region.table(), new WriteCall(
                    identity.clientId(), identity.callId(), identity.completedBelow(), operations, positions)));
        }
        CallId id = calls.next();
        WriteCall call = new WriteCall(id.clientId(), id.callId(), id.completedBelow(), operations, positions);
        return suspectSplit(region, node.cluster().write(region.groupId(), region.table(), call))
                .whenComplete((_, _) -> calls.done(id.callId()));
    }

    /**
     * A region that split refuses each operation as unavailable (nothing applied): the next request
     * reads the region map afresh and goes to the daughters.
     */
    private CompletableFuture<List<Object>> suspectSplit(MetaState.Region region, CompletableFuture<List<Object>> f) {
        return f.whenComplete((outcomes, _) -> {
            if (outcomes != null && outcomes.stream().anyMatch(o -> o instanceof io.basalt.client.UnavailableException)) {
                node.router().suspect(region.table());
            }
        });
    }

    private static <T> T single(List<Object> outcomes, Class<T> type) {
        Object o = outcomes.getFirst();
        if (o instanceof RuntimeException e) {
            throw e;
        }
        return type.cast(o);
    }

    private final class ClusterTable implements AsyncTable {
        private final String name;
        private final CallId identity;

        ClusterTable(String name, CallId identity) {
            this.name = name;
            this.identity = identity;
        }

        @Override
        public String name() {
            return name;
        }

        private CompletableFuture<List<Object>> one(byte[] row, Object operation) {
            return forgetOnFailure(node.router().region(name, row)
                    .thenCompose(region -> call(region, List.of(operation), identity, List.of(0))));
        }

        /**
         * A region that could not be reached may be gone (its table dropped, or dropped and made
         * again, through another node, or its replicas moved): the next request reads the region
         * map afresh, keeping the one it had if the metadata group cannot answer.
         */
        private <T> CompletableFuture<T> forgetOnFailure(CompletableFuture<T> f) {
            return f.whenComplete((_, failure) -> {
                if (failure != null && ClusterNode.unwrap(failure) instanceof io.basalt.client.UnavailableException) {
                    node.router().suspect(name);
                }
            });
        }

        @Override
        public CompletableFuture<Void> put(Put put) {
            return one(put.row(), put).thenApply(o -> single(o, Void.class));
        }

        @Override
        public CompletableFuture<Void> delete(Delete delete) {
            return one(delete.row(), delete).thenApply(o -> single(o, Void.class));
        }

        @Override
        public CompletableFuture<Result> increment(Increment increment) {
            return one(increment.row(), increment).thenApply(o -> single(o, Result.class));
        }

        @Override
        public CompletableFuture<Result> append(io.basalt.client.Append append) {
            return one(append.row(), append).thenApply(o -> single(o, Result.class));
        }

        @Override
        public CompletableFuture<Boolean> checkAndMutate(CheckAndMutate check) {
            return one(check.row(), check).thenApply(o -> single(o, Boolean.class));
        }

        @Override
        public List<CompletableFuture<Object>> batch(List<? extends Mutation> mutations) {
            List<CompletableFuture<Object>> out = new ArrayList<>(mutations.size());
            for (int i = 0; i < mutations.size(); i++) {
                out.add(new CompletableFuture<>());
            }
            // One call per region: each region applies its part once, in one entry.
            CompletableFuture<List<MetaState.Region>> located = node.router().regions(name);
            located.whenComplete((regions, failure) -> {
                if (failure != null) {
                    out.forEach(f -> f.completeExceptionally(failure));
                    return;
                }
                Map<MetaState.Region, List<Integer>> byRegion = new LinkedHashMap<>();
                for (int i = 0; i < mutations.size(); i++) {
                    MetaState.Region r = BasaltNode.regionOf(regions, mutations.get(i).row());
                    byRegion.computeIfAbsent(r, _ -> new ArrayList<>()).add(i);
                }
                byRegion.forEach((region, indexes) -> {
                    List<Mutation> part = new ArrayList<>(indexes.size());
                    indexes.forEach(i -> part.add(mutations.get(i)));
                    call(region, part, identity, indexes).whenComplete((outcomes, f) -> {
                        for (int j = 0; j < indexes.size(); j++) {
                            CompletableFuture<Object> target = out.get(indexes.get(j));
                            if (f != null) {
                                target.completeExceptionally(f);
                            } else if (outcomes.get(j) instanceof RuntimeException e) {
                                target.completeExceptionally(e);
                            } else {
                                target.complete(outcomes.get(j));
                            }
                        }
                    });
                });
            });
            return out;
        }

        @Override
        public CompletableFuture<Result> get(Get get) {
            return forgetOnFailure(node.router().region(name, get.row()).thenCompose(region -> node.cluster()
                    .get(region.groupId(), name, get, ClusterNode.ReadMode.of(get))));
        }

        @Override
        public ResultScanner scanner(Scan scan) {
            return new ClusterScanner(name, scan, node.router().regions(name).join());
        }

        @Override
        public CompletableFuture<List<Result>> scanAll(Scan scan) {
            return CompletableFuture.supplyAsync(() -> {
                List<Result> out = new ArrayList<>();
                try (ResultScanner s = scanner(scan)) {
                    for (Result r; (r = s.next()) != null; ) {
                        out.add(r);
                    }
                }
                return out;
            });
        }
    }

    /**
     * Walks a table's regions in scan order, a page of rows from each at a time, every page a
     * linearizable read of its region; the next page starts after the last row seen. The regions
     * are those of the table when the scan opened.
     */
    private final class ClusterScanner implements ResultScanner {
        /** How often a scan reads the region map again when a region it reached split or went. */
        private static final int REROUTES = 50;

        private final String table;
        private final Scan scan;
        private List<MetaState.Region> regions;
        private int reroutes;
        private final ArrayDeque<Result> buffered = new ArrayDeque<>();
        private int region;
        private byte[] after;
        private long returned;
        private boolean closed;

        ClusterScanner(String table, Scan scan, List<MetaState.Region> regions) {
            this.table = table;
            this.scan = scan.copy();
            this.regions = ordered(regions);
        }

        private List<MetaState.Region> ordered(List<MetaState.Region> list) {
            List<MetaState.Region> ordered = new ArrayList<>(list);
            if (scan.reversed()) {
                java.util.Collections.reverse(ordered);
            }
            return ordered;
        }

        /**
         * The region the scan was reading split (or its group went): reads the map again and goes
         * on in the region that now holds where it was, from the row after the last one returned.
         */
        private void reroute(io.basalt.client.UnavailableException failure) {
            if (++reroutes > REROUTES) {
                throw failure;
            }
            MetaState.Region was = regions.get(region);
            // where the scan is: after the last row returned if that was in this region, else at
            // the region's first row (its last, reversed)
            boolean within = after != null && was.contains(after);
            node.router().suspect(table);
            List<MetaState.Region> fresh = ordered(node.router().regions(table).join());
            for (int i = 0; i < fresh.size(); i++) {
                MetaState.Region r = fresh.get(i);
                boolean here = within ? r.contains(after)
                        : scan.reversed() ? java.util.Arrays.equals(r.end(), was.end())
                        : java.util.Arrays.equals(r.start(), was.start());
                if (here) {
                    if (r.groupId().equals(was.groupId())) { // the map has not changed yet: wait for it
                        sleep(200);
                    }
                    regions = fresh;
                    region = i;
                    return;
                }
            }
            throw failure;
        }

        @Override
        public Result next() {
            while (!closed && buffered.isEmpty() && region < regions.size()) {
                if (scan.limit() > 0 && returned >= scan.limit()) {
                    break;
                }
                Scan page = after == null ? scan.copy() : scan.copy().withStartRow(after, false);
                page.setLimit(0);
                int rows = (int) Math.min(SCAN_PAGE_ROWS, scan.limit() > 0 ? scan.limit() - returned : SCAN_PAGE_ROWS);
                RegionCodec.Rows got;
                try {
                    got = node.cluster().scan(regions.get(region).groupId(), table, page, rows,
                            ClusterNode.ReadMode.of(scan)).join();
                } catch (CompletionException e) {
                    if (e.getCause() instanceof io.basalt.client.UnavailableException u) {
                        reroute(u);
                        continue;
                    }
                    throw e.getCause() instanceof RuntimeException r ? r : e;
                }
                buffered.addAll(got.results());
                if (!got.results().isEmpty()) {
                    after = got.results().getLast().row();
                }
                if (!got.more()) {
                    region++;
                }
            }
            Result r = buffered.poll();
            if (r != null) {
                returned++;
            }
            return r;
        }

        @Override
        public void close() {
            closed = true;
            buffered.clear();
        }
    }

    private static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new io.basalt.client.BasaltException("interrupted while a scan waited for the region map", e);
        }
    }

    private final class ClusterAdmin implements Admin {
        @Override
        public CompletableFuture<Void> createTable(TableDescriptor table, List<byte[]> splitKeys) {
            return node.createTable(table, splitKeys);
        }

        @Override
        public CompletableFuture<List<TableDescriptor>> listTables() {
            return node.listTables();
        }

        @Override
        public CompletableFuture<TableDescriptor> describeTable(String name) {
            return node.listTables().thenApply(tables -> tables.stream().filter(t -> t.name().equals(name))
                    .findFirst().orElseThrow(() -> new io.basalt.client.TableNotFoundException(name)));
        }

        @Override
        public CompletableFuture<Void> dropTable(String name) {
            return node.dropTable(name);
        }

        @Override
        public CompletableFuture<Void> truncateTable(String name, boolean preserveSplits) {
            return node.truncateTable(name, preserveSplits);
        }

        @Override
        public CompletableFuture<Void> disableTable(String name) {
            return notInACluster("disabling table " + name);
        }

        @Override
        public CompletableFuture<Void> enableTable(String name) {
            return notInACluster("enabling table " + name);
        }

        @Override
        public CompletableFuture<Boolean> isTableDisabled(String name) {
            return listTables().thenApply(tables -> {
                if (tables.stream().noneMatch(t -> t.name().equals(name))) {
                    throw new io.basalt.client.TableNotFoundException(name);
                }
                return false; // a cluster's tables are always enabled
            });
        }

        private static <T> CompletableFuture<T> notInACluster(String what) {
            return CompletableFuture.failedFuture(new IllegalArgumentException(what
                    + " is not supported in a cluster yet; a cluster's tables are always enabled"));
        }

        @Override
        public CompletableFuture<Void> modifyTable(TableDescriptor table) {
            return CompletableFuture.failedFuture(new IllegalArgumentException("altering table " + table.name()
                    + " is not supported in a cluster yet: its regions' replicas would have to change their"
                    + " families together, through their logs"));
        }

        /** Every replica of every region of the table flushes its memtables (none of it is logged). */
        @Override
        public CompletableFuture<Void> flush(String name) {
            return everyReplica(name, RegionCodec.FLUSH);
        }

        /** Every replica of every region of the table compacts its files, each on its own. */
        @Override
        public CompletableFuture<Void> compact(String name) {
            return everyReplica(name, RegionCodec.COMPACT);
        }

        private CompletableFuture<Void> everyReplica(String name, int kind) {
            return node.router().refresh(name).thenCompose(regions -> {
                List<CompletableFuture<Void>> all = new ArrayList<>();
                for (MetaState.Region r : regions) {
                    for (int replica : r.replicas()) {
                        all.add(node.cluster().housekeeping(r.groupId(),
                                org.apache.ratis.protocol.RaftPeerId.valueOf("n" + replica), name, kind));
                    }
                }
                return CompletableFuture.allOf(all.toArray(CompletableFuture[]::new));
            });
        }

        @Override
        public CompletableFuture<io.basalt.client.ClusterInfo> clusterStatus() {
            return node.status();
        }

        @Override
        public CompletableFuture<List<RegionInfo>> listRegions(String table) {
            // the region map as the metadata has it now (replicas move), leaders as the replicas know them
            return node.router().refresh(table).thenApplyAsync(regions -> regions.stream().map(node::describe).toList(),
                    DESCRIBE);
        }

        @Override
        public CompletableFuture<RegionInfo> locateRegion(String table, byte[] row) {
            return node.router().refresh(table).thenApplyAsync(regions -> node.describe(BasaltNode.regionOf(regions, row)),
                    DESCRIBE);
        }

        @Override
        public CompletableFuture<Void> split(String table, byte[] row) {
            return node.split(table, row);
        }

        @Override
        public CompletableFuture<Void> mergeRegions(String table, String firstRegion, String secondRegion) {
            return node.merge(table, firstRegion, secondRegion);
        }
    }
}
