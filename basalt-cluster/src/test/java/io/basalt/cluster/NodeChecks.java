package io.basalt.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.function.BooleanSupplier;
import org.apache.ratis.protocol.RaftGroupId;

/** What the multi-node tests wait for and look at: groups on a node, catching up, closing. */
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
}
