package io.basalt.server;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.basalt.bytes.Bytes;
import io.basalt.client.ServerStatus;
import io.basalt.engine.StoreMetrics;
import io.prometheus.metrics.expositionformats.PrometheusTextFormatWriter;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The server's HTTP port ({@link ServerConfig#httpPort()}), on the server's host: {@code /metrics}
 * in Prometheus's text format, the status page at {@code /} (one HTML file, no build step), and the
 * JSON it reads: {@code /api/status} (the node, its tables, compactions, slow requests, the
 * configuration) and {@code /api/history} (request rate and latency, one point a second, for the
 * last {@link #HISTORY_SECONDS} seconds). Only GET (and HEAD) are answered.
 */
final class HttpEndpoint implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(HttpEndpoint.class);
    /** Seconds of history the chart shows. */
    static final int HISTORY_SECONDS = 300;

    /** One second of the chart: requests answered in it, and their mean and 99th-percentile latency. */
    record Point(long epochMillis, long requests, double meanMillis, double p99Millis) {}

    private final BasaltServer server;
    private final HttpServer http;
    private final ExecutorService executor;
    private final ScheduledExecutorService sampler;
    private final Instant started = Instant.now();
    private final ArrayDeque<Point> history = new ArrayDeque<>();
    private long[] lastBuckets;
    private long lastCount;
    private double lastSum;

    private HttpEndpoint(BasaltServer server) throws IOException {
        this.server = server;
        ServerConfig config = server.config();
        if (server.tls() != null) {
            com.sun.net.httpserver.HttpsServer https = com.sun.net.httpserver.HttpsServer.create(
                    new InetSocketAddress(config.host(), config.httpPort()), 64);
            https.setHttpsConfigurator(new com.sun.net.httpserver.HttpsConfigurator(server.tls().httpsContext()));
            this.http = https;
        } else {
            this.http = HttpServer.create(new InetSocketAddress(config.host(), config.httpPort()), 64);
        }
        this.executor = Executors.newSingleThreadExecutor(r -> Thread.ofPlatform().name("basalt-http").daemon()
                .unstarted(r));
        http.setExecutor(executor);
        http.createContext("/", this::serve);
        this.sampler = Executors.newSingleThreadScheduledExecutor(r -> Thread.ofPlatform().name("basalt-http-history")
                .daemon().unstarted(r));
        sample();
        sampler.scheduleAtFixedRate(this::sample, 1, 1, TimeUnit.SECONDS);
        http.start();
    }

    static HttpEndpoint start(BasaltServer server) throws IOException {
        return new HttpEndpoint(server);
    }

    InetSocketAddress address() {
        return http.getAddress();
    }

    private void serve(HttpExchange exchange) throws IOException {
        try (exchange) {
            String method = exchange.getRequestMethod();
            if (!method.equals("GET") && !method.equals("HEAD")) {
                exchange.getResponseHeaders().set("Allow", "GET, HEAD");
                send(exchange, 405, "text/plain; charset=utf-8", (method + " is not served here; use GET\n")
                        .getBytes(StandardCharsets.UTF_8));
                return;
            }
            if (!authorized(exchange)) {
                return;
            }
            String path = exchange.getRequestURI().getPath();
            switch (path) {
                case "/metrics" -> {
                    ByteArrayOutputStream out = new ByteArrayOutputStream(16 << 10);
                    PrometheusTextFormatWriter.create().write(out, server.metrics().scrape());
                    send(exchange, 200, PrometheusTextFormatWriter.CONTENT_TYPE, out.toByteArray());
                }
                case "/api/status" -> send(exchange, 200, "application/json", status().getBytes(StandardCharsets.UTF_8));
                case "/api/history" -> send(exchange, 200, "application/json", history().getBytes(StandardCharsets.UTF_8));
                case "/", "/index.html" -> send(exchange, 200, "text/html; charset=utf-8", page());
                default -> send(exchange, 404, "text/plain; charset=utf-8", ("no page " + path + "; try /, /metrics,"
                        + " /api/status or /api/history\n").getBytes(StandardCharsets.UTF_8));
            }
        } catch (IOException | RuntimeException e) {
            LOG.debug("HTTP request {} failed: {}", exchange.getRequestURI(), e.toString());
        }
    }

    /**
     * When the server authenticates, every page needs HTTP Basic credentials of a user holding
     * global A (the page and the metrics show every table and the configuration). Failures count
     * against the address as the client port's do; the password is checked against the stored
     * SCRAM credential (a key derivation per request: the page's few requests a second afford it).
     * False when the exchange was answered 401 or 403.
     */
    private boolean authorized(HttpExchange exchange) throws IOException {
        io.basalt.client.security.AccessControl access = server.handler().access();
        if (access == null) {
            return true;
        }
        java.net.InetAddress from = exchange.getRemoteAddress().getAddress();
        long now = System.nanoTime();
        long wait = server.authFailures().refusedFor(from, now);
        if (wait > 0) {
            exchange.getResponseHeaders().set("Retry-After", Long.toString(Math.max(1, TimeUnit.NANOSECONDS.toSeconds(wait))));
            send(exchange, 429, "text/plain; charset=utf-8", ("too many failed authentications from "
                    + from.getHostAddress() + "\n").getBytes(StandardCharsets.UTF_8));
            return false;
        }
        String header = exchange.getRequestHeaders().getFirst("Authorization");
        String user = null;
        boolean ok = false;
        if (header != null && header.regionMatches(true, 0, "Basic ", 0, 6)) {
            byte[] decoded;
            try {
                decoded = java.util.Base64.getDecoder().decode(header.substring(6).trim());
            } catch (IllegalArgumentException e) {
                decoded = new byte[0];
            }
            String pair = new String(decoded, StandardCharsets.UTF_8);
            int colon = pair.indexOf(':');
            if (colon > 0) {
                user = pair.substring(0, colon);
                char[] password = pair.substring(colon + 1).toCharArray();
                io.basalt.client.security.Scram.Credential credential = access.credential(user);
                ok = credential != null && credential.matches(password);
                java.util.Arrays.fill(password, '\0');
            }
        }
        if (!ok) {
            if (header != null) {
                server.authFailures().failed(from, now);
                LOG.info("HTTP authentication from {} failed{}", from.getHostAddress(),
                        user == null ? "" : " for user '" + user + "'");
            }
            exchange.getResponseHeaders().set("WWW-Authenticate", "Basic realm=\"basalt\", charset=\"UTF-8\"");
            send(exchange, 401, "text/plain; charset=utf-8", ("this server authenticates: give the user and password of"
                    + " a user with global A (HTTP Basic)\n").getBytes(StandardCharsets.UTF_8));
            return false;
        }
        if (!access.allows(user, io.basalt.client.security.Action.ADMIN, null, null)) {
            send(exchange, 403, "text/plain; charset=utf-8", ("user '" + user + "' may not see the status page or the"
                    + " metrics: it needs global A\n").getBytes(StandardCharsets.UTF_8));
            return false;
        }
        return true;
    }

    private static void send(HttpExchange exchange, int code, String type, byte[] body) throws IOException {
        exchange.getResponseHeaders().set("Content-Type", type);
        exchange.getResponseHeaders().set("Cache-Control", "no-store");
        boolean head = exchange.getRequestMethod().equals("HEAD");
        exchange.sendResponseHeaders(code, head ? -1 : body.length == 0 ? -1 : body.length);
        if (!head && body.length > 0) {
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(body);
            }
        }
    }

    private static byte[] page() throws IOException {
        try (InputStream in = HttpEndpoint.class.getResourceAsStream("status.html")) {
            if (in == null) {
                throw new IOException("status.html is missing from the server's jar");
            }
            return in.readAllBytes();
        }
    }

    /** Takes one point of the chart from the latency histograms' totals. */
    private void sample() {
        try {
            long[] buckets = server.metrics().latencyBuckets();
            long count = buckets[buckets.length - 1];
            double sum = server.metrics().latencySumSeconds();
            Point p;
            if (lastBuckets == null) {
                p = new Point(System.currentTimeMillis(), 0, 0, 0);
            } else {
                long n = count - lastCount;
                double mean = n == 0 ? 0 : (sum - lastSum) / n * 1000;
                p = new Point(System.currentTimeMillis(), n, mean, percentile(lastBuckets, buckets, 0.99) * 1000);
            }
            lastBuckets = buckets;
            lastCount = count;
            lastSum = sum;
            synchronized (history) {
                if (history.size() == HISTORY_SECONDS) {
                    history.removeFirst();
                }
                history.addLast(p);
            }
        } catch (RuntimeException e) {
            LOG.debug("sampling the request rate failed: {}", e.toString());
        }
    }

    /**
     * The upper bound of the bucket holding quantile {@code q} of the requests counted between two
     * cumulative bucket readings (the last entry is the total); 0 with none.
     */
    static double percentile(long[] before, long[] after, double q) {
        long total = after[after.length - 1] - before[before.length - 1];
        if (total <= 0) {
            return 0;
        }
        long rank = (long) Math.ceil(q * total);
        double[] bounds = ServerMetrics.LATENCY_BUCKETS;
        for (int i = 0; i < bounds.length; i++) {
            if (after[i] - before[i] >= rank) {
                return bounds[i];
            }
        }
        return bounds[bounds.length - 1] * 2; // above the last bound: shown as twice it
    }

    private String history() {
        StringBuilder b = new StringBuilder("{\"points\":[");
        synchronized (history) {
            boolean first = true;
            for (Point p : history) {
                b.append(first ? "" : ",").append("{\"t\":").append(p.epochMillis()).append(",\"requests\":")
                        .append(p.requests()).append(",\"meanMillis\":").append(round(p.meanMillis()))
                        .append(",\"p99Millis\":").append(round(p.p99Millis())).append('}');
                first = false;
            }
        }
        return b.append("]}").toString();
    }

    private String status() {
        Json j = new Json();
        j.open();
        j.key("node").open();
        j.field("address", server.address().getHostString() + ":" + server.address().getPort());
        j.field("http", server.httpAddress().getHostString() + ":" + server.httpAddress().getPort());
        j.field("data", server.config().dataDir().toAbsolutePath().normalize().toString());
        j.field("started", started.toString());
        j.field("uptimeSeconds", server.uptimeMillis() / 1000);
        j.field("connections", server.connections());
        j.field("inFlight", server.inFlight());
        j.field("requests", server.metrics().requestsAnswered());
        j.close();
        StoreMetrics m = server.handler().storeMetrics();
        if (m != null) {
            j.key("store").open();
            j.field("readOnly", m.readOnly() ? m.readOnlyReason() : "");
            j.field("memtableBytes", m.memtableBytes());
            j.field("blockCacheBytes", m.blockCacheBytes());
            j.field("blockCacheCapacity", m.blockCacheCapacity());
            j.field("blockCacheHits", m.blockCacheHits());
            j.field("blockCacheMisses", m.blockCacheMisses());
            j.field("flushes", m.background().flushes());
            j.field("compactions", m.background().compactions());
            j.field("compactionsRunning", m.background().compactionsRunning());
            j.field("walSyncs", m.walSyncs());
            j.field("stalls", m.background().stalls());
            j.close();
            j.key("tables").array();
            for (ServerStatus.Table t : m.tables()) {
                j.open();
                j.field("name", t.name());
                j.field("disabled", t.disabled() ? "yes" : "no");
                j.field("regions", t.regions().size());
                j.field("files", t.files());
                j.field("sizeBytes", t.sizeBytes());
                j.field("memtableBytes", t.memtableBytes());
                j.field("readRequests", t.readRequests());
                j.field("writeRequests", t.writeRequests());
                j.key("regionList").array();
                for (ServerStatus.Region r : t.regions()) {
                    j.open();
                    j.field("name", r.info().name());
                    j.field("start", Bytes.toStringBinary(r.info().start()));
                    j.field("end", Bytes.toStringBinary(r.info().end()));
                    j.field("files", r.info().files());
                    j.field("sizeBytes", r.info().sizeBytes());
                    j.field("memtableBytes", r.info().memtableBytes());
                    j.field("readRequests", r.readRequests());
                    j.field("writeRequests", r.writeRequests());
                    j.close();
                }
                j.endArray();
                j.close();
            }
            j.endArray();
        }
        io.basalt.client.ClusterInfo cluster;
        String clusterProblem = "";
        try {
            cluster = server.handler().clusterInfo();
        } catch (RuntimeException e) {
            cluster = null;
            clusterProblem = String.valueOf(e.getMessage());
        }
        if (cluster != null || !clusterProblem.isEmpty()) {
            j.key("cluster").open();
            j.field("problem", clusterProblem);
            j.key("nodes").array();
            for (io.basalt.client.ClusterInfo.Node n : cluster == null ? java.util.List.<io.basalt.client.ClusterInfo.Node>of()
                    : cluster.nodes()) {
                j.open();
                j.field("id", n.id());
                j.field("address", n.address());
                j.field("up", n.up() ? "up" : "down");
                j.field("groups", n.groups());
                j.close();
            }
            j.endArray();
            j.key("regions").array();
            for (io.basalt.client.ClusterInfo.Region r : cluster == null
                    ? java.util.List.<io.basalt.client.ClusterInfo.Region>of() : cluster.regions()) {
                j.open();
                j.field("table", r.table());
                j.field("id", Long.toString(r.id()));
                j.field("start", r.start());
                j.field("end", r.end());
                j.field("leader", r.leader());
                StringBuilder replicas = new StringBuilder();
                for (io.basalt.client.ClusterInfo.Replica rep : r.replicas()) {
                    replicas.append(replicas.isEmpty() ? "" : ", ").append(rep.node()).append(' ').append(rep.role())
                            .append(rep.lag() > 0 ? " (" + rep.lag() + " behind)" : "");
                }
                j.field("replicas", replicas.toString());
                j.close();
            }
            j.endArray();
            j.close();
        }
        j.key("slowRequests").array();
        for (ServerMetrics.SlowRequest s : server.metrics().recentSlowRequests()) {
            j.open();
            j.field("at", s.at().toString());
            j.field("op", s.op());
            j.field("peer", s.peer());
            j.field("millis", s.micros() / 1000.0);
            j.field("status", s.status());
            j.close();
        }
        j.endArray();
        j.key("config").open();
        for (Map.Entry<String, String> e : server.config().effective().entrySet()) {
            j.field(e.getKey(), e.getValue());
        }
        j.close();
        j.close();
        return j.toString();
    }

    private static double round(double v) {
        return Math.round(v * 1000) / 1000.0;
    }

    @Override
    public void close() {
        http.stop(0);
        executor.shutdownNow();
        sampler.shutdownNow();
    }

    /** Just enough of a JSON writer for the status: objects, arrays, strings and numbers. */
    private static final class Json {
        private final StringBuilder b = new StringBuilder();
        private boolean needComma;

        void open() {
            comma();
            b.append('{');
            needComma = false;
        }

        void close() {
            b.append('}');
            needComma = true;
        }

        void array() {
            b.append('[');
            needComma = false;
        }

        void endArray() {
            b.append(']');
            needComma = true;
        }

        Json key(String k) {
            comma();
            string(k);
            b.append(':');
            needComma = false;
            return this;
        }

        void field(String k, String v) {
            key(k);
            string(v);
            needComma = true;
        }

        void field(String k, double v) {
            key(k);
            b.append(v == Math.rint(v) && Math.abs(v) < 1e15 ? Long.toString((long) v) : Double.toString(v));
            needComma = true;
        }

        private void comma() {
            if (needComma) {
                b.append(',');
            }
        }

        private void string(String s) {
            b.append('"');
            for (int i = 0; i < s.length(); i++) {
                char c = s.charAt(i);
                switch (c) {
                    case '"' -> b.append("\\\"");
                    case '\\' -> b.append("\\\\");
                    case '\n' -> b.append("\\n");
                    case '\r' -> b.append("\\r");
                    case '\t' -> b.append("\\t");
                    default -> {
                        if (c < 0x20 || c == '<' || c == '>' || c == '&') {
                            b.append(String.format("\\u%04x", (int) c));
                        } else {
                            b.append(c);
                        }
                    }
                }
            }
            b.append('"');
        }

        @Override
        public String toString() {
            return b.toString();
        }
    }
}
