package io.basalt.ycsb;

import io.basalt.client.Basalt;
import io.basalt.client.Connection;
import io.basalt.client.FamilyDescriptor;
import io.basalt.client.TableDescriptor;
import io.basalt.client.StoreOptions;
import io.basalt.client.TableExistsException;
import io.basalt.client.net.ClientOptions;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

/**
 * One connection per URI for all {@link BasaltDB} instances of the process, closed when the last
 * one gives it back. YCSB makes a DB per client thread; an embedded store can be opened only once
 * per process, and one network connection multiplexes every thread's calls.
 */
final class SharedConnections {

    private static final Map<String, Shared> OPEN = new HashMap<>();

    private SharedConnections() {}

    /** The connection for {@code options.uri()}, opened on first use. */
    static synchronized Lease acquire(BindingOptions options) {
        Shared shared = OPEN.get(options.uri());
        if (shared == null) {
            Connection connection = options.store() == null
                    ? Basalt.connect(options.uri(), ClientOptions.defaults().toBuilder()
                            .connections(options.connections()).build(), StoreOptions.defaults())
                    : Basalt.connect(options.uri(), ClientOptions.defaults(), options.store());
            shared = new Shared(options.uri(), connection);
            OPEN.put(options.uri(), shared);
        }
        shared.users++;
        return new Lease(shared);
    }

    /** The shared connection open for {@code uri}, if any. */
    static synchronized Optional<Connection> open(String uri) {
        Shared shared = OPEN.get(uri);
        return shared == null ? Optional.empty() : Optional.of(shared.connection);
    }

    /** How many URIs have an open shared connection (for tests). */
    static synchronized int openCount() {
        return OPEN.size();
    }

    private static synchronized void release(Shared shared) {
        if (--shared.users == 0) {
            OPEN.remove(shared.uri);
            shared.connection.close();
        }
    }

    private static final class Shared {
        final String uri;
        final Connection connection;
        final Set<String> checkedTables = new HashSet<>();
        int users;

        Shared(String uri, Connection connection) {
            this.uri = uri;
            this.connection = connection;
        }
    }

    /** One DB instance's use of a shared connection. */
    static final class Lease {
        private final Shared shared;
        private boolean released;

        private Lease(Shared shared) {
            this.shared = shared;
        }

        Connection connection() {
            return shared.connection;
        }

        /**
         * Checks, once per connection and table, that the table exists and has the family; creates
         * it when it is missing and {@code basalt.createtable} allows.
         *
         * @throws IllegalStateException naming what is missing and how to fix it
         */
        void ensureTable(String table, BindingOptions options) throws Exception {
            synchronized (shared) {
                if (shared.checkedTables.contains(table)) {
                    return;
                }
                Optional<TableDescriptor> found = find(table, options);
                if (found.isEmpty()) {
                    if (!options.createTable()) {
                        throw new IllegalStateException("table '" + table + "' does not exist; create it with the"
                                + " family '" + options.family() + "', or set " + BindingOptions.CREATE_TABLE + "=true");
                    }
                    FamilyDescriptor family = FamilyDescriptor.of(options.family());
                    if (options.blockSize() > 0) {
                        family = family.withBlockSize(options.blockSize());
                    }
                    if (options.bloomBitsPerKey() > 0) {
                        family = family.withBloomBitsPerKey(options.bloomBitsPerKey());
                    }
                    try {
                        shared.connection.admin().createTable(new TableDescriptor(table, List.of(family)))
                                .get(options.timeoutMillis(), TimeUnit.MILLISECONDS);
                    } catch (ExecutionException e) {
                        if (!(e.getCause() instanceof TableExistsException)) {
                            throw e; // another process creating it at the same time is fine
                        }
                    }
                    found = find(table, options);
                }
                TableDescriptor descriptor = found.orElseThrow(() -> new IllegalStateException("table '" + table
                        + "' was created but is not listed"));
                if (descriptor.family(options.family()).isEmpty()) {
                    throw new IllegalStateException("table '" + table + "' has no family '" + options.family()
                            + "' (its families: " + descriptor.families().stream().map(FamilyDescriptor::name)
                            .collect(Collectors.joining(", ")) + "); set " + BindingOptions.FAMILY);
                }
                shared.checkedTables.add(table);
            }
        }

        private Optional<TableDescriptor> find(String table, BindingOptions options) throws Exception {
            return shared.connection.admin().listTables().get(options.timeoutMillis(), TimeUnit.MILLISECONDS)
                    .stream().filter(t -> t.name().equals(table)).findFirst();
        }

        /** Gives the connection back; the last lease closes it. Idempotent. */
        void release() {
            if (!released) {
                released = true;
                SharedConnections.release(shared);
            }
        }
    }
}
