package io.basalt.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static io.basalt.cluster.NodeChecks.await;
import static io.basalt.cluster.NodeChecks.b;
import static io.basalt.cluster.NodeChecks.counter;
import static io.basalt.cluster.NodeChecks.rows;
import static io.basalt.cluster.NodeChecks.value;
import static io.basalt.cluster.NodeChecks.awaitCaughtUp;
import static io.basalt.cluster.NodeChecks.closeAll;
import static io.basalt.cluster.NodeChecks.regionGroups;

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
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.ratis.protocol.RaftGroupId;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Splits in a cluster: the split is an entry in the region's own log; every replica copies its
 * store for the daughters at that index; the daughters start on the same nodes from those copies
 * (their logs begin after the split), serve every row, keep counters exact across it, survive a
 * restart, and a replica added to a daughter later gets its rows by snapshot, never by an empty
 * log. The parent's groups go once the daughters run everywhere.
 */
class ClusterSplitTest {

    @TempDir
    Path dir;

    private BasaltNode start(List<ClusterPeer> nodes, int id, Duration deadAfter) throws Exception {
        return BasaltNode.start(new BasaltNode.Config(id, nodes, dir.resolve("node" + id), 3,
                RaftTuning.defaults().withDeadNodeTimeout(deadAfter), StoreOptions.defaults(), ServerConfig.defaults()));
    }

    /** A client that sends everything to the one node it names: that node routes (or forwards). */
    private static io.basalt.client.net.ClientOptions unrouted() {
        return io.basalt.client.net.ClientOptions.builder().routeToLeaders(false).build();
    }

    /** Values big enough that 2,000 rows fill several blocks: a middle row is found between blocks. */
    private static String payload(int i) {
        return "v" + i + "-" + "x".repeat(200);
    }





    @Test
    void aRegionSplitsThroughItsLogWhileClientsWriteAndNothingIsLostOrDoubled() throws Exception {
        List<ClusterPeer> nodes = ClusterNodesTest.nodes(3);
        BasaltNode[] running = new BasaltNode[4];
        try {
            for (ClusterPeer n : nodes) {
                running[n.id()] = start(nodes, n.id(), Duration.ofSeconds(60));
            }
            String uri = "basalt://" + nodes.get(0).clientAddress() + "," + nodes.get(1).clientAddress();
            try (Connection c = Basalt.connect(uri);
                 Connection direct = Basalt.connect("basalt://" + nodes.get(2).clientAddress(),
                         unrouted(), StoreOptions.defaults())) {
                c.admin().createTable(TableDescriptor.of("t", "f")).get(90, TimeUnit.SECONDS);
                AsyncTable t = c.table("t");
                List<Mutation> batch = new ArrayList<>();
                for (char ch = 'a'; ch <= 'z'; ch++) {
                    batch.add(Put.of(String.valueOf(ch)).addColumn("f", "q", "v" + ch));
                }
                for (CompletableFuture<Object> f : t.batch(batch)) {
                    f.get(30, TimeUnit.SECONDS);
                }
                RaftGroupId parent = regionGroups(running[1]).getFirst();

                // Writers through both clients (one routing to leaders, one through node 3) while the
                // region splits: every acknowledged increment counted once, every acknowledged put kept.
                AtomicBoolean stop = new AtomicBoolean();
                AtomicLong acknowledged = new AtomicLong();
                List<String> written = java.util.Collections.synchronizedList(new ArrayList<>());
                List<Thread> writers = new ArrayList<>();
                for (Connection via : List.of(c, direct)) {
                    int w = writers.size();
                    writers.add(Thread.ofPlatform().start(() -> {
                        AsyncTable table = via.table("t");
                        for (int i = 0; i < 2_000 && !stop.get(); i++) {
                            String row = (i % 2 == 0 ? "c" : "r") + "-w" + w + "-" + i;
                            try {
                                table.increment(Increment.of("m-counter").addColumn(b("f"), b("n"), 1))
                                        .get(60, TimeUnit.SECONDS);
                                acknowledged.incrementAndGet();
                                table.put(Put.of(row).addColumn("f", "q", row)).get(60, TimeUnit.SECONDS);
                                written.add(row);
                            } catch (Exception e) {
                                // not acknowledged: it may or may not have applied, and is not counted
                            }
                        }
                    }));
                }
                Thread.sleep(500);
                c.admin().split("t", b("m")).get(120, TimeUnit.SECONDS);
                Thread.sleep(1_000);
                stop.set(true);
                for (Thread w : writers) {
                    w.join(120_000);
                }

                List<RegionInfo> regions = c.admin().listRegions("t").get(30, TimeUnit.SECONDS);
                assertThat(regions).hasSize(2);
                assertThat(regions.get(0).end()).isEqualTo(b("m"));
                assertThat(regions.get(1).start()).isEqualTo(b("m"));
                assertThat(regions).allSatisfy(r -> assertThat(r.replicas()).hasSize(3));

                assertThat(acknowledged.get()).as("writers made progress").isPositive();
                for (Connection via : List.of(c, direct)) {
                    AsyncTable table = via.table("t");
                    assertThat(counter(table.get(Get.of("m-counter")).get(30, TimeUnit.SECONDS)))
                            .as("each acknowledged increment applied exactly once across the split")
                            .isBetween(acknowledged.get(), acknowledged.get() + 2);
                    for (String row : written) {
                        assertThat(value(table.get(Get.of(row)).get(30, TimeUnit.SECONDS))).as(row).isEqualTo(row);
                    }
                    for (char ch = 'a'; ch <= 'z'; ch++) {
                        assertThat(value(table.get(Get.of(String.valueOf(ch))).get(30, TimeUnit.SECONDS)))
                                .isEqualTo("v" + ch);
                    }
                }
                List<String> forward = rows(t, new Scan());
                List<String> expected = new ArrayList<>(forward);
                expected.sort(null);
                assertThat(forward).as("a scan walks both daughters in order").isEqualTo(expected)
                        .contains("a", "l", "m", "z", "m-counter").containsAll(written);
                List<String> backward = rows(t, new Scan().setReversed(true));
                assertThat(backward).isEqualTo(expected.reversed());

                // the daughters run on every node; the parent's group goes from each
                for (int id = 1; id <= 3; id++) {
                    BasaltNode n = running[id];
                    await("node " + id + " leaves the split parent", () -> !regionGroups(n).contains(parent)
                            && regionGroups(n).size() == 2);
                }
                // the parent's group is gone from every node: a read sent to it directly finds nobody
                assertThatThrownBy(() -> running[1].cluster().get(parent, "t", Get.of("a"),
                        ClusterNode.ReadMode.LINEARIZABLE).get(30, TimeUnit.SECONDS)).hasMessageContaining(
                        parent.toString());

                // a restarted node serves the daughters from their seeds' snapshots and their logs
                running[3].close();
                running[3] = null;
                t.put(Put.of("after-restart").addColumn("f", "q", "x")).get(60, TimeUnit.SECONDS);
                running[3] = start(nodes, 3, Duration.ofSeconds(60));
                List<RaftGroupId> daughters = regionGroups(running[1]);
                BasaltNode three = running[3];
                for (RaftGroupId d : daughters) {
                    awaitCaughtUp(running, three, d);
                }
                try (Connection viaThree = Basalt.connect("basalt://" + nodes.get(2).clientAddress(),
                        unrouted(), StoreOptions.defaults())) {
                    assertThat(value(viaThree.table("t").get(Get.of("after-restart")).get(60, TimeUnit.SECONDS)))
                            .isEqualTo("x");
                    assertThat(rows(viaThree.table("t"), new Scan())).containsAll(written).contains("a", "z");
                }
                Result stale = three.cluster().get(daughters.stream().filter(d -> {
                    try {
                        return three.cluster().get(d, "t", Get.of("a"), ClusterNode.ReadMode.STALE)
                                .get(30, TimeUnit.SECONDS) != null;
                    } catch (Exception e) {
                        return false;
                    }
                }).findFirst().orElseThrow(), "t", Get.of("a"), ClusterNode.ReadMode.STALE).get(30, TimeUnit.SECONDS);
                assertThat(value(stale)).as("node 3's own replica of the low daughter").isEqualTo("va");

                // a row outside a daughter is refused by it (a client with a stale map retries elsewhere)
                RaftGroupId high = daughters.stream().filter(d -> {
                    try {
                        three.cluster().get(d, "t", Get.of("z"), ClusterNode.ReadMode.STALE).get(30, TimeUnit.SECONDS);
                        return true;
                    } catch (Exception e) {
                        return false;
                    }
                }).findFirst().orElseThrow();
                assertThatThrownBy(() -> three.cluster().get(high, "t", Get.of("a"), ClusterNode.ReadMode.STALE)
                        .get(30, TimeUnit.SECONDS)).hasMessageContaining("not in this region");
            }
        } finally {
            closeAll(running);
        }
    }

    @Test
    void aSplitWithoutARowCutsAtTheMiddleAndADaughtersNewReplicaGetsItsRowsBySnapshot() throws Exception {
        List<ClusterPeer> nodes = ClusterNodesTest.nodes(4);
        BasaltNode[] running = new BasaltNode[5];
        try {
            for (ClusterPeer n : nodes) {
                running[n.id()] = start(nodes, n.id(), Duration.ofSeconds(4));
            }
            // every address: a client given one node neither routes nor rides out elections (protocol.md)
            try (Connection c = Basalt.connect("basalt://" + nodes.stream().map(ClusterPeer::clientAddress)
                    .collect(java.util.stream.Collectors.joining(",")))) {
                c.admin().createTable(TableDescriptor.of("t", "f")).get(90, TimeUnit.SECONDS);
                AsyncTable t = c.table("t");
                List<Mutation> batch = new ArrayList<>();
                for (int i = 0; i < 2_000; i++) {
                    batch.add(Put.of(String.format("row%05d", i)).addColumn("f", "q", payload(i)));
                }
                for (CompletableFuture<Object> f : t.batch(batch)) {
                    f.get(60, TimeUnit.SECONDS);
                }
                c.admin().split("t", null).get(120, TimeUnit.SECONDS);
                List<RegionInfo> regions = c.admin().listRegions("t").get(30, TimeUnit.SECONDS);
                assertThat(regions).as("cut at a row inside the data").hasSize(2);
                String middle = new String(regions.get(1).start(), StandardCharsets.UTF_8);
                assertThat(middle).isBetween("row00001", "row01999");
                assertThat(regions).allSatisfy(r -> assertThat(r.replicas()).hasSize(3));
                // A split whose proposer stops after the log entry, before the metadata command:
                // the keepers see the applied split and finish it.
                RaftGroupId high = regionGroups(running[1]).stream()
                        .filter(g -> running[1].router().byGroup.get(g) != null
                                && running[1].router().byGroup.get(g).end().length == 0).findFirst().orElseThrow();
                // the group may have just elected a leader that is not ready yet (NotLeaderException): retry
                RegionCodec.readSplitReply(LocalRegionGroup.retrying(() -> running[1].cluster().send(high,
                        RegionCodec.split("t", b(middle + "0")), ClusterNode.Kind.WRITE).get(30, TimeUnit.SECONDS)), "test");
                await("the half-done split finished by a keeper", () -> {
                    try {
                        return c.admin().listRegions("t").get(30, TimeUnit.SECONDS).size() == 3;
                    } catch (Exception e) {
                        return false;
                    }
                });
                assertThat(value(t.get(Get.of("row01999")).get(60, TimeUnit.SECONDS))).isEqualTo(payload(1999));
                assertThat(value(t.get(Get.of(middle)).get(60, TimeUnit.SECONDS))).startsWith("v");

                // Node 2 dies: each daughter's replica there is re-created on node 4, which has no
                // seed; its daughters' logs begin after the split, so only a snapshot can fill it.
                running[2].close();
                running[2] = null;
                await("daughters re-created on node 4", () -> regionGroups(running[4]).size() == 3);
                t.put(Put.of("row99999").addColumn("f", "q", "late")).get(60, TimeUnit.SECONDS);
                BasaltNode four = running[4];
                for (RaftGroupId d : regionGroups(four)) {
                    awaitCaughtUp(running, four, d);
                }
                int found = 0;
                for (RaftGroupId d : regionGroups(four)) {
                    for (int i = 0; i < 2_000; i += 7) {
                        String row = String.format("row%05d", i);
                        try {
                            Result r = four.cluster().get(d, "t", Get.of(row), ClusterNode.ReadMode.STALE)
                                    .get(30, TimeUnit.SECONDS);
                            assertThat(value(r)).as("node 4's own replica, %s", row).isEqualTo(payload(i));
                            found++;
                        } catch (java.util.concurrent.ExecutionException e) {
                            assertThat(e).hasMessageContaining("not in this region");
                        }
                    }
                }
                assertThat(found).as("every row found in one of node 4's regions").isEqualTo((2_000 + 6) / 7);
                assertThat(rows(t, new Scan())).hasSize(2_001);
            }
        } finally {
            closeAll(running);
        }
    }

    /**
     * A replicated region splits by itself once its leader's replica holds more than
     * {@code regionSplitSize}, as a single node's regions do, and its daughters (each counting only
     * its own range of the files they share) do not split again at once.
     */
    @Test
    void aRegionSplitsByItselfPastTheSplitSize() throws Exception {
        List<ClusterPeer> nodes = ClusterNodesTest.nodes(3);
        BasaltNode[] running = new BasaltNode[4];
        StoreOptions small = StoreOptions.defaults().withRegionSplitSize(700_000);
        try {
            for (ClusterPeer n : nodes) {
                running[n.id()] = BasaltNode.start(new BasaltNode.Config(n.id(), nodes, dir.resolve("node" + n.id()), 3,
                        RaftTuning.defaults(), small, ServerConfig.defaults()));
            }
            try (Connection c = Basalt.connect("basalt://" + nodes.stream().map(ClusterPeer::clientAddress)
                    .collect(java.util.stream.Collectors.joining(",")))) {
                c.admin().createTable(TableDescriptor.of("t", "f")).get(90, TimeUnit.SECONDS);
                AsyncTable t = c.table("t");
                List<Mutation> batch = new ArrayList<>();
                java.util.SplittableRandom random = new java.util.SplittableRandom(7);
                List<String> values = new ArrayList<>();
                for (int i = 0; i < 2_000; i++) { // about 1 MB that does not compress
                    StringBuilder v = new StringBuilder();
                    while (v.length() < 480) {
                        v.append(Long.toHexString(random.nextLong()));
                    }
                    values.add(v.toString());
                    batch.add(Put.of(String.format("row%05d", i)).addColumn("f", "q", v.toString()));
                }
                for (CompletableFuture<Object> f : t.batch(batch)) {
                    f.get(60, TimeUnit.SECONDS);
                }
                assertThat(c.admin().listRegions("t").get(30, TimeUnit.SECONDS)).as("nothing flushed yet").hasSize(1);
                c.admin().flush("t").get(60, TimeUnit.SECONDS);
                await("the region splits past 700 KB", () -> {
                    try {
                        return c.admin().listRegions("t").get(30, TimeUnit.SECONDS).size() == 2;
                    } catch (Exception e) {
                        return false;
                    }
                });
                Thread.sleep(3_000); // several keeper rounds: the daughters (about 500 KB each) stay whole
                assertThat(c.admin().listRegions("t").get(30, TimeUnit.SECONDS)).hasSize(2);
                assertThat(rows(t, new Scan())).hasSize(2_000);
                assertThat(value(t.get(Get.of("row01234")).get(30, TimeUnit.SECONDS))).isEqualTo(values.get(1234));
            }
        } finally {
            closeAll(running);
        }
    }
}
