package io.basalt.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.basalt.bytes.Bytes;
import io.basalt.client.AsyncTable;
import io.basalt.client.Basalt;
import io.basalt.client.Connection;
import io.basalt.client.Get;
import io.basalt.client.Increment;
import io.basalt.client.Mutation;
import io.basalt.client.Put;
import io.basalt.client.RegionInfo;
import io.basalt.client.Result;
import io.basalt.client.Scan;
import io.basalt.client.StoreOptions;
import io.basalt.client.TableDescriptor;
import io.basalt.server.ServerConfig;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Three whole nodes in this JVM (Raft servers, metadata group, network servers), used through the
 * ordinary network client: tables created in the metadata group with their regions placed and
 * brought online, rows routed to their regions from any node, batches and scans across regions.
 */
class ClusterNodesTest {

    @TempDir
    Path dir;

    static List<ClusterPeer> nodes(int count) throws Exception {
        List<ClusterPeer> out = new ArrayList<>();
        for (int i = 1; i <= count; i++) {
            out.add(new ClusterPeer(i, "127.0.0.1", FreePorts.take(), FreePorts.take()));
        }
        return out;
    }

    static BasaltNode start(Path dir, List<ClusterPeer> nodes, int id) throws Exception {
        return BasaltNode.start(new BasaltNode.Config(id, nodes, dir.resolve("node" + id), 3, RaftTuning.defaults(),
                StoreOptions.defaults(), ServerConfig.defaults()));
    }

    /** Nodes running in this JVM, closed together. */
    private record Running(List<ClusterPeer> peers, List<BasaltNode> nodes) implements AutoCloseable {
        @Override
        public void close() throws java.io.IOException {
            for (BasaltNode n : nodes) {
                n.close();
            }
        }
    }

    private Running startCluster(int count) throws Exception {
        List<ClusterPeer> peers = nodes(count);
        List<BasaltNode> started = new ArrayList<>();
        try {
            for (ClusterPeer n : peers) {
                started.add(start(dir, peers, n.id()));
            }
        } catch (Exception e) {
            new Running(peers, started).close();
            throw e;
        }
        return new Running(peers, List.copyOf(started));
    }

    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static String value(Result r) {
        return r.isEmpty() ? null : new String(r.value(b("f"), b("q")), StandardCharsets.UTF_8);
    }

    @Test
    void aTableSpansRegionsAndEveryNodeServesEveryRow() throws Exception {
        try (Running cluster = startCluster(3)) {
            List<ClusterPeer> nodes = cluster.peers();
            List<BasaltNode> running = cluster.nodes();
            try (Connection c = Basalt.connect("basalt://" + nodes.get(1).clientAddress())) {
                c.admin().createTable(TableDescriptor.of("t", "f"), List.of(b("g"), b("n"))).get(90, TimeUnit.SECONDS);
                List<RegionInfo> regions = c.admin().listRegions("t").get(30, TimeUnit.SECONDS);
                assertThat(regions).hasSize(3);
                io.basalt.client.ClusterInfo status = c.admin().clusterStatus().get(60, TimeUnit.SECONDS);
                assertThat(status.nodes()).extracting(io.basalt.client.ClusterInfo.Node::up).containsExactly(true, true,
                        true);
                assertThat(status.regions()).hasSize(3).allSatisfy(r -> {
                    assertThat(r.table()).isEqualTo("t");
                    assertThat(r.leader()).isBetween(1, 3);
                    assertThat(r.replicas()).hasSize(3);
                });
                // a node's own status: the replicas it holds (all three, at replication 3), named as the cluster's regions
                io.basalt.client.ServerStatus node = c.admin().serverStatus().get(30, TimeUnit.SECONDS);
                assertThat(node.node()).isEqualTo(nodes.get(1).clientAddress());
                assertThat(node.tables()).singleElement().satisfies(t -> {
                    assertThat(t.name()).isEqualTo("t");
                    assertThat(t.regions()).extracting(r -> r.info().id())
                            .containsExactlyElementsOf(regions.stream().map(RegionInfo::id).toList());
                });
                assertThat(c.admin().listTables().get(30, TimeUnit.SECONDS)).extracting(TableDescriptor::name)
                        .containsExactly("t");
                // the node's status page shows its cluster: every node up, each region with a leader
                java.net.InetSocketAddress http = running.get(1).server().httpAddress();
                String page = java.net.http.HttpClient.newHttpClient().send(java.net.http.HttpRequest.newBuilder(
                        java.net.URI.create("http://127.0.0.1:" + http.getPort() + "/api/status")).build(),
                        java.net.http.HttpResponse.BodyHandlers.ofString()).body();
                assertThat(page).contains("\"cluster\":{\"problem\":\"\"");
                for (ClusterPeer n : nodes) {
                    assertThat(page).contains("{\"id\":" + n.id() + ",\"address\":\"" + n.clientAddress()
                            + "\",\"up\":\"up\"");
                }
                assertThat(page.split("\"table\":\"t\"", -1)).as("a line per region").hasSize(4);

                AsyncTable t = c.table("t");
                List<Mutation> batch = new ArrayList<>();
                for (char ch = 'a'; ch <= 'z'; ch++) {
                    batch.add(Put.of(String.valueOf(ch)).addColumn("f", "q", "v" + ch));
                }
                for (CompletableFuture<Object> f : t.batch(batch)) {
                    f.get(30, TimeUnit.SECONDS);
                }
                Result inc = t.increment(Increment.of("m").addColumn(b("f"), b("n"), 3)).get(30, TimeUnit.SECONDS);
                assertThat(Increment.decode(MemorySegment.ofArray(inc.value(b("f"), b("n"))))).isEqualTo(3);

                for (ClusterPeer n : nodes) {
                    try (Connection other = Basalt.connect("basalt://" + n.clientAddress())) {
                        assertThat(value(other.table("t").get(Get.of("q")).get(30, TimeUnit.SECONDS)))
                                .as("node %s", n.id()).isEqualTo("vq");
                    }
                }
                List<Result> all = t.scanAll(new Scan()).get(30, TimeUnit.SECONDS);
                assertThat(all).hasSize(26);
                assertThat(all.getFirst().row()).isEqualTo(b("a"));
                assertThat(all.getLast().row()).isEqualTo(b("z"));
                List<Result> reversed = t.scanAll(new Scan().setReversed(true).withStartRow(b("p")).setLimit(5))
                        .get(30, TimeUnit.SECONDS);
                assertThat(reversed).extracting(r -> new String(r.row(), StandardCharsets.UTF_8))
                        .containsExactly("p", "o", "n", "m", "l");

                long files = replicaFiles();
                c.admin().flush("t").get(60, TimeUnit.SECONDS);
                assertThat(replicaFiles()).as("each of the 3 replicas of the 3 regions flushed its memtable")
                        .isGreaterThanOrEqualTo(files + 9);
                c.admin().compact("t").get(120, TimeUnit.SECONDS);
                assertThat(value(t.get(Get.of("q")).get(30, TimeUnit.SECONDS))).isEqualTo("vq");
                assertThat(t.scanAll(new Scan()).get(30, TimeUnit.SECONDS)).as("after compaction").hasSize(26);

                c.admin().truncateTable("t", true).get(90, TimeUnit.SECONDS);
                assertThat(c.admin().listRegions("t").get(30, TimeUnit.SECONDS)).hasSize(3);
                assertThat(t.scanAll(new Scan()).get(30, TimeUnit.SECONDS)).as("truncated").isEmpty();
                t.put(Put.of("after").addColumn("f", "q", "truncate")).get(60, TimeUnit.SECONDS);
                assertThat(value(t.get(Get.of("after")).get(30, TimeUnit.SECONDS))).isEqualTo("truncate");
                c.admin().truncateTable("t", false).get(90, TimeUnit.SECONDS);
                assertThat(c.admin().listRegions("t").get(30, TimeUnit.SECONDS)).as("splits not kept").hasSize(1);
                assertThat(t.get(Get.of("after")).get(30, TimeUnit.SECONDS).isEmpty()).isTrue();
                for (CompletableFuture<Object> f : t.batch(batch)) { // what the rest of the test reads
                    f.get(30, TimeUnit.SECONDS);
                }
            }

            // Node 3 has cached the table's regions; the table is dropped and made again through node 1.
            String viaNode3 = "basalt://" + nodes.get(2).clientAddress() + "," + nodes.get(0).clientAddress();
            try (Connection c3 = Basalt.connect(viaNode3);
                 Connection c1 = Basalt.connect("basalt://" + nodes.get(0).clientAddress())) {
                assertThat(value(c3.table("t").get(Get.of("b")).get(30, TimeUnit.SECONDS))).isEqualTo("vb");
                c1.admin().dropTable("t").get(60, TimeUnit.SECONDS);
                c1.admin().createTable(TableDescriptor.of("t", "f")).get(90, TimeUnit.SECONDS);
                c3.table("t").put(Put.of("b").addColumn("f", "q", "new")).get(60, TimeUnit.SECONDS);
                assertThat(value(c3.table("t").get(Get.of("b")).get(30, TimeUnit.SECONDS)))
                        .as("node 3 reads the new table's region map after the old one's groups are gone")
                        .isEqualTo("new");
                assertThat(c3.table("t").get(Get.of("q")).get(30, TimeUnit.SECONDS).isEmpty())
                        .as("nothing of the dropped table").isTrue();
            }
        }
    }
    @Test
    void listRegionsNamesLeadersAndClientsSendEachRowToItsLeader() throws Exception {
        try (Running cluster = startCluster(3)) {
            List<ClusterPeer> nodes = cluster.peers();
            List<BasaltNode> running = cluster.nodes();
            String all = "basalt://" + nodes.stream().map(ClusterPeer::clientAddress)
                    .collect(java.util.stream.Collectors.joining(","));
            List<RegionInfo> regions;
            try (Connection c = Basalt.connect(all)) {
                c.admin().createTable(TableDescriptor.of("t", "f"), List.of(b("g"), b("n"))).get(90, TimeUnit.SECONDS);
                long deadline = System.currentTimeMillis() + 60_000;
                do {
                    regions = c.admin().listRegions("t").get(30, TimeUnit.SECONDS);
                } while (regions.stream().anyMatch(r -> r.leader().isEmpty()) && System.currentTimeMillis() < deadline);
            }
            List<String> addresses = nodes.stream().map(ClusterPeer::clientAddress).toList();
            assertThat(regions).hasSize(3).allSatisfy(r -> {
                assertThat(r.replicas()).containsExactlyInAnyOrderElementsOf(addresses);
                assertThat(r.leader()).isIn(addresses);
            });
            RegionInfo located;
            try (Connection c = Basalt.connect(all)) {
                located = c.admin().locateRegion("t", b("h")).get(30, TimeUnit.SECONDS);
            }
            assertThat(Bytes.toStringBinary(located.start())).isEqualTo("g");
            assertThat(located.replicas()).hasSize(3);

            // The client's first node is the one leading the fewest regions: most rows are led elsewhere.
            List<RegionInfo> led = regions;
            ClusterPeer first = nodes.stream().min(java.util.Comparator.comparingLong(
                    n -> led.stream().filter(r -> r.leader().equals(n.clientAddress())).count())).orElseThrow();
            String uri = "basalt://" + first.clientAddress() + "," + nodes.stream().filter(n -> n != first)
                    .map(ClusterPeer::clientAddress).collect(java.util.stream.Collectors.joining(","));
            List<String> rows = new ArrayList<>();
            for (char ch = 'a'; ch <= 'z'; ch++) {
                for (int i = 0; i < 8; i++) {
                    rows.add(ch + "-" + i);
                }
            }
            long elsewhere = rows.stream().filter(row -> !leaderOf(led, b(row))
                    .equals(first.clientAddress())).count();
            assertThat(elsewhere).as("rows a client of node %s alone would have forwarded", first.id())
                    .isGreaterThanOrEqualTo(rows.size() / 2);
            try (Connection c = Basalt.connect(uri)) {
                AsyncTable t = c.table("t");
                t.put(Put.of("warm").addColumn("f", "q", "up")).get(30, TimeUnit.SECONDS); // asks for the map
                Thread.sleep(500);
                long before = running.stream().mapToLong(n -> n.cluster().forwardedRequests()).sum();
                for (String row : rows) {
                    t.put(Put.of(row).addColumn("f", "q", row)).get(30, TimeUnit.SECONDS);
                    assertThat(value(t.get(Get.of(row)).get(30, TimeUnit.SECONDS))).isEqualTo(row);
                }
                List<Mutation> batch = new ArrayList<>();
                rows.forEach(row -> batch.add(Put.of(row).addColumn("f", "q", "again " + row)));
                for (CompletableFuture<Object> f : t.batch(batch)) {
                    f.get(30, TimeUnit.SECONDS);
                }
                assertThat(value(t.get(Get.of("z-7")).get(30, TimeUnit.SECONDS))).isEqualTo("again z-7");
                long forwarded = running.stream().mapToLong(n -> n.cluster().forwardedRequests()).sum() - before;
                assertThat(forwarded).as("requests forwarded between nodes for %d operations on rows, %d of them"
                        + " led away from the first node", 2 * rows.size() + 4, 2 * elsewhere)
                        .isLessThanOrEqualTo(10);
            }
            io.basalt.client.net.ClientOptions unrouted = io.basalt.client.net.ClientOptions.builder()
                    .routeToLeaders(false).build();
            try (Connection c = Basalt.connect(uri, unrouted, StoreOptions.defaults())) {
                long before = running.stream().mapToLong(n -> n.cluster().forwardedRequests()).sum();
                List<String> away = rows.stream().filter(row -> !leaderOf(led, b(row)).equals(first.clientAddress()))
                        .limit(20).toList();
                for (String row : away) {
                    c.table("t").put(Put.of(row).addColumn("f", "q", "unrouted")).get(30, TimeUnit.SECONDS);
                }
                assertThat(running.stream().mapToLong(n -> n.cluster().forwardedRequests()).sum() - before)
                        .as("without routing, the first node forwards what it does not lead").isGreaterThanOrEqualTo(10);
            }
        }
    }

    /** SSTables in the nodes' replica stores (not their snapshots). */
    private long replicaFiles() throws java.io.IOException {
        try (java.util.stream.Stream<Path> walk = java.nio.file.Files.walk(dir)) {
            return walk.filter(f -> f.getFileName().toString().endsWith(".sst"))
                    .filter(f -> f.toString().contains(java.io.File.separator + "replica" + java.io.File.separator))
                    .count();
        }
    }

    /** Which leader the region map gives a row. */
    private static String leaderOf(List<RegionInfo> regions, byte[] row) {
        return regions.stream().filter(r -> r.contains(row)).findFirst().orElseThrow().leader();
    }
    /**
     * A linearizable read while one node is cut off: the client's map may still send it to the
     * cut-off node (its leader a moment ago, or the node it talks to), which answers UNAVAILABLE;
     * the majority side serves it once the client looks there.
     */
    private static Result majorityRead(AsyncTable t, String row) throws Exception {
        long deadline = System.currentTimeMillis() + 60_000;
        while (true) {
            try {
                return t.get(Get.of(row)).get(30, TimeUnit.SECONDS);
            } catch (java.util.concurrent.ExecutionException e) {
                if (!(e.getCause() instanceof io.basalt.client.UnavailableException)
                        || System.currentTimeMillis() > deadline) {
                    throw e;
                }
                Thread.sleep(500);
            }
        }
    }

    @Test
    void aTimelineReadIsServedByAnyReplicaAsItStands() throws Exception {
        try (Running cluster = startCluster(3)) {
            List<ClusterPeer> nodes = cluster.peers();
            List<BasaltNode> running = cluster.nodes();
            String all = "basalt://" + nodes.stream().map(ClusterPeer::clientAddress)
                    .collect(java.util.stream.Collectors.joining(","));
            try (Connection c = Basalt.connect(all)) {
                c.admin().createTable(TableDescriptor.of("t", "f")).get(90, TimeUnit.SECONDS);
                AsyncTable t = c.table("t");
                t.put(Put.of("k").addColumn("f", "q", "old")).get(30, TimeUnit.SECONDS);
                org.apache.ratis.protocol.RaftGroupId region = running.getFirst().cluster().groups().stream()
                        .filter(g -> !g.equals(MetaStateMachine.GROUP_ID)).findFirst().orElseThrow();
                // a follower that has applied "old", then is cut off from the others
                BasaltNode follower = null;
                long deadline = System.currentTimeMillis() + 60_000;
                while (follower == null) {
                    for (BasaltNode n : running) {
                        if (!n.cluster().isLeader(region) && value(n.cluster().get(region, "t", Get.of("k"),
                                ClusterNode.ReadMode.STALE).get(30, TimeUnit.SECONDS)) != null) {
                            follower = n;
                            break;
                        }
                    }
                    assertThat(System.currentTimeMillis()).as("a follower applies the first write").isLessThan(deadline);
                    Thread.sleep(50);
                }
                BasaltNode chosen = follower;
                while (chosen.router().cached("t") == null) { // its keeper reads the whole map every half second
                    assertThat(System.currentTimeMillis()).as("the follower holds the region map").isLessThan(deadline);
                    Thread.sleep(50);
                }
                String cut = "n" + follower.id();
                List<String> others = nodes.stream().map(ClusterPeer::peerId).filter(p -> !p.equals(cut)).toList();
                others.forEach(o -> LinkFaults.cut(o, List.of(cut)));
                LinkFaults.cut(cut, others);
                try {
                    // Written by a client whose first address is the cut-off node: it answers
                    // UNAVAILABLE every time, and the client moves on to a node that serves.
                    String cutFirst = "basalt://" + nodes.get(follower.id() - 1).clientAddress() + ","
                            + nodes.stream().filter(p -> !p.peerId().equals(cut))
                            .map(ClusterPeer::clientAddress).collect(java.util.stream.Collectors.joining(","));
                    try (Connection rest = Basalt.connect(cutFirst, io.basalt.client.net.ClientOptions.builder()
                            .routeToLeaders(false).build(), io.basalt.client.StoreOptions.defaults())) {
                        AsyncTable majority = rest.table("t");
                        majority.put(Put.of("k").addColumn("f", "q", "new")).get(60, TimeUnit.SECONDS);
                        assertThat(value(majorityRead(majority, "k"))).isEqualTo("new");
                    }
                    try (Connection alone = Basalt.connect("basalt://" + nodes.get(follower.id() - 1).clientAddress())) {
                        Get timeline = Get.of("k").setConsistency(io.basalt.client.Consistency.TIMELINE);
                        assertThat(value(alone.table("t").get(timeline).get(30, TimeUnit.SECONDS)))
                                .as("the cut-off replica answers from what it has").isEqualTo("old");
                        List<Result> scanned = alone.table("t").scanAll(new Scan()
                                .setConsistency(io.basalt.client.Consistency.TIMELINE)).get(30, TimeUnit.SECONDS);
                        assertThat(scanned).extracting(ClusterNodesTest::value).containsExactly("old");
                        LinkFaults.healAll();
                        long until = System.currentTimeMillis() + 60_000;
                        while (!"new".equals(value(alone.table("t").get(timeline).get(30, TimeUnit.SECONDS)))) {
                            assertThat(System.currentTimeMillis()).as("the replica catches up").isLessThan(until);
                            Thread.sleep(50);
                        }
                    }
                } finally {
                    LinkFaults.healAll();
                }
            }
        }
    }
}
