package io.basalt.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.basalt.client.TableDescriptor;
import io.basalt.protocol.MalformedFrameException;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The metadata's placement and replica moves: dead nodes get no new replicas, a move picks the
 * least loaded live node, repeats of a step change nothing, and the state (dead nodes, moves under
 * way) survives a snapshot.
 */
class MetaStateTest {

    private static MetaState cluster(int nodes) {
        MetaState s = new MetaState();
        List<ClusterPeer> list = new ArrayList<>();
        for (int i = 1; i <= nodes; i++) {
            list.add(new ClusterPeer(i, "127.0.0.1", 20_000 + i, 21_000 + i));
        }
        s.setNodes(list);
        return s;
    }

    private static MetaState.Region only(MetaState s, String table) {
        return s.regions(table).getFirst();
    }

    @Test
    void deadNodesGetNoNewReplicas() {
        MetaState s = cluster(4);
        s.nodeState(1, false);
        assertThat(s.createTable(TableDescriptor.of("t", "f"), List.of(), 3, 7).getFirst().replicas())
                .containsExactly(2, 3, 4);
        s.nodeState(2, false);
        assertThatThrownBy(() -> s.createTable(TableDescriptor.of("u", "f"), List.of(), 3, 8))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("[1, 2]");
        s.nodeState(1, true);
        assertThat(s.dead()).containsExactly(2);
        assertThatThrownBy(() -> s.nodeState(9, false)).hasMessageContaining("node 9 is not in the cluster");
    }

    @Test
    void aMoveTakesTheLeastLoadedLiveNodeAndEachStepMayRepeat() {
        MetaState s = cluster(5);
        s.createTable(TableDescriptor.of("a", "f"), List.of(), 3, 1); // 1, 2, 3
        s.createTable(TableDescriptor.of("b", "f"), List.of(), 3, 2); // 4, 5, 1
        MetaState.Region a = only(s, "a");
        assertThat(a.replicas()).containsExactly(1, 2, 3);
        s.nodeState(2, false);
        MetaState.Region moving = s.startMove("a", a.id(), 2, 0);
        assertThat(moving.joining()).as("4 and 5 hold one replica each; the lower id wins").isEqualTo(4);
        assertThat(moving.replicas()).containsExactly(1, 2, 3);
        assertThat(moving.wants(4)).isTrue();
        assertThat(s.startMove("a", a.id(), 2, 4)).as("repeated").isEqualTo(only(s, "a"));
        assertThatThrownBy(() -> s.startMove("a", a.id(), 2, 5)).hasMessageContaining("moving to node 4 already");

        s.nodeState(4, false); // the joining node dies in turn: the move may restart elsewhere
        assertThat(s.startMove("a", a.id(), 2, 0).joining()).isEqualTo(5);
        assertThatThrownBy(() -> s.finishMove("a", a.id(), 2, 4)).hasMessageContaining("is not moving from node 2 to 4");
        MetaState.Region done = s.finishMove("a", a.id(), 2, 5);
        assertThat(done.replicas()).containsExactly(1, 3, 5);
        assertThat(done.joining()).isZero();
        assertThat(s.finishMove("a", a.id(), 2, 5)).as("repeated").isEqualTo(only(s, "a"));
        assertThat(s.startMove("a", a.id(), 2, 5)).as("a start repeated after the end").isEqualTo(only(s, "a"));
        assertThat(done.wants(2)).isFalse();

        s.nodeState(5, false);
        MetaState.Region none = s.startMove("a", a.id(), 5, 0);
        assertThat(none.joining()).as("no live node without a replica is left").isZero();
        assertThatThrownBy(() -> s.startMove("a", a.id(), 4, 2)).hasMessageContaining("has no replica on node 4");
        assertThatThrownBy(() -> s.startMove("a", a.id(), 5, 2)).hasMessageContaining("cannot take a replica");
    }

    @Test
    void deadNodesAndMovesSurviveASnapshot() {
        MetaState s = cluster(4);
        s.createTable(TableDescriptor.of("t", "f"), List.of("m".getBytes()), 3, 3);
        s.nodeState(3, false);
        long first = s.regions("t").getFirst().id();
        s.startMove("t", first, 3, 0);
        ByteBuf buf = Unpooled.buffer();
        s.writeTo(buf);
        byte[] bytes = new byte[buf.readableBytes()];
        buf.readBytes(bytes);

        MetaState read = MetaState.readFrom(Unpooled.wrappedBuffer(bytes));
        assertThat(read.dead()).containsExactly(3);
        assertThat(read.regions("t").getFirst().joining()).isEqualTo(4);
        assertThat(read.regions("t").get(1).joining()).isZero();
        assertThat(read.regions("t").getFirst().replicas()).containsExactly(1, 2, 3);

        for (int cut = 0; cut < bytes.length; cut++) {
            int at = cut;
            assertThatThrownBy(() -> MetaState.readFrom(Unpooled.wrappedBuffer(bytes, 0, at)))
                    .as("truncated at %d", at).isInstanceOf(MalformedFrameException.class);
        }
    }
    @Test
    void truncationSwapsATablesRegionsForNewOnesInOneStep() {
        MetaState s = cluster(3);
        s.createTable(TableDescriptor.of("t", "f"), List.of("g".getBytes(), "n".getBytes()), 3, 5);
        List<MetaState.Region> before = s.regions("t");
        List<List<MetaState.Region>> swapped = s.truncateTable("t", true, 3, 9);
        assertThat(swapped.get(0)).isEqualTo(before);
        List<MetaState.Region> after = s.regions("t");
        assertThat(after).isEqualTo(swapped.get(1)).hasSize(3);
        assertThat(after).extracting(r -> new String(r.start())).containsExactly("", "g", "n");
        assertThat(after).allSatisfy(r -> assertThat(r.online()).isFalse());
        assertThat(after).extracting(MetaState.Region::group)
                .doesNotContainAnyElementsOf(before.stream().map(MetaState.Region::group).toList());
        assertThat(s.truncateTable("t", false, 3, 11).get(1)).as("without the splits: one region").hasSize(1);
        assertThat(s.table("t").name()).isEqualTo("t");

        s.nodeState(3, false);
        assertThatThrownBy(() -> s.truncateTable("t", false, 3, 12)).hasMessageContaining("live nodes");
        assertThat(s.regions("t")).as("a refused truncation leaves the table as it was").hasSize(1);
        assertThatThrownBy(() -> s.truncateTable("nope", false, 3, 13))
                .isInstanceOf(io.basalt.client.TableNotFoundException.class);
    }

    @Test
    void aSplitReplacesTheParentByItsDaughtersOnTheSameNodesOnceAndSurvivesASnapshot() {
        MetaState s = cluster(4);
        s.createTable(TableDescriptor.of("t", "f"), List.of("m".getBytes()), 3, 7);
        MetaState.Region parent = s.regions("t").getFirst(); // [, m)
        java.util.UUID low = java.util.UUID.randomUUID();
        java.util.UUID high = java.util.UUID.randomUUID();
        assertThatThrownBy(() -> s.splitRegion("t", parent.id(), parent.group(), "q".getBytes(), 40, low, high))
                .hasMessageContaining("not inside");
        assertThatThrownBy(() -> s.splitRegion("t", parent.id(), parent.group(), new byte[0], 40, low, high))
                .hasMessageContaining("not inside");
        assertThatThrownBy(() -> s.splitRegion("t", parent.id(), java.util.UUID.randomUUID(), "g".getBytes(), 40, low,
                high)).hasMessageContaining("is group");

        List<MetaState.Region> daughters = s.splitRegion("t", parent.id(), parent.group(), "g".getBytes(), 40, low,
                high);
        assertThat(daughters).extracting(MetaState.Region::group).containsExactly(low, high);
        assertThat(daughters).allSatisfy(d -> {
            assertThat(d.replicas()).isEqualTo(parent.replicas());
            assertThat(d.online()).isTrue();
            assertThat(d.parent()).isEqualTo(parent.group());
            assertThat(d.seedIndex()).isEqualTo(40);
        });
        assertThat(s.regions("t")).extracting(r -> new String(r.start()) + "-" + new String(r.end()))
                .containsExactly("-g", "g-m", "m-");
        assertThat(s.splitRegion("t", parent.id(), parent.group(), "g".getBytes(), 40, low, high))
                .as("the same split again: the same daughters, nothing new").isEqualTo(daughters);
        assertThat(s.regions("t")).hasSize(3);

        ByteBuf buf = Unpooled.buffer();
        s.writeTo(buf);
        MetaState read = MetaState.readFrom(buf);
        assertThat(read.regions("t").get(1).parent()).isEqualTo(parent.group());
        assertThat(read.regions("t").get(1).seedIndex()).isEqualTo(40);
        assertThat(read.regions("t").get(2).parent()).isNull();
    }

    /**
     * A merge replaces two neighbours on the same nodes by one region naming both; the metadata
     * decides each merge once: made, it cannot be aborted (and repeats return it); aborted, it can
     * never be made. Decisions and both parents survive a snapshot.
     */
    @Test
    void aMergeIsDecidedOnceAndReplacesBothHalves() {
        MetaState s = cluster(4);
        s.createTable(TableDescriptor.of("t", "f"), List.of("g".getBytes(), "p".getBytes()), 3, 7);
        MetaState.Region a = s.regions("t").get(0);
        MetaState.Region b = s.regions("t").get(1);
        MetaState.Region c = s.regions("t").get(2);
        java.util.UUID m = java.util.UUID.randomUUID();
        assertThatThrownBy(() -> s.mergeRegions("t", a.id(), a.group(), c.id(), c.group(), m, 9))
                .hasMessageContaining("not neighbours");
        assertThatThrownBy(() -> s.mergeRegions("t", b.id(), b.group(), a.id(), a.group(), m, 9))
                .as("the lower half first").hasMessageContaining("not neighbours");
        assertThatThrownBy(() -> s.mergeRegions("t", a.id(), java.util.UUID.randomUUID(), b.id(), b.group(), m, 9))
                .hasMessageContaining("are groups");
        if (!a.replicas().equals(b.replicas())) {
            assertThatThrownBy(() -> s.mergeRegions("t", a.id(), a.group(), b.id(), b.group(), m, 9))
                    .hasMessageContaining("different nodes");
        }
        // on four nodes with replication 3 the first two regions differ in one node: move one to match
        MetaState.Region bOnA = b;
        if (!a.replicas().equals(b.replicas())) {
            int from = b.replicas().stream().filter(n -> !a.replicas().contains(n)).findFirst().orElseThrow();
            int to = a.replicas().stream().filter(n -> !b.replicas().contains(n)).findFirst().orElseThrow();
            s.startMove("t", b.id(), from, to);
            bOnA = s.finishMove("t", b.id(), from, to);
        }
        MetaState.Region right = bOnA;
        List<MetaState.Region> made = s.mergeRegions("t", a.id(), a.group(), right.id(), right.group(), m, 9);
        assertThat(made).hasSize(1);
        MetaState.Region merged = made.getFirst();
        assertThat(merged.group()).isEqualTo(m);
        assertThat(merged.start()).isEmpty();
        assertThat(merged.end()).isEqualTo("p".getBytes());
        assertThat(merged.replicas()).isEqualTo(a.replicas());
        assertThat(merged.online()).isTrue();
        assertThat(merged.parent()).isEqualTo(a.group());
        assertThat(merged.otherParent()).isEqualTo(right.group());
        assertThat(merged.seedIndex()).isEqualTo(9);
        assertThat(merged.madeFrom(a.group()) && merged.madeFrom(right.group())).isTrue();
        assertThat(s.regions("t")).extracting(r -> new String(r.start()) + "-" + new String(r.end()))
                .containsExactly("-p", "p-");
        assertThat(s.mergeRegions("t", a.id(), a.group(), right.id(), right.group(), m, 9))
                .as("the same merge again: the same region").isEqualTo(made);
        assertThatThrownBy(() -> s.abortMerge(m)).hasMessageContaining("was made");

        java.util.UUID aborted = java.util.UUID.randomUUID();
        s.abortMerge(aborted);
        s.abortMerge(aborted); // again: still aborted
        assertThatThrownBy(() -> s.mergeRegions("t", merged.id(), m, c.id(), c.group(), aborted, 20))
                .hasMessageContaining("aborted");

        ByteBuf buf = Unpooled.buffer();
        s.writeTo(buf);
        MetaState read = MetaState.readFrom(buf);
        assertThat(read.regions("t").getFirst()).usingRecursiveComparison().isEqualTo(merged);
        assertThatThrownBy(() -> read.abortMerge(m)).hasMessageContaining("was made");
        assertThatThrownBy(() -> read.mergeRegions("t", merged.id(), m, c.id(), c.group(), aborted, 20))
                .hasMessageContaining("aborted");
        // a snapshot of format 1 (no format number, no merge decisions) still reads
        MetaState plain = cluster(3);
        plain.createTable(TableDescriptor.of("u", "f"), List.of("k".getBytes()), 3, 5);
        ByteBuf now = Unpooled.buffer();
        plain.writeTo(now);
        byte[] bytes = new byte[now.readableBytes()];
        now.readBytes(bytes);
        byte[] old = java.util.Arrays.copyOfRange(bytes, 8, bytes.length - 1); // no format, no merge count (0)
        assertThat(MetaState.readFrom(Unpooled.wrappedBuffer(old)).regions("u")).usingRecursiveComparison()
                .isEqualTo(plain.regions("u"));
    }
}
