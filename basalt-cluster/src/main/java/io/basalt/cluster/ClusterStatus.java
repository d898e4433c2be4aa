package io.basalt.cluster;

import io.basalt.bytes.Bytes;
import io.netty.buffer.ByteBuf;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.apache.ratis.client.RaftClient;
import org.apache.ratis.client.RaftClientConfigKeys;
import org.apache.ratis.conf.RaftProperties;
import org.apache.ratis.proto.RaftProtos.RaftPeerRole;
import org.apache.ratis.protocol.GroupInfoReply;
import org.apache.ratis.protocol.RaftClientReply;
import org.apache.ratis.protocol.RaftGroup;
import org.apache.ratis.protocol.RaftPeer;
import org.apache.ratis.retry.RetryPolicies;
import org.apache.ratis.util.TimeDuration;

/**
 * What a cluster looks like from outside: each node and whether its Raft server answers, and each
 * region with its replicas, its leader and how far each replica's applied index lags the leader's.
 * Asked over the nodes' Raft ports (the metadata group for the regions, each replica for its state).
 */
public final class ClusterStatus {

    /** One replica of a region: its node, its role, and its applied index. */
    public record Replica(int node, String role, long applied) {}

    /** One region of a table with its replicas; {@code leader} is 0 when none answered as leader. */
    public record RegionStatus(String table, long id, String start, String end, int leader, List<Replica> replicas) {
        /** Entries each replica has yet to apply to reach the leader's applied index (-1: unknown). */
        public Map<Integer, Long> lag() {
            long top = replicas.stream().filter(r -> r.node() == leader).mapToLong(Replica::applied).findFirst()
                    .orElse(-1);
            Map<Integer, Long> out = new TreeMap<>();
            for (Replica r : replicas) {
                out.put(r.node(), top < 0 || r.applied() < 0 ? -1 : Math.max(0, top - r.applied()));
            }
            return out;
        }
    }

    /** A node and whether its Raft server answered; {@code groups} is how many groups it hosts. */
    public record NodeStatus(ClusterPeer peer, boolean up, int groups) {}

    /**
     * What the cluster answered. {@code problem} says why it could not all be asked, {@code null}
     * when it was; {@code wantsTls} is set when a node that did not answer showed a certificate to
     * a client that asked without one: the cluster's Raft links are TLS.
     */
    public record Report(List<NodeStatus> nodes, List<RegionStatus> regions, String problem, boolean wantsTls) {}

    private ClusterStatus() {}

    private static RaftProperties properties() {
        RaftProperties p = new RaftProperties();
        RaftClientConfigKeys.Rpc.setRequestTimeout(p, TimeDuration.valueOf(3, TimeUnit.SECONDS));
        return p;
    }

    private static RaftClient client(RaftTls tls, RaftGroup group) {
        return tls.client().setRaftGroup(group).setProperties(properties())
                .setRetryPolicy(RetryPolicies.retryUpToMaximumCountWithFixedSleep(20,
                        TimeDuration.valueOf(250, TimeUnit.MILLISECONDS)))
                .build();
    }

    /** Asks the cluster of {@code peers} over plaintext Raft links ({@link #of(List, RaftTls)}). */
    public static Report of(List<ClusterPeer> peers) {
        return of(peers, RaftTls.OFF);
    }

    /**
     * Asks the cluster of {@code peers} over Raft links secured as {@code tls} says (a cluster whose
     * nodes have TLS answers only a client with a certificate its CA signed); a node that does not
     * answer is reported down, never waited for long. A node that refuses the links as given (it
     * wants TLS, or the handshake failed) is named in the report's problem.
     */
    public static Report of(List<ClusterPeer> peers, RaftTls tls) {
        List<NodeStatus> nodes = new ArrayList<>();
        String linkProblem = null;
        boolean wantsTls = false;
        for (ClusterPeer p : peers) {
            RaftGroup solo = RaftGroup.valueOf(MetaStateMachine.GROUP_ID, BasaltNode.peer(p));
            try (RaftClient c = client(tls, solo)) {
                nodes.add(new NodeStatus(p, true, c.getGroupManagementApi(BasaltNode.peer(p).getId()).list()
                        .getGroupIds().size()));
            } catch (IOException | RuntimeException e) {
                nodes.add(new NodeStatus(p, false, 0));
                if (linkProblem == null) {
                    if (io.basalt.protocol.Tls.isTlsFailure(e)) {
                        linkProblem = "node " + p.id() + " (Raft " + p.raftAddress() + ") failed the TLS handshake: "
                                + io.basalt.protocol.Tls.explain(e);
                    } else if (!tls.enabled() && RaftTls.speaksTls(p.host(), p.raftPort(), 2_000)) {
                        wantsTls = true;
                        linkProblem = "node " + p.id() + "'s Raft port " + p.raftAddress() + " wants TLS: the"
                                + " cluster's nodes authenticate each other with certificates, and this asked without"
                                + " one (give tlsCert, tlsKey and tlsCa: a certificate the cluster's CA signed)";
                    }
                }
            }
        }
        if (linkProblem != null && nodes.stream().noneMatch(NodeStatus::up)) {
            return new Report(nodes, List.of(), linkProblem, wantsTls);
        }
        List<ClusterPeer> sorted = peers.stream().sorted(Comparator.comparingInt(ClusterPeer::id)).toList();
        int metaSize = sorted.size() >= 5 ? 5 : Math.min(3, sorted.size());
        RaftGroup meta = RaftGroup.valueOf(MetaStateMachine.GROUP_ID,
                sorted.subList(0, metaSize).stream().map(BasaltNode::peer).toList());
        List<MetaState.Region> regions;
        try (RaftClient c = client(tls, meta)) {
            RaftClientReply reply = c.io().sendReadOnly(MetaStateMachine.query(MetaStateMachine.ALL_REGIONS, null));
            ByteBuf body = MetaStateMachine.okBody(reply.getMessage(), "all regions");
            regions = MetaStateMachine.readRegions(body);
        } catch (IOException | RuntimeException e) {
            return new Report(nodes, List.of(), "the metadata group did not answer: " + e.getMessage()
                    + (linkProblem == null ? "" : "; " + linkProblem), wantsTls);
        }
        List<RegionStatus> out = new ArrayList<>();
        for (MetaState.Region r : regions) {
            List<RaftPeer> members = new ArrayList<>();
            for (int id : r.replicas()) {
                peers.stream().filter(p -> p.id() == id).findFirst().map(BasaltNode::peer).ifPresent(members::add);
            }
            RaftGroup group = RaftGroup.valueOf(r.groupId(), members);
            List<Replica> replicas = new ArrayList<>();
            int leader = 0;
            try (RaftClient c = client(tls, group)) {
                for (RaftPeer m : members) {
                    int node = Integer.parseInt(m.getId().toString().substring(1));
                    try {
                        GroupInfoReply info = c.getGroupManagementApi(m.getId()).info(r.groupId());
                        RaftPeerRole role = info.getRoleInfoProto().getRole();
                        if (role == RaftPeerRole.LEADER) {
                            leader = node;
                        }
                        replicas.add(new Replica(node, role.name().toLowerCase(java.util.Locale.ROOT),
                                info.getLogInfoProto().getApplied().getIndex()));
                    } catch (IOException | RuntimeException e) {
                        replicas.add(new Replica(node, "unreachable", -1));
                    }
                }
            } catch (IOException e) {
                // closing a client holds nothing we report
            }
            out.add(new RegionStatus(r.table(), r.id(), Bytes.toStringBinary(r.start()), Bytes.toStringBinary(r.end()),
                    leader, replicas));
        }
        return new Report(nodes, out, null, wantsTls);
    }
}
