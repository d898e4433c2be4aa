package io.basalt.cluster;

import io.basalt.bytes.Bytes;
import io.basalt.client.TableDescriptor;
import io.basalt.client.TableExistsException;
import io.basalt.client.TableNotFoundException;
import io.basalt.client.net.Messages;
import io.basalt.protocol.MalformedFrameException;
import io.basalt.protocol.Wire;
import io.netty.buffer.ByteBuf;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import org.apache.ratis.protocol.RaftGroupId;

/**
 * What the metadata group holds: the cluster's nodes, its tables, and each table's regions with
 * the Raft group and the nodes that replicate each. Changed only by {@link MetaCommand}s applied in
 * log order, and deterministic: every member of the metadata group computes the same placements.
 * Not thread-safe: the state machine guards it.
 */
final class MetaState {

    /**
     * One region: rows {@code [start, end)} of a table ({@code end} empty: to the table's end),
     * replicated on the nodes {@code replicas}; {@code joining} is the node a replica is being
     * re-created on (it holds the group while it catches up), 0 when none is. A split's daughter
     * names its {@code parent}'s group and the parent's log index of the split ({@code seedIndex}):
     * each replica starts from a copy its parent's replica made at that index ({@code null} and 0
     * for a region made with its table). A merge's region names both halves' groups
     * ({@code parent} the lower, {@code otherParent} the upper; {@code null} for any other region)
     * and the larger of their log indexes of the merge ({@code seedIndex}), where its log starts.
     */
    record Region(String table, long id, byte[] start, byte[] end, UUID group, List<Integer> replicas,
                  boolean online, int joining, UUID parent, long seedIndex, UUID otherParent) {
        Region(String table, long id, byte[] start, byte[] end, UUID group, List<Integer> replicas, boolean online,
               int joining) {
            this(table, id, start, end, group, replicas, online, joining, null, 0, null);
        }

        Region(String table, long id, byte[] start, byte[] end, UUID group, List<Integer> replicas, boolean online,
               int joining, UUID parent, long seedIndex) {
            this(table, id, start, end, group, replicas, online, joining, parent, seedIndex, null);
        }

        /** Whether this region was made from {@code group}'s (by a split or a merge). */
        boolean madeFrom(UUID group) {
            return group.equals(parent) || group.equals(otherParent);
        }

        RaftGroupId groupId() {
            return RaftGroupId.valueOf(group);
        }

        boolean contains(byte[] row) {
            return Bytes.compare(row, start) >= 0 && (end.length == 0 || Bytes.compare(row, end) < 0);
        }

        Region markedOnline() {
            return new Region(table, id, start, end, group, replicas, true, joining, parent, seedIndex, otherParent);
        }

        Region withReplicas(List<Integer> now, int joiningNow) {
            return new Region(table, id, start, end, group, now.stream().sorted().toList(), online, joiningNow, parent,
                    seedIndex, otherParent);
        }

        /** Whether {@code node} should hold this region's group: a replica, or the one joining. */
        boolean wants(int node) {
            return replicas.contains(node) || joining == node;
        }
    }

    private final TreeMap<Integer, ClusterPeer> nodes = new TreeMap<>();
    private final TreeMap<String, TableDescriptor> tables = new TreeMap<>();
    private final TreeMap<String, List<Region>> regions = new TreeMap<>();
    private final java.util.TreeSet<Integer> dead = new java.util.TreeSet<>();
    private long nextRegionId = 1;
    /** Each merge decided: true when made, false when aborted. A merge is decided once, here. */
    private final TreeMap<UUID, Boolean> merges = new TreeMap<>();

    /** The nodes declared dead (and not seen since). */
    java.util.SortedSet<Integer> dead() {
        return java.util.Collections.unmodifiableSortedSet(dead);
    }

    List<ClusterPeer> nodes() {
        return List.copyOf(nodes.values());
    }

    List<TableDescriptor> tables() {
        return List.copyOf(tables.values());
    }

    TableDescriptor table(String name) {
        TableDescriptor t = tables.get(name);
        if (t == null) {
            throw new TableNotFoundException(name);
        }
        return t;
    }

    List<Region> regions(String table) {
        table(table);
        return List.copyOf(regions.get(table));
    }

    List<Region> allRegions() {
        List<Region> out = new ArrayList<>();
        regions.values().forEach(out::addAll);
        return out;
    }

    // ------------------------------------------------------------------ commands

    /** Records the cluster's nodes: once, when the cluster first starts; again only unchanged. */
    void setNodes(List<ClusterPeer> list) {
        if (list.isEmpty()) {
            throw new IllegalArgumentException("a cluster has at least one node");
        }
        TreeMap<Integer, ClusterPeer> given = new TreeMap<>();
        for (ClusterPeer n : list) {
            if (given.put(n.id(), n) != null) {
                throw new IllegalArgumentException("node " + n.id() + " is listed twice");
            }
        }
        if (!nodes.isEmpty() && !nodes.equals(given)) {
            throw new IllegalArgumentException("the cluster's nodes are " + nodes.values() + "; a node started with "
                    + given.values() + " (adding and moving nodes is not supported yet)");
        }
        nodes.putAll(given);
    }

    /**
     * Creates a table of {@code splitKeys.size() + 1} regions, each placed on the {@code replication}
     * nodes holding the fewest replicas (ties to the lower id), its Raft group id derived from the
     * table, the region id and the log index of this command, so every member derives the same.
     */
    List<Region> createTable(TableDescriptor table, List<byte[]> splitKeys, int replication, long index) {
        if (tables.containsKey(table.name())) {
            throw new TableExistsException(table.name());
        }
        if (replication < 1 || replication > nodes.size()) {
            throw new IllegalArgumentException("replication " + replication + " needs as many nodes; the cluster has "
                    + nodes.size());
        }
        List<byte[]> keys = new ArrayList<>(splitKeys);
        keys.sort(Bytes::compare);
        for (int i = 0; i < keys.size(); i++) {
            if (keys.get(i).length == 0 || (i > 0 && Bytes.compare(keys.get(i - 1), keys.get(i)) == 0)) {
                throw new IllegalArgumentException("split keys must be distinct and not empty");
            }
        }
        Map<Integer, Integer> load = load();
        if (replication > load.size()) {
            throw new IllegalArgumentException("replication " + replication + " needs as many live nodes; nodes "
                    + dead + " of " + nodes.size() + " are dead");
        }
        List<Region> created = new ArrayList<>();
        for (int i = 0; i <= keys.size(); i++) {
            byte[] start = i == 0 ? new byte[0] : keys.get(i - 1);
            byte[] end = i == keys.size() ? new byte[0] : keys.get(i);
            List<Integer> replicas = load.entrySet().stream()
                    .sorted(Map.Entry.<Integer, Integer>comparingByValue().thenComparing(Map.Entry.comparingByKey()))
                    .limit(replication).map(Map.Entry::getKey).sorted().toList();
            replicas.forEach(id -> load.merge(id, 1, Integer::sum));
            long id = nextRegionId++;
            UUID group = UUID.nameUUIDFromBytes((table.name() + "/" + id + "/" + index).getBytes(StandardCharsets.UTF_8));
            created.add(new Region(table.name(), id, start, end, group, replicas, false, 0));
        }
        tables.put(table.name(), table);
        regions.put(table.name(), created);
        return created;
    }

    void regionOnline(String table, long regionId) {
        List<Region> list = new ArrayList<>(regions(table));
        for (int i = 0; i < list.size(); i++) {
            if (list.get(i).id() == regionId) {
                list.set(i, list.get(i).markedOnline());
                regions.put(table, list);
                return;
            }
        }
        throw new IllegalArgumentException("table " + table + " has no region " + regionId);
    }

    /** Replicas per live node: what placement balances. */
    private Map<Integer, Integer> load() {
        Map<Integer, Integer> load = new TreeMap<>();
        nodes.keySet().stream().filter(id -> !dead.contains(id)).forEach(id -> load.put(id, 0));
        for (Region r : allRegions()) {
            r.replicas().stream().filter(load::containsKey).forEach(id -> load.merge(id, 1, Integer::sum));
            if (r.joining() != 0 && load.containsKey(r.joining())) {
                load.merge(r.joining(), 1, Integer::sum);
            }
        }
        return load;
    }

    /** Declares a node dead (it stopped answering) or alive again; placement skips dead nodes. */
    void nodeState(int node, boolean alive) {
        if (!nodes.containsKey(node)) {
            throw new IllegalArgumentException("node " + node + " is not in the cluster " + nodes.keySet());
        }
        if (alive) {
            dead.remove(node);
        } else {
            dead.add(node);
        }
    }

    /**
     * Where a replica of {@code r} on {@code from} should be re-created: the live node holding the
     * fewest replicas among those without one of {@code r} (ties to the lower id); 0 when none is.
     */
    int replacementFor(Region r) {
        return load().entrySet().stream().filter(e -> !r.wants(e.getKey()))
                .min(Map.Entry.<Integer, Integer>comparingByValue().thenComparing(Map.Entry.comparingByKey()))
                .map(Map.Entry::getKey).orElse(0);
    }

    /**
     * Starts moving {@code region}'s replica from {@code from} to {@code to}: {@code to} joins (its
     * group is created and catches up) while {@code from} stays listed until {@link #finishMove}.
     * Again with the same nodes it changes nothing; a move whose joining node has since died may be
     * restarted towards another. With {@code to} 0 the node is {@link #replacementFor}'s choice
     * (none: nothing changes).
     */
    Region startMove(String table, long region, int from, int to) {
        Region r = region(table, region);
        if (to == 0) { // the metadata picks
            to = replacementFor(r);
            if (to == 0) {
                return r;
            }
        }
        if (!r.replicas().contains(from)) {
            if (r.replicas().contains(to)) {
                return r; // finished already
            }
            throw new IllegalArgumentException("region " + region + " of " + table + " has no replica on node " + from);
        }
        if (!nodes.containsKey(to) || dead.contains(to) || r.replicas().contains(to)) {
            throw new IllegalArgumentException("node " + to + " cannot take a replica of region " + region + " of "
                    + table + " (replicas " + r.replicas() + ", dead " + dead + ")");
        }
        if (r.joining() != 0 && r.joining() != to && !dead.contains(r.joining())) {
            throw new IllegalArgumentException("region " + region + " of " + table + " is moving to node "
                    + r.joining() + " already");
        }
        return replace(r, r.withReplicas(r.replicas(), to));
    }

    /** Ends a move: the region group's configuration has {@code to} in place of {@code from}. */
    Region finishMove(String table, long region, int from, int to) {
        Region r = region(table, region);
        if (!r.replicas().contains(from) && r.replicas().contains(to)) {
            return r;
        }
        if (r.joining() != to || !r.replicas().contains(from)) {
            throw new IllegalArgumentException("region " + region + " of " + table + " is not moving from node "
                    + from + " to " + to + " (replicas " + r.replicas() + ", joining " + r.joining() + ")");
        }
        List<Integer> now = new ArrayList<>(r.replicas());
        now.remove(Integer.valueOf(from));
        now.add(to);
        return replace(r, r.withReplicas(now, 0));
    }

    private Region region(String table, long region) {
        for (Region r : regions(table)) {
            if (r.id() == region) {
                return r;
            }
        }
        throw new IllegalArgumentException("table " + table + " has no region " + region);
    }

    private Region replace(Region old, Region now) {
        List<Region> list = new ArrayList<>(regions.get(old.table()));
        list.set(list.indexOf(old), now);
        regions.put(old.table(), List.copyOf(list));
        return now;
    }

    /**
     * Empties a table in one step: its regions are replaced by new ones (new groups, placed as a
     * new table's), over the same boundaries when {@code preserveSplits}, else one region. Returns
     * the old regions (whose groups the caller removes) and then the new ones (offline until the
     * keeper brings them up), as {@code [old..., new...]} with {@code old.size()} first.
     */
    List<List<Region>> truncateTable(String table, boolean preserveSplits, int replication, long index) {
        TableDescriptor descriptor = table(table);
        List<Region> old = regions(table);
        List<byte[]> keys = new ArrayList<>();
        if (preserveSplits) {
            old.stream().skip(1).forEach(r -> keys.add(r.start()));
        }
        tables.remove(table);
        regions.remove(table);
        try {
            return List.of(old, createTable(descriptor, keys, replication, index));
        } catch (RuntimeException e) { // too few live nodes: the table stays as it was
            tables.put(table, descriptor);
            regions.put(table, old);
            throw e;
        }
    }

    /**
     * Replaces region {@code regionId} of {@code table}, Raft group {@code parentGroup}, by its two
     * daughters after the split entry at {@code index} of the parent's log: {@code [start, row)} in
     * group {@code low} and {@code [row, end)} in group {@code high}, on the parent's nodes, online
     * (each replica starts from the copy its parent's replica made). Again with the same split it
     * returns the daughters made the first time.
     */
    List<Region> splitRegion(String table, long regionId, UUID parentGroup, byte[] row, long index, UUID low,
                             UUID high) {
        List<Region> list = regions(table);
        List<Region> done = list.stream().filter(r -> r.group().equals(low) || r.group().equals(high)).toList();
        if (!done.isEmpty()) {
            return done;
        }
        Region parent = region(table, regionId);
        if (!parent.group().equals(parentGroup)) {
            throw new IllegalArgumentException("region " + regionId + " of " + table + " is group " + parent.group()
                    + ", not " + parentGroup);
        }
        if (!parent.contains(row) || java.util.Arrays.equals(row, parent.start())) {
            throw new IllegalArgumentException("split row '" + Bytes.toStringBinary(row) + "' is not inside region "
                    + regionId + " of " + table + " (after its start, before its end)");
        }
        List<Integer> replicas = parent.replicas();
        Region a = new Region(table, nextRegionId++, parent.start(), row, low, replicas, true, 0, parentGroup, index);
        Region b = new Region(table, nextRegionId++, row, parent.end(), high, replicas, true, 0, parentGroup, index);
        List<Region> next = new ArrayList<>(list);
        int at = next.indexOf(parent);
        next.set(at, b);
        next.add(at, a);
        regions.put(table, List.copyOf(next));
        return List.of(a, b);
    }

    /**
     * Makes the merge {@code merged} of two neighbouring regions of {@code table}: both halves
     * froze at their indexes of a MERGE entry (the caller saw both), and are replaced by one region
     * over both ranges, group {@code merged}, on the same nodes, online, its log starting after
     * {@code seedIndex} (the larger of the halves' indexes). Both halves must be on the same nodes
     * with no replica moving. This decides the merge for good: a merge made is never aborted, and
     * one aborted is never made. Again after it was made, it returns the merged region (none when
     * it has split since).
     */
    List<Region> mergeRegions(String table, long leftId, UUID leftGroup, long rightId, UUID rightGroup, UUID merged,
                              long seedIndex) {
        Boolean decided = merges.get(merged);
        if (Boolean.FALSE.equals(decided)) {
            throw new IllegalStateException("merge " + merged + " was aborted; ask for the merge again");
        }
        if (Boolean.TRUE.equals(decided)) {
            return regions(table).stream().filter(r -> r.group().equals(merged)).toList();
        }
        Region left = region(table, leftId);
        Region right = region(table, rightId);
        if (!left.group().equals(leftGroup) || !right.group().equals(rightGroup)) {
            throw new IllegalArgumentException("regions " + leftId + " and " + rightId + " of " + table + " are groups "
                    + left.group() + " and " + right.group() + " now, not " + leftGroup + " and " + rightGroup);
        }
        if (left.end().length == 0 || !java.util.Arrays.equals(left.end(), right.start())) {
            throw new IllegalArgumentException("regions " + leftId + " and " + rightId + " of " + table
                    + " are not neighbours (the first must end where the second starts)");
        }
        if (!left.replicas().equals(right.replicas()) || left.joining() != 0 || right.joining() != 0) {
            throw new IllegalArgumentException("regions " + leftId + " and " + rightId + " of " + table
                    + " are on different nodes (" + left.replicas() + " and " + right.replicas() + ") or one is moving;"
                    + " a merge needs both on the same nodes");
        }
        Region m = new Region(table, nextRegionId++, left.start(), right.end(), merged, left.replicas(), true, 0,
                leftGroup, seedIndex, rightGroup);
        List<Region> next = new ArrayList<>(regions.get(table));
        int at = next.indexOf(left);
        next.remove(right);
        next.set(at, m);
        regions.put(table, List.copyOf(next));
        merges.put(merged, true);
        return List.of(m);
    }

    /**
     * Aborts the merge {@code merged}, for good, so its halves may take requests again; refused
     * when it was made.
     */
    void abortMerge(UUID merged) {
        if (Boolean.TRUE.equals(merges.get(merged))) {
            throw new IllegalStateException("merge " + merged + " was made; it cannot be aborted");
        }
        merges.put(merged, false);
    }

    /** Drops a table; returns its regions, whose groups the caller removes from their nodes. */
    List<Region> dropTable(String table) {
        List<Region> gone = regions(table);
        tables.remove(table);
        regions.remove(table);
        return gone;
    }

    // ------------------------------------------------------------------ encoding

    static void writeNode(ByteBuf buf, ClusterPeer n) {
        Wire.writeVarint(buf, n.id());
        Wire.writeString(buf, n.host());
        Wire.writeVarint(buf, n.clientPort());
        Wire.writeVarint(buf, n.raftPort());
    }

    static ClusterPeer readNode(ByteBuf buf) {
        return new ClusterPeer(Wire.readVarint(buf, "node id"), Wire.readString(buf, "node host"),
                Wire.readVarint(buf, "node client port"), Wire.readVarint(buf, "node raft port"));
    }

    static void writeRegion(ByteBuf buf, Region r) {
        Wire.writeString(buf, r.table());
        Wire.writeVarlong(buf, r.id());
        Wire.writeBytes(buf, r.start());
        Wire.writeBytes(buf, r.end());
        buf.writeLong(r.group().getMostSignificantBits()).writeLong(r.group().getLeastSignificantBits());
        Wire.writeVarint(buf, r.replicas().size());
        r.replicas().forEach(id -> Wire.writeVarint(buf, id));
        Wire.writeBoolean(buf, r.online());
        Wire.writeVarint(buf, r.joining());
        // 0: no parent; 1: a split's daughter (as before merges existed); 2: a merge's region
        buf.writeByte(r.parent() == null ? 0 : r.otherParent() == null ? 1 : 2);
        if (r.parent() != null) {
            buf.writeLong(r.parent().getMostSignificantBits()).writeLong(r.parent().getLeastSignificantBits());
            Wire.writeVarlong(buf, r.seedIndex());
        }
        if (r.otherParent() != null) {
            buf.writeLong(r.otherParent().getMostSignificantBits()).writeLong(r.otherParent().getLeastSignificantBits());
        }
    }

    static Region readRegion(ByteBuf buf) {
        String table = Wire.readString(buf, "region table");
        long id = Wire.readVarlong(buf, "region id");
        byte[] start = Wire.readBytes(buf, "region start");
        byte[] end = Wire.readBytes(buf, "region end");
        UUID group = new UUID(Wire.readLong(buf, "region group"), Wire.readLong(buf, "region group"));
        int count = Wire.readVarint(buf, "replica count");
        if (count > buf.readableBytes()) {
            throw new MalformedFrameException(count + " replicas cannot fit in " + buf.readableBytes() + " bytes");
        }
        List<Integer> replicas = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            replicas.add(Wire.readVarint(buf, "replica"));
        }
        boolean online = Wire.readBoolean(buf, "online");
        int joining = Wire.readVarint(buf, "joining");
        UUID parent = null;
        UUID otherParent = null;
        long seedIndex = 0;
        int parents = Wire.readUnsignedByte(buf, "parents");
        if (parents > 2) {
            throw new MalformedFrameException("a region has at most 2 parents, not " + parents);
        }
        if (parents > 0) {
            parent = new UUID(Wire.readLong(buf, "parent group"), Wire.readLong(buf, "parent group"));
            seedIndex = Wire.readVarlong(buf, "seed index");
        }
        if (parents == 2) {
            otherParent = new UUID(Wire.readLong(buf, "other parent group"), Wire.readLong(buf, "other parent group"));
        }
        return new Region(table, id, start, end, group, List.copyOf(replicas), online, joining, parent, seedIndex,
                otherParent);
    }

    /** The snapshot format {@link #writeTo} writes: 2 added merge decisions. */
    static final int SNAPSHOT_FORMAT = 2;

    /** The whole state, for a snapshot. */
    void writeTo(ByteBuf buf) {
        buf.writeLong(-SNAPSHOT_FORMAT);
        buf.writeLong(nextRegionId);
        Wire.writeVarint(buf, nodes.size());
        nodes.values().forEach(n -> writeNode(buf, n));
        Wire.writeVarint(buf, dead.size());
        dead.forEach(id -> Wire.writeVarint(buf, id));
        Wire.writeVarint(buf, tables.size());
        for (TableDescriptor t : tables.values()) {
            Messages.writeTable(buf, t);
            List<Region> list = regions.get(t.name());
            Wire.writeVarint(buf, list.size());
            list.forEach(r -> writeRegion(buf, r));
        }
        Wire.writeVarint(buf, merges.size());
        merges.forEach((id, made) -> {
            buf.writeLong(id.getMostSignificantBits()).writeLong(id.getLeastSignificantBits());
            Wire.writeBoolean(buf, made);
        });
    }

    static MetaState readFrom(ByteBuf buf) {
        MetaState s = new MetaState();
        long first = Wire.readLong(buf, "snapshot format or next region id");
        // Format 1 began with the next region id (positive); later formats with their number, negated.
        int format = first < 0 ? (int) -first : 1;
        if (format > SNAPSHOT_FORMAT) {
            throw new MalformedFrameException("metadata snapshot format " + format + " is newer than this node's ("
                    + SNAPSHOT_FORMAT + ")");
        }
        s.nextRegionId = format == 1 ? first : Wire.readLong(buf, "next region id");
        int nodes = Wire.readVarint(buf, "node count");
        for (int i = 0; i < nodes; i++) {
            ClusterPeer n = readNode(buf);
            s.nodes.put(n.id(), n);
        }
        int deadCount = Wire.readVarint(buf, "dead node count");
        for (int i = 0; i < deadCount; i++) {
            s.dead.add(Wire.readVarint(buf, "dead node"));
        }
        int tables = Wire.readVarint(buf, "table count");
        for (int i = 0; i < tables; i++) {
            TableDescriptor t = Messages.readTable(buf);
            int count = Wire.readVarint(buf, "region count");
            List<Region> list = new ArrayList<>();
            for (int j = 0; j < count; j++) {
                list.add(readRegion(buf));
            }
            list.sort(Comparator.comparing(Region::start, Bytes::compare));
            s.tables.put(t.name(), t);
            s.regions.put(t.name(), List.copyOf(list));
        }
        if (format >= 2) { // format 1, written before merges existed, ends here
            int merges = Wire.readVarint(buf, "merge count");
            for (int i = 0; i < merges; i++) {
                UUID id = new UUID(Wire.readLong(buf, "merge"), Wire.readLong(buf, "merge"));
                s.merges.put(id, Wire.readBoolean(buf, "merge made"));
            }
        }
        Wire.end(buf, "metadata snapshot");
        return s;
    }
}
