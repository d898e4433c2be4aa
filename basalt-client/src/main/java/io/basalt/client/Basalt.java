package io.basalt.client;

import io.basalt.client.net.ClientOptions;
import io.basalt.client.net.RemoteConnection;
import io.basalt.client.net.RpcClient;
import io.basalt.client.spi.EmbeddedStoreProvider;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.ServiceLoader;

/**
 * Where a program starts: opens an embedded store in a directory, or connects to a server.
 *
 * <p>{@link #connect(String)} takes a URI: {@code basalt://host:port} for a server (port 16020
 * when left out), {@code basalts://host:port} for one that serves TLS (trusting the JDK's CAs
 * unless {@link ClientOptions#tls()} says otherwise), {@code file:///path} or a plain path for an
 * embedded store in that directory.
 */
public final class Basalt {

    /** The port a server listens on unless told otherwise. */
    public static final int DEFAULT_PORT = 16020;

    private Basalt() {}

    /** Connects to {@code uri} with default options; see the class comment for the forms. */
    public static Connection connect(String uri) {
        return connect(uri, ClientOptions.defaults(), StoreOptions.defaults());
    }

    /** One {@code host[:port]} of a {@code basalt://} URI. */
    private static RpcClient.Address address(String uri, String node) {
        URI parsed;
        try {
            parsed = new URI("basalt://" + node);
        } catch (URISyntaxException e) {
            throw new IllegalArgumentException("'" + uri + "' is not a valid URI: " + e.getMessage(), e);
        }
        if (node.isEmpty() || parsed.getHost() == null || (parsed.getPath() != null && !parsed.getPath().isEmpty())
                || parsed.getQuery() != null || parsed.getUserInfo() != null) {
            throw new IllegalArgumentException("'" + uri + "' is not a server address: expected basalt://host:port or,"
                    + " for a cluster, basalt://host1:port1,host2:port2,...");
        }
        return new RpcClient.Address(parsed.getHost(), parsed.getPort() < 0 ? DEFAULT_PORT : parsed.getPort());
    }

    /**
     * Connects to a server ({@code basalt://host[:port]}) or a cluster ({@code
     * basalt://host1:port1,host2:port2,...}: any node serves, the next when one fails, and writes
     * are applied once however often a failover makes the client send them) with {@code client}
     * options, or opens an
     * embedded store ({@code file:///path}, or a path) with {@code store} options.
     *
     * @throws IllegalArgumentException when the URI is neither form
     */
    public static Connection connect(String uri, ClientOptions client, StoreOptions store) {
        if (uri.startsWith("basalts://")) {
            ClientOptions secure = client.tls() != null ? client
                    : client.toBuilder().tls(ClientOptions.ClientTls.systemTrust()).build();
            return connect("basalt://" + uri.substring("basalts://".length()), secure, store);
        }
        if (uri.startsWith("basalt://")) {
            String nodes = uri.substring("basalt://".length());
            List<RpcClient.Address> addresses = new ArrayList<>();
            for (String node : nodes.split(",", -1)) {
                addresses.add(address(uri, node.trim()));
            }
            return new RemoteConnection(addresses, client);
        }
        if (uri.startsWith("file:")) {
            try {
                return open(Path.of(new URI(uri)), store);
            } catch (URISyntaxException | IllegalArgumentException e) {
                throw new IllegalArgumentException("'" + uri + "' is not a valid file URI: " + e.getMessage(), e);
            }
        }
        if (uri.contains("://")) {
            throw new IllegalArgumentException("'" + uri + "' has an unknown scheme: use basalt://host:port for a "
                    + "server (basalts:// with TLS), or file:///path or a path for an embedded store");
        }
        return open(Path.of(uri), store);
    }

    /** Opens (creating if needed) the embedded store in {@code directory} with default options. */
    public static Connection open(Path directory) {
        return open(directory, StoreOptions.defaults());
    }

    /**
     * Opens (creating if needed) the embedded store in {@code directory}. One process at a time
     * may open a directory.
     *
     * @throws BasaltException when {@code basalt-engine} is not on the class path, the directory
     *     is in use, or its files are damaged
     */
    public static Connection open(Path directory, StoreOptions options) {
        EmbeddedStoreProvider provider = ServiceLoader.load(EmbeddedStoreProvider.class).findFirst()
                .orElseThrow(() -> new BasaltException("no embedded store on the class path: add the basalt-engine"
                        + " module to open a store in " + directory));
        try {
            return provider.open(directory, options);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot open the store in " + directory + ": " + e.getMessage(), e);
        }
    }
}
