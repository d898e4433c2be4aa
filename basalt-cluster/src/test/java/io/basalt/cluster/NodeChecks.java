package io.basalt.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.function.BooleanSupplier;
import org.apache.ratis.protocol.RaftGroupId;

/** What the multi-node tests wait for and look at: groups on a node, catching up, rows, closing. */
final class NodeChecks {

    private NodeChecks() {}

    /** Waits (two minutes at most) until {@code done}; fails naming {@code what}. */
    static void await(String what, BooleanSupplier done) throws InterruptedException {
        long deadline = System.currentTimeMillis() + 120_000;
        while (!done.getAsBoolean()) {
            assertThat(System.currentTimeMillis()).as(what).isLessThan(deadline);
            Thread.sleep(200);
        }
    }

    /** The region groups node {@code n} hosts now (the metadata group left out). */
    static List<RaftGroupId> regionGroups(BasaltNode n) {
        try {
            return n.cluster().groups().stream().filter(g -> !g.equals(MetaStateMachine.GROUP_ID)).toList();
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }

    /** Waits until {@code node}'s replica of {@code group} applied what the group's leader (among {@code running}) has. */
    static void awaitCaughtUp(BasaltNode[] running, BasaltNode node, RaftGroupId group) throws InterruptedException {
        await("node " + node.id() + " applied what the leader of " + group + " has", () -> {
            try {
                long leader = 0;
                for (BasaltNode n : running) {
                    if (n != null && n.cluster().isLeader(group)) {
                        leader = n.cluster().appliedIndex(group);
                    }
                }
                return leader > 0 && node.cluster().appliedIndex(group) >= leader;
            } catch (Exception e) {
                return false;
            }
        });
    }

    /** Closes every running node; fails if any close failed. */
    static void closeAll(BasaltNode[] running) {
        List<Exception> failures = new ArrayList<>();
        for (BasaltNode n : running) {
            if (n != null) {
                try {
                    n.close();
                } catch (Exception e) {
                    failures.add(e);
                }
            }
        }
        assertThat(failures).isEmpty();
    }

    static byte[] b(String s) {
        return s.getBytes(java.nio.charset.StandardCharsets.UTF_8);
    }

    /** Column f:q of a row as a string, {@code null} when the row is empty. */
    static String value(io.basalt.client.Result r) {
        return r.isEmpty() ? null : new String(r.value(b("f"), b("q")), java.nio.charset.StandardCharsets.UTF_8);
    }

    /** Counter f:n of a row, 0 when the row is empty. */
    static long counter(io.basalt.client.Result r) {
        return r.isEmpty() ? 0 : io.basalt.client.Increment.decode(java.lang.foreign.MemorySegment.ofArray(
                r.value(b("f"), b("n"))));
    }

    /** The row keys a scan returns, in its order. */
    static List<String> rows(io.basalt.client.AsyncTable t, io.basalt.client.Scan scan) throws Exception {
        List<String> out = new ArrayList<>();
        for (io.basalt.client.Result r : t.scanAll(scan).get(60, java.util.concurrent.TimeUnit.SECONDS)) {
            out.add(new String(r.row(), java.nio.charset.StandardCharsets.UTF_8));
        }
        return out;
    }
}
