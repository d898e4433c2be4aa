package io.basalt.cluster;

import static io.basalt.cluster.NodeChecks.await;
import static io.basalt.cluster.NodeChecks.awaitCaughtUp;
import static io.basalt.cluster.NodeChecks.closeAll;
import static io.basalt.cluster.NodeChecks.regionGroups;
import static org.assertj.core.api.Assertions.assertThat;

import io.basalt.client.AsyncTable;
import io.basalt.client.Basalt;
import io.basalt.client.ClusterInfo;
import io.basalt.client.Connection;
import io.basalt.client.Get;
import io.basalt.client.Put;
import io.basalt.client.Result;
import io.basalt.client.StoreOptions;
import io.basalt.client.TableDescriptor;
import io.basalt.server.ServerConfig;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.ratis.protocol.RaftGroupId;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Four nodes, replication 3: a node that stays down past the dead-node timeout is declared dead,
 * its replica is re-created on the spare node (which catches up and serves every row written before
 * and after), and when the dead node comes back it is declared alive and deletes the replica it no
 * longer holds.
 */
class ReReplicationTest {

    private static final Duration DEAD_AFTER = Duration.ofSeconds(4);

    @TempDir
    Path dir;

    private BasaltNode start(List<ClusterPeer> nodes, int id) throws Exception {
        return BasaltNode.start(new BasaltNode.Config(id, nodes, dir.resolve("node" + id), 3,
                RaftTuning.defaults().withDeadNodeTimeout(DEAD_AFTER), StoreOptions.defaults(), ServerConfig.defaults()));
    }

    private static String value(Result r) {
        return r.isEmpty() ? null : new String(r.value("f".getBytes(StandardCharsets.UTF_8),
                "q".getBytes(StandardCharsets.UTF_8)), StandardCharsets.UTF_8);
    }

    private static List<Integer> replicas(Connection c) {
        try {
            ClusterInfo status = c.admin().clusterStatus().get(60, TimeUnit.SECONDS);
            return status.regions().getFirst().replicas().stream().map(ClusterInfo.Replica::node).sorted().toList();
        } catch (Exception e) {
            return List.of();
        }
    }

    @Test
    void aDeadNodesReplicaIsRecreatedOnTheSpareNode() throws Exception {
        List<ClusterPeer> nodes = ClusterNodesTest.nodes(4);
        BasaltNode[] running = new BasaltNode[5];
        try {
            for (ClusterPeer n : nodes) {
                running[n.id()] = start(nodes, n.id());
            }
            String uri = "basalt://" + nodes.get(3).clientAddress() + "," + nodes.get(0).clientAddress();
            try (Connection c = Basalt.connect(uri)) {
                c.admin().createTable(TableDescriptor.of("t", "f")).get(90, TimeUnit.SECONDS);
                assertThat(replicas(c)).as("placed on the three emptiest nodes, lower ids first")
                        .containsExactly(1, 2, 3);
                AsyncTable t = c.table("t");
                for (int i = 0; i < 50; i++) {
                    t.put(Put.of("before" + i).addColumn("f", "q", "b" + i)).get(60, TimeUnit.SECONDS);
                }

                running[2].close();
                running[2] = null;
                await("node 2's replica re-created on node 4", () -> replicas(c).equals(List.of(1, 3, 4)));

                for (int i = 0; i < 50; i++) {
                    t.put(Put.of("after" + i).addColumn("f", "q", "a" + i)).get(60, TimeUnit.SECONDS);
                }
                List<RaftGroupId> onFour = regionGroups(running[4]);
                assertThat(onFour).hasSize(1);
                RaftGroupId group = onFour.getFirst();
                awaitCaughtUp(running, running[4], group);
                for (int i = 0; i < 50; i++) {
                    Result before = running[4].cluster().get(group, "t", Get.of("before" + i), ClusterNode.ReadMode.STALE)
                            .get(30, TimeUnit.SECONDS);
                    Result after = running[4].cluster().get(group, "t", Get.of("after" + i), ClusterNode.ReadMode.STALE)
                            .get(30, TimeUnit.SECONDS);
                    assertThat(value(before)).as("node 4's own replica, row before%d", i).isEqualTo("b" + i);
                    assertThat(value(after)).as("node 4's own replica, row after%d", i).isEqualTo("a" + i);
                }

                running[2] = start(nodes, 2);
                await("node 2 leaves the group it no longer belongs to", () -> regionGroups(running[2]).isEmpty());
                await("node 2 declared alive", () -> {
                    try {
                        return c.admin().clusterStatus().get(60, TimeUnit.SECONDS).nodes().stream()
                                .allMatch(ClusterInfo.Node::up);
                    } catch (Exception e) {
                        return false;
                    }
                });
                assertThat(value(t.get(Get.of("before7")).get(30, TimeUnit.SECONDS))).isEqualTo("b7");
                assertThat(replicas(c)).containsExactly(1, 3, 4);
            }
        } finally {
            closeAll(running);
        }
    }
}
