package io.basalt.cluster;

import static io.basalt.cluster.NodeChecks.await;
import static io.basalt.cluster.NodeChecks.b;
import static io.basalt.cluster.NodeChecks.counter;
import static io.basalt.cluster.NodeChecks.rows;
import static io.basalt.cluster.NodeChecks.value;
import static io.basalt.cluster.NodeChecks.awaitCaughtUp;
import static io.basalt.cluster.NodeChecks.closeAll;
import static io.basalt.cluster.NodeChecks.regionGroups;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

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
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.ratis.protocol.Message;
import org.apache.ratis.protocol.RaftGroupId;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Merges in a cluster: each half freezes at a MERGE entry in its own log (every replica copies
 * its store there), the metadata group decides the merge, and the merged region starts on the
 * same nodes from the two copies joined. Counters stay exact and no acknowledged write is lost
 * across it; a merge whose proposer stopped half way is finished by the keepers, and one whose
 * other half went elsewhere is aborted, its frozen half serving again.
 */
class ClusterMergeTest {

    @TempDir
    Path dir;

    private BasaltNode start(List<ClusterPeer> nodes, int id) throws Exception {
        return BasaltNode.start(new BasaltNode.Config(id, nodes, dir.resolve("node" + id), 3,
                RaftTuning.defaults().withDeadNodeTimeout(Duration.ofSeconds(60)), StoreOptions.defaults(),
                ServerConfig.defaults()));
    }





    private void startAll(List<ClusterPeer> nodes, BasaltNode[] running) throws Exception {
        for (ClusterPeer n : nodes) {
            running[n.id()] = start(nodes, n.id());
        }
    }

    /** Two of the three nodes' client addresses: a client that fails over between them. */
    private static String twoNodes(List<ClusterPeer> nodes) {
        return "basalt://" + nodes.get(0).clientAddress() + "," + nodes.get(1).clientAddress();
    }

    private static void putLetters(AsyncTable t) throws Exception {
        List<Mutation> batch = new ArrayList<>();
        for (char ch = 'a'; ch <= 'z'; ch++) {
            batch.add(Put.of(String.valueOf(ch)).addColumn("f", "q", "v" + ch));
        }
        for (CompletableFuture<Object> f : t.batch(batch)) {
            f.get(30, TimeUnit.SECONDS);
        }
    }

    private static void assertLetters(AsyncTable t) throws Exception {
        for (char ch = 'a'; ch <= 'z'; ch++) {
            assertThat(value(t.get(Get.of(String.valueOf(ch))).get(60, TimeUnit.SECONDS))).as("row " + ch)
                    .isEqualTo("v" + ch);
        }
    }

    @Test
    void twoRegionsMergeThroughTheirLogsWhileClientsWriteAndNothingIsLostOrDoubled() throws Exception {
        List<ClusterPeer> nodes = ClusterNodesTest.nodes(3);
        BasaltNode[] running = new BasaltNode[4];
        try {
            startAll(nodes, running);
            try (Connection c = Basalt.connect(twoNodes(nodes))) {
                c.admin().createTable(TableDescriptor.of("t", "f"), List.of(b("m"))).get(90, TimeUnit.SECONDS);
                AsyncTable t = c.table("t");
                putLetters(t);
                List<RaftGroupId> halves = regionGroups(running[1]);
                assertThat(halves).hasSize(2);

                // Writers on both halves while they merge: every acknowledged increment counted once
                // (one counter in each half), every acknowledged put kept.
                AtomicBoolean stop = new AtomicBoolean();
                AtomicLong[] acknowledged = {new AtomicLong(), new AtomicLong()};
                List<String> written = java.util.Collections.synchronizedList(new ArrayList<>());
                List<Thread> writers = new ArrayList<>();
                for (int w = 0; w < 2; w++) {
                    int me = w;
                    writers.add(Thread.ofPlatform().start(() -> {
                        String counterRow = me == 0 ? "c-counter" : "x-counter";
                        for (int i = 0; i < 2_000 && !stop.get(); i++) {
                            String row = (i % 2 == 0 ? "d" : "s") + "-w" + me + "-" + i;
                            try {
                                t.increment(Increment.of(counterRow).addColumn(b("f"), b("n"), 1))
                                        .get(60, TimeUnit.SECONDS);
                                acknowledged[me].incrementAndGet();
                                t.put(Put.of(row).addColumn("f", "q", row)).get(60, TimeUnit.SECONDS);
                                written.add(row);
                            } catch (Exception e) {
                                // not acknowledged: it may or may not have applied, and is not counted
                            }
                        }
                    }));
                }
                Thread.sleep(500);
                List<RegionInfo> before = c.admin().listRegions("t").get(30, TimeUnit.SECONDS);
                c.admin().mergeRegions("t", before.get(0).name(), before.get(1).name()).get(120, TimeUnit.SECONDS);
                Thread.sleep(1_000);
                stop.set(true);
                for (Thread w : writers) {
                    w.join(120_000);
                }

                List<RegionInfo> regions = c.admin().listRegions("t").get(30, TimeUnit.SECONDS);
                assertThat(regions).hasSize(1);
                assertThat(regions.getFirst().start()).isEmpty();
                assertThat(regions.getFirst().end()).isEmpty();
                assertThat(regions.getFirst().replicas()).hasSize(3);
                assertThat(acknowledged[0].get() + acknowledged[1].get()).as("writers made progress").isPositive();
                assertThat(counter(t.get(Get.of("c-counter")).get(30, TimeUnit.SECONDS)))
                        .as("each acknowledged increment of the lower half applied exactly once across the merge")
                        .isBetween(acknowledged[0].get(), acknowledged[0].get() + 1);
                assertThat(counter(t.get(Get.of("x-counter")).get(30, TimeUnit.SECONDS)))
                        .as("each acknowledged increment of the upper half applied exactly once across the merge")
                        .isBetween(acknowledged[1].get(), acknowledged[1].get() + 1);
                for (String row : written) {
                    assertThat(value(t.get(Get.of(row)).get(30, TimeUnit.SECONDS))).as(row).isEqualTo(row);
                }
                assertLetters(t);
                List<String> forward = rows(t, new Scan());
                List<String> expected = new ArrayList<>(forward);
                expected.sort(null);
                assertThat(forward).isEqualTo(expected).contains("a", "l", "m", "z").containsAll(written);
                assertThat(rows(t, new Scan().setReversed(true))).isEqualTo(expected.reversed());

                // the merged region runs on every node; both halves' groups go from each
                for (int id = 1; id <= 3; id++) {
                    BasaltNode n = running[id];
                    await("node " + id + " leaves both halves", () -> regionGroups(n).size() == 1
                            && !regionGroups(n).contains(halves.get(0)) && !regionGroups(n).contains(halves.get(1)));
                }
                RaftGroupId merged = regionGroups(running[1]).getFirst();
                for (int id = 1; id <= 3; id++) {
                    assertThat(running[id].cluster().hostsQuietly(merged)).isTrue();
                }

                // a restarted node serves the merged region from its snapshot and its log
                running[3].close();
                running[3] = null;
                t.put(Put.of("after-restart").addColumn("f", "q", "x")).get(60, TimeUnit.SECONDS);
                running[3] = start(nodes, 3);
                awaitCaughtUp(running, running[3], merged);
                for (String row : List.of("a", "m", "z", "after-restart")) {
                    Result r = running[3].cluster().get(merged, "t", Get.of(row), ClusterNode.ReadMode.STALE)
                            .get(30, TimeUnit.SECONDS);
                    assertThat(value(r)).as("node 3's own replica holds " + row).isNotNull();
                }

                // and it splits again like any region (asked again while the restarted node's
                // return still has the region's group unavailable: admin calls are not resent)
                await("the merged region splits", () -> {
                    try {
                        if (c.admin().listRegions("t").get(30, TimeUnit.SECONDS).size() == 2) {
                            return true;
                        }
                        c.admin().split("t", b("q")).get(120, TimeUnit.SECONDS);
                        return true;
                    } catch (Exception e) {
                        if (!(e.getCause() instanceof io.basalt.client.UnavailableException)) {
                            throw new AssertionError(e);
                        }
                        return false;
                    }
                });
                assertThat(c.admin().listRegions("t").get(30, TimeUnit.SECONDS)).hasSize(2);
                assertLetters(t);
                assertThat(value(t.get(Get.of("after-restart")).get(30, TimeUnit.SECONDS))).isEqualTo("x");
            }
        } finally {
            closeAll(running);
        }
    }

    @Test
    void aHalfDoneMergeIsFinishedByTheKeepersAndOneWhoseOtherHalfWentIsAborted() throws Exception {
        List<ClusterPeer> nodes = ClusterNodesTest.nodes(3);
        BasaltNode[] running = new BasaltNode[4];
        try {
            startAll(nodes, running);
            try (Connection c = Basalt.connect(twoNodes(nodes))) {
                c.admin().createTable(TableDescriptor.of("t", "f"), List.of(b("g"), b("p")))
                        .get(90, TimeUnit.SECONDS);
                AsyncTable t = c.table("t");
                putLetters(t);
                List<RegionInfo> three = c.admin().listRegions("t").get(30, TimeUnit.SECONDS);
                assertThat(three).hasSize(3);
                assertThatThrownBy(() -> c.admin().mergeRegions("t", three.get(0).name(), three.get(2).name())
                        .get(60, TimeUnit.SECONDS)).hasMessageContaining("not neighbours");
                assertThatThrownBy(() -> c.admin().mergeRegions("t", three.get(0).name(), "99")
                        .get(60, TimeUnit.SECONDS)).hasMessageContaining("has no region 99");

                // The upper region splits; then the middle one freezes for a merge with it, as a
                // proposer that read an old map would ask. The keepers find the other half gone and
                // abort the merge, and the middle region serves again.
                List<MetaState.Region> map = running[1].router().refresh("t").join();
                MetaState.Region middle = map.get(1);
                MetaState.Region upper = map.get(2);
                c.admin().split("t", b("t")).get(120, TimeUnit.SECONDS);
                UUID stale = UUID.randomUUID();
                RegionCodec.readMergeReply(running[1].cluster().send(middle.groupId(), RegionCodec.merge("t", stale,
                        middle.group(), upper.group(), middle.start(), middle.end()), ClusterNode.Kind.WRITE).get(30, TimeUnit.SECONDS), "middle");
                // A client given one node's address learns at the handshake that it talks to a
                // cluster: its put is sent with a call id, and sent again while the region refuses.
                try (Connection single = Basalt.connect("basalt://" + nodes.get(2).clientAddress())) {
                    single.table("t").put(Put.of("h").addColumn("f", "q", "after-abort")).get(60, TimeUnit.SECONDS);
                }
                assertThat(value(t.get(Get.of("h")).get(30, TimeUnit.SECONDS))).isEqualTo("after-abort");
                for (int id = 1; id <= 3; id++) {
                    BasaltNode n = running[id];
                    await("node " + id + "'s middle replica unfreezes", () -> n.cluster().mergeOf(middle.groupId())
                            .isEmpty());
                }
                assertThatThrownBy(() -> RegionCodec.readMergeReply(running[2].cluster().send(middle.groupId(),
                        RegionCodec.merge("t", stale, middle.group(), upper.group(), middle.start(), middle.end()),
                        ClusterNode.Kind.WRITE)
                        .get(30, TimeUnit.SECONDS), "middle")).as("an aborted merge never freezes a half again")
                        .hasMessageContaining("aborted");
                t.put(Put.of("h").addColumn("f", "q", "vh")).get(60, TimeUnit.SECONDS);

                // The lower region freezes for a merge with the middle one and nothing more happens
                // (its proposer died): the keepers freeze the middle one and make the merge.
                MetaState.Region lower = map.get(0);
                UUID halfDone = UUID.randomUUID();
                RegionCodec.readMergeReply(running[2].cluster().send(lower.groupId(), RegionCodec.merge("t", halfDone,
                        lower.group(), middle.group(), lower.start(), lower.end()), ClusterNode.Kind.WRITE).get(30, TimeUnit.SECONDS), "lower");
                await("the keepers finish the merge", () -> {
                    try {
                        return c.admin().listRegions("t").get(30, TimeUnit.SECONDS).size() == 3
                                && running[1].router().refresh("t").join().getFirst().group().equals(halfDone);
                    } catch (Exception e) {
                        return false;
                    }
                });
                List<RegionInfo> after = c.admin().listRegions("t").get(30, TimeUnit.SECONDS);
                assertThat(after.getFirst().start()).isEmpty();
                assertThat(after.getFirst().end()).isEqualTo(b("p"));
                assertLetters(t);
                assertThat(rows(t, new Scan())).hasSize(26);
                t.put(Put.of("b").addColumn("f", "q", "merged")).get(60, TimeUnit.SECONDS);
                assertThat(value(t.get(Get.of("b")).get(30, TimeUnit.SECONDS))).isEqualTo("merged");

                // A merge one of whose halves refuses to freeze (it split at an entry of its log the
                // map does not show yet) is aborted: the metadata records it and the half that froze
                // serves again.
                List<MetaState.Region> now = running[1].router().refresh("t").join();
                MetaState.Region p = now.get(1);
                MetaState.Region last = now.get(2);
                RegionCodec.readSplitReply(running[1].cluster().send(last.groupId(), RegionCodec.split("t", b("w")),
                        ClusterNode.Kind.WRITE).get(30, TimeUnit.SECONDS), "last");
                UUID refused = UUID.randomUUID();
                assertThatThrownBy(() -> running[2].driveMerge(p, last, refused)).hasMessageContaining("it split");
                for (int id = 1; id <= 3; id++) {
                    BasaltNode n = running[id];
                    await("node " + id + "'s replica of the half that froze serves again",
                            () -> n.cluster().mergeOf(p.groupId()).isEmpty());
                }
                t.put(Put.of("q").addColumn("f", "q", "after-refusal")).get(60, TimeUnit.SECONDS);
                assertThat(value(t.get(Get.of("q")).get(30, TimeUnit.SECONDS))).isEqualTo("after-refusal");
                assertThatThrownBy(() -> MetaStateMachine.okBody(Message.valueOf(running[3].cluster().send(
                        MetaStateMachine.GROUP_ID, MetaStateMachine.merge(p, last, refused, 1), ClusterNode.Kind.WRITE)
                        .get(30, TimeUnit.SECONDS)), "merge")).as("the metadata never makes an aborted merge")
                        .hasMessageContaining("aborted");
            }
        } finally {
            closeAll(running);
        }
    }

    /**
     * A batch over two regions whose reply was lost, resent with the same call id after its
     * regions merged, and again after the merged region split elsewhere: each operation is
     * recorded under its position in the batch, so every resend gets the first outcomes and
     * applies nothing again, however the map now groups the rows.
     */
    @Test
    void aBatchResentAfterItsRegionsMergedOrSplitAppliesOnce() throws Exception {
        List<ClusterPeer> nodes = ClusterNodesTest.nodes(3);
        BasaltNode[] running = new BasaltNode[4];
        try {
            startAll(nodes, running);
            try (Connection c = Basalt.connect(twoNodes(nodes));
                 ClusterConnection via = new ClusterConnection(running[2])) {
                c.admin().createTable(TableDescriptor.of("t", "f"), List.of(b("m"))).get(90, TimeUnit.SECONDS);
                AsyncTable t = c.table("t");
                List<Mutation> batch = List.of(
                        Increment.of("a").addColumn(b("f"), b("n"), 1),
                        Increment.of("z").addColumn(b("f"), b("n"), 10),
                        Put.of("b").addColumn("f", "q", "vb"),
                        Increment.of("g").addColumn(b("f"), b("n"), 100));
                io.basalt.protocol.CallId call = new io.basalt.protocol.CallId(77, 5, 5);
                List<Object> first = send(via, call, batch);
                assertThat(counter((Result) first.get(1))).isEqualTo(10);

                List<RegionInfo> two = c.admin().listRegions("t").get(30, TimeUnit.SECONDS);
                c.admin().mergeRegions("t", two.get(0).name(), two.get(1).name()).get(120, TimeUnit.SECONDS);
                assertResentOnce(via, call, batch, first, t);

                c.admin().split("t", b("c")).get(120, TimeUnit.SECONDS); // a, b | g, z
                assertThat(c.admin().listRegions("t").get(30, TimeUnit.SECONDS)).hasSize(2);
                assertResentOnce(via, call, batch, first, t);

                List<Object> next = send(via, new io.basalt.protocol.CallId(77, 6, 6), batch);
                assertThat(counter((Result) next.get(3))).as("a new call applies").isEqualTo(200);
            }
        } finally {
            closeAll(running);
        }
    }

    /**
     * Sends {@code batch} as call {@code call} through {@code via} and waits for every outcome,
     * sending it again while a region answers that it is unavailable (a new leader not ready, a
     * daughter starting), as the network client does; resending is what the test is about.
     */
    private static List<Object> send(ClusterConnection via, io.basalt.protocol.CallId call, List<Mutation> batch)
            throws Exception {
        long deadline = System.currentTimeMillis() + 60_000;
        while (true) {
            List<Object> out = new ArrayList<>();
            try {
                for (CompletableFuture<Object> f : via.table("t", call).batch(batch)) {
                    out.add(f.get(60, TimeUnit.SECONDS));
                }
                return out;
            } catch (java.util.concurrent.ExecutionException e) {
                if (!(e.getCause() instanceof io.basalt.client.UnavailableException)
                        || System.currentTimeMillis() > deadline) {
                    throw e;
                }
                Thread.sleep(200);
            }
        }
    }

    private static void assertResentOnce(ClusterConnection via, io.basalt.protocol.CallId call, List<Mutation> batch,
                                         List<Object> first, AsyncTable t) throws Exception {
        List<Object> again = send(via, call, batch);
        assertThat(again).hasSize(4);
        for (int i : List.of(0, 1, 3)) {
            assertThat(counter((Result) again.get(i))).as("the first outcome of operation %d", i)
                    .isEqualTo(counter((Result) first.get(i)));
        }
        assertThat(again.get(2)).isNull();
        assertThat(counter(t.get(Get.of("a")).get(30, TimeUnit.SECONDS))).as("applied once").isEqualTo(1);
        assertThat(counter(t.get(Get.of("z")).get(30, TimeUnit.SECONDS))).isEqualTo(10);
        assertThat(counter(t.get(Get.of("g")).get(30, TimeUnit.SECONDS))).isEqualTo(100);
    }
}
