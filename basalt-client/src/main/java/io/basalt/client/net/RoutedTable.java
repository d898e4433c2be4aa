package io.basalt.client.net;

import io.basalt.client.Append;
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
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A table of a cluster whose single-row operations go to the node leading the row's region
 * ({@link ClusterRouting}), and whose batches are split per leader: one request per node, which
 * groups the mutations for each of its regions into one log entry. Scans go through the
 * connection's node, which walks the regions in order.
 */
final class RoutedTable implements AsyncTable {

    private final ClusterRouting routing;
    private final String name;
    private final RemoteTable main;
    private final Map<RpcClient, RemoteTable> byClient = new ConcurrentHashMap<>();

    RoutedTable(ClusterRouting routing, String name) {
        this.routing = routing;
        this.name = Objects.requireNonNull(name, "name");
        this.main = new RemoteTable(routing.main(), name);
    }

    @Override
    public String name() {
        return name;
    }

    private RemoteTable at(byte[] row) {
        RpcClient c = routing.route(name, row);
        return c == routing.main() ? main : byClient.computeIfAbsent(c, k -> new RemoteTable(k, name));
    }

    @Override
    public CompletableFuture<Void> put(Put put) {
        return at(Objects.requireNonNull(put, "put").row()).put(put);
    }

    @Override
    public CompletableFuture<Void> delete(Delete delete) {
        return at(Objects.requireNonNull(delete, "delete").row()).delete(delete);
    }

    /** A strong read goes to the row's leader; a timeline read to the connection's node, any replica serving. */
    @Override
    public CompletableFuture<Result> get(Get get) {
        Objects.requireNonNull(get, "get");
        return get.consistency() == io.basalt.client.Consistency.TIMELINE ? main.get(get) : at(get.row()).get(get);
    }

    @Override
    public CompletableFuture<Result> increment(Increment increment) {
        return at(Objects.requireNonNull(increment, "increment").row()).increment(increment);
    }

    @Override
    public CompletableFuture<Result> append(Append append) {
        return at(Objects.requireNonNull(append, "append").row()).append(append);
    }

    @Override
    public CompletableFuture<Boolean> checkAndMutate(CheckAndMutate checkAndMutate) {
        return at(Objects.requireNonNull(checkAndMutate, "checkAndMutate").row()).checkAndMutate(checkAndMutate);
    }

    /** One batch per leader; each mutation's future completes with its own outcome, in the caller's order. */
    @Override
    public List<CompletableFuture<Object>> batch(List<? extends Mutation> mutations) {
        List<Mutation> copy = List.copyOf(mutations);
        Map<RemoteTable, List<Integer>> groups = new LinkedHashMap<>();
        for (int i = 0; i < copy.size(); i++) {
            groups.computeIfAbsent(at(copy.get(i).row()), _ -> new ArrayList<>()).add(i);
        }
        if (groups.size() <= 1) {
            return groups.isEmpty() ? List.of() : groups.keySet().iterator().next().batch(copy);
        }
        List<CompletableFuture<Object>> out = new ArrayList<>(copy.size());
        for (int i = 0; i < copy.size(); i++) {
            out.add(null);
        }
        for (Map.Entry<RemoteTable, List<Integer>> g : groups.entrySet()) {
            List<Mutation> part = g.getValue().stream().map(copy::get).toList();
            List<CompletableFuture<Object>> futures = g.getKey().batch(part);
            for (int j = 0; j < futures.size(); j++) {
                out.set(g.getValue().get(j), futures.get(j));
            }
        }
        return out;
    }

    @Override
    public ResultScanner scanner(Scan scan) {
        return main.scanner(scan);
    }

    @Override
    public CompletableFuture<List<Result>> scanAll(Scan scan) {
        return main.scanAll(scan);
    }
}
