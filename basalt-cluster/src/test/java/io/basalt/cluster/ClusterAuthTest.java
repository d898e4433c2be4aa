package io.basalt.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.basalt.client.Basalt;
import io.basalt.client.Connection;
import io.basalt.client.Get;
import io.basalt.client.Put;
import io.basalt.client.StoreOptions;
import io.basalt.client.TableDescriptor;
import io.basalt.client.net.ClientOptions;
import io.basalt.client.security.AccessDeniedException;
import io.basalt.client.security.Action;
import io.basalt.client.security.AuthenticationException;
import io.basalt.client.security.Permission;
import io.basalt.server.ServerConfig;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 23 in a cluster: users and grants are a replicated table like any other, so they are made
 * once (here before authentication is turned on, as docs/security.md tells operators to) and every
 * node authenticates and checks against them; a grant made through one node reaches the others
 * within the refresh period.
 */
class ClusterAuthTest {

    private static final String ROOT_PASSWORD = "root-Password-9";
    private static final String BOB_PASSWORD = "bob-Password-99";

    @TempDir
    Path dir;

    private List<BasaltNode> start(List<ClusterPeer> peers, ServerConfig server) throws Exception {
        List<BasaltNode> started = new ArrayList<>();
        try {
            for (ClusterPeer n : peers) {
                started.add(BasaltNode.start(new BasaltNode.Config(n.id(), peers, dir.resolve("node" + n.id()), 3,
                        RaftTuning.defaults(), StoreOptions.defaults(), server)));
            }
        } catch (Exception e) {
            close(started);
            throw e;
        }
        return started;
    }

    private static void close(List<BasaltNode> nodes) throws java.io.IOException {
        for (BasaltNode n : nodes) {
            n.close();
        }
    }

    private static <T> T await(CompletableFuture<T> f) throws Exception {
        return f.get(90, TimeUnit.SECONDS);
    }

    private static Connection connect(ClusterPeer node, String user, String password) {
        ClientOptions.Builder o = ClientOptions.builder().operationTimeout(Duration.ofSeconds(30));
        if (user != null) {
            o.credentials(user, password.toCharArray());
        }
        return Basalt.connect("basalt://" + node.clientAddress(), o.build(), StoreOptions.defaults());
    }

    @Test
    void everyNodeAuthenticatesAndChecksTheClustersUsersAndGrants() throws Exception {
        List<ClusterPeer> peers = ClusterNodesTest.nodes(3);
        List<BasaltNode> running = start(peers, ServerConfig.defaults());
        try (Connection c = connect(peers.get(0), null, null)) {
            await(c.admin().createTable(TableDescriptor.of("t", "f")));
            await(c.table("t").put(Put.of("r").addColumn("f", "q", "v")));
            await(c.admin().addUser("root", ROOT_PASSWORD.toCharArray()));
            await(c.admin().addUser("bob", BOB_PASSWORD.toCharArray()));
            await(c.admin().grant(Permission.onTable("bob", "t", Action.parse("R"))));
            assertThat(await(c.admin().listUsers())).containsExactly("bob", "root");
        } finally {
            close(running);
        }

        ServerConfig secured = ServerConfig.defaults().toBuilder()
                .auth(ServerConfig.AuthSettings.passwords("root").withRefresh(Duration.ofSeconds(1))).build();
        running = start(peers, secured);
        try (Connection bob = connect(peers.get(1), "bob", BOB_PASSWORD);
             Connection root = connect(peers.get(0), "root", ROOT_PASSWORD)) {
            // the node reads its users once its cluster answers; until then "try again", which the client does
            assertThat(await(bob.table("t").get(Get.of("r"))).value(b("f"), b("q"))).isEqualTo(b("v"));
            assertThatThrownBy(() -> await(bob.table("t").put(Put.of("r").addColumn("f", "q", "w")))).cause()
                    .isInstanceOf(AccessDeniedException.class).hasMessageContaining("user 'bob' may not put");

            await(root.admin().grant(Permission.onTable("bob", "t", Action.parse("RW"))));
            // through another node, the grant arrives within the refresh period (1 s here)
            try (Connection bobElsewhere = connect(peers.get(2), "bob", BOB_PASSWORD)) {
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
                Throwable last = null;
                while (System.nanoTime() < deadline) {
                    try {
                        await(bobElsewhere.table("t").put(Put.of("r").addColumn("f", "q", "w")));
                        last = null;
                        break;
                    } catch (ExecutionException e) {
                        last = e.getCause();
                        assertThat(last).isInstanceOf(AccessDeniedException.class);
                        Thread.sleep(200);
                    }
                }
                assertThat(last).as("the grant reached node 3").isNull();
            }
            assertThat(await(root.table("t").get(Get.of("r"))).value(b("f"), b("q"))).isEqualTo(b("w"));

            try (Connection wrong = connect(peers.get(2), "bob", "not-bobs-password")) {
                assertThatThrownBy(() -> await(wrong.table("t").get(Get.of("r")))).cause()
                        .isInstanceOf(AuthenticationException.class).hasMessageContaining("wrong password or no such user");
            }
            try (Connection anonymous = connect(peers.get(0), null, null)) {
                assertThatThrownBy(() -> await(anonymous.admin().listTables())).cause()
                        .isInstanceOf(AuthenticationException.class).hasMessageContaining("requires authentication");
            }
            // a dropped table's grants go with it, in a cluster too
            await(root.admin().dropTable("t"));
            assertThat(await(root.admin().permissions("bob", null))).isEmpty();
        } finally {
            close(running);
        }
    }

    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
