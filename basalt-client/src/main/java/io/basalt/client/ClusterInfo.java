package io.basalt.client;

import java.util.List;

/**
 * A cluster as one of its nodes sees it now: every node and whether its Raft server answered, and
 * every region with its replicas, its leader and how far each replica lags the leader.
 *
 * @param nodes the cluster's nodes
 * @param regions every table's regions
 */
public record ClusterInfo(List<Node> nodes, List<Region> regions) {

    public ClusterInfo {
        nodes = List.copyOf(nodes);
        regions = List.copyOf(regions);
    }

    /**
     * @param address its client address, {@code host:port}
     * @param up whether its Raft server answered
     * @param groups the Raft groups it hosts (the metadata group and region replicas)
     */
    public record Node(int id, String address, boolean up, int groups) {}

    /**
     * @param role {@code leader}, {@code follower}, {@code candidate}... or {@code unreachable}
     * @param lag log entries it has yet to apply to reach the leader, or -1 when unknown
     */
    public record Replica(int node, String role, long lag) {}

    /** @param leader the node leading it, or 0 when none answered as leader */
    public record Region(String table, long id, String start, String end, int leader, List<Replica> replicas) {
        public Region {
            replicas = List.copyOf(replicas);
        }
    }
}
