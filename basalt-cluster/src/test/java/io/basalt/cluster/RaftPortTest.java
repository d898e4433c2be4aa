package io.basalt.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.basalt.client.StoreOptions;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.Set;
import org.apache.ratis.protocol.RaftPeer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A node whose Raft port is taken reports it and leaves the process running (Ratis alone would
 * call {@code System.exit}, which ends this test's JVM and fails the build), and the ports handed
 * out for local nodes are distinct, free, and outside the kernel's ephemeral range.
 */
class RaftPortTest {

    @TempDir
    Path dir;

    @Test
    void aRaftPortInUseIsAnErrorNotAnExit() throws Exception {
        try (ServerSocket taken = new ServerSocket()) {
            taken.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), FreePorts.take()));
            String address = "127.0.0.1:" + taken.getLocalPort();
            RaftPeer self = RaftPeer.newBuilder().setId("n1").setAddress(address).build();
            assertThatThrownBy(() -> ClusterNode.start(self, dir.resolve("n1"), RaftTuning.defaults(),
                    RaftTls.OFF, StoreOptions.defaults()))
                    .isInstanceOf(IOException.class)
                    .hasMessageContaining("node n1 cannot start its Raft server on " + address)
                    .hasMessageContaining("in use");
        }
        // the directory is not left locked: once the port is free the same node starts there
        RaftPeer again = RaftPeer.newBuilder().setId("n1").setAddress("127.0.0.1:" + FreePorts.take()).build();
        try (ClusterNode node = ClusterNode.start(again, dir.resolve("n1"), RaftTuning.defaults(),
                RaftTls.OFF, StoreOptions.defaults())) {
            assertThat(node.id().toString()).isEqualTo("n1");
        }
    }

    @Test
    void portsAreDistinctFreeAndBelowTheEphemeralRange() throws Exception {
        Path range = Path.of("/proc/sys/net/ipv4/ip_local_port_range");
        int ephemeralLow = Files.exists(range) ? Integer.parseInt(Files.readString(range).trim().split("\\s+")[0]) : 32_768;
        Set<Integer> seen = new HashSet<>();
        for (int i = 0; i < 200; i++) {
            int port = FreePorts.take();
            assertThat(seen.add(port)).as("port %d handed out twice", port).isTrue();
            assertThat(port).isGreaterThanOrEqualTo(20_000).isLessThan(Math.max(21_000, ephemeralLow));
            try (ServerSocket s = new ServerSocket()) {
                s.bind(new InetSocketAddress(port));
            }
        }
    }
}
