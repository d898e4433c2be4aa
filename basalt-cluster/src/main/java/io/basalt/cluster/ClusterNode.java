package io.basalt.cluster;

import io.basalt.client.BasaltException;
import io.basalt.client.Get;
import io.basalt.client.Result;
import io.basalt.client.Scan;
import io.basalt.client.StoreOptions;
import io.basalt.client.TableDescriptor;
import java.io.Closeable;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import org.apache.ratis.client.RaftClient;
import org.apache.ratis.client.RaftClientConfigKeys;
import org.apache.ratis.retry.RetryPolicies;
import org.apache.ratis.util.ExitUtils;
import org.apache.ratis.util.TimeDuration;
import org.apache.ratis.conf.RaftProperties;
import org.apache.ratis.grpc.GrpcConfigKeys;
import org.apache.ratis.protocol.ClientId;
import org.apache.ratis.protocol.GroupManagementRequest;
import org.apache.ratis.protocol.Message;
import org.apache.ratis.protocol.RaftClientReply;
import org.apache.ratis.protocol.RaftClientRequest;
import org.apache.ratis.protocol.RaftGroup;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.protocol.RaftPeer;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.protocol.SnapshotManagementRequest;
import org.apache.ratis.protocol.exceptions.LeaderNotReadyException;
import org.apache.ratis.protocol.exceptions.NotLeaderException;
import org.apache.ratis.protocol.exceptions.RaftException;
import org.apache.ratis.server.RaftServer;
import org.apache.ratis.server.RaftServerConfigKeys;
import org.apache.ratis.server.storage.RaftStorage;
import org.apache.ratis.thirdparty.com.google.protobuf.ByteString;

/**
 * One node of a Basalt cluster: one Ratis {@link RaftServer} (one Raft port) hosting a division
 * per region replica this node holds, each with its {@link RegionStateMachine}. Requests for a
 * region go to the local division: writes are grouped into entries ({@link RegionProposer}) and
 * proposed if this node leads the region; reads are linearizable (leader lease, or ReadIndex) or,
 * when asked, served stale from this replica.
 */
public final class ClusterNode implements AutoCloseable {

    static {
        // Ratis ends the JVM (System.exit) when its gRPC server cannot bind, and, once its ExitUtils
        // is loaded, on any uncaught exception in any thread. A node is a database server: it
        // reports a port in use as an error and never lets a library decide that it dies.
        Thread.UncaughtExceptionHandler previous = Thread.getDefaultUncaughtExceptionHandler();
        ExitUtils.disableSystemExit();
        ExitUtils.setTerminateOnUncaughtException(false);
        Thread.setDefaultUncaughtExceptionHandler(previous);
    }

    private final RaftPeer self;
    private final RaftServer server;
    private final ClientId clientId = ClientId.randomId();
    private final AtomicLong callIds = new AtomicLong();
    private final Map<RaftGroupId, RegionProposer> proposers = new ConcurrentHashMap<>();
    private final Map<RaftGroupId, RaftClient> clients = new ConcurrentHashMap<>();
    private volatile Function<RaftGroupId, RaftGroup> groups;
    private final java.util.concurrent.atomic.LongAdder forwarded = new java.util.concurrent.atomic.LongAdder();
    private final RaftTls tls;

    private ClusterNode(RaftPeer self, RaftServer server, RaftTls tls) {
        this.self = self;
        this.server = server;
        this.tls = tls;
    }

    /**
     * Starts a node: its Raft server listens on {@code self}'s address, its links to the other
     * nodes as {@code tls} says; the regions it held before (in {@code directory}) are recovered,
     * their logs replayed from their snapshots.
     */
    public static ClusterNode start(RaftPeer self, Path directory, RaftTuning tuning, RaftTls tls,
                                    StoreOptions options) throws IOException {
        Files.createDirectories(directory);
        RaftProperties p = new RaftProperties();
        RaftServerConfigKeys.setStorageDir(p, List.of(directory.toFile()));
        String address = self.getAddress();
        int colon = address.lastIndexOf(':');
        GrpcConfigKeys.Server.setHost(p, address.substring(0, colon));
        GrpcConfigKeys.Server.setPort(p, Integer.parseInt(address.substring(colon + 1)));
        tuning.applyTo(p);
        RaftServer server;
        try {
            server = tls.server()
                    .setServerId(self.getId())
                    .setProperties(p)
                    .setStateMachineRegistry(group -> group.equals(MetaStateMachine.GROUP_ID) ? new MetaStateMachine()
                            : new RegionStateMachine(options))
                    .setOption(RaftStorage.StartupOption.RECOVER)
                    .build();
        } catch (IllegalArgumentException e) {
            if (!tls.enabled()) {
                throw e;
            }
            // Ratis makes its TLS contexts here (with the OpenSSL it bundles), and says so in a runtime exception.
            throw new IOException("node " + self.getId() + " cannot set up TLS on its Raft server on " + address + ": "
                    + rootMessage(e), e);
        }
        try {
            server.start();
        } catch (ExitUtils.ExitException | IOException e) {
            closeQuietly(server);
            Throwable cause = e instanceof ExitUtils.ExitException && e.getCause() != null ? e.getCause() : e;
            throw new IOException("node " + self.getId() + " cannot start its Raft server on " + address + ": "
                    + rootMessage(cause), cause);
        }
        return new ClusterNode(self, server, tls);
    }

    /** How this node's Raft links are secured: every Raft client it or its node makes is built with it. */
    RaftTls tls() {
        return tls;
    }

    /**
     * Lets this node forward what it cannot serve itself: a write to a group it does not lead, a
     * read of a group it does not host, goes to the group's members as {@code groups} lists them.
     * Without it, such requests fail with {@link io.basalt.cluster.NotLeaderException}.
     */
    public void forwardWith(Function<RaftGroupId, RaftGroup> groups) {
        this.groups = groups;
    }

    /** Forgets the forwarding client of {@code group}: its members changed. */
    void membersChanged(RaftGroupId group) {
        RaftClient c = clients.remove(group);
        if (c != null) {
            closeQuietly(c);
        }
    }

    public RaftPeerId id() {
        return self.getId();
    }

    /**
     * Region requests this node has sent on to another node since it started (it did not lead
     * the region, or did not hold it): what clients routing to leaders save.
     */
    public long forwardedRequests() {
        return forwarded.sum();
    }

    public RaftPeer peer() {
        return self;
    }

    /** Makes this node a member of {@code group} (a region's replicas), if it is not yet. */
    public void join(RaftGroup group) throws IOException {
        if (hosts(group.getGroupId())) {
            return;
        }
        RaftClientReply reply = server.groupManagement(
                GroupManagementRequest.newAdd(clientId, self.getId(), callIds.incrementAndGet(), group));
        if (!reply.isSuccess()) {
            throw new IOException(self.getId() + " could not join group " + group.getGroupId() + ": "
                    + reply.getException());
        }
    }

    /** The groups this node is a member of now. */
    public List<RaftGroupId> groups() throws IOException {
        List<RaftGroupId> out = new java.util.ArrayList<>();
        server.getGroupIds().forEach(out::add);
        return out;
    }

    /**
     * Leaves {@code group} and deletes its log, snapshots and replica here: the group no longer has
     * this node as a member (its replica moved, or its table was dropped while this node was down).
     */
    public void leave(RaftGroupId group) throws IOException {
        RaftClientReply reply = server.groupManagement(GroupManagementRequest.newRemove(clientId, self.getId(),
                callIds.incrementAndGet(), group, true, false));
        if (!reply.isSuccess()) {
            throw new IOException(self.getId() + " could not leave group " + group + ": " + reply.getException());
        }
        membersChanged(group);
    }

    public boolean hosts(RaftGroupId group) throws IOException {
        for (RaftGroupId id : server.getGroupIds()) {
            if (id.equals(group)) {
                return true;
            }
        }
        return false;
    }

    /** Whether this node leads {@code group} now (as far as it knows). */
    public boolean isLeader(RaftGroupId group) {
        try {
            return server.getDivision(group).getInfo().isLeader();
        } catch (IOException e) {
            return false;
        }
    }

    /** The leader this node knows of for {@code group}. */
    public Optional<RaftPeerId> leader(RaftGroupId group) {
        try {
            return Optional.ofNullable(server.getDivision(group).getInfo().getLeaderId());
        } catch (IOException e) {
            return Optional.empty();
        }
    }

    /** The index this node's replica of {@code group} has applied. */
    public long appliedIndex(RaftGroupId group) throws IOException {
        return server.getDivision(group).getInfo().getLastAppliedIndex();
    }

    /**
     * The commit index of each member of {@code group} (by node id) as this node's replica knows
     * it: its own, and the others' as the leader last told it; empty when it does not host the group.
     */
    Map<Integer, Long> commitIndexes(RaftGroupId group) {
        Map<Integer, Long> out = new java.util.HashMap<>();
        try {
            for (var info : server.getDivision(group).getCommitInfos()) {
                String id = RaftPeerId.valueOf(info.getServer().getId()).toString();
                out.put(Integer.parseInt(id.substring(1)), info.getCommitIndex());
            }
        } catch (IOException | RuntimeException e) {
            // not hosted, or closing: nothing known
        }
        return out;
    }

    /** This node's replica of region {@code group}, if it hosts one. */
    private Optional<RegionStateMachine> replica(RaftGroupId group) {
        try {
            if (server.getDivision(group).getStateMachine() instanceof RegionStateMachine r) {
                return Optional.of(r);
            }
        } catch (IOException | RuntimeException e) {
            // not hosted here, or closing
        }
        return Optional.empty();
    }

    /** Bytes of SSTable data in this node's replica of {@code group}; 0 when it hosts none. */
    long replicaBytes(RaftGroupId group) {
        return replica(group).map(RegionStateMachine::dataBytes).orElse(0L);
    }

    /** The store metrics of this node's replica of {@code group}, if it hosts an open one. */
    Optional<io.basalt.engine.StoreMetrics> replicaMetrics(RaftGroupId group) {
        return replica(group).map(RegionStateMachine::metrics);
    }

    /** The split this node's replica of {@code group} applied, if it hosts one that split. */
    Optional<RegionCodec.SplitInfo> splitOf(RaftGroupId group) {
        return replica(group).map(RegionStateMachine::splitInfo);
    }

    /** The merge this node's replica of {@code group} froze for, if it did. */
    Optional<RegionCodec.MergeInfo> mergeOf(RaftGroupId group) {
        return replica(group).map(RegionStateMachine::mergeInfo);
    }

    // ------------------------------------------------------------------ writes

    /** Creates the region's table: the first entry of a new region's log. */
    public CompletableFuture<Void> createTable(RaftGroupId group, TableDescriptor table) {
        return send(group, RegionCodec.createTable(table), Kind.WRITE)
                .thenApply(reply -> {
                    Object outcome = RegionCodec.readReply(reply, where(group)).getFirst().getFirst();
                    if (outcome instanceof RuntimeException e) {
                        throw e;
                    }
                    return null;
                });
    }

    /**
     * Writes one call to region {@code group}; completes with its operations' outcomes: for each,
     * {@code null} (put, delete), a {@link Result} (increment), a {@link Boolean} (check-and-mutate)
     * or the {@link BasaltException} it failed with. Fails as a whole with {@link
     * io.basalt.cluster.NotLeaderException} when this node does not lead the region.
     */
    public CompletableFuture<List<Object>> write(RaftGroupId group, String table, WriteCall call) {
        RegionProposer proposer = proposers.computeIfAbsent(group, g -> new RegionProposer(
                entry -> send(g, entry, Kind.WRITE)
                        .thenApply(reply -> RegionCodec.readReply(reply, where(g))),
                System::currentTimeMillis));
        return proposer.submit(table, call);
    }

    /** Entries proposed and calls carried so far for {@code group} by this node. */
    long[] grouping(RaftGroupId group) {
        RegionProposer p = proposers.get(group);
        return p == null ? new long[2] : p.counts();
    }

    // ------------------------------------------------------------------ reads

    /** How a read is served. */
    public enum ReadMode {
        /** By the leader, after confirming it still leads (its lease, or a ReadIndex round). */
        LINEARIZABLE,
        /** By this node's replica, from what it has applied: possibly behind the leader. */
        STALE;

        /** A query's mode: {@link io.basalt.client.Consistency#TIMELINE} reads any replica as it stands. */
        public static ReadMode of(io.basalt.client.Query<?> query) {
            return query.consistency() == io.basalt.client.Consistency.TIMELINE ? STALE : LINEARIZABLE;
        }
    }

    public CompletableFuture<Result> get(RaftGroupId group, String table, Get get, ReadMode mode) {
        return read(group, RegionCodec.get(table, get), mode)
                .thenApply(reply -> RegionCodec.readRows(reply, where(group)).results().getFirst());
    }

    /** Up to {@code limit} rows of {@code scan} in the region, and whether it has more after them. */
    public CompletableFuture<RegionCodec.Rows> scan(RaftGroupId group, String table, Scan scan, int limit,
                                                    ReadMode mode) {
        return read(group, RegionCodec.scan(table, scan, limit), mode)
                .thenApply(reply -> RegionCodec.readRows(reply, where(group)));
    }

    /**
     * A planted bug, for showing that the nemesis tests' checker catches one: with the system
     * property {@code basalt.cluster.unsafeStaleReads} set, "linearizable" reads are served from
     * this node's replica as it stands, without the leader's lease or a ReadIndex round. Never set
     * it outside those tests.
     */
    private static final boolean UNSAFE_STALE_READS = Boolean.getBoolean("basalt.cluster.unsafeStaleReads");

    private CompletableFuture<ByteString> read(RaftGroupId group, Message query, ReadMode mode) {
        boolean linearizable = mode == ReadMode.LINEARIZABLE && !(UNSAFE_STALE_READS && hostsQuietly(group));
        return send(group, query, linearizable ? Kind.READ : Kind.STALE_READ);
    }

    // ------------------------------------------------------------------ admin

    /** Takes a snapshot of this node's replica of {@code group} now; completes with its index. */
    public long snapshot(RaftGroupId group) throws IOException {
        RaftClientReply reply = server.snapshotManagement(SnapshotManagementRequest.newCreate(clientId, self.getId(),
                group, callIds.incrementAndGet(), 60_000, 1)); // 1: whatever was applied since the last one
        if (!reply.isSuccess()) {
            throw new IOException("snapshot of " + group + " on " + self.getId() + " failed: " + reply.getException());
        }
        return reply.getLogIndex();
    }

    enum Kind {
        WRITE, READ, STALE_READ
    }

    /** Proposes or queries {@code message} in {@code group}: here when this node can, else forwarded. */
    CompletableFuture<ByteString> send(RaftGroupId group, Message message, Kind kind) {
        Function<RaftGroupId, RaftGroup> resolver = groups;
        boolean local = hostsQuietly(group);
        if (resolver != null && (!local || (kind == Kind.WRITE && !isLeader(group)))) {
            if (!group.equals(MetaStateMachine.GROUP_ID)) {
                forwarded.increment();
            }
            return forward(group, message, kind, resolver);
        }
        RaftClientRequest request = RaftClientRequest.newBuilder()
                .setClientId(clientId)
                .setServerId(self.getId())
                .setGroupId(group)
                .setCallId(callIds.incrementAndGet())
                .setMessage(message)
                .setType(switch (kind) {
                    case WRITE -> RaftClientRequest.writeRequestType();
                    case READ -> RaftClientRequest.readRequestType();
                    case STALE_READ -> RaftClientRequest.staleReadRequestType(0);
                })
                .build();
        CompletableFuture<RaftClientReply> sent;
        try {
            sent = server.submitClientRequestAsync(request);
        } catch (IOException e) {
            return CompletableFuture.failedFuture(new io.basalt.client.UnavailableException(where(group) + ": "
                    + e.getMessage(), e));
        }
        return sent.handle((reply, failure) -> {
            if (failure != null) {
                throw mapped(group, failure);
            }
            return content(group, reply);
        });
    }

    /**
     * What a failure of a request to a group is for a client: Ratis's own exceptions by kind, a
     * Basalt exception as it is, anything else the transport's (gRPC's {@code UNAVAILABLE}, a
     * closed channel, a follower's ReadIndex call to a dead leader): nothing is known to have been
     * applied, and a retry is safe.
     */
    private BasaltException mapped(RaftGroupId group, Throwable failure) {
        Throwable cause = unwrap(failure);
        return cause instanceof RaftException r ? failure(group, r)
                : cause instanceof BasaltException b ? b
                : new io.basalt.client.UnavailableException(where(group) + ": " + cause, cause);
    }

    private CompletableFuture<ByteString> forward(RaftGroupId group, Message message, Kind kind,
                                                  Function<RaftGroupId, RaftGroup> resolver) {
        RaftClient client;
        try {
            client = forwardingClient(group, resolver);
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
        RaftGroup members = resolver.apply(group);
        if (members != null && LinkFaults.cutOffFromAll(self.getId().toString(),
                members.getPeers().stream().map(p -> p.getId().toString()).toList())) {
            return CompletableFuture.failedFuture(new io.basalt.client.UnavailableException(where(group)
                    + ": node " + self.getId() + " is cut off from every other member"));
        }
        CompletableFuture<RaftClientReply> sent;
        try {
            sent = switch (kind) {
                case WRITE -> client.async().send(message);
                case READ -> client.async().sendReadOnly(message);
                case STALE_READ -> client.async().sendReadOnlyNonLinearizable(message);
            };
        } catch (RuntimeException e) { // the transport may refuse at once
            sent = CompletableFuture.failedFuture(e);
        }
        return sent.handle((reply, failure) -> {
            if (failure != null) {
                if (spent(failure)) {
                    // A Ratis client that spent its retries (a group with no leader for a while: a
                    // new daughter starting, an election) closes its ordered window and fails every
                    // later request at once; the next request gets a fresh client.
                    if (clients.remove(group, client)) {
                        closeQuietly(client);
                    }
                }
                throw mapped(group, failure);
            }
            return content(group, reply);
        });
    }

    /** Whether a forwarding client's failure left it unusable: retries spent, or closed. */
    private static boolean spent(Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t instanceof org.apache.ratis.protocol.exceptions.RaftRetryFailureException
                    || t instanceof org.apache.ratis.protocol.exceptions.AlreadyClosedException) {
                return true;
            }
        }
        return false;
    }

    /** The Ratis client this node forwards requests for {@code group} with, made on first use. */
    private RaftClient forwardingClient(RaftGroupId group, Function<RaftGroupId, RaftGroup> resolver) {
        return clients.computeIfAbsent(group, g -> {
            RaftGroup members = resolver.apply(g);
            if (members == null) {
                throw new BasaltException("no members known for group " + g + " on " + self.getId());
            }
            RaftProperties p = new RaftProperties();
            RaftClientConfigKeys.Rpc.setRequestTimeout(p, TimeDuration.valueOf(10, TimeUnit.SECONDS));
            return tls.client().setRaftGroup(members).setProperties(p)
                    .setRetryPolicy(RetryPolicies.retryUpToMaximumCountWithFixedSleep(100,
                            TimeDuration.valueOf(100, TimeUnit.MILLISECONDS)))
                    .build();
        });
    }

    /**
     * Flushes ({@link RegionCodec#FLUSH}) or compacts ({@link RegionCodec#COMPACT}) the store of
     * {@code peer}'s replica of {@code group}: housekeeping of that one store, which changes no
     * data, so it is asked of the replica directly (as a read of it) rather than logged.
     */
    public CompletableFuture<Void> housekeeping(RaftGroupId group, RaftPeerId peer, String table, int kind) {
        Message m = RegionCodec.housekeeping(table, kind);
        CompletableFuture<ByteString> sent;
        Function<RaftGroupId, RaftGroup> resolver = groups;
        if (peer.equals(self.getId()) || resolver == null) {
            sent = send(group, m, Kind.STALE_READ);
        } else {
            try {
                sent = forwardingClient(group, resolver).async().sendStaleRead(m, 0, peer).handle((reply, failure) -> {
                    if (failure != null) {
                        throw mapped(group, failure);
                    }
                    return content(group, reply);
                });
            } catch (RuntimeException e) {
                return CompletableFuture.failedFuture(e);
            }
        }
        return sent.thenAccept(reply -> RegionCodec.readRows(reply, where(group) + " on " + peer));
    }

    /** The cause of a completion's failure. */
    static Throwable unwrap(Throwable t) {
        while (t instanceof java.util.concurrent.CompletionException && t.getCause() != null) {
            t = t.getCause();
        }
        return t;
    }

    private ByteString content(RaftGroupId group, RaftClientReply reply) {
        if (reply.isSuccess()) {
            return reply.getMessage().getContent();
        }
        throw failure(group, reply.getException());
    }

    boolean hostsQuietly(RaftGroupId group) {
        try {
            return hosts(group);
        } catch (IOException e) {
            return false;
        }
    }

    private static void closeQuietly(Closeable c) {
        try {
            c.close();
        } catch (IOException | RuntimeException e) {
            // a client or a server that failed to start holds nothing we need
        }
    }

    private static String rootMessage(Throwable t) {
        Throwable root = t;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        return root.getMessage() != null ? root.getMessage() : root.toString();
    }

    private BasaltException failure(RaftGroupId group, RaftException e) {
        if (e instanceof NotLeaderException n) {
            RaftPeer suggested = n.getSuggestedLeader();
            return new io.basalt.cluster.NotLeaderException(self.getId() + " does not lead region group " + group
                    + (suggested == null ? "; no leader known" : "; " + suggested.getId() + " does"),
                    suggested == null ? null : suggested.getId().toString());
        }
        if (e instanceof LeaderNotReadyException) {
            return new io.basalt.cluster.NotLeaderException(self.getId() + " was just elected leader of region group "
                    + group + " and is not ready yet", self.getId().toString());
        }
        if (e instanceof org.apache.ratis.protocol.exceptions.StateMachineException) {
            return new BasaltException(where(group) + ": " + e.getMessage(), e);
        }
        // No leader reached in time, a closed peer, a retry budget spent: nothing known applied.
        return new io.basalt.client.UnavailableException(where(group) + ": "
                + (e == null ? "failed without a reason" : e.getMessage()), e);
    }

    private String where(RaftGroupId group) {
        return "region group " + group + " on " + self.getId();
    }

    @Override
    public void close() throws IOException {
        clients.values().forEach(ClusterNode::closeQuietly);
        clients.clear();
        server.close();
    }
}
