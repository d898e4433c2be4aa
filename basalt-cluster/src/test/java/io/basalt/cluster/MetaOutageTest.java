package io.basalt.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.basalt.client.AsyncTable;
import io.basalt.client.Basalt;
import io.basalt.client.Connection;
import io.basalt.client.Get;
import io.basalt.client.Put;
import io.basalt.client.Result;
import io.basalt.client.StoreOptions;
import io.basalt.client.TableDescriptor;
import io.basalt.server.ServerConfig;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Four nodes, the metadata group on nodes 1-3: with nodes 1 and 3 down the metadata group has no
 * majority, and a region replicated on nodes 1, 2 and 4 keeps serving reads and writes with the
 * map the nodes had; creating a table fails until the metadata group is back, and then works.
 */
class MetaOutageTest {

    @TempDir
    Path dir;

    private BasaltNode start(List<ClusterPeer> nodes, int id) throws Exception {
        return BasaltNode.start(new BasaltNode.Config(id, nodes, dir.resolve("node" + id), 3, RaftTuning.defaults(),
                StoreOptions.defaults(), ServerConfig.defaults()));
    }

    private static String value(Result r) {
        return r.isEmpty() ? null : new String(r.value("f".getBytes(StandardCharsets.UTF_8),
                "q".getBytes(StandardCharsets.UTF_8)), StandardCharsets.UTF_8);
    }

    @Test
    void regionsServeWhileTheMetadataGroupHasNoMajority() throws Exception {
        List<ClusterPeer> nodes = ClusterNodesTest.nodes(4);
        BasaltNode[] running = new BasaltNode[5];
        try {
            for (ClusterPeer n : nodes) {
                running[n.id()] = start(nodes, n.id());
            }
            String viaTwoAndFour = "basalt://" + nodes.get(3).clientAddress() + "," + nodes.get(1).clientAddress();
            try (Connection c = Basalt.connect(viaTwoAndFour)) {
                c.admin().createTable(TableDescriptor.of("a", "f")).get(90, TimeUnit.SECONDS); // nodes 1, 2, 3
                c.admin().createTable(TableDescriptor.of("b", "f")).get(90, TimeUnit.SECONDS); // nodes 1, 2, 4
                assertThat(c.admin().listRegions("b").get(30, TimeUnit.SECONDS).getFirst().replicas())
                        .containsExactlyInAnyOrder(nodes.get(0).clientAddress(), nodes.get(1).clientAddress(),
                                nodes.get(3).clientAddress());
                AsyncTable b = c.table("b");
                b.put(Put.of("before").addColumn("f", "q", "1")).get(60, TimeUnit.SECONDS);

                running[1].close();
                running[1] = null;
                running[3].close();
                running[3] = null;

                for (int i = 0; i < 20; i++) {
                    b.put(Put.of("during" + i).addColumn("f", "q", "d" + i)).get(60, TimeUnit.SECONDS);
                }
                assertThat(value(b.get(Get.of("before")).get(60, TimeUnit.SECONDS))).isEqualTo("1");
                assertThat(value(b.get(Get.of("during7")).get(60, TimeUnit.SECONDS))).isEqualTo("d7");
                CompletableFuture<Void> create = c.admin().createTable(TableDescriptor.of("c", "f"));
                try {
                    create.get(20, TimeUnit.SECONDS);
                    throw new AssertionError("a table was created without a majority of the metadata group");
                } catch (ExecutionException | TimeoutException e) {
                    // refused or still waiting: either way not created while the metadata has no majority
                }

                running[1] = start(nodes, 1);
                running[3] = start(nodes, 3);
                long deadline = System.currentTimeMillis() + 120_000;
                boolean tried = false;
                while (true) {
                    try {
                        c.admin().createTable(TableDescriptor.of("d", "f")).get(60, TimeUnit.SECONDS);
                        break;
                    } catch (ExecutionException | TimeoutException e) {
                        if (tried && e.getCause() instanceof io.basalt.client.TableExistsException) {
                            // An earlier try that failed or went unanswered while the group elected
                            // its leader was committed after all: its outcome was unknown, not refused.
                            break;
                        }
                        assertThat(System.currentTimeMillis()).as("tables can be created again: %s", e)
                                .isLessThan(deadline);
                    }
                    tried = true;
                }
                assertThat(c.admin().listRegions("d").get(30, TimeUnit.SECONDS)).as("table d is there").isNotEmpty();
                assertThat(value(b.get(Get.of("during19")).get(60, TimeUnit.SECONDS))).isEqualTo("d19");
            }
        } finally {
            for (BasaltNode n : running) {
                if (n != null) {
                    n.close();
                }
            }
        }
    }
}
