package io.basalt.client.net;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.basalt.client.RegionInfo;
import io.basalt.protocol.MalformedFrameException;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The region map a cluster client routes by: its encoding, and finding a row's region in it. */
class ClusterRoutingTest {

    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static RegionInfo region(String start, String end, String leader) {
        return new RegionInfo("t", start.hashCode(), b(start), b(end), -1, 0, 0, leader,
                List.of("h1:1", "h2:2", "h3:3"));
    }

    @Test
    void aRowFindsTheRegionThatHoldsIt() {
        List<RegionInfo> regions = List.of(region("", "g", "h1:1"), region("g", "n", "h2:2"), region("n", "", ""));
        assertThat(ClusterRouting.find(regions, b("")).leader()).isEqualTo("h1:1");
        assertThat(ClusterRouting.find(regions, b("a")).leader()).isEqualTo("h1:1");
        assertThat(ClusterRouting.find(regions, b("g")).leader()).isEqualTo("h2:2");
        assertThat(ClusterRouting.find(regions, b("mzzz")).leader()).isEqualTo("h2:2");
        assertThat(ClusterRouting.find(regions, b("n")).start()).isEqualTo(b("n"));
        assertThat(ClusterRouting.find(regions, b("zzz")).leader()).as("leader unknown").isEmpty();
        List<RegionInfo> gap = List.of(region("", "g", "h1:1"), region("n", "", "h3:3"));
        assertThat(ClusterRouting.find(gap, b("h"))).as("a map with a hole (changing under us)").isNull();
        assertThat(ClusterRouting.find(List.of(), b("a"))).isNull();
    }

    @Test
    void aRegionWithItsLeaderAndReplicasRoundTripsAndATruncatedOneIsRefused() {
        RegionInfo r = region("g", "n", "h2:2");
        ByteBuf buf = Unpooled.buffer();
        Messages.writeRegions(buf, List.of(r, new RegionInfo("t", 9, b(""), b(""), 10, 2, 30)));
        byte[] bytes = new byte[buf.readableBytes()];
        buf.readBytes(bytes);
        List<RegionInfo> read = Messages.readRegions(Unpooled.wrappedBuffer(bytes));
        assertThat(read.get(0)).isEqualTo(r);
        assertThat(read.get(0).toString()).contains("leader h2:2");
        assertThat(read.get(1).leader()).isEmpty();
        assertThat(read.get(1).replicas()).isEmpty();
        for (int cut = 1; cut < bytes.length; cut++) {
            int at = cut;
            assertThatThrownBy(() -> Messages.readRegions(Unpooled.wrappedBuffer(bytes, 0, at)))
                    .as("cut at %d", at).isInstanceOf(MalformedFrameException.class);
        }
    }
    @Test
    void aClosedClusterConnectionFailsOperationsAsClosed() {
        RemoteConnection c = new RemoteConnection(List.of(new RpcClient.Address("127.0.0.1", 1),
                new RpcClient.Address("127.0.0.1", 2)), ClientOptions.defaults());
        io.basalt.client.AsyncTable t = c.table("t");
        assertThat(t).isInstanceOf(RoutedTable.class);
        c.close();
        assertThat(t.put(io.basalt.client.Put.of("r").addColumn("f", "q", "v")))
                .failsWithin(java.time.Duration.ofSeconds(10)).withThrowableThat()
                .havingRootCause().isInstanceOf(io.basalt.client.ConnectionClosedException.class);
        try (RemoteConnection unrouted = new RemoteConnection(List.of(new RpcClient.Address("127.0.0.1", 1),
                new RpcClient.Address("127.0.0.1", 2)), ClientOptions.builder().routeToLeaders(false).build())) {
            assertThat(unrouted.table("t")).as("routing off").isInstanceOf(RemoteTable.class);
        }
    }
}
