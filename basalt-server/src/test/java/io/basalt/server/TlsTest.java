package io.basalt.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.basalt.client.Basalt;
import io.basalt.client.Connection;
import io.basalt.client.Get;
import io.basalt.client.Put;
import io.basalt.client.StoreOptions;
import io.basalt.client.TableDescriptor;
import io.basalt.client.net.ClientOptions;
import io.basalt.client.net.ClientOptions.ClientTls;
import io.basalt.protocol.Tls;
import io.basalt.protocol.TlsCertificates;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.FileTime;
import java.security.KeyStore;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManagerFactory;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 23, TLS: a handshake that succeeds (one-way and mutual); a wrong CA, an expired
 * certificate, a plaintext client against a TLS server and a TLS client against a plaintext one,
 * each failing with a message that says which; a renewed certificate served to new connections
 * while an open one goes on.
 */
class TlsTest {

    @TempDir
    static Path certs;

    @TempDir
    Path dir;

    private static TlsCertificates.Issued server;
    private static TlsCertificates.Issued expired;
    private static TlsCertificates.Issued client;
    private static TlsCertificates.Issued stranger;
    private static Path ca;
    private static Path otherCa;

    @BeforeAll
    static void makeCertificates() throws Exception {
        ca = TlsCertificates.createAuthority(certs.resolve("ca"), "Basalt test CA", 30);
        otherCa = TlsCertificates.createAuthority(certs.resolve("other-ca"), "Another CA", 30);
        List<String> loopback = List.of("127.0.0.1", "localhost");
        server = TlsCertificates.issue(certs.resolve("ca"), certs.resolve("issued"), "server", loopback, 0, 30);
        expired = TlsCertificates.issue(certs.resolve("ca"), certs.resolve("issued"), "expired", loopback, 3, 1);
        client = TlsCertificates.issue(certs.resolve("ca"), certs.resolve("issued"), "client", List.of(), 0, 30);
        stranger = TlsCertificates.issue(certs.resolve("other-ca"), certs.resolve("issued"), "stranger", List.of(), 0, 30);
    }

    private static <T> T await(CompletableFuture<T> f) throws Exception {
        return f.get(30, TimeUnit.SECONDS);
    }

    private BasaltServer start(ServerConfig.TlsSettings tls) throws Exception {
        return BasaltServer.start(ServerConfig.builder().port(0).httpPort(ServerConfig.NO_HTTP).dataDir(dir)
                .ioThreads(1).tls(tls).build());
    }

    private static Connection connect(BasaltServer s, ClientTls tls) {
        return Basalt.connect("basalt://127.0.0.1:" + s.address().getPort(), ClientOptions.builder()
                .connectTimeout(Duration.ofSeconds(10)).retries(0).tls(tls).build(), StoreOptions.defaults());
    }

    private static void roundTrip(Connection c, String row) throws Exception {
        await(c.table("t").put(Put.of(row).addColumn("f", "q", "v-" + row)));
        assertThat(new String(await(c.table("t").get(Get.of(row))).value("f", "q"), StandardCharsets.UTF_8))
                .isEqualTo("v-" + row);
    }

    @Test
    void aClientTrustingTheCaTalksToTheServerOverTls() throws Exception {
        try (BasaltServer s = start(ServerConfig.TlsSettings.of(server.cert(), server.key()));
             Connection c = connect(s, ClientTls.trusting(ca))) {
            await(c.admin().createTable(TableDescriptor.of("t", "f")));
            roundTrip(c, "r1");
            // basalts:// turns TLS on; the options say whom to trust
            try (Connection viaUri = Basalt.connect("basalts://127.0.0.1:" + s.address().getPort(),
                    ClientOptions.builder().tls(ClientTls.trusting(ca)).build(), StoreOptions.defaults())) {
                roundTrip(viaUri, "r2");
            }
            assertThat(s.tlsHandshakeFailures()).isZero();
        }
    }

    @Test
    void aServerSignedByAnotherCaIsRefusedAndSaysSo() throws Exception {
        try (BasaltServer s = start(ServerConfig.TlsSettings.of(server.cert(), server.key()));
             Connection c = connect(s, ClientTls.trusting(otherCa))) {
            assertThatThrownBy(() -> await(c.admin().listTables())).rootCause().hasMessageContaining("certification path");
            assertThatThrownBy(() -> await(c.admin().listTables()))
                    .hasMessageContaining("TLS with 127.0.0.1:" + s.address().getPort() + " failed")
                    .hasMessageContaining("not signed by a CA this end trusts");
        }
    }

    @Test
    void anExpiredServerCertificateIsRefusedAndSaysSo() throws Exception {
        try (BasaltServer s = start(ServerConfig.TlsSettings.of(expired.cert(), expired.key()));
             Connection c = connect(s, ClientTls.trusting(ca))) {
            assertThatThrownBy(() -> await(c.admin().listTables())).hasMessageContaining("TLS with")
                    .hasMessageContaining("expired");
        }
    }

    @Test
    void aPlaintextClientOfATlsServerIsToldToUseTls() throws Exception {
        try (BasaltServer s = start(ServerConfig.TlsSettings.of(server.cert(), server.key()));
             Connection c = connect(s, null)) {
            assertThatThrownBy(() -> await(c.admin().listTables()))
                    .hasMessageContaining("closed by the server before the handshake finished")
                    .hasMessageContaining("basalts://");
            for (int i = 0; i < 500 && s.tlsHandshakeFailures() == 0; i++) {
                Thread.sleep(10); // the server counts the failure as it closes
            }
            assertThat(s.tlsHandshakeFailures()).as("the server counted the plaintext client").isPositive();
        }
    }

    @Test
    void aTlsClientOfAPlaintextServerIsToldItDoesNotSpeakTls() throws Exception {
        try (BasaltServer s = start(ServerConfig.TlsSettings.off());
             Connection c = connect(s, ClientTls.trusting(ca))) {
            assertThatThrownBy(() -> await(c.admin().listTables())).hasMessageContaining("127.0.0.1:"
                    + s.address().getPort()).satisfies(e -> assertThat(e.getMessage())
                    .containsAnyOf("does not speak TLS", "not serve TLS"));
        }
    }

    @Test
    void mutualTlsLetsInOnlyClientsTheCaSigned() throws Exception {
        try (BasaltServer s = start(ServerConfig.TlsSettings.of(server.cert(), server.key())
                .withClients(ca, Tls.ClientCertificates.REQUIRE))) {
            try (Connection c = connect(s, ClientTls.trusting(ca).presenting(client.cert(), client.key()))) {
                await(c.admin().createTable(TableDescriptor.of("t", "f")));
                roundTrip(c, "m1");
            }
            try (Connection none = connect(s, ClientTls.trusting(ca))) {
                assertThatThrownBy(() -> await(none.admin().listTables())).satisfies(e -> assertThat(e.getMessage())
                        .containsAnyOf("TLS with", "before the handshake finished"));
            }
            try (Connection foreign = connect(s, ClientTls.trusting(ca).presenting(stranger.cert(), stranger.key()))) {
                assertThatThrownBy(() -> await(foreign.admin().listTables())).satisfies(e -> assertThat(e.getMessage())
                        .containsAnyOf("TLS with", "before the handshake finished"));
            }
            for (int i = 0; i < 500 && s.tlsHandshakeFailures() < 2; i++) {
                Thread.sleep(10);
            }
            assertThat(s.tlsHandshakeFailures()).as("both refused clients counted").isEqualTo(2);
        }
    }

    @Test
    void aRenewedCertificateServesNewConnectionsWhileOpenOnesGoOn() throws Exception {
        Path live = Files.createDirectories(dir.resolve("live"));
        Path cert = live.resolve("server.pem");
        Path key = live.resolve("server.key");
        Files.copy(server.cert(), cert);
        Files.copy(server.key(), key);
        TlsCertificates.Issued renewed = TlsCertificates.issue(certs.resolve("ca"), dir.resolve("renewed"), "renewed",
                List.of("127.0.0.1"), 0, 30);
        try (BasaltServer s = start(ServerConfig.TlsSettings.of(cert, key).withReload(Duration.ofSeconds(1)));
             Connection open = connect(s, ClientTls.trusting(ca))) {
            await(open.admin().createTable(TableDescriptor.of("t", "f")));
            roundTrip(open, "before");
            assertThat(peerName(s)).isEqualTo("CN=server");

            Files.copy(renewed.key(), key, StandardCopyOption.REPLACE_EXISTING);
            Files.copy(renewed.cert(), cert, StandardCopyOption.REPLACE_EXISTING);
            FileTime later = FileTime.from(Instant.now().plusSeconds(2));
            Files.setLastModifiedTime(cert, later);
            Files.setLastModifiedTime(key, later);
            String name = peerName(s);
            for (int i = 0; i < 100 && !name.equals("CN=renewed"); i++) { // checked once a second: 10 s at most
                Thread.sleep(100);
                name = peerName(s);
            }
            assertThat(name).as("a new connection gets the renewed certificate").isEqualTo("CN=renewed");
            roundTrip(open, "after"); // the open connection never noticed
            try (Connection fresh = connect(s, ClientTls.trusting(ca))) {
                roundTrip(fresh, "fresh");
            }
        }
    }

    @Test
    void aMissingOrBrokenFileFailsTheStartNamingIt() throws Exception {
        assertThatThrownBy(() -> start(ServerConfig.TlsSettings.of(dir.resolve("nope.pem"), server.key())))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("tlsCert")
                .hasMessageContaining("nope.pem");
        Path garbage = Files.writeString(dir.resolve("garbage.key"), "not a key");
        assertThatThrownBy(() -> start(ServerConfig.TlsSettings.of(server.cert(), garbage)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("garbage.key");
        assertThatThrownBy(() -> ServerConfig.TlsSettings.off().withCertificate(server.cert(), null))
                .hasMessageContaining("tlsCert and tlsKey go together");
        assertThatThrownBy(() -> ServerConfig.TlsSettings.of(server.cert(), server.key())
                .withClients(null, Tls.ClientCertificates.REQUIRE)).hasMessageContaining("needs tlsCa");
    }

    /** The subject of the certificate the server presents to a new connection (plain JDK TLS). */
    private static String peerName(BasaltServer s) throws Exception {
        KeyStore trust = KeyStore.getInstance(KeyStore.getDefaultType());
        trust.load(null, null);
        try (InputStream in = Files.newInputStream(ca)) {
            trust.setCertificateEntry("ca", CertificateFactory.getInstance("X.509").generateCertificate(in));
        }
        TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        tmf.init(trust);
        SSLContext context = SSLContext.getInstance("TLS");
        context.init(null, tmf.getTrustManagers(), null);
        try (SSLSocket socket = (SSLSocket) context.getSocketFactory().createSocket("127.0.0.1",
                s.address().getPort())) {
            socket.setSoTimeout(10_000);
            socket.startHandshake();
            return ((X509Certificate) socket.getSession().getPeerCertificates()[0]).getSubjectX500Principal().getName();
        }
    }
}
