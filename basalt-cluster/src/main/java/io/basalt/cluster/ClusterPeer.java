package io.basalt.cluster;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * A node of a cluster as every other node and client knows it: its id, its host, the port its
 * clients connect to and the port its Raft peers connect to.
 */
public record ClusterPeer(int id, String host, int clientPort, int raftPort) {

    public ClusterPeer {
        if (id < 1) {
            throw new IllegalArgumentException("node ids start at 1, not " + id);
        }
        if (host == null || host.isBlank()) {
            throw new IllegalArgumentException("node " + id + " has no host");
        }
        for (int port : new int[] {clientPort, raftPort}) {
            if (port < 1 || port > 65535) {
                throw new IllegalArgumentException("node " + id + ": port " + port + " is not between 1 and 65535");
            }
        }
        if (clientPort == raftPort) {
            throw new IllegalArgumentException("node " + id + " uses port " + clientPort + " for clients and Raft alike");
        }
    }

    public String raftAddress() {
        return host + ":" + raftPort;
    }

    public String clientAddress() {
        return host + ":" + clientPort;
    }

    /** Its Raft peer id. */
    public String peerId() {
        return "n" + id;
    }

    /** {@code id=host:clientPort:raftPort}, as {@link #parseList} reads it. */
    @Override
    public String toString() {
        return id + "=" + host + ":" + clientPort + ":" + raftPort;
    }

    /**
     * Reads {@code 1=host:port:raftPort,2=host:port:raftPort,...}: every node of the cluster.
     *
     * @throws IllegalArgumentException naming the entry that does not read, or a repeated id or address
     */
    public static List<ClusterPeer> parseList(String spec) {
        List<ClusterPeer> out = new ArrayList<>();
        Set<Integer> ids = new HashSet<>();
        Set<String> addresses = new HashSet<>();
        for (String entry : spec.split(",")) {
            String e = entry.trim();
            int eq = e.indexOf('=');
            String[] parts = eq < 0 ? new String[0] : e.substring(eq + 1).split(":");
            if (eq < 0 || parts.length != 3) {
                throw new IllegalArgumentException("peer '" + e + "' is not id=host:port:raftPort");
            }
            ClusterPeer p;
            try {
                p = new ClusterPeer(Integer.parseInt(e.substring(0, eq).trim()), parts[0], Integer.parseInt(parts[1]),
                        Integer.parseInt(parts[2]));
            } catch (NumberFormatException x) {
                throw new IllegalArgumentException("peer '" + e + "' has a number that does not read: " + x.getMessage());
            }
            if (!ids.add(p.id())) {
                throw new IllegalArgumentException("node id " + p.id() + " is listed twice in '" + spec + "'");
            }
            if (!addresses.add(p.clientAddress()) || !addresses.add(p.raftAddress())) {
                throw new IllegalArgumentException("peer '" + e + "' reuses an address another entry has");
            }
            out.add(p);
        }
        return List.copyOf(out);
    }
}
