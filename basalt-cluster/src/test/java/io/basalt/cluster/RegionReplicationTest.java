package io.basalt.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.basalt.client.CheckAndMutate;
import io.basalt.client.Get;
import io.basalt.client.Increment;
import io.basalt.client.Put;
import io.basalt.client.Result;
import io.basalt.client.Scan;
import io.basalt.client.TableDescriptor;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A region replicated by Ratis on three nodes in this JVM (issue 19, step 2): writes committed by
 * a majority and applied on every replica, linearizable reads from the leader, a leader's loss,
 * exactly-once retries, restarts from snapshots, and a lagging replica caught up by installing one.
 */
class RegionReplicationTest {

    private static final String PAD = "x".repeat(1024);

    @TempDir
    Path dir;

    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static String value(Result r) {
        return r.isEmpty() ? null : new String(r.value(b("f"), b("q")), StandardCharsets.UTF_8);
    }

    private static long counter(Result r) {
        return Increment.decode(MemorySegment.ofArray(r.value(b("f"), b("n"))));
    }

    private static Put put(String row, String value) {
        return Put.of(row).addColumn("f", "q", value);
    }

    private static LocalRegionGroup cluster(Path dir, RaftTuning tuning) throws Exception {
        LocalRegionGroup g = new LocalRegionGroup(dir, 3, tuning);
        g.createTable(TableDescriptor.of(LocalRegionGroup.TABLE, "f"));
        return g;
    }

    /** Waits until every running replica has applied what the leader has. */
    private static void awaitReplicas(LocalRegionGroup g) throws Exception {
        int leader = g.leader();
        long target = g.node(leader).appliedIndex(g.id());
        long deadline = System.currentTimeMillis() + 60_000;
        for (int i = 0; i < g.size(); i++) {
            while (g.running(i) && g.node(i).appliedIndex(g.id()) < target) {
                assertThat(System.currentTimeMillis()).as("replica %s catching up to %s", i, target).isLessThan(deadline);
                Thread.sleep(20);
            }
        }
    }

    private static String staleValue(LocalRegionGroup g, int node, String row) throws Exception {
        return value(g.node(node).get(g.id(), LocalRegionGroup.TABLE, Get.of(row), ClusterNode.ReadMode.STALE)
                .get(30, TimeUnit.SECONDS));
    }

    @Test
    void writesApplyOnEveryReplicaWithTheirOutcomes() throws Exception {
        try (LocalRegionGroup g = cluster(dir, RaftTuning.defaults())) {
            assertThat(g.write(WriteCall.of(put("a", "1")))).containsExactly((Object) null);
            List<Object> inc = g.write(WriteCall.of(Increment.of("c").addColumn(b("f"), b("n"), 5)));
            assertThat(counter((Result) inc.getFirst())).isEqualTo(5);
            List<Object> cas = g.write(WriteCall.of(List.of(
                    CheckAndMutate.onRow(b("a")).ifEquals(b("f"), b("q"), b("1")).then(put("a", "2")),
                    CheckAndMutate.onRow(b("a")).ifEquals(b("f"), b("q"), b("1")).then(put("a", "3")),
                    Put.of("b").addColumn("nope", "q", "x"))));
            assertThat(cas.get(0)).isEqualTo(Boolean.TRUE);
            assertThat(cas.get(1)).as("the second check sees the first one's write").isEqualTo(Boolean.FALSE);
            assertThat(cas.get(2)).as("an unknown family fails alike everywhere")
                    .isInstanceOf(io.basalt.client.NoSuchFamilyException.class);

            assertThat(value(g.get("a"))).isEqualTo("2");
            awaitReplicas(g);
            for (int i = 0; i < 3; i++) {
                assertThat(staleValue(g, i, "a")).as("replica %s", i).isEqualTo("2");
                Result c = g.node(i).get(g.id(), LocalRegionGroup.TABLE, Get.of("c"), ClusterNode.ReadMode.STALE)
                        .get(30, TimeUnit.SECONDS);
                assertThat(counter(c)).isEqualTo(5);
                assertThat(c.latest(b("f"), b("n")).timestamp()).as("every replica stamps the leader's clock")
                        .isEqualTo(((Result) inc.getFirst()).latest(b("f"), b("n")).timestamp());
            }
            int follower = (g.leader() + 1) % 3;
            assertThat(g.node(follower).write(g.id(), LocalRegionGroup.TABLE, WriteCall.of(put("x", "1"))))
                    .failsWithin(30, TimeUnit.SECONDS).withThrowableThat().havingRootCause()
                    .isInstanceOf(NotLeaderException.class);
            g.write(WriteCall.of(put("a", "4")));
            assertThat(value(g.node(follower).get(g.id(), LocalRegionGroup.TABLE, Get.of("a"),
                    ClusterNode.ReadMode.LINEARIZABLE).get(30, TimeUnit.SECONDS)))
                    .as("a linearizable read on a follower asks the leader for its commit index and waits for it")
                    .isEqualTo("4");

            RegionCodec.Rows rows = g.node(g.leader()).scan(g.id(), LocalRegionGroup.TABLE, new Scan(), 1,
                    ClusterNode.ReadMode.LINEARIZABLE).get(30, TimeUnit.SECONDS);
            assertThat(rows.results()).hasSize(1);
            assertThat(rows.more()).isTrue();
        }
    }

    @Test
    void concurrentCallsShareEntries() throws Exception {
        try (LocalRegionGroup g = cluster(dir, RaftTuning.defaults())) {
            int leader = g.leader();
            List<java.util.concurrent.CompletableFuture<List<Object>>> futures = new ArrayList<>();
            for (int i = 0; i < 2000; i++) {
                futures.add(g.node(leader).write(g.id(), LocalRegionGroup.TABLE, WriteCall.of(put("r" + i, "v" + i))));
            }
            for (var f : futures) {
                assertThat(f.get(60, TimeUnit.SECONDS)).containsExactly((Object) null);
            }
            long[] counts = g.node(leader).grouping(g.id());
            assertThat(counts[1]).isEqualTo(2000);
            assertThat(counts[0]).as("entries for 2,000 calls sent at once").isLessThan(2000);
            for (int i = 0; i < 2000; i += 199) {
                assertThat(value(g.get("r" + i))).isEqualTo("v" + i);
            }
        }
    }

    @Test
    void aRetriedCallAppliesOnceEvenOnAnotherLeader() throws Exception {
        try (LocalRegionGroup g = cluster(dir, RaftTuning.defaults())) {
            long client = 0x5eed;
            WriteCall first = new WriteCall(client, 1, 0, List.of(Increment.of("c").addColumn(b("f"), b("n"), 1)));
            List<Object> once = g.write(first);
            List<Object> again = g.write(first);
            assertThat(counter((Result) again.getFirst())).isEqualTo(counter((Result) once.getFirst())).isEqualTo(1);

            int leader = g.leader();
            g.stop(leader);
            List<Object> onNewLeader = g.write(first);
            assertThat(counter((Result) onNewLeader.getFirst())).as("the recorded outcome, from a new leader")
                    .isEqualTo(1);
            g.write(new WriteCall(client, 2, 2, List.of(Increment.of("c").addColumn(b("f"), b("n"), 1))));
            assertThat(counter(g.get("c"))).isEqualTo(2);
            assertThat(g.write(first).getFirst()).as("a call the client said was completed is refused, not applied")
                    .isInstanceOf(io.basalt.client.BasaltException.class);
            assertThat(counter(g.get("c"))).isEqualTo(2);
            g.start(leader);
            awaitReplicas(g);
        }
    }

    @Test
    void losingTheLeaderLosesNoAcknowledgedWrite() throws Exception {
        try (LocalRegionGroup g = cluster(dir, RaftTuning.defaults())) {
            List<String> acked = new ArrayList<>();
            for (int round = 0; round < 3; round++) {
                for (int i = 0; i < 50; i++) {
                    String row = "k" + round + "-" + i;
                    g.write(WriteCall.of(put(row, row)));
                    acked.add(row);
                }
                int leader = g.leader();
                g.stop(leader);
                for (int i = 50; i < 100; i++) {
                    String row = "k" + round + "-" + i;
                    g.write(WriteCall.of(put(row, row)));
                    acked.add(row);
                }
                g.start(leader);
            }
            for (String row : acked) {
                assertThat(value(g.get(row))).as(row).isEqualTo(row);
            }
            awaitReplicas(g);
            for (int i = 0; i < 3; i++) {
                for (String row : List.of(acked.getFirst(), acked.get(149), acked.getLast())) {
                    assertThat(staleValue(g, i, row)).as("replica %s, %s", i, row).isEqualTo(row);
                }
            }
        }
    }

    @Test
    void restartedNodesRebuildFromTheirSnapshotAndLog() throws Exception {
        try (LocalRegionGroup g = cluster(dir, RaftTuning.defaults())) {
            long client = 7;
            for (int i = 1; i <= 40; i++) {
                g.write(new WriteCall(client, i, i, List.of(Increment.of("c").addColumn(b("f"), b("n"), 1),
                        put("r" + i, "v" + i))));
                if (i == 20) {
                    for (int n = 0; n < 3; n++) {
                        assertThat(g.node(n).snapshot(g.id())).isPositive();
                    }
                }
            }
            for (int n = 0; n < 3; n++) {
                g.stop(n);
            }
            for (int n = 0; n < 3; n++) {
                g.start(n);
            }
            assertThat(counter(g.get("c"))).isEqualTo(40);
            assertThat(value(g.get("r33"))).isEqualTo("v33");
            List<Object> retry = g.write(new WriteCall(client, 40, 40, List.of(Increment.of("c").addColumn(b("f"),
                    b("n"), 1), put("r40", "v40"))));
            assertThat(counter((Result) retry.getFirst())).as("the sessions survive a restart").isEqualTo(40);
            assertThat(counter(g.get("c"))).isEqualTo(40);
        }
    }

    @Test
    void aReplicaBehindThePurgedLogCatchesUpBySnapshot() throws Exception {
        RaftTuning tuning = RaftTuning.defaults().withSnapshots(50, 10).withLogSegmentBytes(64 * 1024);
        try (LocalRegionGroup g = cluster(dir, tuning)) {
            int leader = g.leader();
            int lagging = (leader + 1) % 3;
            g.stop(lagging);
            for (int i = 0; i < 400; i++) {
                g.write(WriteCall.of(put("p" + i, "v" + i + PAD))); // 1 KiB each: the log spans segments
            }
            for (int n = 0; n < 3; n++) {
                if (g.running(n)) {
                    g.node(n).snapshot(g.id());
                }
            }
            g.write(WriteCall.of(put("last", "1")));
            g.start(lagging);
            awaitReplicas(g);
            assertThat(staleValue(g, lagging, "p0")).isEqualTo("v0" + PAD);
            assertThat(staleValue(g, lagging, "p399")).isEqualTo("v399" + PAD);
            assertThat(staleValue(g, lagging, "last")).isEqualTo("1");
            try (Stream<Path> files = Files.walk(dir.resolve("n" + lagging))) {
                assertThat(files.anyMatch(p -> p.getFileName().toString().endsWith(".sst.md5")))
                        .as("the replica received SSTables by snapshot installation, not by replaying the log")
                        .isTrue();
            }
        }
    }
}
