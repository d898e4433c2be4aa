package io.basalt.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.util.ContextInitializer;
import io.basalt.client.Basalt;
import io.basalt.client.Connection;
import io.basalt.client.Put;
import io.basalt.client.TableDescriptor;
import io.basalt.server.BasaltServer;
import io.basalt.server.ServerConfig;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Issue 22: the server's log file ({@link ServerLogging}): a line for each event an operator needs,
 * in the documented shape, and rotation that keeps the rolled-over files under their size cap.
 */
class ServerLoggingTest {

    /** time, level, thread, logger, message */
    private static final String LINE = "\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d\\.\\d{3}(Z|[+-]\\d\\d:\\d\\d) (INFO |WARN |ERROR) "
            + "\\[[^\\]]+\\] [\\w.$]+ - .*";

    @TempDir
    Path dir;

    @AfterEach
    void restoreLogging() throws Exception {
        LoggerContext context = (LoggerContext) LoggerFactory.getILoggerFactory();
        context.reset();
        new ContextInitializer(context).autoConfig();
    }

    private static <T> T await(java.util.concurrent.CompletableFuture<T> f) throws Exception {
        return f.get(30, TimeUnit.SECONDS);
    }

    @Test
    void theLogHasALineForEachEventAnOperatorNeeds() throws Exception {
        ServerConfig config = ServerConfig.builder().port(0).dataDir(dir.resolve("data")).ioThreads(1)
                .maxConnections(1).slowRequest(Duration.ofNanos(1)).build();
        Path file = ServerLogging.configure(config);
        assertThat(file).isEqualTo(dir.resolve("data").resolve("logs").resolve("basalt.log").toAbsolutePath());
        try (BasaltServer server = BasaltServer.start(config)) {
            String uri = "basalt://127.0.0.1:" + server.address().getPort();
            try (Connection client = Basalt.connect(uri)) {
                await(client.admin().createTable(TableDescriptor.of("t", "f")));
                for (int flush = 0; flush < 2; flush++) {
                    await(client.table("t").put(Put.of("r" + flush).addColumn("f", "q", "v")));
                    await(client.admin().flush("t"));
                }
                await(client.admin().compact("t"));
                // a second connection is one too many
                assertThatThrownBy(() -> {
                    try (Connection second = Basalt.connect(uri)) {
                        await(second.admin().listTables());
                    }
                }).isNotNull();
            }
        }
        List<String> lines = Files.readAllLines(file);
        // an event's line, or what follows one logged with a throwable: its class and message, its frames, its causes
        // (other tests' leftover threads in this JVM may log into the file too)
        assertThat(lines).isNotEmpty().allMatch(l -> l.matches(LINE) || l.startsWith("\t") || l.startsWith("Caused by")
                || l.matches("[\\w.$]+(: .*)?"));
        assertThat(lines).anyMatch(l -> l.matches(".* INFO  \\[.*\\] io.basalt.server.BasaltServer - Basalt server"
                + " listening on /127.0.0.1:\\d+ .*metrics and status on http://127.0.0.1:\\d+/"));
        assertThat(lines).anyMatch(l -> l.contains("Configuration in effect: {") && l.contains("maxConnections=1")
                && l.contains("slowRequestMillis=0"));
        assertThat(lines).anyMatch(l -> l.matches(".* INFO .* - Flushed table t\\S*: 1 cells \\(\\d+ in memory\\) to 1"
                + " file\\(s\\) of \\d+ bytes in \\d+ ms"));
        assertThat(lines).anyMatch(l -> l.matches(".* INFO .* - Compacted table t\\S* family f \\(major\\): 2 file\\(s\\)"
                + " of \\d+ bytes into \\d+ bytes in \\d+ ms"));
        assertThat(lines).anyMatch(l -> l.matches(".* INFO .* - Slow request: PUT from /127.0.0.1:\\d+ took \\d+ ms \\(OK\\)"));
        assertThat(lines).anyMatch(l -> l.matches(".* WARN .* - refused a connection from /127.0.0.1:\\d+: 1 connections"
                + " are open.*"));
        assertThat(lines).anyMatch(l -> l.contains("INFO") && l.contains("stopping: "));
        assertThat(lines).anyMatch(l -> l.endsWith("Basalt server stopped"));
        assertThat(lines).as("libraries at INFO stay out").noneMatch(l -> l.contains(" io.netty."));
    }

    @Test
    void theLogRollsOverAndKeepsItsFilesUnderTheCap() throws Exception {
        long maxFile = 4096;
        long cap = 10 * maxFile;
        ServerConfig config = ServerConfig.builder().port(0).dataDir(dir).log(new ServerConfig.LogSettings(
                dir.resolve("logs"), null, maxFile, cap, 30)).build();
        Path file = ServerLogging.configure(config);
        Logger log = LoggerFactory.getLogger("io.basalt.test.Rotation");
        Random random = new Random(42);
        byte[] noise = new byte[90];
        for (int i = 0; i < 3000; i++) { // ~400 KB of text that gzip cannot shrink much
            random.nextBytes(noise);
            log.info("line {} {}", i, Base64.getEncoder().encodeToString(noise));
        }
        assertThat(file).exists();
        assertThat(Files.size(file)).isLessThanOrEqualTo(maxFile + 512);
        // Logback applies the cap at a rollover and counts only the archives whose compression
        // has finished: until the next rollover the archives may pass it by the files still being
        // compressed then, one on an idle machine (seen: 41,949 of 40,960), five on a busy one
        // (52,976). So once they are done, a rollover or two more must bring them within a file of it.
        long bound = cap + maxFile;
        long archived = archivedWithin(cap, 30);
        int lines = 3000;
        for (int more = 0; more < 5 && archived > bound; more++) {
            for (int i = 0; i < 40; i++, lines++) { // ~6 KB: one rollover, perhaps two
                random.nextBytes(noise);
                log.info("line {} {}", lines, Base64.getEncoder().encodeToString(noise));
            }
            archived = archivedWithin(cap, 10);
        }
        List<String> listing;
        try (Stream<Path> all = Files.list(dir.resolve("logs"))) {
            listing = all.map(p -> p.getFileName() + " " + size(p)).sorted().toList();
        }
        // Logback's cap may delete more than it must (racing its own compressions, it has emptied
        // the directory here), so what is checked is the bound and that the oldest went.
        assertThat(Files.readString(file)).as("it rolled over: %s", listing).doesNotContain("line 0 ");
        assertThat(archived).as("rolled-over files together: %s", listing).isLessThanOrEqualTo(bound);
        assertThat(listing).as("the oldest went for the cap").noneMatch(n -> n.matches("basalt\\.[-\\d]+\\.0\\.log.*"));
        assertThat(Files.readString(file)).contains("line " + (lines - 1) + " ");
    }

    /** The bytes of the rolled-over files, once within {@code cap} or after {@code seconds}. */
    private long archivedWithin(long cap, int seconds) throws InterruptedException, java.io.IOException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        long archived;
        do {
            Thread.sleep(100);
            try (Stream<Path> files = archives(dir.resolve("logs"))) {
                archived = files.mapToLong(ServerLoggingTest::size).sum();
            }
        } while (archived > cap && System.nanoTime() < deadline);
        return archived;
    }

    @Test
    void anOperatorsOwnConfigurationReplacesBasaltsAndABrokenOneIsNamed() throws Exception {
        Path own = dir.resolve("own.xml");
        Files.writeString(own, """
                <configuration>
                  <appender name="F" class="ch.qos.logback.core.FileAppender">
                    <file>${basalt.log.dir}/mine.log</file>
                    <encoder><pattern>MINE %msg%n</pattern></encoder>
                  </appender>
                  <root level="INFO"><appender-ref ref="F"/></root>
                </configuration>
                """);
        ServerConfig config = ServerConfig.builder().port(0).dataDir(dir).log(new ServerConfig.LogSettings(
                null, own, 1 << 20, 1 << 30, 30)).build();
        assertThat(ServerLogging.configure(config)).as("the operator's file decides").isNull();
        LoggerFactory.getLogger("x").info("hello");
        assertThat(Files.readString(dir.resolve("logs").resolve("mine.log"))).isEqualTo("MINE hello\n");

        Path broken = dir.resolve("broken.xml");
        Files.writeString(broken, "<configuration><appender name=\"F\" class=\"no.such.Appender\"/>"
                + "<root level=\"INFO\"><appender-ref ref=\"F\"/></root></configuration>");
        ServerConfig bad = config.toBuilder().log(new ServerConfig.LogSettings(null, broken, 1 << 20, 1 << 30, 30))
                .build();
        assertThatThrownBy(() -> ServerLogging.configure(bad)).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining(broken.toString());
    }

    private static Stream<Path> archives(Path logs) throws java.io.IOException {
        return Files.list(logs).filter(p -> p.getFileName().toString().matches("basalt\\.\\d{4}-\\d\\d-\\d\\d\\.\\d+\\.log(\\.gz)?"));
    }

    private static long size(Path p) {
        try {
            return Files.size(p);
        } catch (java.io.IOException e) {
            return 0; // removed meanwhile
        }
    }

    /**
     * Issue 23: the audit log has a line per admin operation (who, from where, what, on what, how
     * it ended) and per refused connection, in a file of its own that the server log does not repeat.
     */
    @Test
    void theAuditLogHasALineForEachAdminOperationAndRefusal() throws Exception {
        Path certs = dir.resolve("certs");
        io.basalt.protocol.TlsCertificates.createAuthority(certs, "audit CA", 30);
        var server = io.basalt.protocol.TlsCertificates.issue(certs, certs, "server", List.of("127.0.0.1"), 0, 30);
        var alice = io.basalt.protocol.TlsCertificates.issue(certs, certs, "alice", List.of(), 0, 30);
        ServerConfig config = ServerConfig.builder().port(0).httpPort(ServerConfig.NO_HTTP).dataDir(dir.resolve("data"))
                .ioThreads(1).tls(ServerConfig.TlsSettings.of(server.cert(), server.key())
                        .withClients(server.ca(), io.basalt.protocol.Tls.ClientCertificates.REQUIRE)).build();
        ServerLogging.configure(config);
        Path audit = dir.resolve("data").resolve("logs").resolve("audit.log");
        int port;
        try (BasaltServer s = BasaltServer.start(config)) {
            port = s.address().getPort();
            io.basalt.client.net.ClientOptions options = io.basalt.client.net.ClientOptions.builder().retries(0)
                    .tls(io.basalt.client.net.ClientOptions.ClientTls.trusting(server.ca())
                            .presenting(alice.cert(), alice.key())).build();
            try (Connection c = Basalt.connect("basalt://127.0.0.1:" + port, options,
                    io.basalt.client.StoreOptions.defaults())) {
                await(c.admin().createTable(TableDescriptor.of("t", "f")));
                await(c.table("t").put(Put.of("r").addColumn("f", "q", "v"))); // not an admin operation
                await(c.admin().flush("t"));
                assertThatThrownBy(() -> await(c.admin().dropTable("nope"))).isNotNull();
                await(c.admin().dropTable("t"));
            }
            try (Connection plain = Basalt.connect("basalt://127.0.0.1:" + port)) {
                assertThatThrownBy(() -> await(plain.admin().listTables())).isNotNull();
            }
            for (int i = 0; i < 500 && s.tlsHandshakeFailures() == 0; i++) {
                Thread.sleep(10);
            }
        }
        String time = "\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d\\.\\d{3}(Z|[+-]\\d\\d:\\d\\d) ";
        List<String> lines = Files.readAllLines(audit);
        // the plaintext client tries again (its retries), each try a refusal
        assertThat(lines).as("%s", lines).hasSizeGreaterThanOrEqualTo(5).allMatch(l -> l.matches(time + "user=\\S+ from=\\S+ op=\\w+ target=.*"
                + " outcome=.*"));
        assertThat(lines.get(0)).matches(time + "user=\"alice\" from=/127\\.0\\.0\\.1:\\d+ op=CREATE_TABLE target=\"t\""
                + " outcome=ok");
        assertThat(lines.get(1)).contains("user=\"alice\"", "op=FLUSH target=\"t\" outcome=ok");
        assertThat(lines.get(2)).contains("op=DROP_TABLE target=\"nope\" outcome=\"failed: ").contains("nope");
        assertThat(lines.get(3)).contains("op=DROP_TABLE target=\"t\" outcome=ok");
        assertThat(lines.subList(4, lines.size())).allSatisfy(l -> assertThat(l).contains("user=- ", "op=CONNECT",
                "outcome=\"refused: TLS handshake failed: the other end does not speak TLS"));
        assertThat(Files.readString(dir.resolve("data").resolve("logs").resolve("basalt.log")))
                .as("the server log does not repeat the audit").doesNotContain("op=CREATE_TABLE");
    }
}
