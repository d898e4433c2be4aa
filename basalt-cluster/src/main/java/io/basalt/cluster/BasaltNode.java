package io.basalt.cluster;

import io.basalt.client.RegionInfo;
import io.basalt.client.StoreOptions;
import io.basalt.client.TableDescriptor;
import io.basalt.client.TableExistsException;
import io.basalt.client.TableNotFoundException;
import io.basalt.client.net.Messages;
import io.basalt.server.BasaltServer;
import io.basalt.server.EngineHandler;
import io.basalt.server.ServerConfig;
import io.netty.buffer.ByteBuf;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.apache.ratis.client.RaftClient;
import org.apache.ratis.conf.RaftProperties;
import org.apache.ratis.protocol.GroupListReply;
import org.apache.ratis.protocol.Message;
import org.apache.ratis.protocol.RaftGroup;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.protocol.RaftPeer;
import org.apache.ratis.protocol.RaftPeerId;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A Basalt cluster node: its Raft server ({@link ClusterNode}) hosting the region replicas placed
 * on it and, on the first nodes, the metadata group; its network server answering clients through
 * a {@link ClusterConnection}; and a keeper thread that registers the cluster's nodes on first
 * start and, on the metadata leader, brings new regions online (their groups created on their
 * replicas, their table created in their log).
 */
public final class BasaltNode implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(BasaltNode.class);
    /** How long createTable waits for its regions to come online. */
    static final long ONLINE_TIMEOUT_MS = 60_000;

    /**
     * How a node runs.
     *
     * @param nodeId this node's id, one of {@code nodes}
     * @param nodes every node of the cluster, the same list on each
     * @param dataDir this node's directory (Raft logs, snapshots, replica stores)
     * @param replication how many replicas a new table's regions get (at most the nodes)
     * @param server the network server's settings (its host and port are this node's client address)
     */
    public record Config(int nodeId, List<ClusterPeer> nodes, Path dataDir, int replication, RaftTuning tuning,
                         StoreOptions store, ServerConfig server) {
        public Config {
            nodes = List.copyOf(nodes);
            if (nodes.stream().noneMatch(n -> n.id() == nodeId)) {
                throw new IllegalArgumentException("node " + nodeId + " is not among the peers " + nodes);
            }
            if (replication < 1 || replication > nodes.size()) {
                throw new IllegalArgumentException("replication " + replication + " needs as many nodes; "
                        + nodes.size() + " are listed");
            }
        }

        ClusterPeer self() {
            return nodes.stream().filter(n -> n.id() == nodeId).findFirst().orElseThrow();
        }
    }

    private final Config config;
    private final ClusterNode cluster;
    private final RaftGroup metaGroup;
    private final Router router = new Router();
    private final ClusterConnection connection;
    private final BasaltServer server;
    private final Thread keeper;
    private volatile boolean closed;

    private BasaltNode(Config config) throws IOException, InterruptedException {
        this.config = config;
        ClusterPeer self = config.self();
        // Refuses, before anything starts, a TLS node whose peers it could not check (no tlsCa).
        RaftTls tls = RaftTls.of(config.server().tls());
        this.cluster = ClusterNode.start(peer(self), config.dataDir().resolve("raft"), config.tuning(), tls,
                config.store());
        if (tls.enabled()) {
            LOG.info("Node {}: Raft links on {} are mutual TLS (certificate {}, peers' CA {})", config.nodeId(),
                    self.raftAddress(), config.server().tls().cert(), config.server().tls().ca());
        } else {
            LOG.info("Node {}: Raft links on {} are plaintext (no tlsCert)", config.nodeId(), self.raftAddress());
        }
        try {
            List<ClusterPeer> sorted = config.nodes().stream()
                    .sorted(java.util.Comparator.comparingInt(ClusterPeer::id)).toList();
            int metaSize = sorted.size() >= 5 ? 5 : Math.min(3, sorted.size());
            List<RaftPeer> metaPeers = sorted.subList(0, metaSize).stream().map(BasaltNode::peer).toList();
            this.metaGroup = RaftGroup.valueOf(MetaStateMachine.GROUP_ID, metaPeers);
            if (metaPeers.stream().anyMatch(p -> p.getId().equals(cluster.id()))) {
                cluster.join(metaGroup);
            }
            cluster.forwardWith(this::members);
            this.connection = new ClusterConnection(this);
            ServerConfig serverConfig = config.server().toBuilder().host(self.host()).port(self.clientPort()).build();
            this.server = BasaltServer.start(serverConfig, c -> EngineHandler.over(connection, c, this::storeMetrics));
        } catch (IOException | InterruptedException | RuntimeException e) {
            cluster.close();
            throw e;
        }
        this.keeper = Thread.ofPlatform().name("basalt-keeper-n" + config.nodeId()).daemon().start(this::keep);
    }

    /**
     * This node's store metrics: the region replicas it holds, each a store of its own, summed;
     * each region named with the cluster's region id when this node's router knows it.
     */
    io.basalt.engine.StoreMetrics storeMetrics() {
        List<io.basalt.engine.StoreMetrics> replicas = new ArrayList<>();
        List<RaftGroupId> groups;
        try {
            groups = cluster.groups();
        } catch (IOException e) {
            groups = List.of(); // closing
        }
        for (RaftGroupId group : groups) {
            MetaState.Region known = router.byGroup.get(group);
            cluster.replicaMetrics(group).ifPresent(m -> replicas.add(known == null ? m : relabel(m, known)));
        }
        return io.basalt.engine.StoreMetrics.sum(replicas);
    }

    /**
     * A replica's metrics with its one region named as the cluster's region (id and range) instead
     * of as its store's (which may span the whole table: the replica holds only its range's rows).
     */
    private static io.basalt.engine.StoreMetrics relabel(io.basalt.engine.StoreMetrics m, MetaState.Region region) {
        List<io.basalt.client.ServerStatus.Table> tables = m.tables().stream()
                .map(t -> new io.basalt.client.ServerStatus.Table(t.name(), t.disabled(), t.regions().stream()
                        .map(r -> new io.basalt.client.ServerStatus.Region(new RegionInfo(r.info().table(),
                                region.id(), region.start(), region.end(), r.info().sizeBytes(), r.info().files(),
                                r.info().memtableBytes()), r.readRequests(), r.writeRequests()))
                        .toList()))
                .toList();
        return new io.basalt.engine.StoreMetrics(m.background(), m.walSyncs(), m.walBatches(), m.walBytes(),
                m.memtableBytes(), m.blockCacheHits(), m.blockCacheMisses(), m.blockCacheEvictions(), m.blockCacheBytes(),
                m.blockCacheCapacity(), m.rowCacheHits(), m.rowCacheMisses(), m.rowCacheBytes(), m.bufferChunksInUse(),
                m.bufferChunksMax(), m.lockWaits(), m.lockTimeouts(),
                m.readOnlyReason(), tables);
    }

    /** Starts a node; it answers clients at once (requests wait for the metadata group as needed). */
    public static BasaltNode start(Config config) throws IOException, InterruptedException {
        return new BasaltNode(config);
    }

    static RaftPeer peer(ClusterPeer n) {
        return RaftPeer.newBuilder().setId(n.peerId()).setAddress(n.raftAddress()).build();
    }

    public int id() {
        return config.nodeId();
    }

    public ClusterNode cluster() {
        return cluster;
    }

    public BasaltServer server() {
        return server;
    }

    Router router() {
        return router;
    }

    /** The members of a group: the metadata group's from the configuration, a region's from the metadata. */
    private RaftGroup members(RaftGroupId group) {
        if (group.equals(MetaStateMachine.GROUP_ID)) {
            return metaGroup;
        }
        MetaState.Region r = router.byGroup.get(group);
        if (r == null) {
            return null;
        }
        return RaftGroup.valueOf(group, replicas(r));
    }

    private List<RaftPeer> replicas(MetaState.Region r) {
        List<RaftPeer> peers = new ArrayList<>();
        for (int id : r.replicas()) {
            config.nodes().stream().filter(n -> n.id() == id).findFirst().map(BasaltNode::peer).ifPresent(peers::add);
        }
        return peers;
    }

    // ------------------------------------------------------------------ metadata

    private CompletableFuture<ByteBuf> meta(Message m, ClusterNode.Kind kind, String what) {
        return meta(m, kind, what, System.nanoTime() + TimeUnit.SECONDS.toNanos(15));
    }

    /**
     * Sends to the metadata group, again (until {@code deadline}) while its leader is not known or
     * not ready: a NOT_LEADER answer means nothing was applied, so the command is safe to resend.
     * A cluster just started meets its first election this way, and an admin call through it
     * (create a table, say) waits for it rather than failing.
     */
    private CompletableFuture<ByteBuf> meta(Message m, ClusterNode.Kind kind, String what, long deadline) {
        return cluster.send(MetaStateMachine.GROUP_ID, m, kind)
                .thenApply(bytes -> MetaStateMachine.okBody(Message.valueOf(bytes), what))
                .exceptionallyCompose(failure -> {
                    if (!(ClusterNode.unwrap(failure) instanceof NotLeaderException) || closed
                            || System.nanoTime() > deadline) {
                        return CompletableFuture.failedFuture(failure);
                    }
                    return CompletableFuture.supplyAsync(() -> null,
                                    CompletableFuture.delayedExecutor(200, TimeUnit.MILLISECONDS))
                            .thenCompose(_ -> meta(m, kind, what, deadline));
                });
    }

    CompletableFuture<List<TableDescriptor>> listTables() {
        return meta(MetaStateMachine.query(MetaStateMachine.TABLES, null), ClusterNode.Kind.READ, "list tables")
                .thenApply(Messages::readTables);
    }

    CompletableFuture<Void> createTable(TableDescriptor table, List<byte[]> splitKeys) {
        // The nodes first (the keeper may not have registered them yet; registering is idempotent):
        // placement needs them.
        return meta(MetaStateMachine.setNodes(config.nodes()), ClusterNode.Kind.WRITE, "register nodes")
                .thenCompose(_ -> meta(MetaStateMachine.createTable(table, splitKeys, config.replication()),
                        ClusterNode.Kind.WRITE, "create table " + table.name()))
                .thenCompose(_ -> CompletableFuture.runAsync(() -> awaitOnline(table.name())));
    }

    private void awaitOnline(String table) {
        long deadline = System.currentTimeMillis() + ONLINE_TIMEOUT_MS;
        while (true) {
            List<MetaState.Region> regions = router.refresh(table).join();
            if (regions.stream().allMatch(MetaState.Region::online)) {
                return;
            }
            if (System.currentTimeMillis() > deadline) {
                throw new io.basalt.client.BasaltException("table " + table + " was created but not all of its "
                        + regions.size() + " regions came online within " + ONLINE_TIMEOUT_MS + " ms; they will as their"
                        + " nodes come up");
            }
            sleep(100);
        }
    }

    CompletableFuture<Void> dropTable(String table) {
        return meta(MetaStateMachine.dropTable(table), ClusterNode.Kind.WRITE, "drop table " + table)
                .thenAccept(body -> {
                    router.forget(table);
                    for (MetaState.Region r : MetaStateMachine.readRegions(body)) {
                        removeGroup(r);
                    }
                });
    }

    /**
     * Empties a table: one metadata command swaps its regions for new ones, the old groups are
     * removed from their nodes (a node that is down removes its own later, as a stray), and the
     * call completes when the new regions are online.
     */
    CompletableFuture<Void> truncateTable(String table, boolean preserveSplits) {
        return meta(MetaStateMachine.truncate(table, preserveSplits, config.replication()), ClusterNode.Kind.WRITE,
                "truncate table " + table)
                .thenAccept(body -> {
                    router.forget(table);
                    for (MetaState.Region r : MetaStateMachine.readRegions(body)) {
                        removeGroup(r);
                    }
                })
                .thenCompose(_ -> CompletableFuture.runAsync(() -> awaitOnline(table)));
    }

    /**
     * Splits the region holding {@code row} there, or, with {@code row} null, each region of the
     * table at the middle of its data (one too small stays whole). A split is an entry in the
     * region's own log (every replica copies its store for the daughters at that index, then
     * refuses further requests), then one metadata command that puts the daughters in the map;
     * completes when the daughters have leaders. Asked again after a failure half way, it finishes
     * the same split.
     */
    CompletableFuture<Void> split(String table, byte[] row) {
        return CompletableFuture.runAsync(() -> {
            List<MetaState.Region> regions = router.refresh(table).join();
            List<MetaState.Region> targets = row == null ? regions : List.of(regionOf(regions, row));
            List<MetaState.Region> daughters = new ArrayList<>();
            for (MetaState.Region r : targets) {
                daughters.addAll(splitRegion(r, row));
            }
            router.forget(table);
            long deadline = System.currentTimeMillis() + ONLINE_TIMEOUT_MS;
            for (MetaState.Region d : daughters) {
                while (describe(d).leader().isEmpty()) {
                    if (System.currentTimeMillis() > deadline) {
                        throw new io.basalt.client.UnavailableException("region " + d.id() + " of " + table
                                + " (a daughter of a split) has no leader after " + ONLINE_TIMEOUT_MS + " ms; it will"
                                + " start as its nodes make it");
                    }
                    sleep(100);
                }
            }
        }, Thread.ofVirtual()::start);
    }

    /**
     * Splits region {@code r} at {@code row} (null: at the middle of its data, as its leader
     * finds it); returns the daughters, none when the region is too small to cut.
     */
    private List<MetaState.Region> splitRegion(MetaState.Region r, byte[] row) {
        String table = r.table();
        byte[] at = row;
        if (at == null) {
            at = RegionCodec.readMiddleRow(cluster.send(r.groupId(), RegionCodec.housekeeping(table,
                    RegionCodec.MIDDLE_ROW), ClusterNode.Kind.READ).join(), "region " + r.id() + " of " + table);
            if (at == null || java.util.Arrays.equals(at, r.start())) {
                LOG.info("Region {} of {} has too little data to find a row to split at; it stays whole", r.id(), table);
                return List.of();
            }
        } else if (java.util.Arrays.equals(at, r.start())) {
            throw new IllegalArgumentException("split row '" + io.basalt.bytes.Bytes.toStringBinary(at)
                    + "' is the start of region " + r.id() + " of " + table + "; a split row must be inside it");
        }
        if (!startedEverywhere(r)) {
            throw new io.basalt.client.UnavailableException("region " + r.id() + " of " + table + " is a daughter of a"
                    + " split still starting on its nodes; split it again in a moment");
        }
        RegionCodec.SplitInfo info = RegionCodec.readSplitReply(cluster.send(r.groupId(),
                RegionCodec.split(table, at), ClusterNode.Kind.WRITE).join(), "region " + r.id() + " of " + table);
        List<MetaState.Region> made = MetaStateMachine.readRegions(meta(MetaStateMachine.split(r, info),
                ClusterNode.Kind.WRITE, "split region " + r.id() + " of " + table).join());
        made.forEach(d -> router.byGroup.put(d.groupId(), d));
        LOG.info("Region {} of {} split at '{}' (its log index {}) into regions {}", r.id(), table,
                io.basalt.bytes.Bytes.toStringBinary(info.row()), info.index(),
                made.stream().map(MetaState.Region::id).toList());
        return made;
    }

    // ------------------------------------------------------------------ merges

    /**
     * Merges two neighbouring regions of {@code table} (named as {@code list_regions} shows them,
     * or by id) into one on the same nodes. Each half freezes at a MERGE entry in its own log
     * (every replica copies its store there, then refuses requests), and one metadata command
     * makes the merged region, whose replicas start from the two copies joined; that command
     * decides the merge. If a half cannot freeze (it split, or is in another merge) or the
     * metadata refuses, the merge is aborted in the metadata and both halves take requests again.
     * Completes when the merged region has a leader.
     */
    CompletableFuture<Void> merge(String table, String first, String second) {
        return CompletableFuture.runAsync(() -> {
            List<MetaState.Region> regions = router.refresh(table).join();
            MetaState.Region a = regionNamed(regions, table, first);
            MetaState.Region b = regionNamed(regions, table, second);
            MetaState.Region left = io.basalt.bytes.Bytes.compare(a.start(), b.start()) <= 0 ? a : b;
            MetaState.Region right = left == a ? b : a;
            if (left.end().length == 0 || !java.util.Arrays.equals(left.end(), right.start())) {
                throw new IllegalArgumentException("regions " + left.id() + " and " + right.id() + " of " + table
                        + " are not neighbours; only neighbours can be merged");
            }
            if (!left.replicas().equals(right.replicas()) || left.joining() != 0 || right.joining() != 0) {
                throw new IllegalArgumentException("regions " + left.id() + " and " + right.id() + " of " + table
                        + " are on different nodes (" + left.replicas() + " and " + right.replicas() + ") or one is"
                        + " moving; a merge needs both on the same nodes (moving a region on command is not built)");
            }
            if (!startedEverywhere(left) || !startedEverywhere(right)) {
                throw new io.basalt.client.UnavailableException("region " + left.id() + " or " + right.id() + " of "
                        + table + " is still starting on its nodes; merge them in a moment");
            }
            java.util.UUID merged = java.util.UUID.randomUUID();
            MetaState.Region m = driveMerge(left, right, merged);
            router.forget(table);
            if (m == null) {
                return; // made, then split already
            }
            long deadline = System.currentTimeMillis() + ONLINE_TIMEOUT_MS;
            while (describe(m).leader().isEmpty()) {
                if (System.currentTimeMillis() > deadline) {
                    throw new io.basalt.client.UnavailableException("region " + m.id() + " of " + table + " (the"
                            + " merge of " + left.id() + " and " + right.id() + ") has no leader after "
                            + ONLINE_TIMEOUT_MS + " ms; it will start as its nodes join its halves' copies");
                }
                sleep(100);
            }
            LOG.info("Regions {} and {} of {} merged into region {}", left.id(), right.id(), table, m.id());
        }, Thread.ofVirtual()::start);
    }

    /**
     * Aborts merge {@code info} whose other half is gone from the map, unless the metadata made it,
     * and lets {@code half} take requests again.
     */
    private void abandonMerge(MetaState.Region half, RegionCodec.MergeInfo info) {
        try {
            meta(MetaStateMachine.abortMerge(info.merged()), ClusterNode.Kind.WRITE, "abort merge " + info.merged())
                    .join();
        } catch (RuntimeException e) {
            if (ClusterNode.unwrap(e) instanceof io.basalt.client.ServerException) {
                return; // made: this half retires once the merged region runs
            }
            throw e;
        }
        RegionCodec.readDone(cluster.send(half.groupId(), RegionCodec.unmerge(half.table(), info.merged()),
                ClusterNode.Kind.WRITE).join(), "region " + half.id() + " of " + half.table());
        LOG.info("Node {}: aborted merge {} (its other half left the map); region {} of {} takes requests again",
                config.nodeId(), info.merged(), half.id(), half.table());
    }

    private static MetaState.Region regionNamed(List<MetaState.Region> regions, String table, String name) {
        String id = name.substring(name.lastIndexOf(',') + 1).trim();
        for (MetaState.Region r : regions) {
            if (Long.toString(r.id()).equals(id)) {
                return r;
            }
        }
        throw new IllegalArgumentException("table " + table + " has no region " + name
                + " (a split or merge may have replaced it; list the regions again)");
    }

    /**
     * Takes merge {@code merged} of {@code left} and {@code right} as far as it goes: freezes both
     * halves (repeating a freeze repeats nothing), then asks the metadata group to make it. Returns
     * the merged region ({@code null} when it was made and has split since). When a half refuses
     * to freeze or the metadata refuses the merge, aborts it: the metadata records the abort
     * (unless the merge was made, which then stands) and both halves are told, and the refusal is
     * thrown. A failure that may pass (no leader, a timeout) is thrown as it is; the merge stays
     * where it got to, and the keepers take it on.
     */
    MetaState.Region driveMerge(MetaState.Region left, MetaState.Region right, java.util.UUID merged) {
        String what = "merge " + merged + " of regions " + left.id() + " and " + right.id() + " of " + left.table();
        try {
            long index = 0;
            for (MetaState.Region half : List.of(left, right)) {
                RegionCodec.MergeInfo info = RegionCodec.readMergeReply(cluster.send(half.groupId(),
                        RegionCodec.merge(half.table(), merged, left.group(), right.group(), half.start(), half.end()),
                        ClusterNode.Kind.WRITE)
                        .join(), "region " + half.id() + " of " + half.table());
                index = Math.max(index, info.index());
            }
            List<MetaState.Region> made = MetaStateMachine.readRegions(meta(MetaStateMachine.merge(left, right,
                    merged, index), ClusterNode.Kind.WRITE, what).join());
            made.forEach(m -> router.byGroup.put(m.groupId(), m));
            return made.isEmpty() ? null : made.getFirst();
        } catch (RuntimeException e) {
            Throwable cause = ClusterNode.unwrap(e);
            boolean refused = cause instanceof io.basalt.client.ServerException
                    || (cause instanceof io.basalt.client.BasaltException
                    && cause.getCause() instanceof IllegalArgumentException);
            if (!refused) {
                throw e;
            }
            try {
                meta(MetaStateMachine.abortMerge(merged), ClusterNode.Kind.WRITE, "abort " + what).join();
            } catch (RuntimeException notAborted) {
                Throwable why = ClusterNode.unwrap(notAborted);
                if (why instanceof io.basalt.client.ServerException) { // it was made: it stands
                    LOG.info("{} was made after all; not aborted", what);
                    return null;
                }
                throw notAborted;
            }
            for (MetaState.Region half : List.of(left, right)) {
                RegionCodec.readDone(cluster.send(half.groupId(), RegionCodec.unmerge(half.table(), merged),
                        ClusterNode.Kind.WRITE).join(), "region " + half.id() + " of " + half.table());
            }
            LOG.info("{} aborted: {}", what, cause.getMessage());
            throw cause instanceof RuntimeException r ? r : e;
        }
    }

    /**
     * Takes on each merge a half of which froze here and the metadata has not decided: its
     * proposer failed or died half way, and the half refuses every request until the merge is
     * made or aborted. A half frozen for a merge the map already made needs nothing: it retires
     * once the merged region runs.
     */
    private void finishMerges(List<MetaState.Region> all) {
        for (MetaState.Region r : all) {
            RegionCodec.MergeInfo info = cluster.mergeOf(r.groupId()).orElse(null);
            if (info == null) {
                continue;
            }
            MetaState.Region left = all.stream().filter(x -> x.group().equals(info.left())).findFirst().orElse(null);
            MetaState.Region right = all.stream().filter(x -> x.group().equals(info.right())).findFirst().orElse(null);
            try {
                if (left == null || right == null) {
                    // A half left the map: the merge was made (and the map moved on since), or the
                    // other half split or merged elsewhere first. The metadata tells which.
                    abandonMerge(r, info);
                    continue;
                }
                driveMerge(left, right, info.merged());
                LOG.info("Node {}: took on merge {} of regions {} and {} of {} (its proposer did not finish it)",
                        config.nodeId(), info.merged(), left.id(), right.id(), r.table());
            } catch (RuntimeException e) {
                LOG.debug("Node {}: merge {} of {} is not finished yet", config.nodeId(), info.merged(), r.table(), e);
            }
        }
    }

    /**
     * Whether every replica of {@code r} runs: a split's daughter is split again only once each of
     * its replicas committed past its seed, or a replica still waiting to start from its seed
     * would find its parent gone. Known from this node's replica's commit infos; a node without
     * one cannot tell and lets the split go on.
     */
    private boolean startedEverywhere(MetaState.Region r) {
        if (r.parent() == null) {
            return true;
        }
        Map<Integer, Long> committed = cluster.commitIndexes(r.groupId());
        if (committed.isEmpty()) {
            return true;
        }
        return r.replicas().stream().allMatch(n -> committed.getOrDefault(n, 0L) > r.seedIndex());
    }

    /**
     * On each region's leader: splits the region at the middle of its data once its replica here
     * holds more than {@link StoreOptions#regionSplitSize()} (0: never), as a single node's
     * regions split as they grow. A daughter's size counts only its own range of the files it
     * shares with its sibling, so daughters do not split again at once.
     */
    private void splitLargeRegions(List<MetaState.Region> all) {
        long limit = config.store().regionSplitSize();
        if (limit <= 0) {
            return;
        }
        for (MetaState.Region r : all) {
            long bytes = cluster.isLeader(r.groupId()) ? cluster.replicaBytes(r.groupId()) : 0;
            if (r.joining() != 0 || bytes <= limit || cluster.splitOf(r.groupId()).isPresent()
                    || cluster.mergeOf(r.groupId()).isPresent() || !startedEverywhere(r)) {
                continue;
            }
            LOG.info("Node {}: region {} of {} holds {} bytes here, more than {}: splitting it", config.nodeId(),
                    r.id(), r.table(), bytes, limit);
            try {
                if (!splitRegion(r, null).isEmpty()) {
                    router.forget(r.table());
                    return; // one split per round: the map changed
                }
            } catch (RuntimeException e) {
                LOG.warn("Node {}: splitting region {} of {} by size failed; the next round tries again",
                        config.nodeId(), r.id(), r.table(), e);
            }
        }
    }

    /** The cluster's nodes and regions as the Raft servers report them now (a few seconds at most). */
    CompletableFuture<io.basalt.client.ClusterInfo> status() {
        return CompletableFuture.supplyAsync(() -> {
            ClusterStatus.Report report = ClusterStatus.of(config.nodes());
            if (report.problem() != null) {
                throw new io.basalt.client.UnavailableException(report.problem());
            }
            List<io.basalt.client.ClusterInfo.Node> nodes = report.nodes().stream()
                    .map(n -> new io.basalt.client.ClusterInfo.Node(n.peer().id(), n.peer().clientAddress(), n.up(),
                            n.groups())).toList();
            List<io.basalt.client.ClusterInfo.Region> regions = report.regions().stream()
                    .map(r -> new io.basalt.client.ClusterInfo.Region(r.table(), r.id(), r.start(), r.end(), r.leader(),
                            r.replicas().stream().map(x -> new io.basalt.client.ClusterInfo.Replica(x.node(), x.role(),
                                    r.lag().get(x.node()))).toList())).toList();
            return new io.basalt.client.ClusterInfo(nodes, regions);
        }, Thread.ofVirtual()::start);
    }

    static MetaState.Region regionOf(List<MetaState.Region> regions, byte[] row) {
        for (MetaState.Region r : regions) {
            if (r.contains(row)) {
                return r;
            }
        }
        throw new IllegalStateException("no region holds row " + io.basalt.bytes.Bytes.toStringBinary(row));
    }

    /**
     * A region as clients see it: its replicas' client addresses and its leader's, from this node's
     * division when it holds one, else asked of the replicas (a second at most each).
     */
    RegionInfo describe(MetaState.Region r) {
        List<String> replicas = r.replicas().stream().map(this::clientAddress).toList();
        int leader = cluster.leader(r.groupId()).map(BasaltNode::nodeId).orElse(0);
        if (leader == 0 && !cluster.hostsQuietly(r.groupId())) {
            for (int id : r.replicas()) {
                try {
                    RaftPeerId peer = RaftPeerId.valueOf("n" + id);
                    var info = probe(id).getGroupManagementApi(peer).info(r.groupId());
                    if (info.getRoleInfoProto().getRole() == org.apache.ratis.proto.RaftProtos.RaftPeerRole.LEADER) {
                        leader = id;
                        break;
                    }
                } catch (IOException | RuntimeException e) {
                    // that replica does not answer; ask the next
                }
            }
        }
        return new RegionInfo(r.table(), r.id(), r.start(), r.end(), -1, 0, 0,
                leader == 0 ? "" : clientAddress(leader), replicas);
    }

    private static int nodeId(RaftPeerId peer) {
        return Integer.parseInt(peer.toString().substring(1));
    }

    private String clientAddress(int node) {
        return config.nodes().stream().filter(n -> n.id() == node).findFirst().map(ClusterPeer::clientAddress)
                .orElse("");
    }

    /** The region map, as this node last read it from the metadata group. */
    final class Router {
        private final Map<String, List<MetaState.Region>> tables = new ConcurrentHashMap<>();
        final Map<RaftGroupId, MetaState.Region> byGroup = new ConcurrentHashMap<>();

        private final java.util.Set<String> suspect = ConcurrentHashMap.newKeySet();

        CompletableFuture<List<MetaState.Region>> regions(String table) {
            List<MetaState.Region> known = tables.get(table);
            if (known == null) {
                return refresh(table);
            }
            if (!suspect.remove(table)) {
                return CompletableFuture.completedFuture(known);
            }
            // Read afresh; if the metadata group cannot answer (it lost its majority), the map we
            // had still serves: regions keep working without the metadata.
            return refresh(table).handle((list, failure) -> {
                if (failure == null) {
                    return list;
                }
                if (ClusterNode.unwrap(failure) instanceof io.basalt.client.UnavailableException) {
                    return known;
                }
                throw failure instanceof java.util.concurrent.CompletionException c ? c
                        : new java.util.concurrent.CompletionException(failure);
            });
        }

        /** A request to {@code table} failed as if a region moved or went: the next one reads the map afresh. */
        void suspect(String table) {
            suspect.add(table);
        }

        CompletableFuture<MetaState.Region> region(String table, byte[] row) {
            return regions(table).thenApply(list -> regionOf(list, row));
        }

        CompletableFuture<List<MetaState.Region>> refresh(String table) {
            return meta(MetaStateMachine.query(MetaStateMachine.REGIONS, table), ClusterNode.Kind.READ,
                    "regions of " + table)
                    .thenApply(body -> {
                        List<MetaState.Region> list = MetaStateMachine.readRegions(body);
                        list.forEach(r -> byGroup.put(r.groupId(), r));
                        tables.put(table, List.copyOf(list));
                        return list;
                    });
        }

        /**
         * Takes the whole map as the keeper just read it: every node keeps every table's map
         * fresh, so one cut off from the metadata group still routes with the map it last saw.
         */
        void remember(List<MetaState.Region> all) {
            Map<String, List<MetaState.Region>> byTable = new java.util.LinkedHashMap<>();
            java.util.Set<RaftGroupId> current = new java.util.HashSet<>();
            for (MetaState.Region r : all) {
                byTable.computeIfAbsent(r.table(), _ -> new ArrayList<>()).add(r);
                byGroup.put(r.groupId(), r);
                current.add(r.groupId());
            }
            byGroup.keySet().retainAll(current); // groups split, moved off or dropped since
            byTable.forEach((table, list) -> tables.put(table, List.copyOf(list)));
        }

        /** The map of {@code table} this node holds now, without asking; {@code null} when none. */
        List<MetaState.Region> cached(String table) {
            return tables.get(table);
        }

        void forget(String table) {
            List<MetaState.Region> gone = tables.remove(table);
            if (gone != null) {
                gone.forEach(r -> byGroup.remove(r.groupId()));
            }
        }
    }

    // ------------------------------------------------------------------ the keeper

    private void keep() {
        boolean registered = false;
        long round = 0;
        while (!closed) {
            try {
                if (!registered) {
                    meta(MetaStateMachine.setNodes(config.nodes()), ClusterNode.Kind.WRITE, "register nodes")
                            .get(30, TimeUnit.SECONDS);
                    registered = true;
                    LOG.info("Node {}: the cluster's {} nodes are registered", config.nodeId(), config.nodes().size());
                }
                if (cluster.isLeader(MetaStateMachine.GROUP_ID)) {
                    bringRegionsOnline();
                    watchNodes();
                } else {
                    lastSeen.clear(); // a new metadata leader gives every node the whole timeout again
                }
                List<MetaState.Region> all = allRegions();
                router.remember(all);
                finishSplits(all);
                finishMerges(all);
                startDaughters(all);
                splitLargeRegions(all);
                if (round++ % 4 == 0) {
                    leaveStrayGroups(all);
                }
            } catch (Exception e) {
                if (!closed) {
                    LOG.debug("Node {}: keeper round failed; trying again", config.nodeId(), e);
                }
            }
            sleep(500);
        }
    }

    private void bringRegionsOnline() throws Exception {
        ByteBuf body = meta(MetaStateMachine.query(MetaStateMachine.ALL_REGIONS, null), ClusterNode.Kind.READ,
                "all regions").get(30, TimeUnit.SECONDS);
        List<TableDescriptor> tables = listTables().get(30, TimeUnit.SECONDS);
        for (MetaState.Region r : MetaStateMachine.readRegions(body)) {
            if (r.online() || r.parent() != null) {
                continue;
            }
            router.byGroup.put(r.groupId(), r);
            RaftGroup group = RaftGroup.valueOf(r.groupId(), replicas(r));
            for (RaftPeer p : group.getPeers()) {
                addGroup(p.getId(), group);
            }
            TableDescriptor table = tables.stream().filter(t -> t.name().equals(r.table())).findFirst()
                    .orElseThrow(() -> new TableNotFoundException(r.table()));
            try {
                cluster.createTable(r.groupId(), table).get(30, TimeUnit.SECONDS);
            } catch (java.util.concurrent.ExecutionException e) {
                if (!(e.getCause() instanceof TableExistsException)) { // created on an earlier round
                    throw e;
                }
            }
            meta(MetaStateMachine.regionOnline(r.table(), r.id()), ClusterNode.Kind.WRITE, "region online")
                    .get(30, TimeUnit.SECONDS);
            LOG.info("Region {} of {} is online on nodes {}", r.id(), r.table(), r.replicas());
        }
    }

    // ------------------------------------------------------------------ dead nodes, re-replication

    /** When the metadata leader last heard from each node (nanoTime); empty while not the leader. */
    private final Map<Integer, Long> lastSeen = new ConcurrentHashMap<>();
    private final Map<Integer, RaftClient> probes = new ConcurrentHashMap<>();
    private final java.util.Set<RaftGroupId> noSpareWarned = ConcurrentHashMap.newKeySet();

    /**
     * On the metadata leader: asks every node's Raft server whether it answers; a node silent for
     * the dead-node timeout is declared dead in the metadata group and each of its replicas is
     * re-created on another live node; a dead node that answers again is declared alive.
     */
    private void watchNodes() throws Exception {
        long now = System.nanoTime();
        Map<Integer, CompletableFuture<Boolean>> asked = new java.util.TreeMap<>();
        for (ClusterPeer n : config.nodes()) {
            asked.put(n.id(), n.id() == config.nodeId() ? CompletableFuture.completedFuture(true)
                    : CompletableFuture.supplyAsync(() -> answers(n), Thread.ofVirtual()::start));
        }
        java.util.SortedSet<Integer> dead = deadNodes();
        for (Map.Entry<Integer, CompletableFuture<Boolean>> e : asked.entrySet()) {
            int id = e.getKey();
            boolean up = e.getValue().completeOnTimeout(false, 3, TimeUnit.SECONDS).join();
            lastSeen.putIfAbsent(id, now);
            if (up) {
                lastSeen.put(id, now);
                if (dead.contains(id)) {
                    meta(MetaStateMachine.nodeState(id, true), ClusterNode.Kind.WRITE, "node alive")
                            .get(30, TimeUnit.SECONDS);
                    LOG.info("Node {} answers again: declared alive", id);
                }
            } else if (!dead.contains(id) && now - lastSeen.get(id) > config.tuning().deadNodeTimeout().toNanos()) {
                meta(MetaStateMachine.nodeState(id, false), ClusterNode.Kind.WRITE, "node dead")
                        .get(30, TimeUnit.SECONDS);
                dead.add(id);
                LOG.warn("Node {} has not answered for {}: declared dead; its replicas will be re-created", id,
                        config.tuning().deadNodeTimeout());
            }
        }
        if (dead.isEmpty()) {
            return;
        }
        ByteBuf body = meta(MetaStateMachine.query(MetaStateMachine.ALL_REGIONS, null), ClusterNode.Kind.READ,
                "all regions").get(30, TimeUnit.SECONDS);
        for (MetaState.Region r : MetaStateMachine.readRegions(body)) {
            if (!r.online()) {
                continue;
            }
            for (int replica : r.replicas()) {
                if (dead.contains(replica)) {
                    replaceReplica(r, replica, dead);
                    break; // one move per region per round; the next round sees the new replicas
                }
            }
        }
    }

    /** A client asking node {@code id}'s Raft server alone, once, waiting a second at most. */
    private RaftClient probe(int id) {
        return probes.computeIfAbsent(id, _ -> {
            RaftPeer p = peer(config.nodes().stream().filter(n -> n.id() == id).findFirst().orElseThrow());
            RaftProperties props = new RaftProperties();
            org.apache.ratis.client.RaftClientConfigKeys.Rpc.setRequestTimeout(props,
                    org.apache.ratis.util.TimeDuration.valueOf(1, TimeUnit.SECONDS));
            return cluster.tls().client().setRaftGroup(RaftGroup.valueOf(MetaStateMachine.GROUP_ID, p))
                    .setProperties(props).setRetryPolicy(org.apache.ratis.retry.RetryPolicies.noRetry()).build();
        });
    }

    private boolean answers(ClusterPeer n) {
        RaftPeer p = peer(n);
        RaftClient c = probe(n.id());
        try {
            c.getGroupManagementApi(p.getId()).list();
            return true;
        } catch (IOException | RuntimeException e) {
            return false;
        }
    }

    private java.util.SortedSet<Integer> deadNodes() throws Exception {
        ByteBuf body = meta(MetaStateMachine.query(MetaStateMachine.DEAD_NODES, null), ClusterNode.Kind.READ,
                "dead nodes").get(30, TimeUnit.SECONDS);
        java.util.SortedSet<Integer> out = new java.util.TreeSet<>();
        int count = io.basalt.protocol.Wire.readVarint(body, "dead node count");
        for (int i = 0; i < count; i++) {
            out.add(io.basalt.protocol.Wire.readVarint(body, "dead node"));
        }
        return out;
    }

    /**
     * Moves {@code r}'s replica off the dead node {@code from}: the metadata group picks the live
     * node to take it (and records the move), the group is created there, the region's leader
     * changes the group's configuration to the new replicas (Ratis brings the new member up to date
     * first, by log or by snapshot), and the metadata group records the move as done. Every step
     * may be repeated: a metadata leader that dies half way leaves a move the next one finishes.
     */
    private void replaceReplica(MetaState.Region r, int from, java.util.Set<Integer> dead) throws Exception {
        MetaState.Region moving = r;
        if (r.joining() == 0 || dead.contains(r.joining())) {
            if (config.nodes().stream().noneMatch(n -> !dead.contains(n.id()) && !r.wants(n.id()))) {
                if (noSpareWarned.add(r.groupId())) {
                    LOG.warn("Region {} of {} lost its replica on node {} and no live node can take it; it runs on {}"
                            + " replicas until one can", r.id(), r.table(), from, r.replicas().size() - 1);
                }
                return;
            }
            noSpareWarned.remove(r.groupId());
            moving = MetaStateMachine.readRegions(meta(MetaStateMachine.move(true, r, from, 0), ClusterNode.Kind.WRITE,
                    "start moving a replica").get(30, TimeUnit.SECONDS)).getFirst();
            if (moving.joining() == 0) {
                LOG.warn("Region {} of {} lost its replica on node {} and no live node can take it", r.id(), r.table(),
                        from);
                return;
            }
        }
        int to = moving.joining();
        List<Integer> target = new ArrayList<>(moving.replicas());
        target.remove(Integer.valueOf(from));
        target.add(to);
        List<RaftPeer> targetPeers = replicas(moving.withReplicas(target, 0));
        RaftGroup targetGroup = RaftGroup.valueOf(r.groupId(), targetPeers);
        LOG.info("Region {} of {}: re-creating the replica of dead node {} on node {}", r.id(), r.table(), from, to);
        addGroup(RaftPeerId.valueOf("n" + to), targetGroup);
        // Asked of the live replicas only (a dead one may be a black hole that holds a request for
        // the whole timeout), the leader first when known.
        List<RaftPeer> live = replicas(moving).stream()
                .filter(p -> !dead.contains(nodeId(p.getId()))).toList();
        RaftProperties props = new RaftProperties();
        org.apache.ratis.client.RaftClientConfigKeys.Rpc.setRequestTimeout(props,
                org.apache.ratis.util.TimeDuration.valueOf(120, TimeUnit.SECONDS));
        RaftClient.Builder builder = cluster.tls().client().setRaftGroup(RaftGroup.valueOf(r.groupId(), live))
                .setProperties(props);
        String leader = describe(moving).leader();
        live.stream().filter(p -> clientAddress(nodeId(p.getId())).equals(leader)).findFirst()
                .ifPresent(p -> builder.setLeaderId(p.getId()));
        try (RaftClient c = builder.build()) {
            var reply = c.admin().setConfiguration(targetPeers);
            if (!reply.isSuccess()) {
                throw new IOException("region " + r.id() + " of " + r.table() + ": changing its replicas to " + target
                        + " failed: " + reply.getException());
            }
        }
        MetaState.Region done = MetaStateMachine.readRegions(meta(MetaStateMachine.move(false, r, from, to),
                ClusterNode.Kind.WRITE, "finish moving a replica").get(30, TimeUnit.SECONDS)).getFirst();
        router.byGroup.put(done.groupId(), done);
        cluster.membersChanged(done.groupId());
        LOG.info("Region {} of {} is on nodes {} now", r.id(), r.table(), done.replicas());
    }

    /**
     * Leaves the groups this node hosts that the metadata no longer gives it: a replica moved away
     * while this node was dead, or a table dropped while it was down. The local list is read before
     * the map, so a group created since (always after the metadata that names it) is never taken
     * for a stray.
     */
    private void leaveStrayGroups(List<MetaState.Region> all) throws Exception {
        List<RaftGroupId> local = cluster.groups();
        if (local.stream().allMatch(MetaStateMachine.GROUP_ID::equals)) {
            return;
        }
        Map<RaftGroupId, MetaState.Region> byGroup = new java.util.HashMap<>();
        all.forEach(r -> byGroup.put(r.groupId(), r));
        for (RaftGroupId g : local) {
            if (g.equals(MetaStateMachine.GROUP_ID)) {
                continue;
            }
            MetaState.Region r = byGroup.get(g);
            List<MetaState.Region> daughters = all.stream().filter(d -> d.madeFrom(g.getUuid())).toList();
            if (r == null && !daughters.isEmpty() && !retirable(daughters)) {
                continue; // a split parent or merge half: kept until what it made runs on every one of its nodes
            }
            if (r == null || !r.wants(config.nodeId())) {
                LOG.info("Node {}: leaving group {} ({}); its replica here is deleted", config.nodeId(), g,
                        r == null ? (daughters.isEmpty() ? "its table was dropped"
                                : "it split or merged, and what it made runs")
                                : "region " + r.id() + " of " + r.table()
                                + " is on nodes " + r.replicas() + " now");
                cluster.leave(g);
            }
        }
    }

    /** The region map as the metadata group has it now. */
    private List<MetaState.Region> allRegions() throws Exception {
        return MetaStateMachine.readRegions(meta(MetaStateMachine.query(MetaStateMachine.ALL_REGIONS, null),
                ClusterNode.Kind.READ, "all regions").get(30, TimeUnit.SECONDS));
    }

    /**
     * Puts in the map the daughters of each region the map still lists whose replica here has
     * applied a split: the node that proposed the split failed (or died) before its metadata
     * command, and the region refuses every request until the map names its daughters.
     */
    private void finishSplits(List<MetaState.Region> all) throws Exception {
        for (MetaState.Region r : all) {
            var split = cluster.splitOf(r.groupId());
            if (split.isEmpty()) {
                continue;
            }
            List<MetaState.Region> made = MetaStateMachine.readRegions(meta(MetaStateMachine.split(r, split.get()),
                    ClusterNode.Kind.WRITE, "finish the split of region " + r.id() + " of " + r.table())
                    .get(30, TimeUnit.SECONDS));
            LOG.info("Node {}: finished the split of region {} of {} into regions {} (its proposer did not)",
                    config.nodeId(), r.id(), r.table(), made.stream().map(MetaState.Region::id).toList());
        }
    }

    private final java.util.Set<RaftGroupId> seedMissingWarned = ConcurrentHashMap.newKeySet();

    /**
     * Starts, on this node, each split daughter placed here whose seed (the copy this node's
     * replica of the parent made when it applied the split) is ready. A daughter never starts here
     * without one: a replica starting empty could, with another, outvote the seeded ones and lose
     * the parent's rows. Until its parent's replica here applies the split, it waits.
     */
    private void startDaughters(List<MetaState.Region> all) throws IOException {
        for (MetaState.Region d : all) {
            if (d.parent() == null || !d.replicas().contains(config.nodeId()) || cluster.hostsQuietly(d.groupId())) {
                continue;
            }
            Path seed = config.dataDir().resolve("raft").resolve(d.parent().toString()).resolve("seeds")
                    .resolve(d.group().toString());
            if (d.otherParent() != null) { // a merge: both halves' parts, or it waits
                Path other = config.dataDir().resolve("raft").resolve(d.otherParent().toString()).resolve("seeds")
                        .resolve(d.group().toString());
                if (java.nio.file.Files.isDirectory(seed) && !java.nio.file.Files.isDirectory(other)) {
                    continue;
                }
            }
            if (!java.nio.file.Files.isDirectory(seed)) {
                if (!cluster.hostsQuietly(RaftGroupId.valueOf(d.parent())) && seedMissingWarned.add(d.groupId())) {
                    LOG.warn("Node {}: region {} of {} (a split daughter) has no seed here and its parent's replica is"
                            + " gone; it runs on its other replicas", config.nodeId(), d.id(), d.table());
                }
                continue;
            }
            router.byGroup.put(d.groupId(), d);
            cluster.join(RaftGroup.valueOf(d.groupId(), replicas(d)));
            LOG.info("Node {}: region {} of {} (split daughter) started from its seed", config.nodeId(), d.id(),
                    d.table());
        }
    }

    /**
     * Whether a split parent's groups may go: every daughter placed on this node runs here, and
     * every replica of each of them has committed past the split (it started from its seed, or
     * installed a snapshot), as this node's replica of the daughter knows from its leader.
     */
    private boolean retirable(List<MetaState.Region> daughters) {
        for (MetaState.Region d : daughters) {
            if (!d.wants(config.nodeId())) {
                continue;
            }
            if (!cluster.hostsQuietly(d.groupId())) {
                return false;
            }
            Map<Integer, Long> committed = cluster.commitIndexes(d.groupId());
            for (int node : d.replicas()) {
                Long index = committed.get(node);
                if (index == null || index <= d.seedIndex()) {
                    return false;
                }
            }
        }
        return true;
    }

    private RaftClient adminClient(RaftGroup group) {
        RaftProperties p = new RaftProperties();
        return cluster.tls().client().setRaftGroup(group).setProperties(p).build();
    }

    /** Creates the group on peer {@code peer} unless it is there already. */
    private void addGroup(RaftPeerId peer, RaftGroup group) throws IOException {
        try (RaftClient c = adminClient(group)) {
            GroupListReply list = c.getGroupManagementApi(peer).list();
            if (list.getGroupIds().contains(group.getGroupId())) {
                return;
            }
            var reply = c.getGroupManagementApi(peer).add(group);
            if (!reply.isSuccess()) {
                throw new IOException("adding group " + group.getGroupId() + " on " + peer + ": " + reply.getException());
            }
        }
    }

    private void removeGroup(MetaState.Region r) {
        RaftGroup group = RaftGroup.valueOf(r.groupId(), replicas(r));
        for (RaftPeer p : group.getPeers()) {
            try (RaftClient c = adminClient(group)) {
                c.getGroupManagementApi(p.getId()).remove(r.groupId(), true, false);
            } catch (IOException e) {
                LOG.warn("Dropping region {} of {}: its group stays on {} ({})", r.id(), r.table(), p.getId(),
                        e.getMessage());
            }
        }
        cluster.membersChanged(r.groupId());
    }

    private static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }

    @Override
    public void close() throws IOException {
        closed = true;
        keeper.interrupt();
        probes.values().forEach(c -> {
            try {
                c.close();
            } catch (IOException e) {
                // a probe client holds nothing worth reporting
            }
        });
        try {
            server.close();
        } finally {
            cluster.close();
        }
    }
}
