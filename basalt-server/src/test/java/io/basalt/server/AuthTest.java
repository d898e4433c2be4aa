package io.basalt.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.basalt.client.Basalt;
import io.basalt.client.Connection;
import io.basalt.client.Get;
import io.basalt.client.Put;
import io.basalt.client.StoreOptions;
import io.basalt.client.TableDescriptor;
import io.basalt.client.net.ClientOptions;
import io.basalt.client.net.ClientOptions.ClientTls;
import io.basalt.client.security.AccessDeniedException;
import io.basalt.client.security.Action;
import io.basalt.client.security.AuthenticationException;
import io.basalt.client.security.Permission;
import io.basalt.protocol.TlsCertificates;
import java.net.InetAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.cert.CertificateFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

/**
 * Issue 23, authentication: SCRAM-SHA-256 at the connection's start (a right password, a wrong
 * one, an unknown user: the last two indistinguishable), rate-limited failures per address,
 * credentials that never reach a log, password changes and removal, identities from client
 * certificates, and the HTTP endpoint behind Basic authentication (HTTPS with TLS on).
 */
class AuthTest {

    private static final String ROOT_PASSWORD = "root-secret-Zq81";
    private static final String BOB_PASSWORD = "bob-secret-Xy42k";

    @TempDir
    Path dir;

    @TempDir
    Path certs;

    private final ListAppender<ILoggingEvent> logged = new ListAppender<>();
    private final List<Logger> watched = new ArrayList<>();
    private final List<Level> levels = new ArrayList<>();

    @BeforeEach
    void watchLogs() {
        logged.start();
        for (String name : new String[] {"io.basalt", "io.basalt.server.ServerConnection", Audit.LOGGER}) {
            Logger l = (Logger) LoggerFactory.getLogger(name);
            watched.add(l);
            levels.add(l.getLevel());
            l.setLevel(Level.DEBUG);
            l.addAppender(logged);
        }
    }

    @AfterEach
    void restoreLogs() {
        for (int i = 0; i < watched.size(); i++) {
            watched.get(i).detachAppender(logged);
            watched.get(i).setLevel(levels.get(i));
        }
    }

    private static <T> T await(CompletableFuture<T> f) throws Exception {
        return f.get(30, TimeUnit.SECONDS);
    }

    /** Users root (a superuser by configuration) and bob, and a table t, made on the store before the server starts. */
    private void users() throws Exception {
        try (Connection c = Basalt.open(dir)) {
            await(c.admin().addUser("root", ROOT_PASSWORD.toCharArray()));
            await(c.admin().addUser("bob", BOB_PASSWORD.toCharArray()));
            await(c.admin().createTable(TableDescriptor.of("t", "f")));
            await(c.admin().grant(Permission.onTable("bob", "t", Action.parse("R"))));
        }
    }

    private BasaltServer start(ServerConfig.AuthSettings auth) throws Exception {
        return BasaltServer.start(ServerConfig.builder().port(0).httpPort(0).dataDir(dir).ioThreads(1).auth(auth).build());
    }

    private static Connection connect(BasaltServer s, String user, String password) {
        ClientOptions.Builder o = ClientOptions.builder().connectTimeout(Duration.ofSeconds(10)).retries(0);
        if (user != null) {
            o.credentials(user, password.toCharArray());
        }
        return Basalt.connect("basalt://127.0.0.1:" + s.address().getPort(), o.build(), StoreOptions.defaults());
    }

    @Test
    void aRightPasswordAuthenticatesAndAWrongOneOrAnUnknownUserFailAlike() throws Exception {
        users();
        try (BasaltServer s = start(ServerConfig.AuthSettings.passwords("root"))) {
            try (Connection bob = connect(s, "bob", BOB_PASSWORD)) {
                assertThat(await(bob.table("t").get(Get.of("r"))).isEmpty()).isTrue();
                assertThatThrownBy(() -> await(bob.table("t").put(Put.of("r").addColumn("f", "q", "v"))))
                        .cause().isInstanceOf(AccessDeniedException.class).hasMessageContaining("user 'bob' may not put");
            }
            String wrong;
            try (Connection c = connect(s, "bob", "not-bobs-password")) {
                wrong = failure(c);
            }
            String unknown;
            try (Connection c = connect(s, "mallory", "whatever-password")) {
                unknown = failure(c);
            }
            assertThat(wrong).contains("authentication failed for user 'bob': wrong password or no such user");
            assertThat(unknown).contains("authentication failed for user 'mallory': wrong password or no such user");
            assertThat(wrong.replace("bob", "X")).isEqualTo(unknown.replace("mallory", "X"));
            // without credentials: told to authenticate, on every request
            try (Connection anonymous = connect(s, null, null)) {
                assertThatThrownBy(() -> await(anonymous.table("t").get(Get.of("r")))).cause()
                        .isInstanceOf(AuthenticationException.class).hasMessageContaining("requires authentication");
                assertThatThrownBy(() -> await(anonymous.admin().listTables())).cause()
                        .isInstanceOf(AuthenticationException.class);
            }
            assertThat(audit()).anyMatch(l -> l.contains("user=\"bob\"") && l.contains("op=AUTHENTICATE")
                            && l.contains("outcome=ok"))
                    .anyMatch(l -> l.contains("op=AUTHENTICATE") && l.contains("wrong password or no such user"));
        }
        assertNoSecretLogged();
    }

    /** The message of the authentication failure a first request meets. */
    private static String failure(Connection c) {
        Throwable t = org.assertj.core.api.Assertions.catchThrowable(() -> await(c.admin().listTables()));
        assertThat(t).isNotNull().cause().isInstanceOf(AuthenticationException.class);
        return t.getCause().getMessage();
    }

    @Test
    void failuresAreLimitedPerAddressEvenForTheRightPassword() throws Exception {
        users();
        ServerConfig.AuthSettings auth = ServerConfig.AuthSettings.passwords("root").withFailures(3, Duration.ofMinutes(5));
        try (BasaltServer s = start(auth)) {
            for (int i = 0; i < 3; i++) {
                try (Connection c = connect(s, "bob", "guess-number-" + i)) {
                    assertThat(failure(c)).contains("wrong password or no such user");
                }
            }
            try (Connection c = connect(s, "bob", BOB_PASSWORD)) {
                assertThat(failure(c)).contains("too many failed authentications from 127.0.0.1; try again in");
            }
            assertThat(audit()).anyMatch(l -> l.contains("too many failed authentications"));
        }
        // a restarted server forgets; the right password works again
        try (BasaltServer s = start(auth); Connection c = connect(s, "bob", BOB_PASSWORD)) {
            assertThat(await(c.admin().listTables())).extracting(TableDescriptor::name).containsExactly("t");
        }
        assertNoSecretLogged();
    }

    @Test
    void theFailureWindowSlidesAndAddressesAreCountedApart() throws Exception {
        AuthFailures failures = new AuthFailures(2, 1_000);
        InetAddress a = InetAddress.getByName("10.0.0.1");
        InetAddress b = InetAddress.getByName("10.0.0.2");
        failures.failed(a, 0);
        assertThat(failures.refusedFor(a, 10)).isZero();
        failures.failed(a, 100);
        assertThat(failures.refusedFor(a, 200)).isEqualTo(800); // until the first failure leaves the window
        assertThat(failures.refusedFor(b, 200)).isZero();
        assertThat(failures.refusedFor(a, 1_000)).isZero(); // the first left; one failure remains
        failures.failed(a, 1_050);
        assertThat(failures.refusedFor(a, 1_060)).isEqualTo(40);
        assertThat(failures.refusedFor(a, 2_100)).isZero();
    }

    @Test
    void aChangedPasswordServesNewConnectionsAndARemovedUserIsRefused() throws Exception {
        users();
        String next = "bob-next-Password-77";
        try (BasaltServer s = start(ServerConfig.AuthSettings.passwords("root"));
             Connection bob = connect(s, "bob", BOB_PASSWORD);
             Connection root = connect(s, "root", ROOT_PASSWORD)) {
            // bob may set his own password, not another's
            assertThatThrownBy(() -> await(bob.admin().changePassword("root", "hijacked-pass".toCharArray()))).cause()
                    .isInstanceOf(AccessDeniedException.class);
            await(bob.admin().changePassword("bob", next.toCharArray()));
            assertThat(await(bob.table("t").get(Get.of("r"))).isEmpty()).as("open connection goes on").isTrue();
            try (Connection old = connect(s, "bob", BOB_PASSWORD)) {
                assertThat(failure(old)).contains("wrong password or no such user");
            }
            try (Connection renewed = connect(s, "bob", next)) {
                await(renewed.table("t").get(Get.of("r")));
            }
            assertThat(await(root.admin().listUsers())).containsExactly("bob", "root");
            await(root.admin().removeUser("bob"));
            assertThat(await(root.admin().listUsers())).containsExactly("root");
            assertThat(await(root.admin().permissions("bob", null))).as("grants go with the user").isEmpty();
            try (Connection gone = connect(s, "bob", next)) {
                assertThat(failure(gone)).contains("wrong password or no such user");
            }
            assertThat(audit()).anyMatch(l -> l.contains("op=USER_PASSWORD") && l.contains("target=\"bob\""))
                    .anyMatch(l -> l.contains("op=USER_REMOVE") && l.contains("user=\"root\""));
        }
        assertNoSecretLogged("hijacked-pass", next);
    }

    @Test
    void underCertificateAuthTheCertificateNamesTheUser() throws Exception {
        Path ca = TlsCertificates.createAuthority(certs.resolve("ca"), "Basalt test CA", 30);
        TlsCertificates.Issued server = TlsCertificates.issue(certs.resolve("ca"), certs.resolve("issued"), "server",
                List.of("127.0.0.1", "localhost"), 0, 30);
        TlsCertificates.Issued carol = TlsCertificates.issue(certs.resolve("ca"), certs.resolve("issued"), "carol",
                List.of(), 0, 30);
        try (Connection c = Basalt.open(dir)) {
            await(c.admin().createTable(TableDescriptor.of("t", "f")));
            await(c.admin().grant(Permission.onTable("carol", "t", Action.parse("R"))));
        }
        ServerConfig.TlsSettings tls = ServerConfig.TlsSettings.of(server.cert(), server.key())
                .withClients(ca, io.basalt.protocol.Tls.ClientCertificates.REQUIRE);
        ServerConfig config = ServerConfig.builder().port(0).httpPort(ServerConfig.NO_HTTP).dataDir(dir).ioThreads(1)
                .tls(tls).auth(ServerConfig.AuthSettings.off().withMode(ServerConfig.AuthMode.CERTIFICATE)).build();
        try (BasaltServer s = BasaltServer.start(config);
             Connection c = Basalt.connect("basalt://127.0.0.1:" + s.address().getPort(), ClientOptions.builder()
                     .retries(0).tls(ClientTls.trusting(ca).presenting(carol.cert(), carol.key())).build(),
                     StoreOptions.defaults())) {
            assertThat(await(c.table("t").get(Get.of("r"))).isEmpty()).isTrue();
            assertThatThrownBy(() -> await(c.table("t").put(Put.of("r").addColumn("f", "q", "v")))).cause()
                    .isInstanceOf(AccessDeniedException.class).hasMessageContaining("user 'carol'");
            // a password on top is refused: the certificate is the identity
            try (Connection withPassword = Basalt.connect("basalt://127.0.0.1:" + s.address().getPort(),
                    ClientOptions.builder().retries(0).credentials("carol", "carols-password".toCharArray())
                            .tls(ClientTls.trusting(ca).presenting(carol.cert(), carol.key())).build(),
                    StoreOptions.defaults())) {
                assertThat(failure(withPassword)).contains("does not take passwords (auth=certificate)");
            }
        }
        assertThat(audit()).anyMatch(l -> l.contains("user=\"carol\"") && l.contains("op=AUTHENTICATE")
                && l.contains("outcome=ok"));
        assertThatThrownBy(() -> ServerConfig.builder().tls(ServerConfig.TlsSettings.of(server.cert(), server.key()))
                .auth(ServerConfig.AuthSettings.off().withMode(ServerConfig.AuthMode.CERTIFICATE)).build())
                .hasMessageContaining("auth=certificate").hasMessageContaining("tlsClientAuth=require");
    }

    @Test
    void theHttpEndpointAsksForAnAdminsPasswordAndServesHttpsWithTls() throws Exception {
        users();
        HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();
        try (BasaltServer s = start(ServerConfig.AuthSettings.passwords("root").withFailures(50, Duration.ofMinutes(1)))) {
            String base = "http://127.0.0.1:" + s.httpAddress().getPort();
            HttpResponse<String> none = get(http, base + "/metrics", null);
            assertThat(none.statusCode()).isEqualTo(401);
            assertThat(none.headers().firstValue("WWW-Authenticate")).hasValueSatisfying(v -> assertThat(v).startsWith("Basic"));
            assertThat(get(http, base + "/api/status", basic("root", "wrong-password")).statusCode()).isEqualTo(401);
            assertThat(get(http, base + "/", basic("bob", BOB_PASSWORD)).statusCode()).as("no global A").isEqualTo(403);
            HttpResponse<String> ok = get(http, base + "/metrics", basic("root", ROOT_PASSWORD));
            assertThat(ok.statusCode()).isEqualTo(200);
            assertThat(ok.body()).contains("basalt_");
        }
        // with TLS on the client port, the HTTP port speaks HTTPS with the same certificate
        Path ca = TlsCertificates.createAuthority(certs.resolve("ca"), "Basalt test CA", 30);
        TlsCertificates.Issued server = TlsCertificates.issue(certs.resolve("ca"), certs.resolve("issued"), "server",
                List.of("127.0.0.1", "localhost"), 0, 30);
        ServerConfig config = ServerConfig.builder().port(0).httpPort(0).dataDir(dir).ioThreads(1)
                .tls(ServerConfig.TlsSettings.of(server.cert(), server.key()))
                .auth(ServerConfig.AuthSettings.passwords("root")).build();
        try (BasaltServer s = BasaltServer.start(config)) {
            HttpClient https = HttpClient.newBuilder().sslContext(trusting(ca)).connectTimeout(Duration.ofSeconds(10)).build();
            HttpResponse<String> ok = get(https, "https://localhost:" + s.httpAddress().getPort() + "/api/status",
                    basic("root", ROOT_PASSWORD));
            assertThat(ok.statusCode()).isEqualTo(200);
            assertThatThrownBy(() -> get(http, "http://127.0.0.1:" + s.httpAddress().getPort() + "/metrics", null))
                    .as("plain HTTP to the HTTPS port").isInstanceOf(java.io.IOException.class);
        }
        assertNoSecretLogged();
    }

    private static HttpResponse<String> get(HttpClient http, String uri, String authorization) throws Exception {
        HttpRequest.Builder r = HttpRequest.newBuilder(URI.create(uri)).timeout(Duration.ofSeconds(10));
        if (authorization != null) {
            r.header("Authorization", authorization);
        }
        return http.send(r.build(), HttpResponse.BodyHandlers.ofString());
    }

    private static String basic(String user, String password) {
        return "Basic " + Base64.getEncoder().encodeToString((user + ":" + password).getBytes(StandardCharsets.UTF_8));
    }

    private static SSLContext trusting(Path ca) throws Exception {
        KeyStore trust = KeyStore.getInstance("PKCS12");
        trust.load(null, null);
        try (var in = java.nio.file.Files.newInputStream(ca)) {
            trust.setCertificateEntry("ca", CertificateFactory.getInstance("X.509").generateCertificate(in));
        }
        TrustManagerFactory f = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        f.init(trust);
        SSLContext ssl = SSLContext.getInstance("TLS");
        ssl.init(null, f.getTrustManagers(), null);
        return ssl;
    }

    @Test
    void credentialsHideTheirPassword() {
        ClientOptions o = ClientOptions.builder().credentials("bob", BOB_PASSWORD.toCharArray()).build();
        assertThat(o.toString()).contains("bob").doesNotContain(BOB_PASSWORD);
        assertThat(o.credentials().toString()).doesNotContain(BOB_PASSWORD);
        char[] given = BOB_PASSWORD.toCharArray();
        ClientOptions.Credentials c = new ClientOptions.Credentials("bob", given);
        java.util.Arrays.fill(given, 'x');
        assertThat(new String(c.password())).as("a copy is kept").isEqualTo(BOB_PASSWORD);
        assertThat(ServerConfig.defaults().toBuilder().auth(ServerConfig.AuthSettings.passwords("root")).build()
                .effective()).containsEntry("auth", "password").containsEntry("superusers", "root");
    }

    private List<String> audit() {
        return logged.list.stream().filter(e -> e.getLoggerName().equals(Audit.LOGGER))
                .map(ILoggingEvent::getFormattedMessage).toList();
    }

    /** No log event, audit line included, carries a password or a stored credential's text. */
    private void assertNoSecretLogged(String... more) {
        List<String> secrets = new ArrayList<>(List.of(ROOT_PASSWORD, BOB_PASSWORD, "not-bobs-password",
                "whatever-password", "wrong-password", "guess-number-", "SCRAM-SHA-256$"));
        secrets.addAll(List.of(more));
        assertThat(logged.list).as("events captured").isNotEmpty();
        for (ILoggingEvent e : logged.list) {
            StringBuilder text = new StringBuilder(e.getFormattedMessage());
            for (var t = e.getThrowableProxy(); t != null; t = t.getCause()) {
                text.append(' ').append(t.getMessage());
            }
            for (String secret : secrets) {
                assertThat(text.toString()).as("log line of %s", e.getLoggerName()).doesNotContain(secret);
            }
        }
    }
}
