package io.basalt.client;

import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * Creates, lists, describes and drops tables, asks for flushes and compactions, and shows a
 * table's regions.
 */
public interface Admin {

    /** Creates a table of one region. Fails with {@link TableExistsException} when the name is taken. */
    default CompletableFuture<Void> createTable(TableDescriptor table) {
        return createTable(table, List.of());
    }

    /**
     * Creates a table pre-split at {@code splitKeys}: region {@code i} holds the rows from key
     * {@code i - 1} (the first, from the table's start) to key {@code i} (the last, to its end).
     * Fails with {@link TableExistsException} when the name is taken, and with an
     * {@link IllegalArgumentException} when a key is empty or the keys are not strictly ascending.
     */
    CompletableFuture<Void> createTable(TableDescriptor table, List<byte[]> splitKeys);

    /** The tables, sorted by name. */
    CompletableFuture<List<TableDescriptor>> listTables();

    /** Fails with {@link TableNotFoundException}. */
    CompletableFuture<TableDescriptor> describeTable(String name);

    /** Drops a table and all its data. Fails with {@link TableNotFoundException}. */
    CompletableFuture<Void> dropTable(String name);

    /**
     * Deletes every row of a table, keeping its descriptor: as one region, or with
     * {@code preserveSplits} the same region boundaries (HBase's {@code truncate} and
     * {@code truncate_preserve}). Operations racing it may fail with {@link TableNotFoundException}.
     */
    CompletableFuture<Void> truncateTable(String name, boolean preserveSplits);

    /**
     * Changes a table's column families to {@code table}'s (HBase's {@code alter}): a family it adds
     * starts empty, a family it leaves out is dropped with all its data, and the others take its
     * settings. Online: reads go on, writes wait for a moment; a write to a dropped family fails
     * with {@link NoSuchFamilyException} from then on. Completes when every region has the new
     * families. Fails with {@link TableNotFoundException}.
     */
    CompletableFuture<Void> modifyTable(TableDescriptor table);

    /**
     * Disables a table (HBase's {@code disable}): reads and writes of it fail with
     * {@link TableDisabledException} until it is enabled again, across restarts. Operations already
     * running when it is disabled may complete. Disabling a disabled table changes nothing.
     */
    CompletableFuture<Void> disableTable(String name);

    /** Enables a disabled table; enabling an enabled one changes nothing. */
    CompletableFuture<Void> enableTable(String name);

    /** Whether a table is disabled. Fails with {@link TableNotFoundException}. */
    CompletableFuture<Boolean> isTableDisabled(String name);

    /** Adds {@code family} to a table; fails with {@link IllegalArgumentException} when it has one of that name. */
    default CompletableFuture<Void> addColumnFamily(String table, FamilyDescriptor family) {
        return describeTable(table).thenCompose(current -> {
            if (current.family(family.name()).isPresent()) {
                throw new IllegalArgumentException("table " + table + " already has column family '" + family.name()
                        + "'; modify it instead");
            }
            List<FamilyDescriptor> families = new java.util.ArrayList<>(current.families());
            families.add(family);
            return modifyTable(new TableDescriptor(table, families));
        });
    }

    /** Replaces the settings of the family named as {@code family}; fails with {@link NoSuchFamilyException}. */
    default CompletableFuture<Void> modifyColumnFamily(String table, FamilyDescriptor family) {
        return describeTable(table).thenCompose(current -> {
            if (current.family(family.name()).isEmpty()) {
                throw new NoSuchFamilyException(table, family.name());
            }
            return modifyTable(new TableDescriptor(table, current.families().stream()
                    .map(f -> f.name().equals(family.name()) ? family : f).toList()));
        });
    }

    /**
     * Drops a family and all its data; fails with {@link NoSuchFamilyException}, or with
     * {@link IllegalArgumentException} for a table's last family.
     */
    default CompletableFuture<Void> deleteColumnFamily(String table, String family) {
        return describeTable(table).thenCompose(current -> {
            if (current.family(family).isEmpty()) {
                throw new NoSuchFamilyException(table, family);
            }
            if (current.families().size() == 1) {
                throw new IllegalArgumentException("column family '" + family + "' is the last of table " + table
                        + "; drop the table instead");
            }
            return modifyTable(new TableDescriptor(table, current.families().stream()
                    .filter(f -> !f.name().equals(family)).toList()));
        });
    }

    /**
     * Writes the in-memory data of a table (every region), or of one region named as {@link
     * RegionInfo#name()} prints it, to disk; completes when it is there.
     */
    CompletableFuture<Void> flush(String name);

    /**
     * Merges the files of each region of a table, or of one named region, into one per family;
     * completes when done.
     */
    CompletableFuture<Void> compact(String name);

    /** The table's regions in key order. Fails with {@link TableNotFoundException}. */
    CompletableFuture<List<RegionInfo>> listRegions(String table);

    /** The region holding {@code row}. Fails with {@link TableNotFoundException}. */
    CompletableFuture<RegionInfo> locateRegion(String table, byte[] row);

    /**
     * Splits the region holding {@code row} in two at {@code row}, or, with {@code row} null, every
     * region of the table at its middle row (a region with too little data to cut stays whole).
     * No data is rewritten. Fails with an {@link IllegalArgumentException} when {@code row} is where
     * its region already starts.
     */
    CompletableFuture<Void> split(String table, byte[] row);

    /**
     * Merges two adjacent regions of a table, named by {@link RegionInfo#name()} or by id, into
     * one. Fails with an {@link IllegalArgumentException} when they are not neighbours.
     */
    CompletableFuture<Void> mergeRegions(String table, String firstRegion, String secondRegion);

    /**
     * The store now: its memory, files, background work and each region's size and request counts
     * (the shell's {@code status}). An embedded store and a single server have one; a cluster
     * node's is the region replicas it holds (ask it over the network), and the cluster as a whole
     * is {@link #clusterStatus()}. A cluster's own connection fails with
     * {@link IllegalArgumentException}.
     */
    default CompletableFuture<ServerStatus> serverStatus() {
        return CompletableFuture.failedFuture(new IllegalArgumentException(
                "a cluster has no single store to describe; its status is clusterStatus(), a node's is its server's"));
    }

    /**
     * The cluster's nodes and regions, with each region's leader and replica lag. Only a cluster
     * has one; a single server or an embedded store fails with {@link IllegalArgumentException}.
     */
    default CompletableFuture<ClusterInfo> clusterStatus() {
        return CompletableFuture.failedFuture(new IllegalArgumentException(
                "not a cluster: this store runs on one node (start a cluster with basalt cluster start)"));
    }

    // ------------------------------------------------------------------ users and grants (issue 23)

    /**
     * Adds a user who authenticates with {@code password} (SCRAM-SHA-256; the store keeps a salted
     * credential, never the password). Needs global A; fails if the user exists.
     */
    default CompletableFuture<Void> addUser(String user, char[] password) {
        return unsupported("addUser");
    }

    /** Removes a user and every grant to it. Needs global A. */
    default CompletableFuture<Void> removeUser(String user) {
        return unsupported("removeUser");
    }

    /** Sets a user's password. Needs global A, or to be that user. */
    default CompletableFuture<Void> changePassword(String user, char[] password) {
        return unsupported("changePassword");
    }

    /** The users, sorted. Needs global A. */
    default CompletableFuture<List<String>> listUsers() {
        return unsupported("listUsers");
    }

    /**
     * Sets what {@code permission.user()} may do at its scope to {@code permission.actions()},
     * replacing what was granted there. Needs A at that scope's table, or globally.
     */
    default CompletableFuture<Void> grant(io.basalt.client.security.Permission permission) {
        return unsupported("grant");
    }

    /** Takes {@code permission.actions()} away at its scope. Needs A as {@link #grant} does. */
    default CompletableFuture<Void> revoke(io.basalt.client.security.Permission permission) {
        return unsupported("revoke");
    }

    /**
     * The grants of {@code user} (null: everyone's) on {@code table} and its families (null: every
     * grant, global ones included).
     * Needs global A, A on {@code table}, or to ask about oneself.
     */
    default CompletableFuture<List<io.basalt.client.security.Permission>> permissions(String user, String table) {
        return unsupported("permissions");
    }

    private static <T> CompletableFuture<T> unsupported(String what) {
        return CompletableFuture.failedFuture(new UnsupportedOperationException(what
                + " is not supported by this connection (users and grants are kept by a single store or server)"));
    }
}
