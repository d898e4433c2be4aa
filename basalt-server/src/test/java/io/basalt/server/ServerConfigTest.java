package io.basalt.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.basalt.client.Durability;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The properties file: every key reaches the configuration, and a bad one is named. */
class ServerConfigTest {

    @TempDir
    Path dir;

    private ServerConfig load(String text) throws IOException {
        Path file = dir.resolve("basalt.properties");
        Files.writeString(file, text);
        return ServerConfig.builder().build().withFile(file);
    }

    @Test
    void theConfigurationInEffectNamesEveryKeyAFileMaySet() {
        assertThat(ServerConfig.defaults().effective().keySet()).isEqualTo(new java.util.TreeSet<>(ServerConfig.KEYS));
    }

    @Test
    void operationsKeysReachTheConfigurationInAnyOrder() throws IOException {
        ServerConfig c = load("""
                httpPort = -1
                slowRequestMillis = 250
                metricsMaxTables = 3
                requestMetrics = false
                logDir = /var/log/basalt
                logMaxFileSize = 2147483648
                logTotalSizeCap = 4294967296
                logMaxHistoryDays = 7
                """);
        assertThat(c.httpPort()).isEqualTo(ServerConfig.NO_HTTP);
        assertThat(c.slowRequest()).isEqualTo(Duration.ofMillis(250));
        assertThat(c.metricsMaxTables()).isEqualTo(3);
        assertThat(c.requestMetrics()).isFalse();
        assertThat(ServerConfig.defaults().requestMetrics()).as("on by default").isTrue();
        assertThat(c.toBuilder().build().requestMetrics()).as("kept by toBuilder").isFalse();
        assertThat(c.log()).isEqualTo(new ServerConfig.LogSettings(Path.of("/var/log/basalt"), null, 2L << 30, 4L << 30,
                7));
        assertThat(c.effective()).containsEntry("logDir", "/var/log/basalt").containsEntry("httpPort", "-1")
                .containsEntry("requestMetrics", "false");
        // a file size past the default cap, alone, names both keys
        assertThatThrownBy(() -> load("logMaxFileSize = 2147483648\n")).hasMessageContaining("basalt.properties")
                .hasMessageContaining("logTotalSizeCap 1073741824 is below logMaxFileSize 2147483648");
        assertThatThrownBy(() -> load("logMaxHistoryDays = 0\n")).hasMessageContaining("logMaxHistoryDays");
    }

    /** Issue 23: the TLS keys, in any order; a half-set or contradictory set is named. */
    @Test
    void tlsKeysReachTheConfigurationAndAreCheckedTogether() throws IOException {
        ServerConfig c = load("""
                tlsClientAuth = require
                tlsReloadSeconds = 5
                tlsCa = /etc/basalt/ca.pem
                tlsKey = /etc/basalt/node.key
                tlsCert = /etc/basalt/node.pem
                """);
        assertThat(c.tls()).isEqualTo(new ServerConfig.TlsSettings(Path.of("/etc/basalt/node.pem"),
                Path.of("/etc/basalt/node.key"), Path.of("/etc/basalt/ca.pem"), io.basalt.protocol.Tls.ClientCertificates.REQUIRE,
                Duration.ofSeconds(5)));
        assertThat(c.toBuilder().build().tls()).as("kept by toBuilder").isEqualTo(c.tls());
        assertThat(c.effective()).containsEntry("tlsKey", "/etc/basalt/node.key").containsEntry("tlsClientAuth", "require");
        assertThat(ServerConfig.defaults().tls().enabled()).as("off by default").isFalse();
        assertThatThrownBy(() -> load("tlsCert = /etc/basalt/node.pem\n")).hasMessageContaining("basalt.properties")
                .hasMessageContaining("tlsCert and tlsKey go together");
        assertThatThrownBy(() -> load("tlsCert = a.pem\ntlsKey = a.key\ntlsClientAuth = require\n"))
                .hasMessageContaining("needs tlsCa");
        assertThatThrownBy(() -> load("tlsCa = ca.pem\n")).hasMessageContaining("need TLS on");
        assertThatThrownBy(() -> load("tlsClientAuth = sometimes\n")).hasMessageContaining("tlsClientAuth")
                .hasMessageContaining("none, optional or require");
        assertThatThrownBy(() -> load("tlsCert = a.pem\ntlsKey = a.key\ntlsReloadSeconds = 0\n"))
                .hasMessageContaining("tlsReloadSeconds");
    }

    /**
     * Issue 23, safe defaults: a server on another address than loopback that does not
     * authenticate clients (mutual TLS) refuses to start unless told {@code insecure=true}; the
     * refusal comes before anything binds.
     */
    @Test
    void aServerReachableByOthersWithoutAuthenticationRefusesToStart() throws Exception {
        ServerConfig open = ServerConfig.builder().host("0.0.0.0").port(0).dataDir(dir).build();
        assertThat(open.insecureRefusal()).contains("refusing to serve 0.0.0.0 without authenticating clients")
                .contains("tlsClientAuth=require").contains("insecure=true");
        assertThatThrownBy(() -> BasaltServer.start(open)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("refusing to serve 0.0.0.0");
        assertThat(open.toBuilder().insecure(true).build().insecureRefusal()).isNull();
        assertThat(load("host = 0.0.0.0\ninsecure = true\n").insecureRefusal()).isNull();
        ServerConfig.TlsSettings oneWay = ServerConfig.TlsSettings.of(Path.of("c.pem"), Path.of("k.pem"));
        assertThat(open.toBuilder().tls(oneWay).build().insecureRefusal()).as("TLS without client certificates")
                .isNotNull();
        assertThat(open.toBuilder().tls(oneWay.withClients(Path.of("ca.pem"), io.basalt.protocol.Tls.ClientCertificates.REQUIRE))
                .build().insecureRefusal()).as("mutual TLS authenticates every client").isNull();
        for (String loopback : new String[] {"127.0.0.1", "localhost", "::1", "127.0.0.2"}) {
            assertThat(open.toBuilder().host(loopback).build().insecureRefusal()).as(loopback).isNull();
        }
        assertThat(ServerConfig.defaults().insecureRefusal()).as("the default, loopback").isNull();
        assertThat(open.insecureRefusal()).contains("auth=password");
        assertThat(load("host = 0.0.0.0\nauth = password\nsuperusers = root, ops\n").insecureRefusal())
                .as("passwords authenticate every client").isNull();
    }

    @Test
    void authKeysAreReadAndCheckedTogether() throws Exception {
        ServerConfig c = load("auth = password\nsuperusers = root,ops\nauthMaxFailures = 3\n"
                + "authFailureWindowSeconds = 120\naclRefreshSeconds = 2\n");
        assertThat(c.auth()).isEqualTo(new ServerConfig.AuthSettings(ServerConfig.AuthMode.PASSWORD,
                java.util.Set.of("root", "ops"), 3, java.time.Duration.ofSeconds(120), java.time.Duration.ofSeconds(2)));
        assertThat(c.effective()).containsEntry("superusers", "ops,root").containsEntry("auth", "password");
        assertThat(ServerConfig.defaults().auth().enabled()).as("off by default").isFalse();
        assertThatThrownBy(() -> load("auth = kerberos\n")).hasMessageContaining("auth")
                .hasMessageContaining("none, password, certificate");
        assertThatThrownBy(() -> load("superusers = root, bad name\n")).hasMessageContaining("superusers");
        assertThatThrownBy(() -> load("authMaxFailures = 0\n")).hasMessageContaining("authMaxFailures");
        assertThatThrownBy(() -> load("auth = certificate\n")).hasMessageContaining("tlsClientAuth=require");
    }

    @Test
    void storeKeysReachTheStoreOptions() throws IOException {
        ServerConfig c = load("""
                durability = async
                memtableFlushSize = 1048576
                walSegmentSize = 2097152
                blockCacheSize = 0
                rowCacheSize = 65536
                maxWalSize = 8388608
                memtableMemoryLimit = 4194304
                backgroundRetries = 2
                backgroundRetryBackoffMillis = 250
                regionSplitSize = 0
                compactionTrigger = 30
                writeStallFiles = 40
                readCompactionBytes = 2048
                maxConnections = 7
                """);
        assertThat(c.store().durability()).isEqualTo(Durability.ASYNC);
        assertThat(c.store().memtableFlushSize()).isEqualTo(1 << 20);
        assertThat(c.store().walSegmentSize()).isEqualTo(2 << 20);
        assertThat(c.store().blockCacheSize()).isZero();
        assertThat(c.store().rowCacheSize()).isEqualTo(65536);
        assertThat(c.store().readCompactionBytes()).isEqualTo(2048);
        assertThat(c.store().maxWalSize()).isEqualTo(8 << 20);
        assertThat(c.store().memtableMemoryLimit()).isEqualTo(4 << 20);
        assertThat(c.store().backgroundRetries()).isEqualTo(2);
        assertThat(c.store().backgroundRetryBackoff()).isEqualTo(Duration.ofMillis(250));
        assertThat(c.store().regionSplitSize()).isZero();
        assertThat(c.store().compactionTrigger()).isEqualTo(30);
        assertThat(c.store().writeStallFiles()).isEqualTo(40);
        assertThat(c.maxConnections()).isEqualTo(7);
        // a trigger at or past the stall count (default 20) is refused, naming both
        assertThatThrownBy(() -> load("compactionTrigger = 20\n")).hasMessageContaining("compactionTrigger")
                .hasMessageContaining("writeStallFiles");
    }

    /**
     * A log cap below the segment size is refused as written, whatever the keys' order: were the
     * cap applied first, setting the segment size would silently raise it.
     */
    @Test
    void aLogCapBelowTheSegmentSizeIsRefusedNotRaised() {
        assertThatThrownBy(() -> load("maxWalSize = 67108864\nwalSegmentSize = 134217728\n"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("maxWalSize").hasMessageContaining("walSegmentSize");
        assertThatThrownBy(() -> load("memtableMemoryLimit = 1048576\nmemtableFlushSize = 4194304\n"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("memtableMemoryLimit");
    }

    @Test
    void clusterKeysAreLeftToTheClusterNode() throws IOException {
        ServerConfig c = load("cluster.electionTimeoutMinMillis = 100\ncluster.whatever = x\nport = 16099\n");
        assertThat(c.port()).isEqualTo(16099);
    }

    @Test
    void unknownKeysAndBadValuesAreNamed() {
        assertThatThrownBy(() -> load("maxWallSize = 1\n"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("maxWallSize").hasMessageContaining("maxWalSize");
        assertThatThrownBy(() -> load("backgroundRetries = -1\n"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("backgroundRetries");
        assertThatThrownBy(() -> load("blockCacheSize = lots\n"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("blockCacheSize").hasMessageContaining("lots");
        assertThatThrownBy(() -> load("requestMetrics = sometimes\n"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("requestMetrics").hasMessageContaining("sometimes")
                .hasMessageContaining("not a boolean");
    }
}
