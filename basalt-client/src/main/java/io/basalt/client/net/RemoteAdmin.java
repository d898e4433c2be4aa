package io.basalt.client.net;

import io.basalt.client.Admin;
import io.basalt.client.ClusterInfo;
import io.basalt.client.RegionInfo;
import io.basalt.client.TableDescriptor;
import io.basalt.protocol.OpCode;
import io.basalt.protocol.Wire;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;

/** The admin operations of a server. */
final class RemoteAdmin implements Admin {

    private final RpcClient rpc;

    RemoteAdmin(RpcClient rpc) {
        this.rpc = rpc;
    }

    @Override
    public CompletableFuture<Void> createTable(TableDescriptor table, List<byte[]> splitKeys) {
        Objects.requireNonNull(table, "table");
        List<byte[]> keys = List.copyOf(splitKeys);
        return rpc.call(OpCode.CREATE_TABLE, "CREATE_TABLE '" + table.name() + "'",
                buf -> Messages.writeCreateTable(buf, table, keys), _ -> null);
    }

    @Override
    public CompletableFuture<List<TableDescriptor>> listTables() {
        return rpc.call(OpCode.LIST_TABLES, "LIST_TABLES", _ -> { }, Messages::readTables);
    }

    @Override
    public CompletableFuture<TableDescriptor> describeTable(String name) {
        Objects.requireNonNull(name, "name");
        return rpc.call(OpCode.DESCRIBE_TABLE, "DESCRIBE_TABLE '" + name + "'", buf -> Wire.writeString(buf, name),
                Messages::readTable);
    }

    @Override
    public CompletableFuture<Void> dropTable(String name) {
        return rpc.call(OpCode.DROP_TABLE, "DROP_TABLE '" + name + "'", buf -> Wire.writeString(buf, name), _ -> null);
    }

    @Override
    public CompletableFuture<Void> disableTable(String name) {
        return setDisabled(name, true);
    }

    @Override
    public CompletableFuture<Void> enableTable(String name) {
        return setDisabled(name, false);
    }

    private CompletableFuture<Void> setDisabled(String name, boolean disabled) {
        Objects.requireNonNull(name, "name");
        return rpc.call(OpCode.SET_TABLE_DISABLED, (disabled ? "DISABLE" : "ENABLE") + " '" + name + "'", buf -> {
            Wire.writeString(buf, name);
            Wire.writeBoolean(buf, disabled);
        }, _ -> null);
    }

    @Override
    public CompletableFuture<Boolean> isTableDisabled(String name) {
        Objects.requireNonNull(name, "name");
        return rpc.call(OpCode.IS_TABLE_DISABLED, "IS_TABLE_DISABLED '" + name + "'",
                buf -> Wire.writeString(buf, name), buf -> Wire.readBoolean(buf, "disabled"));
    }

    @Override
    public CompletableFuture<Void> modifyTable(TableDescriptor table) {
        Objects.requireNonNull(table, "table");
        return rpc.call(OpCode.MODIFY_TABLE, "MODIFY_TABLE '" + table.name() + "'",
                buf -> Messages.writeTable(buf, table), _ -> null);
    }

    @Override
    public CompletableFuture<Void> truncateTable(String name, boolean preserveSplits) {
        Objects.requireNonNull(name, "name");
        return rpc.call(OpCode.TRUNCATE_TABLE, "TRUNCATE_TABLE '" + name + "'", buf -> {
            Wire.writeString(buf, name);
            Wire.writeBoolean(buf, preserveSplits);
        }, _ -> null);
    }

    @Override
    public CompletableFuture<Void> flush(String name) {
        return rpc.call(OpCode.FLUSH, "FLUSH '" + name + "'", buf -> Wire.writeString(buf, name), _ -> null);
    }

    @Override
    public CompletableFuture<Void> compact(String name) {
        return rpc.call(OpCode.COMPACT, "COMPACT '" + name + "'", buf -> Wire.writeString(buf, name), _ -> null);
    }

    @Override
    public CompletableFuture<io.basalt.client.ServerStatus> serverStatus() {
        return rpc.call(OpCode.SERVER_STATUS, "SERVER_STATUS", _ -> { }, Messages::readServerStatus);
    }

    @Override
    public CompletableFuture<ClusterInfo> clusterStatus() {
        return rpc.call(OpCode.CLUSTER_STATUS, "CLUSTER_STATUS", _ -> { }, Messages::readClusterInfo);
    }

    @Override
    public CompletableFuture<List<RegionInfo>> listRegions(String table) {
        Objects.requireNonNull(table, "table");
        return rpc.call(OpCode.LIST_REGIONS, "LIST_REGIONS '" + table + "'", buf -> Wire.writeString(buf, table),
                Messages::readRegions);
    }

    @Override
    public CompletableFuture<RegionInfo> locateRegion(String table, byte[] row) {
        Objects.requireNonNull(table, "table");
        Objects.requireNonNull(row, "row");
        return rpc.call(OpCode.LOCATE_REGION, "LOCATE_REGION '" + table + "'", buf -> {
            Wire.writeString(buf, table);
            Wire.writeBytes(buf, row);
        }, Messages::readRegion);
    }

    @Override
    public CompletableFuture<Void> split(String table, byte[] row) {
        Objects.requireNonNull(table, "table");
        return rpc.call(OpCode.SPLIT, "SPLIT '" + table + "'", buf -> {
            Wire.writeString(buf, table);
            Wire.writeBoolean(buf, row != null);
            if (row != null) {
                Wire.writeBytes(buf, row);
            }
        }, _ -> null);
    }

    @Override
    public CompletableFuture<Void> mergeRegions(String table, String firstRegion, String secondRegion) {
        Objects.requireNonNull(table, "table");
        Objects.requireNonNull(firstRegion, "firstRegion");
        Objects.requireNonNull(secondRegion, "secondRegion");
        return rpc.call(OpCode.MERGE_REGIONS, "MERGE_REGIONS '" + table + "'", buf -> {
            Wire.writeString(buf, table);
            Wire.writeString(buf, firstRegion);
            Wire.writeString(buf, secondRegion);
        }, _ -> null);
    }

    // ------------------------------------------------------------------ users and grants

    @Override
    public CompletableFuture<Void> addUser(String user, char[] password) {
        return credentialCall(OpCode.USER_ADD, user, password);
    }

    @Override
    public CompletableFuture<Void> changePassword(String user, char[] password) {
        return credentialCall(OpCode.USER_PASSWORD, user, password);
    }

    /** The credential is made here: the password never leaves this process. */
    private CompletableFuture<Void> credentialCall(OpCode op, String user, char[] password) {
        String credential;
        try {
            io.basalt.client.security.Permission.checkUser(user);
            credential = io.basalt.client.security.AccessControl.credential(password).encode();
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
        return rpc.call(op, op + " '" + user + "'", buf -> {
            Wire.writeString(buf, user);
            Wire.writeString(buf, credential);
        }, _ -> null);
    }

    @Override
    public CompletableFuture<Void> removeUser(String user) {
        Objects.requireNonNull(user, "user");
        return rpc.call(OpCode.USER_REMOVE, "USER_REMOVE '" + user + "'", buf -> Wire.writeString(buf, user), _ -> null);
    }

    @Override
    public CompletableFuture<List<String>> listUsers() {
        return rpc.call(OpCode.USER_LIST, "USER_LIST", _ -> { }, Messages::readStrings);
    }

    @Override
    public CompletableFuture<Void> grant(io.basalt.client.security.Permission permission) {
        Objects.requireNonNull(permission, "permission");
        return rpc.call(OpCode.GRANT, "GRANT " + permission, buf -> Messages.writePermission(buf, permission), _ -> null);
    }

    @Override
    public CompletableFuture<Void> revoke(io.basalt.client.security.Permission permission) {
        Objects.requireNonNull(permission, "permission");
        return rpc.call(OpCode.REVOKE, "REVOKE " + permission, buf -> Messages.writePermission(buf, permission), _ -> null);
    }

    @Override
    public CompletableFuture<List<io.basalt.client.security.Permission>> permissions(String user, String table) {
        return rpc.call(OpCode.USER_PERMISSIONS, "USER_PERMISSIONS", buf -> {
            Wire.writeString(buf, user == null ? "" : user);
            Wire.writeString(buf, table == null ? "" : table);
        }, Messages::readPermissions);
    }
}
