package io.basalt.client.net;

import io.basalt.bytes.Bytes;
import io.basalt.client.RegionInfo;
import io.basalt.protocol.OpCode;
import io.basalt.protocol.Wire;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * Where a cluster client sends each row's operations: to the node leading the row's region, as
 * the region map says. The map of a table is asked of the cluster ({@code LIST_REGIONS}, which
 * names each region's leader) on first use and again once it is {@link #MAP_AGE_NANOS} old, in
 * the background: a request never waits for it, and goes through the connection's own client
 * until the map is known. Routing is only where a request starts: a node that no longer leads the
 * region forwards it, and each node's client fails over to the others as the connection's own
 * does, so a stale map costs a hop, never a wrong answer.
 *
 * <p>One client per leader, each starting at that node and failing over to the rest, all sharing
 * the connection's I/O threads and call numbering.
 */
final class ClusterRouting implements AutoCloseable {

    /** How old a table's region map may get before it is asked for again (leaders move). */
    static final long MAP_AGE_NANOS = TimeUnit.SECONDS.toNanos(2);

    private record TableMap(List<RegionInfo> regions, long fetchedAt) {}

    private final RpcClient main;
    private final Map<String, TableMap> maps = new ConcurrentHashMap<>();
    private final Map<String, CompletableFuture<Void>> asking = new ConcurrentHashMap<>();
    private final Map<String, RpcClient> byLeader = new ConcurrentHashMap<>();
    private volatile boolean closed;

    ClusterRouting(RpcClient main) {
        this.main = main;
    }

    RpcClient main() {
        return main;
    }

    /** The client for operations on {@code row} of {@code table}: its region's leader's, or the main one. */
    RpcClient route(String table, byte[] row) {
        TableMap map = maps.get(table);
        if (map == null || System.nanoTime() - map.fetchedAt() > MAP_AGE_NANOS) {
            ask(table);
        }
        if (map == null) {
            return main;
        }
        RegionInfo region = find(map.regions(), row);
        if (region == null || region.leader().isEmpty()) {
            return main;
        }
        return byLeader.computeIfAbsent(region.leader(), this::startingAt);
    }

    /** The region holding {@code row}: the last whose start is at or before it, if it reaches the row. */
    static RegionInfo find(List<RegionInfo> regions, byte[] row) {
        int lo = 0;
        int hi = regions.size() - 1;
        RegionInfo found = null;
        while (lo <= hi) {
            int mid = (lo + hi) >>> 1;
            RegionInfo r = regions.get(mid);
            if (Bytes.compare(r.start(), row) <= 0) {
                found = r;
                lo = mid + 1;
            } else {
                hi = mid - 1;
            }
        }
        return found != null && found.contains(row) ? found : null;
    }

    /** Asks for {@code table}'s map unless an ask is under way; never waits for the answer. */
    private void ask(String table) {
        if (closed) {
            return;
        }
        CompletableFuture<Void> mine = new CompletableFuture<>();
        if (asking.putIfAbsent(table, mine) != null) {
            return;
        }
        // Sent outside the map's update: the call may complete at once (a closed client), in this thread.
        main.call(OpCode.LIST_REGIONS, "LIST_REGIONS '" + table + "'", buf -> Wire.writeString(buf, table),
                Messages::readRegions).whenComplete((regions, failure) -> {
                    if (regions != null) {
                        List<RegionInfo> sorted = new ArrayList<>(regions);
                        sorted.sort(Comparator.comparing(RegionInfo::start, Bytes::compare));
                        maps.put(table, new TableMap(List.copyOf(sorted), System.nanoTime()));
                    } else {
                        // no map (a missing table, a cluster in an election): the main client serves until the next ask
                        maps.put(table, new TableMap(List.of(), System.nanoTime()));
                    }
                    asking.remove(table, mine);
                    mine.complete(null);
                });
    }

    /** A client starting at {@code leader} (a {@code host:port}), failing over to the connection's nodes. */
    private RpcClient startingAt(String leader) {
        int colon = leader.lastIndexOf(':');
        RpcClient.Address first = new RpcClient.Address(leader.substring(0, colon),
                Integer.parseInt(leader.substring(colon + 1)));
        List<RpcClient.Address> order = new ArrayList<>();
        order.add(first);
        main.addresses().stream().filter(a -> !a.equals(first)).forEach(order::add);
        RpcClient c = new RpcClient(order, main);
        if (closed) {
            c.close();
        }
        return c;
    }

    /** Closes the per-leader clients (the main one is the connection's to close). */
    @Override
    public void close() {
        closed = true;
        byLeader.values().forEach(RpcClient::close);
    }
}
