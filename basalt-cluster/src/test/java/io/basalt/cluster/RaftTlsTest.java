package io.basalt.cluster;

import static io.basalt.cluster.NodeChecks.b;
import static io.basalt.cluster.NodeChecks.value;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.basalt.client.AsyncTable;
import io.basalt.client.Basalt;
import io.basalt.client.Connection;
import io.basalt.client.Get;
import io.basalt.client.Mutation;
import io.basalt.client.Put;
import io.basalt.client.Scan;
import io.basalt.client.StoreOptions;
import io.basalt.client.TableDescriptor;
import io.basalt.client.net.ClientOptions;
import io.basalt.client.net.ClientOptions.ClientTls;
import io.basalt.protocol.Tls;
import io.basalt.protocol.TlsCertificates;
import io.basalt.server.ServerConfig;
import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import java.nio.file.Files;
import java.security.KeyFactory;
import java.security.KeyStore;
import java.security.Principal;
import java.security.PrivateKey;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.security.spec.PKCS8EncodedKeySpec;
import java.util.Base64;
import javax.net.ssl.KeyManager;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.TrustManager;
import javax.net.ssl.TrustManagerFactory;
import javax.net.ssl.X509ExtendedKeyManager;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.ratis.client.RaftClient;
import org.apache.ratis.client.RaftClientConfigKeys;
import org.apache.ratis.conf.Parameters;
import org.apache.ratis.conf.RaftProperties;
import org.apache.ratis.grpc.GrpcConfigKeys;
import org.apache.ratis.grpc.GrpcTlsConfig;
import org.apache.ratis.protocol.GroupInfoReply;
import org.apache.ratis.protocol.RaftGroup;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.protocol.RaftPeer;
import org.apache.ratis.retry.RetryPolicies;
import org.apache.ratis.util.TimeDuration;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 23, TLS between nodes: a 3-node cluster whose nodes have a certificate each and the CA
 * that signed them replicates, forwards and elects over mutual TLS; a Raft client without TLS, one
 * presenting no certificate, and one presenting a certificate of another CA get no answer from a
 * node, while one with a certificate of the cluster's CA does; a cluster node with a certificate
 * but no CA refuses to start.
 */
class RaftTlsTest {

    @TempDir
    static Path certs;

    @TempDir
    Path dir;

    private static Path ca;
    private static final TlsCertificates.Issued[] NODE = new TlsCertificates.Issued[3];
    private static TlsCertificates.Issued stranger;

    @BeforeAll
    static void makeCertificates() throws Exception {
        ca = TlsCertificates.createAuthority(certs.resolve("ca"), "Basalt cluster CA", 30);
        TlsCertificates.createAuthority(certs.resolve("other-ca"), "Another CA", 30);
        List<String> loopback = List.of("127.0.0.1", "localhost");
        for (int i = 0; i < 3; i++) {
            NODE[i] = TlsCertificates.issue(certs.resolve("ca"), certs.resolve("issued"), "node" + (i + 1), loopback, 0,
                    30);
        }
        stranger = TlsCertificates.issue(certs.resolve("other-ca"), certs.resolve("issued"), "stranger", loopback, 0,
                30);
    }

    /** A node's TLS: its certificate on the client port and the Raft links, the cluster's CA for its peers. */
    private static ServerConfig.TlsSettings tls(TlsCertificates.Issued c) {
        return ServerConfig.TlsSettings.of(c.cert(), c.key()).withClients(c.ca(), Tls.ClientCertificates.NONE);
    }

    private BasaltNode start(List<ClusterPeer> peers, int id) throws Exception {
        ServerConfig server = ServerConfig.defaults().toBuilder().ioThreads(1).tls(tls(NODE[id - 1])).build();
        return BasaltNode.start(new BasaltNode.Config(id, peers, dir.resolve("node" + id), 3, RaftTuning.defaults(),
                StoreOptions.defaults(), server));
    }

    private static Connection connect(ClusterPeer node, boolean routeToLeaders) {
        return Basalt.connect("basalt://" + node.clientAddress(), ClientOptions.builder()
                .connectTimeout(Duration.ofSeconds(10)).tls(ClientTls.trusting(ca)).routeToLeaders(routeToLeaders)
                .build(), StoreOptions.defaults());
    }

    /** A Raft client of {@code node} alone that tries once and waits 3 s at most. */
    private static RaftClient probe(RaftClient.Builder builder, ClusterPeer node) {
        RaftProperties p = new RaftProperties();
        RaftClientConfigKeys.Rpc.setRequestTimeout(p, TimeDuration.valueOf(3, TimeUnit.SECONDS));
        return builder.setRaftGroup(RaftGroup.valueOf(MetaStateMachine.GROUP_ID, BasaltNode.peer(node)))
                .setProperties(p).setRetryPolicy(RetryPolicies.noRetry()).build();
    }

    @Test
    void theNodesReplicateOverMutualTlsAndAcceptOnlyCertificatesOfTheirCa() throws Exception {
        List<ClusterPeer> peers = ClusterNodesTest.nodes(3);
        BasaltNode[] running = new BasaltNode[3];
        try {
            for (int i = 0; i < 3; i++) {
                running[i] = start(peers, i + 1);
            }
            List<String> rows = new ArrayList<>();
            for (char ch = 'a'; ch <= 'z'; ch++) {
                rows.add(String.valueOf(ch));
            }
            try (Connection c = connect(peers.get(1), true)) {
                c.admin().createTable(TableDescriptor.of("t", "f"), List.of(b("m"))).get(90, TimeUnit.SECONDS);
                List<Mutation> batch = new ArrayList<>();
                rows.forEach(r -> batch.add(Put.of(r).addColumn("f", "q", "v" + r)));
                for (CompletableFuture<Object> f : c.table("t").batch(batch)) {
                    f.get(30, TimeUnit.SECONDS);
                }
                assertThat(value(c.table("t").get(Get.of("q")).get(30, TimeUnit.SECONDS))).isEqualTo("vq");
            }

            // Every replica applied every row: the entries crossed the links between the nodes.
            for (BasaltNode n : running) {
                for (RaftGroupId g : NodeChecks.regionGroups(n)) {
                    NodeChecks.awaitCaughtUp(running, n, g);
                }
                int held = 0;
                for (RaftGroupId g : NodeChecks.regionGroups(n)) {
                    held += n.cluster().scan(g, "t", new Scan(), 100, ClusterNode.ReadMode.STALE)
                            .get(30, TimeUnit.SECONDS).results().size();
                }
                assertThat(held).as("rows in node %s's own replicas", n.id()).isEqualTo(rows.size());
            }

            // A node sent writes for regions it does not lead forwards them with its own Raft client, over
            // TLS; its linearizable reads of them ask the leader (ReadIndex) over the links between servers.
            // Two regions on three nodes: one node leads neither.
            BasaltNode follower = java.util.Arrays.stream(running).filter(n -> NodeChecks.regionGroups(n).stream()
                    .noneMatch(g -> n.cluster().isLeader(g))).findFirst().orElseThrow();
            long before = forwarded(running);
            try (Connection c = connect(peers.get(follower.id() - 1), false)) {
                AsyncTable t = c.table("t");
                for (String r : rows) {
                    t.put(Put.of(r).addColumn("f", "q", "w" + r)).get(30, TimeUnit.SECONDS);
                    assertThat(value(t.get(Get.of(r)).get(30, TimeUnit.SECONDS))).isEqualTo("w" + r);
                }
            }
            assertThat(forwarded(running)).as("writes node %s forwarded to the leaders", follower.id())
                    .isGreaterThanOrEqualTo(before + rows.size());

            // A tool with a certificate of the cluster's CA sees the whole cluster; one without sees why not.
            RaftTls tool = RaftTls.of(tls(NODE[0]));
            ClusterStatus.Report report = ClusterStatus.of(peers, tool);
            assertThat(report.problem()).isNull();
            assertThat(report.nodes()).allSatisfy(n -> assertThat(n.up()).isTrue());
            assertThat(report.regions()).hasSize(2).allSatisfy(r -> assertThat(r.leader()).isBetween(1, 3));
            ClusterStatus.Report plain = ClusterStatus.of(peers);
            assertThat(plain.wantsTls()).isTrue();
            assertThat(plain.nodes()).noneSatisfy(n -> assertThat(n.up()).isTrue());
            assertThat(plain.problem()).contains("wants TLS").contains("tlsCa");

            // The links themselves, at node 2's Raft port.
            ClusterPeer node2 = peers.get(1);
            RaftPeer peer2 = BasaltNode.peer(node2);
            try (RaftClient c = probe(RaftClient.newBuilder(), node2)) {
                assertThatThrownBy(() -> c.getGroupManagementApi(peer2.getId()).list())
                        .as("a plaintext Raft client").satisfies(RaftTlsTest::refused);
            }
            Parameters trustOnly = new Parameters();
            GrpcTlsConfig noCertificate = new GrpcTlsConfig(null, null, ca.toFile(), false);
            GrpcConfigKeys.Client.setTlsConf(trustOnly, noCertificate);
            GrpcConfigKeys.Admin.setTlsConf(trustOnly, noCertificate);
            try (RaftClient c = probe(RaftClient.newBuilder().setParameters(trustOnly), node2)) {
                assertThatThrownBy(() -> c.getGroupManagementApi(peer2.getId()).list())
                        .as("a TLS Raft client trusting the cluster's CA but presenting no certificate")
                        .satisfies(RaftTlsTest::refused);
            }
            // A client presents only a certificate of a CA the server names as accepted: this one presents
            // the stranger's whatever the server asks for, so that the server itself has to refuse it.
            Parameters strange = new Parameters();
            GrpcTlsConfig strangeConf = new GrpcTlsConfig(presentingAlways(stranger), trusting(ca), true);
            GrpcConfigKeys.Client.setTlsConf(strange, strangeConf);
            GrpcConfigKeys.Admin.setTlsConf(strange, strangeConf);
            try (RaftClient c = probe(RaftClient.newBuilder().setParameters(strange), node2)) {
                assertThatThrownBy(() -> c.getGroupManagementApi(peer2.getId()).list())
                        .as("a Raft client trusting the cluster's CA, presenting a certificate of another CA")
                        .satisfies(RaftTlsTest::refused);
            }
            Parameters member = new Parameters();
            GrpcTlsConfig memberConf = new GrpcTlsConfig(presentingAlways(NODE[0]), trusting(ca), true);
            GrpcConfigKeys.Client.setTlsConf(member, memberConf);
            GrpcConfigKeys.Admin.setTlsConf(member, memberConf);
            try (RaftClient c = probe(RaftClient.newBuilder().setParameters(member), node2)) {
                assertThat(c.getGroupManagementApi(peer2.getId()).list().getGroupIds())
                        .as("the same client presenting a certificate of the cluster's CA")
                        .contains(MetaStateMachine.GROUP_ID);
            }
            try (RaftClient c = probe(tool.client(), node2)) {
                assertThat(c.getGroupManagementApi(peer2.getId()).list().getGroupIds())
                        .as("a Raft client presenting a certificate of the cluster's CA")
                        .contains(MetaStateMachine.GROUP_ID);
                GroupInfoReply info = c.getGroupManagementApi(peer2.getId()).info(MetaStateMachine.GROUP_ID);
                assertThat(info.isSuccess()).isTrue();
                assertThat(info.getGroup().getPeers()).hasSize(3);
            }

            // The leader of a region goes: the others elect a new one over TLS and take writes.
            RaftGroupId region = NodeChecks.regionGroups(running[0]).getFirst();
            int leader = -1;
            for (int i = 0; i < 3; i++) {
                if (running[i].cluster().isLeader(region)) {
                    leader = i;
                }
            }
            assertThat(leader).as("a leader of region group %s", region).isNotNegative();
            running[leader].close();
            running[leader] = null;
            int other = (leader + 1) % 3;
            NodeChecks.await("a new leader of " + region, () -> running[0] != null && running[0].cluster().isLeader(region)
                    || running[1] != null && running[1].cluster().isLeader(region)
                    || running[2] != null && running[2].cluster().isLeader(region));
            try (Connection c = connect(peers.get(other), false)) {
                AsyncTable t = c.table("t");
                for (String r : List.of("a", "z")) {
                    t.put(Put.of(r).addColumn("f", "q", "after")).get(60, TimeUnit.SECONDS);
                    assertThat(value(t.get(Get.of(r)).get(30, TimeUnit.SECONDS))).isEqualTo("after");
                }
            }
        } finally {
            NodeChecks.closeAll(running);
        }
    }

    /** A key manager that presents {@code issued} to any server, whichever CAs the server says it accepts. */
    private static KeyManager presentingAlways(TlsCertificates.Issued issued) throws Exception {
        String pem = Files.readString(issued.key()).replaceAll("-----[A-Z ]+-----", "").replaceAll("\\s", "");
        PrivateKey key = KeyFactory.getInstance("EC").generatePrivate(new PKCS8EncodedKeySpec(
                Base64.getDecoder().decode(pem)));
        X509Certificate cert;
        try (InputStream in = Files.newInputStream(issued.cert())) {
            cert = (X509Certificate) CertificateFactory.getInstance("X.509").generateCertificate(in);
        }
        return new X509ExtendedKeyManager() {
            @Override
            public String[] getClientAliases(String keyType, Principal[] issuers) {
                return new String[] {"it"};
            }

            @Override
            public String chooseClientAlias(String[] keyType, Principal[] issuers, Socket socket) {
                return "it";
            }

            @Override
            public String chooseEngineClientAlias(String[] keyType, Principal[] issuers, SSLEngine engine) {
                return "it";
            }

            @Override
            public String[] getServerAliases(String keyType, Principal[] issuers) {
                return new String[0];
            }

            @Override
            public String chooseServerAlias(String keyType, Principal[] issuers, Socket socket) {
                return null;
            }

            @Override
            public X509Certificate[] getCertificateChain(String alias) {
                return new X509Certificate[] {cert};
            }

            @Override
            public PrivateKey getPrivateKey(String alias) {
                return key;
            }
        };
    }

    /** A trust manager trusting the CA certificate in {@code caPem}. */
    private static TrustManager trusting(Path caPem) throws Exception {
        KeyStore store = KeyStore.getInstance("PKCS12");
        store.load(null, null);
        try (InputStream in = Files.newInputStream(caPem)) {
            store.setCertificateEntry("ca", CertificateFactory.getInstance("X.509").generateCertificate(in));
        }
        TrustManagerFactory f = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        f.init(store);
        return f.getTrustManagers()[0];
    }

    /**
     * A Raft call the node did not answer: gRPC's UNAVAILABLE (the node closed a plaintext
     * connection, or ended the handshake with an alert), or Ratis's IOException.
     */
    private static void refused(Throwable t) {
        assertThat(t).isInstanceOfAny(IOException.class, org.apache.ratis.thirdparty.io.grpc.StatusRuntimeException.class);
    }

    private static long forwarded(BasaltNode[] running) {
        long sum = 0;
        for (BasaltNode n : running) {
            if (n != null) {
                sum += n.cluster().forwardedRequests();
            }
        }
        return sum;
    }

    @Test
    void aClusterNodeWithACertificateButNoCaRefusesToStart() throws Exception {
        assertThat(RaftTls.of(ServerConfig.TlsSettings.off()).enabled()).isFalse();
        List<ClusterPeer> peers = ClusterNodesTest.nodes(1);
        ServerConfig server = ServerConfig.defaults().toBuilder()
                .tls(ServerConfig.TlsSettings.of(NODE[0].cert(), NODE[0].key())).build();
        BasaltNode.Config config = new BasaltNode.Config(1, peers, dir.resolve("node1"), 1, RaftTuning.defaults(),
                StoreOptions.defaults(), server);
        assertThatThrownBy(() -> BasaltNode.start(config)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("cluster nodes authenticate each other with certificates: set tlsCa");
        // nothing was started: the node's ports are free
        for (int port : new int[] {peers.getFirst().raftPort(), peers.getFirst().clientPort()}) {
            try (ServerSocket s = new ServerSocket()) {
                s.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port));
            }
        }
    }
}
