package io.basalt.client.net;

import io.basalt.client.Admin;
import io.basalt.client.AsyncTable;
import io.basalt.client.BufferedMutator;
import io.basalt.client.Connection;
import io.basalt.client.ConnectionTimer;
import java.util.List;

/** A {@link Connection} to a Basalt server over the network. */
public final class RemoteConnection implements Connection {

    private final RpcClient rpc;
    /** For a cluster: where each row's operations go; null for one server. */
    private final ClusterRouting routing;
    private final Admin admin;
    private final ConnectionTimer mutatorTimer;

    public RemoteConnection(String host, int port, ClientOptions options) {
        this(List.of(new RpcClient.Address(host, port)), options);
    }

    /** A connection to a cluster: any of {@code nodes} serves, the next when one fails. */
    public RemoteConnection(List<RpcClient.Address> nodes, ClientOptions options) {
        this.rpc = new RpcClient(nodes, options);
        this.routing = rpc.cluster() && options.routeToLeaders() ? new ClusterRouting(rpc) : null;
        this.admin = new RemoteAdmin(rpc);
        this.mutatorTimer = new ConnectionTimer(rpc.server());
    }

    /** The client underneath, for tests and tools that speak the protocol directly. */
    public RpcClient rpc() {
        return rpc;
    }

    @Override
    public Admin admin() {
        return admin;
    }

    @Override
    public AsyncTable table(String name) {
        return routing != null ? new RoutedTable(routing, name) : new RemoteTable(rpc, name);
    }

    @Override
    public BufferedMutator.Builder bufferedMutator(String name) {
        return mutatorTimer.mutator(table(name));
    }

    @Override
    public String target() {
        return rpc.server();
    }

    /** Closes every connection to the server; requests still pending fail, naming the server. */
    @Override
    public void close() {
        mutatorTimer.close();
        if (routing != null) {
            routing.close();
        }
        rpc.close();
    }
}
