package io.basalt.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.basalt.client.AsyncTable;
import io.basalt.client.Basalt;
import io.basalt.client.Connection;
import io.basalt.client.Get;
import io.basalt.client.Put;
import io.basalt.client.TableDescriptor;
import java.lang.management.ManagementFactory;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.management.ObjectName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

/**
 * Issue 22: after a known sequence of requests, {@code /metrics}, JMX and {@code /api/status} say
 * what happened: requests and errors per op, latency counts, the store's flushes, compactions, log
 * bytes and tables; tables past {@code metricsMaxTables} fold into one label; slow requests are
 * logged, counted and listed; with {@code requestMetrics=false} requests are not recorded at all.
 */
class ServerMetricsTest {

    @TempDir
    Path dir;

    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();

    private static <T> T await(CompletableFuture<T> f) throws Exception {
        return f.get(30, TimeUnit.SECONDS);
    }

    private static HttpResponse<String> get(BasaltServer server, String path) throws Exception {
        return HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.httpAddress().getPort() + path))
                .timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofString());
    }

    /**
     * A scrape once {@code sample} reaches {@code value}: a request is recorded just after its
     * answer is queued, so the client may hold the answer a moment before the count moves.
     * Bounded: 10 s, then the last scrape.
     */
    private static String scrapeWhen(BasaltServer server, String sample, double value) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        String text = get(server, "/metrics").body();
        while (!Double.valueOf(value).equals(sample(text, sample)) && System.nanoTime() < deadline) {
            Thread.sleep(10);
            text = get(server, "/metrics").body();
        }
        return text;
    }

    /** The value of the sample named exactly {@code sample} in a text-format scrape, or null. */
    static Double sample(String text, String sample) {
        Matcher m = Pattern.compile("(?m)^" + Pattern.quote(sample) + " (\\S+)$").matcher(text);
        return m.find() ? Double.valueOf(m.group(1)) : null;
    }

    @Test
    void aKnownSequenceOfRequestsShowsInTheMetrics() throws Exception {
        ServerConfig config = ServerConfig.builder().port(0).dataDir(dir).ioThreads(1).metricsMaxTables(1).build();
        assertThat(config.httpPort()).as("a server on a free port gets a free HTTP port").isZero();
        try (BasaltServer server = BasaltServer.start(config);
             Connection client = Basalt.connect("basalt://127.0.0.1:" + server.address().getPort())) {
            await(client.admin().createTable(TableDescriptor.of("t", "f")));
            await(client.admin().createTable(TableDescriptor.of("u", "f")));
            AsyncTable t = client.table("t");
            for (int i = 0; i < 10; i++) {
                await(t.put(Put.of("r" + i).addColumn("f", "q", "v" + i)));
            }
            await(client.admin().flush("t"));
            for (int i = 10; i < 13; i++) {
                await(t.put(Put.of("r" + i).addColumn("f", "q", "v" + i)));
            }
            await(client.admin().flush("t"));
            await(client.admin().compact("t"));
            for (int i = 0; i < 5; i++) {
                assertThat(await(t.get(Get.of("r" + i))).isEmpty()).isFalse();
            }
            AsyncTable missing = client.table("nope");
            assertThatThrownBy(() -> await(missing.get(Get.of("r")))).isInstanceOf(ExecutionException.class);

            HttpResponse<String> r = get(server, "/metrics");
            assertThat(r.statusCode()).isEqualTo(200);
            assertThat(r.headers().firstValue("Content-Type").orElse("")).startsWith("text/plain");
            String m = scrapeWhen(server, "basalt_requests_total{op=\"GET\"}", 6);
            assertThat(sample(m, "basalt_requests_total{op=\"PUT\"}")).isEqualTo(13.0);
            assertThat(sample(m, "basalt_requests_total{op=\"GET\"}")).isEqualTo(6.0);
            assertThat(sample(m, "basalt_request_errors_total{op=\"GET\"}")).isEqualTo(1.0);
            assertThat(sample(m, "basalt_request_errors_total{op=\"PUT\"}")).isEqualTo(0.0);
            assertThat(sample(m, "basalt_requests_total{op=\"CREATE_TABLE\"}")).isEqualTo(2.0);
            assertThat(sample(m, "basalt_request_duration_seconds_count{op=\"PUT\"}")).isEqualTo(13.0);
            assertThat(sample(m, "basalt_request_duration_seconds_bucket{op=\"PUT\",le=\"+Inf\"}")).isEqualTo(13.0);
            assertThat(sample(m, "basalt_request_duration_seconds_sum{op=\"PUT\"}")).isPositive();
            assertThat(sample(m, "basalt_flushes_total")).isEqualTo(2.0);
            assertThat(sample(m, "basalt_flushed_bytes_total")).isPositive();
            assertThat(sample(m, "basalt_compactions_total")).isEqualTo(1.0);
            assertThat(sample(m, "basalt_compaction_read_bytes_total")).isPositive();
            assertThat(sample(m, "basalt_compaction_written_bytes_total")).isPositive();
            assertThat(sample(m, "basalt_wal_bytes_total")).isPositive();
            assertThat(sample(m, "basalt_wal_batches_total")).isPositive();
            assertThat(sample(m, "basalt_connections")).isEqualTo(1.0);
            assertThat(sample(m, "basalt_read_only")).isEqualTo(0.0);
            assertThat(sample(m, "basalt_tables")).isEqualTo(2.0);
            assertThat(sample(m, "basalt_block_cache_hits_total") + sample(m, "basalt_block_cache_misses_total"))
                    .as("the gets read the compacted file").isPositive();
            // metricsMaxTables = 1: 't' by name, 'u' folded into _other
            assertThat(sample(m, "basalt_table_files{table=\"t\"}")).isEqualTo(1.0);
            assertThat(sample(m, "basalt_table_regions{table=\"_other\"}")).isEqualTo(1.0);
            assertThat(m).doesNotContain("table=\"u\"");
            assertThat(sample(m, "basalt_table_read_requests_total{table=\"t\"}")).as("the gets of t").isEqualTo(5.0);
            assertThat(sample(m, "basalt_table_write_requests_total{table=\"t\"}")).as("the puts").isEqualTo(13.0);
            assertThat(sample(m, "basalt_grouped_write_frames_total"))
                    .isGreaterThanOrEqualTo(sample(m, "basalt_grouped_write_batches_total")).isPositive();

            // JMX says the same as /metrics
            ObjectName name = new ObjectName("io.basalt:type=Server,port=" + server.address().getPort());
            Object jmx = ManagementFactory.getPlatformMBeanServer().getAttribute(name,
                    "basalt_requests_total{op=\"PUT\"}");
            assertThat(jmx).isEqualTo(13.0);

            HttpResponse<String> status = get(server, "/api/status");
            assertThat(status.statusCode()).isEqualTo(200);
            assertThat(status.body()).contains("\"name\":\"t\"", "\"files\":1", "\"readRequests\":5",
                    "\"writeRequests\":13", "\"regionList\":[{\"name\":\"t,,", "\"httpPort\":\"0\"",
                    "\"address\":\"127.0.0.1:" + server.address().getPort() + "\"");
            assertThat(get(server, "/api/history").body()).startsWith("{\"points\":[{\"t\":");
            assertThat(get(server, "/").body()).contains("<title>Basalt server</title>", "/api/status");
            assertThat(get(server, "/nothing").statusCode()).isEqualTo(404);
            HttpResponse<String> post = HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:"
                    + server.httpAddress().getPort() + "/metrics")).POST(HttpRequest.BodyPublishers.ofString("x"))
                    .build(), HttpResponse.BodyHandlers.ofString());
            assertThat(post.statusCode()).isEqualTo(405);
        }
        assertThat(ManagementFactory.getPlatformMBeanServer().queryNames(new ObjectName("io.basalt:type=Server,*"), null))
                .as("the bean goes with the server").isEmpty();
    }

    @Test
    void slowRequestsAreLoggedCountedAndListed() throws Exception {
        ListAppender<ILoggingEvent> log = new ListAppender<>();
        log.start();
        Logger slowLog = (Logger) LoggerFactory.getLogger("io.basalt.server.SlowRequests");
        slowLog.addAppender(log);
        ch.qos.logback.classic.Level before = slowLog.getLevel();
        slowLog.setLevel(ch.qos.logback.classic.Level.INFO);
        ServerConfig config = ServerConfig.builder().port(0).dataDir(dir).ioThreads(1)
                .slowRequest(Duration.ofNanos(1)).build();
        try (BasaltServer server = BasaltServer.start(config);
             Connection client = Basalt.connect("basalt://127.0.0.1:" + server.address().getPort())) {
            await(client.admin().createTable(TableDescriptor.of("t", "f")));
            await(client.table("t").put(Put.of("r").addColumn("f", "q", "v")));
            scrapeWhen(server, "basalt_requests_total{op=\"PUT\"}", 1);
            assertThat(server.metrics().recentSlowRequests()).extracting(ServerMetrics.SlowRequest::op)
                    .contains("CREATE_TABLE", "PUT");
            assertThat(sample(get(server, "/metrics").body(), "basalt_slow_requests_total")).isGreaterThanOrEqualTo(2.0);
            assertThat(log.list).extracting(ILoggingEvent::getFormattedMessage)
                    .anyMatch(line -> line.matches("Slow request: PUT from /127\\.0\\.0\\.1:\\d+ took \\d+ ms \\(OK\\)"));
        } finally {
            slowLog.detachAppender(log);
            slowLog.setLevel(before);
        }
    }

    /**
     * {@code requestMetrics=false}: requests are neither counted nor timed (not even as slow), and
     * their series stay at zero, while the store's and the connections' metrics are served as
     * before. The scrape waits for the server to have no request in flight: a connection records a
     * request before it counts it done, so at that point every request would have been recorded.
     */
    @Test
    void withRequestMetricsOffRequestsAreNotRecordedButTheStoreStillShows() throws Exception {
        ServerConfig config = ServerConfig.builder().port(0).dataDir(dir).ioThreads(1).requestMetrics(false)
                .slowRequest(Duration.ofNanos(1)).build();
        try (BasaltServer server = BasaltServer.start(config);
             Connection client = Basalt.connect("basalt://127.0.0.1:" + server.address().getPort())) {
            await(client.admin().createTable(TableDescriptor.of("t", "f")));
            AsyncTable t = client.table("t");
            for (int i = 0; i < 5; i++) {
                await(t.put(Put.of("r" + i).addColumn("f", "q", "v" + i)));
            }
            await(client.admin().flush("t"));
            assertThat(await(t.get(Get.of("r0"))).isEmpty()).isFalse();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (server.inFlight() > 0 && System.nanoTime() < deadline) {
                Thread.sleep(10);
            }
            assertThat(server.inFlight()).isZero();

            String m = get(server, "/metrics").body();
            assertThat(sample(m, "basalt_requests_total{op=\"PUT\"}")).isEqualTo(0.0);
            assertThat(sample(m, "basalt_requests_total{op=\"GET\"}")).isEqualTo(0.0);
            assertThat(sample(m, "basalt_requests_total{op=\"CREATE_TABLE\"}")).isEqualTo(0.0);
            assertThat(sample(m, "basalt_request_duration_seconds_count{op=\"PUT\"}")).isEqualTo(0.0);
            assertThat(sample(m, "basalt_slow_requests_total")).isEqualTo(0.0);
            assertThat(server.metrics().requestsAnswered()).isZero();
            assertThat(server.metrics().recentSlowRequests()).isEmpty();
            // the store's and the connections' metrics do not depend on it
            assertThat(sample(m, "basalt_flushes_total")).isEqualTo(1.0);
            assertThat(sample(m, "basalt_wal_bytes_total")).isPositive();
            assertThat(sample(m, "basalt_tables")).isEqualTo(1.0);
            assertThat(sample(m, "basalt_connections")).isEqualTo(1.0);
            assertThat(sample(m, "basalt_grouped_write_frames_total")).isPositive();
            assertThat(get(server, "/api/status").body()).contains("\"requests\":0", "\"requestMetrics\":\"false\"");
        }
    }

    @Test
    void aTakenHttpPortFailsTheStartWithTheKeyToChange() throws Exception {
        ServerConfig first = ServerConfig.builder().port(0).dataDir(dir.resolve("a")).ioThreads(1).build();
        try (BasaltServer server = BasaltServer.start(first)) {
            ServerConfig second = ServerConfig.builder().port(0).dataDir(dir.resolve("b")).ioThreads(1)
                    .httpPort(server.httpAddress().getPort()).build();
            assertThatThrownBy(() -> BasaltServer.start(second)).hasMessageContaining("cannot serve HTTP on")
                    .hasMessageContaining("httpPort");
            // the failed start released its store: it opens again
            ServerConfig again = second.toBuilder().httpPort(ServerConfig.NO_HTTP).build();
            try (BasaltServer other = BasaltServer.start(again)) {
                assertThat(other.httpAddress()).isNull();
            }
        }
    }

    @Test
    void theHttpPortDefaultFollowsThePort() {
        assertThat(ServerConfig.defaults().httpPort()).isEqualTo(16030);
        assertThat(ServerConfig.defaults().withPort(0).httpPort()).isZero();
        assertThat(ServerConfig.defaults().withPort(17000).httpPort()).isZero();
        assertThat(ServerConfig.builder().httpPort(18000).build().withPort(0).httpPort()).isEqualTo(18000);
        assertThatThrownBy(() -> ServerConfig.builder().httpPort(-2).build()).hasMessageContaining("httpPort -2");
        Map<String, String> effective = ServerConfig.defaults().effective();
        assertThat(effective).containsEntry("httpPort", "16030").containsEntry("slowRequestMillis", "1000")
                .containsEntry("logDir", Path.of("basalt-data", "logs").toString());
    }
}
