package io.basalt.cluster;

import io.basalt.client.Get;
import io.basalt.client.Result;
import io.basalt.client.StoreOptions;
import io.basalt.client.TableDescriptor;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.ratis.protocol.RaftGroup;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.protocol.RaftPeer;
import org.apache.ratis.protocol.RaftPeerId;

/**
 * Test fixture: nodes in this JVM on loopback, each its own Raft server and directory, sharing
 * one region group. A stopped node can be started again on its directory and port.
 */
final class LocalRegionGroup implements AutoCloseable {

    static final String TABLE = "t";
    private static final long DEADLINE_MS = 60_000;

    final RaftGroup group;
    private final Path root;
    private final RaftTuning tuning;
    private final List<RaftPeer> peers = new ArrayList<>();
    private final ClusterNode[] nodes;

    LocalRegionGroup(Path root, int size, RaftTuning tuning) throws IOException {
        this.root = root;
        this.tuning = tuning;
        for (int i = 0; i < size; i++) {
            peers.add(RaftPeer.newBuilder().setId("n" + i).setAddress("127.0.0.1:" + FreePorts.take()).build());
        }
        this.group = RaftGroup.valueOf(RaftGroupId.randomId(), peers);
        this.nodes = new ClusterNode[size];
        for (int i = 0; i < size; i++) {
            start(i);
            nodes[i].join(group);
        }
    }


    RaftGroupId id() {
        return group.getGroupId();
    }

    ClusterNode node(int i) {
        return nodes[i];
    }

    int size() {
        return nodes.length;
    }

    void start(int i) throws IOException {
        nodes[i] = ClusterNode.start(peers.get(i), root.resolve("n" + i), tuning, RaftTls.OFF, StoreOptions.defaults());
    }

    /** Stops node {@code i} (its Raft server and replica store); its directory stays. */
    void stop(int i) throws IOException {
        nodes[i].close();
        nodes[i] = null;
    }

    boolean running(int i) {
        return nodes[i] != null;
    }

    /** The index of the running node that leads, waiting for an election if need be. */
    int leader() throws InterruptedException {
        long deadline = System.currentTimeMillis() + DEADLINE_MS;
        while (System.currentTimeMillis() < deadline) {
            for (int i = 0; i < nodes.length; i++) {
                if (nodes[i] != null && nodes[i].isLeader(id())) {
                    return i;
                }
            }
            Thread.sleep(50);
        }
        throw new AssertionError("no leader elected within " + DEADLINE_MS + " ms");
    }

    int indexOf(RaftPeerId id) {
        for (int i = 0; i < peers.size(); i++) {
            if (peers.get(i).getId().equals(id)) {
                return i;
            }
        }
        return -1;
    }

    void createTable(TableDescriptor table) throws Exception {
        retrying(() -> nodes[leader()].createTable(id(), table).get(30, TimeUnit.SECONDS));
    }

    /** Writes a call through whichever node leads, retrying (the same call) across elections. */
    List<Object> write(WriteCall call) throws Exception {
        return retrying(() -> nodes[leader()].write(id(), TABLE, call).get(30, TimeUnit.SECONDS));
    }

    Result get(String row) throws Exception {
        return retrying(() -> nodes[leader()].get(id(), TABLE, Get.of(row), ClusterNode.ReadMode.LINEARIZABLE)
                .get(30, TimeUnit.SECONDS));
    }

    interface Attempt<T> {
        T run() throws Exception;
    }

    /** Runs {@code attempt} until it succeeds or fails with something other than a lost leader. */
    static <T> T retrying(Attempt<T> attempt) throws Exception {
        long deadline = System.currentTimeMillis() + DEADLINE_MS;
        while (true) {
            try {
                return attempt.run();
            } catch (ExecutionException | TimeoutException e) {
                Throwable cause = e instanceof ExecutionException ? e.getCause() : e;
                boolean retryable = cause instanceof NotLeaderException || cause instanceof TimeoutException
                        || (cause instanceof io.basalt.client.BasaltException b && b.getCause() != null
                            && b.getCause().getClass().getName().startsWith("org.apache.ratis"));
                if (!retryable || System.currentTimeMillis() > deadline) {
                    throw e;
                }
                Thread.sleep(100);
            }
        }
    }

    @Override
    public void close() throws IOException {
        for (int i = 0; i < nodes.length; i++) {
            if (nodes[i] != null) {
                stop(i);
            }
        }
    }
}
