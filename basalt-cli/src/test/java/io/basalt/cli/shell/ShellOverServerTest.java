package io.basalt.cli.shell;

import static org.assertj.core.api.Assertions.assertThat;

import io.basalt.client.Basalt;
import io.basalt.client.Connection;
import io.basalt.client.StoreOptions;
import io.basalt.cluster.BasaltNode;
import io.basalt.cluster.ClusterPeer;
import io.basalt.cluster.FreePorts;
import io.basalt.cluster.RaftTuning;
import io.basalt.server.BasaltServer;
import io.basalt.server.ServerConfig;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 22: {@code status} over the network shows the server's address, its connections and the
 * requests it answered, with the same store view as embedded.
 */
class ShellOverServerTest {

    @TempDir
    Path dir;

    @Test
    void statusOfAServerNamesItAndCountsItsRequests() throws Exception {
        ServerConfig config = ServerConfig.builder().port(0).httpPort(ServerConfig.NO_HTTP).dataDir(dir).ioThreads(1)
                .build();
        try (BasaltServer server = BasaltServer.start(config);
             Connection client = Basalt.connect("basalt://127.0.0.1:" + server.address().getPort())) {
            ByteArrayOutputStream bytes = new ByteArrayOutputStream();
            Shell shell = new Shell(client, new PrintStream(bytes, true, StandardCharsets.UTF_8));
            assertThat(shell.run("create 't', 'f'; put 't', 'r', 'f:q', 'v'; get 't', 'r'; flush 't'"))
                    .isEqualTo(Shell.Outcome.OK);
            // a request is counted just after its answer is queued: wait (bounded) for the fourth
            for (int i = 0; i < 1000 && server.metrics().requestsAnswered() < 4; i++) {
                Thread.sleep(10);
            }
            bytes.reset();
            assertThat(shell.run("status 'detailed'")).isEqualTo(Shell.Outcome.OK);
            String out = bytes.toString(StandardCharsets.UTF_8);
            // the four, and status's own first ask (is it a cluster?), which may be counted a moment late
            assertThat(out).startsWith("server 127.0.0.1:" + server.address().getPort() + ", up ")
                    .containsPattern(", 1 connection\\(s\\), [45] request\\(s\\) answered")
                    .contains("1 table(s), 1 region(s), 1 file(s), ")
                    .contains("1 row(s) read, 1 mutation(s) applied; 1 flush(es)")
                    .contains("write-ahead log: ");
            assertThat(out.lines().filter(l -> l.startsWith(" t,,")).findFirst().orElseThrow())
                    .matches(" t,,\\d+ +\\|  +\\|  +\\| [1-9]\\d* +\\| 1 +\\| 0 +\\| 1 +\\| 1");
        }
    }

    /**
     * Over a cluster node, {@code status} shows the cluster's nodes and regions; {@code detailed}
     * adds the replicas the node holds.
     */
    @Test
    void statusOfAClusterShowsItsNodes() throws Exception {
        ClusterPeer peer = new ClusterPeer(1, "127.0.0.1", FreePorts.take(), FreePorts.take());
        try (BasaltNode node = BasaltNode.start(new BasaltNode.Config(1, List.of(peer), dir.resolve("node1"), 1,
                RaftTuning.defaults(), StoreOptions.defaults(), ServerConfig.defaults()));
             Connection client = Basalt.connect("basalt://" + peer.clientAddress())) {
            ByteArrayOutputStream bytes = new ByteArrayOutputStream();
            Shell shell = new Shell(client, new PrintStream(bytes, true, StandardCharsets.UTF_8));
            assertThat(shell.run("create 't', 'f'; put 't', 'r', 'f:q', 'v'; get 't', 'r'")).isEqualTo(Shell.Outcome.OK);
            bytes.reset();
            assertThat(shell.run("status 'detailed'")).isEqualTo(Shell.Outcome.OK);
            String out = bytes.toString(StandardCharsets.UTF_8);
            assertThat(node.id()).isEqualTo(1);
            assertThat(out.lines().filter(l -> l.startsWith(" t,,")).toList()).as("the cluster's line, then the node's")
                    .hasSize(2).last().asString().matches(" t,,\\d+ +\\|  +\\|  +\\| \\d+ +\\| 0 +\\| \\d+ +\\| 1 +\\| 1");
            assertThat(out).contains("NODE | ADDRESS", " 1    | " + peer.clientAddress(), "1 node(s)",
                    "REGION_NAME | START_KEY | END_KEY | LEADER | REPLICAS", "1 region(s)",
                    "This node holds: server " + peer.clientAddress() + ", up ", "1 table(s), 1 region(s), ",
                    "REGION_NAME | START_KEY | END_KEY | SIZE | FILES | MEMTABLE | READS | WRITES").doesNotContain("ERROR");
        }
    }
}
