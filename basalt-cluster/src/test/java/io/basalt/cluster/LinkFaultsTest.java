package io.basalt.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.basalt.client.Get;
import io.basalt.client.Put;
import io.basalt.client.Result;
import io.basalt.client.TableDescriptor;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A leader cut off from its followers (both ways, by {@link LinkFaults}) cannot commit or serve a
 * linearizable read; the other two elect a leader and go on; once the links heal the old leader
 * catches up, and the write it accepted while isolated never appears.
 */
class LinkFaultsTest {

    @TempDir
    Path dir;

    @AfterEach
    void heal() {
        LinkFaults.healAll();
    }

    private static String value(Result r) {
        return r.isEmpty() ? null : new String(r.value("f".getBytes(StandardCharsets.UTF_8),
                "q".getBytes(StandardCharsets.UTF_8)), StandardCharsets.UTF_8);
    }

    private static WriteCall put(String row, String value) {
        return WriteCall.of(Put.of(row).addColumn("f", "q", value));
    }

    @Test
    void anIsolatedLeaderStepsAsideAndItsWriteNeverAppears() throws Exception {
        try (LocalRegionGroup g = new LocalRegionGroup(dir, 3, RaftTuning.defaults())) {
            g.createTable(TableDescriptor.of(LocalRegionGroup.TABLE, "f"));
            g.write(put("a", "1"));
            int old = g.leader();
            List<String> others = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                if (i != old) {
                    others.add("n" + i);
                    LinkFaults.cut("n" + i, List.of("n" + old));
                }
            }
            LinkFaults.cut("n" + old, others);

            CompletableFuture<List<Object>> isolatedWrite = g.node(old).write(g.id(), LocalRegionGroup.TABLE,
                    put("x", "lost"));
            assertThat(isolatedWrite).as("a leader without a majority commits nothing")
                    .failsWithin(60, TimeUnit.SECONDS);

            // a leader just elected answers "not ready" until it has committed an entry of its term
            assertThat(LocalRegionGroup.retrying(() -> g.node(awaitLeaderOtherThan(g, old))
                    .write(g.id(), LocalRegionGroup.TABLE, put("b", "2")).get(30, TimeUnit.SECONDS)))
                    .containsExactly((Object) null);
            int fresh = awaitLeaderOtherThan(g, old);
            CompletableFuture<Result> isolatedRead = g.node(old).get(g.id(), LocalRegionGroup.TABLE, Get.of("b"),
                    ClusterNode.ReadMode.LINEARIZABLE);
            try {
                assertThat(value(isolatedRead.get(30, TimeUnit.SECONDS)))
                        .as("a linearizable read on the isolated node, if it answers at all, sees the majority's write")
                        .isEqualTo("2");
            } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
                // refusing is right too: it cannot confirm it is up to date
            }

            LinkFaults.healAll();
            long deadline = System.currentTimeMillis() + 60_000;
            while (g.node(old).appliedIndex(g.id()) < g.node(fresh).appliedIndex(g.id())) {
                assertThat(System.currentTimeMillis()).as("the old leader catching up").isLessThan(deadline);
                Thread.sleep(20);
            }
            for (int i = 0; i < 3; i++) {
                Result b = g.node(i).get(g.id(), LocalRegionGroup.TABLE, Get.of("b"), ClusterNode.ReadMode.STALE)
                        .get(30, TimeUnit.SECONDS);
                Result x = g.node(i).get(g.id(), LocalRegionGroup.TABLE, Get.of("x"), ClusterNode.ReadMode.STALE)
                        .get(30, TimeUnit.SECONDS);
                assertThat(value(b)).as("node %s", i).isEqualTo("2");
                assertThat(x.isEmpty()).as("node %s: the isolated leader's failed write", i).isTrue();
            }
        }
    }

    private static int awaitLeaderOtherThan(LocalRegionGroup g, int old) throws InterruptedException {
        long deadline = System.currentTimeMillis() + 60_000;
        while (System.currentTimeMillis() < deadline) {
            for (int i = 0; i < g.size(); i++) {
                if (i != old && g.node(i).isLeader(g.id())) {
                    return i;
                }
            }
            Thread.sleep(50);
        }
        throw new AssertionError("the majority side elected no leader within 60 s");
    }
}
