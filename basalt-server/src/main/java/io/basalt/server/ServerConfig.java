package io.basalt.server;

import io.basalt.client.Durability;
import io.basalt.client.StoreOptions;
import io.basalt.protocol.FrameLayout;
import io.basalt.protocol.GroupedWriter;
import io.basalt.protocol.WriteMode;
import java.io.IOException;
import java.io.Reader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;

/**
 * Everything a server is started with. Built from defaults, then a properties file
 * ({@code --config FILE}), then command-line flags, each overriding the one before.
 *
 * @param host the address to listen on (default 127.0.0.1: set 0.0.0.0 to accept other hosts)
 * @param port the port (default 16020; 0 picks a free one)
 * @param dataDir the store's directory (default ./basalt-data)
 * @param store the embedded store's options
 * @param maxFrameSize the largest request frame accepted (default 64 MiB); larger ones are
 *     discarded unread and answered with an error
 * @param writeMode how responses are written: grouped per channel (default) or one flush each
 * @param groupingThreshold bytes at which a group of responses is sent at once (default 64 KiB)
 * @param linger how long a group of responses may wait for more (default 0)
 * @param flushConsolidation put Netty's FlushConsolidationHandler first in each pipeline
 * @param ioThreads Netty event-loop threads (default: available processors)
 * @param inlineGets answer a get on the connection's event loop when all it reads is in memory
 *     (default true), handing it to a worker thread only when it needs the disk, has a filter, or
 *     reads more than a few blocks: two thread hand-offs fewer per cached get
 * @param frameTimeout how long a frame may take to arrive whole, from its first byte, and a new
 *     connection's handshake from the accept, before the connection is closed (default 30 s)
 * @param scannerLease how long a scanner may sit idle before it is closed (default 60 s)
 * @param scanTimeLimit how long one scan request may look for rows before it answers with what it
 *     has, possibly nothing (a heartbeat), so a selective scan never runs into the client's
 *     request timeout (default 5 s)
 * @param shutdownGrace how long shutdown waits for requests in flight (default 30 s); after it they
 *     are abandoned, their connections closed, and the store closed
 * @param maxConnections the most connections served at once (default 1024); a connection beyond it
 *     is answered "busy" at its handshake and closed
 * @param maxInFlightPerConnection the most requests of one connection being executed at once
 *     (default 1024); at the limit the server stops reading the connection until one finishes
 * @param maxScannersPerConnection the most scanners one connection may hold open (default 256);
 *     a {@code SCAN_OPEN} beyond it is refused with {@code TOO_MANY_SCANNERS}, so a client that
 *     forgets to close its scanners cannot fill the server's heap before their leases run out
 * @param outboundHighWaterBytes bytes of responses queued for one connection at which the server
 *     stops reading its requests (default 8 MiB)
 * @param outboundLowWaterBytes bytes of queued responses under which it reads them again (default
 *     4 MiB)
 * @param httpPort the port of the HTTP endpoint ({@code /metrics} and the status page), on the same
 *     host; -1 turns it off. Default 16030 when {@code port} is its default 16020, otherwise 0 (a
 *     free port, logged at start): servers started on other ports are usually one of several on a
 *     machine, and must not fight over one HTTP port
 * @param slowRequest requests that take at least this long are logged and counted as slow
 *     (default 1 s)
 * @param metricsMaxTables tables that get metrics labelled with their name (default 100, by
 *     name); the rest are summed under {@code table="_other"}, so the series stay bounded
 * @param requestMetrics record each request in the metrics (default true): its count, errors,
 *     latency and whether it was slow. False leaves the request path without a clock read or a
 *     counter; the per-op request series stay at zero, and the store's and the connections'
 *     metrics are served as before
 * @param log where the server's log goes (read by the launcher, which configures Logback)
 * @param tls whether connections are TLS, and with which certificates ({@link TlsSettings})
 * @param insecure serve an address other than loopback without authenticating clients (default
 *     false: such a server refuses to start; see {@link #insecureRefusal()})
 * @param auth who the clients are and what they may do ({@link AuthSettings}: {@code auth},
 *     {@code superusers}, {@code authMaxFailures}, {@code authFailureWindowSeconds},
 *     {@code aclRefreshSeconds}); off by default
 */
public record ServerConfig(String host, int port, Path dataDir, StoreOptions store, int maxFrameSize,
                           WriteMode writeMode, int groupingThreshold, Duration linger, boolean flushConsolidation,
                           int ioThreads, boolean inlineGets, Duration frameTimeout, Duration scannerLease, Duration scanTimeLimit,
                           Duration shutdownGrace, int maxConnections, int maxInFlightPerConnection,
                           int maxScannersPerConnection, int outboundHighWaterBytes, int outboundLowWaterBytes, int httpPort, Duration slowRequest,
                           int metricsMaxTables, boolean requestMetrics, LogSettings log, TlsSettings tls,
                           boolean insecure, AuthSettings auth) {

    static final Set<String> KEYS = Set.of("host", "port", "data", "durability", "maxFrameSize",
            "writeMode", "groupingThreshold", "lingerMicros", "flushConsolidation", "ioThreads", "inlineGets", "frameTimeoutMillis",
            "scannerLeaseMillis", "scanTimeLimitMillis", "shutdownGraceMillis", "maxConnections", "maxInFlightPerConnection",
            "maxScannersPerConnection",             "outboundHighWaterBytes", "outboundLowWaterBytes", "memtableFlushSize", "walSegmentSize", "blockCacheSize",
            "rowCacheSize", "maxWalSize", "memtableMemoryLimit", "backgroundRetries", "backgroundRetryBackoffMillis", "regionSplitSize",
            "compactionTrigger", "writeStallFiles", "readCompactionBytes", "httpPort", "slowRequestMillis", "metricsMaxTables", "requestMetrics",
            "logDir", "logConfig", "logMaxFileSize", "logTotalSizeCap", "logMaxHistoryDays", "tlsCert", "tlsKey", "tlsCa",
            "tlsClientAuth", "tlsReloadSeconds", "insecure", "auth", "superusers", "authMaxFailures",
            "authFailureWindowSeconds", "aclRefreshSeconds");

    /**
     * Store keys that others are checked against ({@code maxWalSize} must not be below
     * {@code walSegmentSize}, {@code memtableMemoryLimit} not below {@code memtableFlushSize},
     * {@code compactionTrigger} below {@code writeStallFiles}): a file's are applied first, so a
     * file that sets both is checked as written.
     */
    private static final List<String> APPLIED_FIRST = List.of("walSegmentSize", "memtableFlushSize", "writeStallFiles");

    public ServerConfig {
        Objects.requireNonNull(host, "host");
        Objects.requireNonNull(dataDir, "dataDir");
        Objects.requireNonNull(store, "store");
        Objects.requireNonNull(writeMode, "writeMode");
        if (port < 0 || port > 65535) {
            throw new IllegalArgumentException("port " + port + " is outside 0..65535");
        }
        if (maxFrameSize < FrameLayout.HEADER_SIZE) {
            throw new IllegalArgumentException("maxFrameSize " + maxFrameSize + " is below one frame header");
        }
        if (groupingThreshold < FrameLayout.HEADER_SIZE) {
            throw new IllegalArgumentException("groupingThreshold " + groupingThreshold + " is below one frame header");
        }
        if (ioThreads < 1) {
            throw new IllegalArgumentException("ioThreads " + ioThreads + " must be at least 1");
        }
        for (Duration d : new Duration[] {linger, frameTimeout, scannerLease, scanTimeLimit, shutdownGrace}) {
            if (d.isNegative()) {
                throw new IllegalArgumentException("duration " + d + " is negative");
            }
        }
        if (frameTimeout.isZero() || scannerLease.isZero() || scanTimeLimit.isZero()) {
            throw new IllegalArgumentException("frameTimeout, scannerLease and scanTimeLimit must be positive");
        }
        if (maxConnections < 1 || maxInFlightPerConnection < 1 || maxScannersPerConnection < 1) {
            throw new IllegalArgumentException("maxConnections (" + maxConnections + "), maxInFlightPerConnection ("
                    + maxInFlightPerConnection + ") and maxScannersPerConnection (" + maxScannersPerConnection
                    + ") must be at least 1");
        }
        if (outboundLowWaterBytes < 1 || outboundLowWaterBytes > outboundHighWaterBytes) {
            throw new IllegalArgumentException("outboundLowWaterBytes " + outboundLowWaterBytes + " must be at least 1"
                    + " and at most outboundHighWaterBytes " + outboundHighWaterBytes);
        }
        if (httpPort < -1 || httpPort > 65535) {
            throw new IllegalArgumentException("httpPort " + httpPort + " is outside 0..65535 (or -1 for none)");
        }
        if (slowRequest.isNegative() || slowRequest.isZero()) {
            throw new IllegalArgumentException("slowRequest " + slowRequest + " must be positive");
        }
        if (metricsMaxTables < 0) {
            throw new IllegalArgumentException("metricsMaxTables " + metricsMaxTables + " is negative");
        }
        Objects.requireNonNull(tls, "tls");
        Objects.requireNonNull(auth, "auth");
        if (auth.mode() == AuthMode.CERTIFICATE && tls.clientAuth() != io.basalt.protocol.Tls.ClientCertificates.REQUIRE) {
            throw new IllegalArgumentException("auth=certificate takes each client's name from its certificate: it needs"
                    + " tlsCert, tlsKey, tlsCa and tlsClientAuth=require");
        }
        Objects.requireNonNull(log, "log");
        if (log.totalSizeCap() < log.maxFileSize()) {
            throw new IllegalArgumentException("logTotalSizeCap " + log.totalSizeCap() + " is below logMaxFileSize "
                    + log.maxFileSize());
        }
    }

    /**
     * Where the server's log goes. The launcher ({@code basalt server}) configures Logback from
     * these; an embedding application keeps its own logging and ignores them.
     *
     * @param dir the log's directory; {@code null} means {@code DATA/logs}
     * @param config a Logback configuration file replacing Basalt's own, or {@code null}
     * @param maxFileSize bytes at which the log rolls over to a new file (default 64 MiB)
     * @param totalSizeCap bytes the rolled-over files may take together before the oldest go
     *     (default 1 GiB)
     * @param maxHistoryDays days of rolled-over files kept (default 30)
     */
    public record LogSettings(Path dir, Path config, long maxFileSize, long totalSizeCap, int maxHistoryDays) {
        public LogSettings {
            if (maxFileSize < 1024) {
                throw new IllegalArgumentException("logMaxFileSize " + maxFileSize + " is below 1024 bytes");
            }
            if (maxHistoryDays < 1) {
                throw new IllegalArgumentException("logMaxHistoryDays " + maxHistoryDays + " must be at least 1");
            }
            // totalSizeCap against maxFileSize is checked with the whole configuration, so a file
            // may set the two in any order
        }

        public LogSettings withDir(Path v) {
            return new LogSettings(v, config, maxFileSize, totalSizeCap, maxHistoryDays);
        }

        public LogSettings withConfig(Path v) {
            return new LogSettings(dir, v, maxFileSize, totalSizeCap, maxHistoryDays);
        }

        public LogSettings withMaxFileSize(long v) {
            return new LogSettings(dir, config, v, totalSizeCap, maxHistoryDays);
        }

        public LogSettings withTotalSizeCap(long v) {
            return new LogSettings(dir, config, maxFileSize, v, maxHistoryDays);
        }

        public LogSettings withMaxHistoryDays(int v) {
            return new LogSettings(dir, config, maxFileSize, totalSizeCap, v);
        }

        public static LogSettings defaults() {
            return new LogSettings(null, null, 64L << 20, 1L << 30, 30);
        }

        /** The directory the log goes to for a store in {@code dataDir}. */
        public Path directory(Path dataDir) {
            return dir != null ? dir : dataDir.resolve("logs");
        }
    }

    /**
     * TLS on the client port. Off unless {@code cert} is set. The files are PEM and are read again
     * when they change (checked every {@code reload}), so a renewed certificate takes effect for
     * new connections without a restart; connections already open keep theirs. A renewed file that
     * does not read is logged and the certificate in use is kept.
     *
     * @param cert the server's certificate chain ({@code tlsCert}), or {@code null} for no TLS
     * @param key its private key, PKCS#8 ({@code tlsKey})
     * @param ca the CA certificates clients' certificates must be signed by ({@code tlsCa})
     * @param clientAuth whether clients present certificates ({@code tlsClientAuth}: none, the
     *     default, optional or require)
     * @param reload how often the files are checked for changes ({@code tlsReloadSeconds}, default 60)
     */
    public record TlsSettings(Path cert, Path key, Path ca, io.basalt.protocol.Tls.ClientCertificates clientAuth,
                              Duration reload) {
        public TlsSettings {
            Objects.requireNonNull(clientAuth, "clientAuth");
            Objects.requireNonNull(reload, "reload");
            if ((cert == null) != (key == null)) {
                throw new IllegalArgumentException("tlsCert and tlsKey go together: set both for TLS, or neither");
            }
            if (cert == null && (ca != null || clientAuth != io.basalt.protocol.Tls.ClientCertificates.NONE)) {
                throw new IllegalArgumentException("tlsCa and tlsClientAuth need TLS on: set tlsCert and tlsKey");
            }
            if (clientAuth != io.basalt.protocol.Tls.ClientCertificates.NONE && ca == null) {
                throw new IllegalArgumentException("tlsClientAuth " + clientAuth.name().toLowerCase(Locale.ROOT)
                        + " needs tlsCa, the CA that signs the clients' certificates");
            }
            if (reload.compareTo(Duration.ofSeconds(1)) < 0) {
                throw new IllegalArgumentException("tlsReloadSeconds must be at least 1");
            }
        }

        /** No TLS. */
        public static TlsSettings off() {
            return new TlsSettings(null, null, null, io.basalt.protocol.Tls.ClientCertificates.NONE,
                    Duration.ofSeconds(60));
        }

        /** TLS with this certificate and key, no client certificates. */
        public static TlsSettings of(Path cert, Path key) {
            return off().withCertificate(cert, key);
        }

        public boolean enabled() {
            return cert != null;
        }

        public TlsSettings withCertificate(Path c, Path k) {
            return new TlsSettings(c, k, ca, clientAuth, reload);
        }

        /** Clients' certificates checked against {@code authority} as {@code how} says. */
        public TlsSettings withClients(Path authority, io.basalt.protocol.Tls.ClientCertificates how) {
            return new TlsSettings(cert, key, authority, how, reload);
        }

        public TlsSettings withReload(Duration d) {
            return new TlsSettings(cert, key, ca, clientAuth, d);
        }
    }

    /**
     * Why this server must not start, or {@code null} when it may: a server on an address other than
     * loopback that does not authenticate its clients serves anyone who can reach it. Clients are
     * authenticated by mutual TLS ({@code tlsClientAuth=require}); until then only
     * {@code insecure=true} lets such a server start. The HTTP endpoint binds the same host.
     */
    public String insecureRefusal() {
        if (insecure || !servesStrangers()) {
            return null;
        }
        return "refusing to serve " + host + " without authenticating clients: anyone who reaches it could read and"
                + " write every table. Turn authentication on (auth=password, or mutual TLS with tlsClientAuth=require;"
                + " see docs/security.md), listen on 127.0.0.1, or accept the risk with insecure=true (--insecure)";
    }

    /**
     * Whether the server listens beyond loopback without authenticating clients: neither
     * {@code auth} nor mutual TLS is on.
     */
    public boolean servesStrangers() {
        boolean authenticated = auth.mode() != AuthMode.NONE
                || tls.enabled() && tls.clientAuth() == io.basalt.protocol.Tls.ClientCertificates.REQUIRE;
        return !authenticated && !loopback(host);
    }

    /** How clients prove who they are ({@code auth}). */
    public enum AuthMode {
        /** Nobody is asked: every client may do everything (the default, for loopback). */
        NONE,
        /** Every connection authenticates with a user and password (SASL SCRAM-SHA-256) first. */
        PASSWORD,
        /** Each client is the common name of the certificate it presented under mutual TLS. */
        CERTIFICATE;

        static AuthMode parse(String v) {
            return switch (v.trim().toLowerCase(Locale.ROOT)) {
                case "none" -> NONE;
                case "password", "scram" -> PASSWORD;
                case "certificate" -> CERTIFICATE;
                default -> throw new IllegalArgumentException("'" + v + "' is not one of none, password, certificate");
            };
        }
    }

    /**
     * Authentication and permissions.
     *
     * @param mode how clients prove who they are; anything but {@link AuthMode#NONE} also checks
     *     every request against the users' grants (docs/security.md)
     * @param superusers users who hold every permission whatever the grants say ({@code superusers},
     *     comma-separated), so the store can always be administered
     * @param maxFailures failed authentications one address may make within {@code failureWindow}
     *     ({@code authMaxFailures}, default 5); beyond them it is refused without a check until the
     *     oldest leaves the window
     * @param failureWindow {@code authFailureWindowSeconds}, default 60
     * @param refresh how often the users and grants are read again ({@code aclRefreshSeconds},
     *     default 5): what another node or tool changed is seen within this
     */
    public record AuthSettings(AuthMode mode, Set<String> superusers, int maxFailures, Duration failureWindow,
                               Duration refresh) {
        public AuthSettings {
            Objects.requireNonNull(mode, "mode");
            superusers = Set.copyOf(superusers);
            for (String u : superusers) {
                io.basalt.client.security.Permission.checkUser(u);
            }
            if (maxFailures < 1) {
                throw new IllegalArgumentException("authMaxFailures " + maxFailures + " must be at least 1");
            }
            if (failureWindow.isNegative() || failureWindow.isZero() || refresh.isNegative() || refresh.isZero()) {
                throw new IllegalArgumentException("authFailureWindowSeconds and aclRefreshSeconds must be positive");
            }
        }

        public static AuthSettings off() {
            return new AuthSettings(AuthMode.NONE, Set.of(), 5, Duration.ofSeconds(60), Duration.ofSeconds(5));
        }

        /** Clients authenticate with passwords; {@code superusers} hold every permission. */
        public static AuthSettings passwords(String... superusers) {
            return off().withMode(AuthMode.PASSWORD).withSuperusers(Set.of(superusers));
        }

        public boolean enabled() {
            return mode != AuthMode.NONE;
        }

        public AuthSettings withMode(AuthMode m) {
            return new AuthSettings(m, superusers, maxFailures, failureWindow, refresh);
        }

        public AuthSettings withSuperusers(Set<String> users) {
            return new AuthSettings(mode, users, maxFailures, failureWindow, refresh);
        }

        public AuthSettings withFailures(int max, Duration window) {
            return new AuthSettings(mode, superusers, max, window, refresh);
        }

        public AuthSettings withRefresh(Duration d) {
            return new AuthSettings(mode, superusers, maxFailures, failureWindow, d);
        }
    }

    private static boolean loopback(String host) {
        try {
            return java.net.InetAddress.getByName(host).isLoopbackAddress();
        } catch (java.net.UnknownHostException e) {
            return false; // the bind fails on it anyway, with its own message
        }
    }

    /** The HTTP port's default for a server on {@code port}: see {@link #httpPort()}. */
    public static int defaultHttpPort(int port) {
        return port == DEFAULT_PORT ? DEFAULT_HTTP_PORT : 0;
    }

    /** The default client port, as HBase's region servers. */
    public static final int DEFAULT_PORT = 16020;
    /** The default HTTP port, as HBase's region-server info port. */
    public static final int DEFAULT_HTTP_PORT = 16030;
    /** {@link #httpPort()} for no HTTP endpoint. */
    public static final int NO_HTTP = -1;

    /**
     * The configuration in effect, one entry per key a file may set, for the log and the status
     * page. No key holds a secret: the TLS key is named by its path, and its contents are read by
     * the TLS context only.
     */
    public java.util.SortedMap<String, String> effective() {
        java.util.SortedMap<String, String> m = new java.util.TreeMap<>();
        m.put("host", host);
        m.put("port", Integer.toString(port));
        m.put("data", dataDir.toString());
        m.put("durability", store.durability().name());
        m.put("maxFrameSize", Integer.toString(maxFrameSize));
        m.put("writeMode", writeMode.name());
        m.put("groupingThreshold", Integer.toString(groupingThreshold));
        m.put("lingerMicros", Long.toString(linger.toNanos() / 1000));
        m.put("flushConsolidation", Boolean.toString(flushConsolidation));
        m.put("ioThreads", Integer.toString(ioThreads));
        m.put("frameTimeoutMillis", Long.toString(frameTimeout.toMillis()));
        m.put("scannerLeaseMillis", Long.toString(scannerLease.toMillis()));
        m.put("scanTimeLimitMillis", Long.toString(scanTimeLimit.toMillis()));
        m.put("shutdownGraceMillis", Long.toString(shutdownGrace.toMillis()));
        m.put("maxConnections", Integer.toString(maxConnections));
        m.put("maxInFlightPerConnection", Integer.toString(maxInFlightPerConnection));
        m.put("maxScannersPerConnection", Integer.toString(maxScannersPerConnection));
        m.put("outboundHighWaterBytes", Integer.toString(outboundHighWaterBytes));
        m.put("outboundLowWaterBytes", Integer.toString(outboundLowWaterBytes));
        m.put("memtableFlushSize", Long.toString(store.memtableFlushSize()));
        m.put("walSegmentSize", Long.toString(store.walSegmentSize()));
        m.put("blockCacheSize", Long.toString(store.blockCacheSize()));
        m.put("rowCacheSize", Long.toString(store.rowCacheSize()));
        m.put("maxWalSize", Long.toString(store.maxWalSize()));
        m.put("memtableMemoryLimit", Long.toString(store.memtableMemoryLimit()));
        m.put("backgroundRetries", Integer.toString(store.backgroundRetries()));
        m.put("backgroundRetryBackoffMillis", Long.toString(store.backgroundRetryBackoff().toMillis()));
        m.put("regionSplitSize", Long.toString(store.regionSplitSize()));
        m.put("compactionTrigger", Integer.toString(store.compactionTrigger()));
        m.put("writeStallFiles", Integer.toString(store.writeStallFiles()));
        m.put("readCompactionBytes", Long.toString(store.readCompactionBytes()));
        m.put("httpPort", Integer.toString(httpPort));
        m.put("slowRequestMillis", Long.toString(slowRequest.toMillis()));
        m.put("metricsMaxTables", Integer.toString(metricsMaxTables));
        m.put("requestMetrics", Boolean.toString(requestMetrics));
        m.put("inlineGets", Boolean.toString(inlineGets));
        m.put("logDir", log.directory(dataDir).toString());
        m.put("logConfig", log.config() == null ? "" : log.config().toString());
        m.put("logMaxFileSize", Long.toString(log.maxFileSize()));
        m.put("logTotalSizeCap", Long.toString(log.totalSizeCap()));
        m.put("logMaxHistoryDays", Integer.toString(log.maxHistoryDays()));
        // paths only: the key file's contents are never read into the configuration
        m.put("tlsCert", tls.cert() == null ? "" : tls.cert().toString());
        m.put("tlsKey", tls.key() == null ? "" : tls.key().toString());
        m.put("tlsCa", tls.ca() == null ? "" : tls.ca().toString());
        m.put("tlsClientAuth", tls.clientAuth().name().toLowerCase(Locale.ROOT));
        m.put("tlsReloadSeconds", Long.toString(tls.reload().toSeconds()));
        m.put("insecure", Boolean.toString(insecure));
        m.put("auth", auth.mode().name().toLowerCase(Locale.ROOT));
        m.put("superusers", String.join(",", new TreeSet<>(auth.superusers())));
        m.put("authMaxFailures", Integer.toString(auth.maxFailures()));
        m.put("authFailureWindowSeconds", Long.toString(auth.failureWindow().toSeconds()));
        m.put("aclRefreshSeconds", Long.toString(auth.refresh().toSeconds()));
        return m;
    }

    public static ServerConfig defaults() {
        return new Builder().build();
    }

    public static Builder builder() {
        return new Builder();
    }

    /** A builder holding this configuration, to change some of it. */
    public Builder toBuilder() {
        Builder b = new Builder();
        b.host = host;
        b.port = port;
        b.dataDir = dataDir;
        b.store = store;
        b.maxFrameSize = maxFrameSize;
        b.writeMode = writeMode;
        b.groupingThreshold = groupingThreshold;
        b.linger = linger;
        b.flushConsolidation = flushConsolidation;
        b.ioThreads = ioThreads;
        b.frameTimeout = frameTimeout;
        b.scannerLease = scannerLease;
        b.scanTimeLimit = scanTimeLimit;
        b.shutdownGrace = shutdownGrace;
        b.maxConnections = maxConnections;
        b.maxInFlightPerConnection = maxInFlightPerConnection;
        b.maxScannersPerConnection = maxScannersPerConnection;
        b.outboundHighWaterBytes = outboundHighWaterBytes;
        b.outboundLowWaterBytes = outboundLowWaterBytes;
        // the default follows the port: a copy moved to another port gets that port's default
        b.httpPort = httpPort == defaultHttpPort(port) ? null : httpPort;
        b.slowRequest = slowRequest;
        b.metricsMaxTables = metricsMaxTables;
        b.requestMetrics = requestMetrics;
        b.inlineGets = inlineGets;
        b.log = log;
        b.tls = tls;
        b.insecure = insecure;
        b.auth = auth;
        return b;
    }

    /** The prefix of the configuration file's cluster-mode keys, which this class leaves alone. */
    public static final String CLUSTER_PREFIX = "cluster.";

    /**
     * Applies a properties file over this configuration. Keys: {@code host, port, data, durability
     * (SYNC|ASYNC), maxFrameSize, writeMode (GROUPED|FLUSH_EACH), groupingThreshold, lingerMicros,
     * flushConsolidation, ioThreads, inlineGets, frameTimeoutMillis, scannerLeaseMillis, scanTimeLimitMillis,
     * shutdownGraceMillis, maxConnections, maxInFlightPerConnection, maxScannersPerConnection, outboundHighWaterBytes,
     * outboundLowWaterBytes, httpPort, slowRequestMillis, metricsMaxTables, requestMetrics, logDir,
     * logConfig, logMaxFileSize, logTotalSizeCap, logMaxHistoryDays, tlsCert, tlsKey, tlsCa,
     * tlsClientAuth, tlsReloadSeconds, insecure, auth, superusers, authMaxFailures,
     * authFailureWindowSeconds, aclRefreshSeconds}, and the store's {@code memtableFlushSize, walSegmentSize,
     * blockCacheSize, rowCacheSize, maxWalSize, memtableMemoryLimit, backgroundRetries,
     * backgroundRetryBackoffMillis, regionSplitSize, compactionTrigger, writeStallFiles, readCompactionBytes} (see {@link StoreOptions}). Keys under
     * {@code cluster.} are cluster mode's (read by the node, see docs/cluster.md) and skipped here.
     *
     * @throws IllegalArgumentException naming the file and the key, for an unknown key or a bad value
     */
    public ServerConfig withFile(Path file) throws IOException {
        Properties p = new Properties();
        try (Reader r = Files.newBufferedReader(file)) {
            p.load(r);
        }
        Set<String> unknown = new TreeSet<>(p.stringPropertyNames());
        unknown.removeAll(KEYS);
        unknown.removeIf(k -> k.startsWith(CLUSTER_PREFIX));
        if (!unknown.isEmpty()) {
            throw new IllegalArgumentException(file + ": unknown key(s) " + unknown + "; known keys are "
                    + new TreeSet<>(KEYS));
        }
        Builder b = toBuilder();
        List<String> keys = new ArrayList<>(new TreeSet<>(p.stringPropertyNames()));
        keys.sort(Comparator.comparing(k -> !APPLIED_FIRST.contains(k))); // stable: the rest stay sorted
        keys.removeIf(k -> k.startsWith(CLUSTER_PREFIX));
        for (String key : keys) {
            String value = p.getProperty(key).trim();
            try {
                b.set(key, value);
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException(file + ": " + key + " = '" + value + "': " + e.getMessage(), e);
            }
        }
        try {
            return b.build();
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(file + ": " + e.getMessage(), e);
        }
    }

    private static boolean parseBoolean(String v) {
        return switch (v.toLowerCase(Locale.ROOT)) {
            case "true", "on", "yes" -> true;
            case "false", "off", "no" -> false;
            default -> throw new IllegalArgumentException("not a boolean (true/false)");
        };
    }

    public ServerConfig withPort(int p) {
        return toBuilder().port(p).build();
    }

    public ServerConfig withDataDir(Path d) {
        return toBuilder().dataDir(d).build();
    }

    public ServerConfig withIoThreads(int n) {
        return toBuilder().ioThreads(n).build();
    }

    /** Builds a {@link ServerConfig}; unset options keep their defaults. */
    public static final class Builder {
        private String host = "127.0.0.1";
        private int port = DEFAULT_PORT;
        private Path dataDir = Path.of("basalt-data");
        private StoreOptions store = StoreOptions.defaults();
        private int maxFrameSize = FrameLayout.DEFAULT_MAX_FRAME_SIZE;
        private WriteMode writeMode = WriteMode.GROUPED;
        private int groupingThreshold = GroupedWriter.DEFAULT_THRESHOLD;
        private Duration linger = Duration.ZERO;
        private boolean flushConsolidation;
        private int ioThreads = Runtime.getRuntime().availableProcessors();
        private Duration frameTimeout = Duration.ofSeconds(30);
        private Duration scannerLease = Duration.ofSeconds(60);
        private Duration scanTimeLimit = Duration.ofSeconds(5);
        private Duration shutdownGrace = Duration.ofSeconds(30);
        private int maxConnections = 1024;
        private int maxInFlightPerConnection = 1024;
        private int maxScannersPerConnection = 256;
        private int outboundHighWaterBytes = 8 << 20;
        private int outboundLowWaterBytes = 4 << 20;
        /** {@code null}: {@link #defaultHttpPort} of the port. */
        private Integer httpPort;
        private Duration slowRequest = Duration.ofSeconds(1);
        private int metricsMaxTables = 100;
        private boolean requestMetrics = true;
        private boolean inlineGets = true;
        private LogSettings log = LogSettings.defaults();
        private TlsSettings tls = TlsSettings.off();
        private boolean insecure;
        private AuthSettings auth = AuthSettings.off();
        /** The TLS keys a file set, each over {@link #tls}'s: {@code null} for one it left alone. */
        private Path tlsCert;
        private Path tlsKey;
        private Path tlsCa;
        private io.basalt.protocol.Tls.ClientCertificates tlsClientAuth;
        private Duration tlsReload;

        private Builder() {}

        private void set(String key, String v) {
            switch (key) {
                case "host" -> host(v);
                case "port" -> port(Integer.parseInt(v));
                case "data" -> dataDir(Path.of(v));
                case "durability" -> store(store.withDurability(Durability.valueOf(v.toUpperCase(Locale.ROOT))));
                case "maxFrameSize" -> maxFrameSize(Integer.parseInt(v));
                case "writeMode" -> writeMode(WriteMode.valueOf(v.toUpperCase(Locale.ROOT)));
                case "groupingThreshold" -> groupingThreshold(Integer.parseInt(v));
                case "lingerMicros" -> linger(Duration.ofNanos(Math.multiplyExact(Long.parseLong(v), 1000L)));
                case "flushConsolidation" -> flushConsolidation(parseBoolean(v));
                case "ioThreads" -> ioThreads(Integer.parseInt(v));
                case "frameTimeoutMillis" -> frameTimeout(Duration.ofMillis(Long.parseLong(v)));
                case "scannerLeaseMillis" -> scannerLease(Duration.ofMillis(Long.parseLong(v)));
                case "scanTimeLimitMillis" -> scanTimeLimit(Duration.ofMillis(Long.parseLong(v)));
                case "shutdownGraceMillis" -> shutdownGrace(Duration.ofMillis(Long.parseLong(v)));
                case "maxConnections" -> maxConnections(Integer.parseInt(v));
                case "maxInFlightPerConnection" -> maxInFlightPerConnection(Integer.parseInt(v));
                case "maxScannersPerConnection" -> maxScannersPerConnection(Integer.parseInt(v));
                case "outboundHighWaterBytes" -> outboundHighWaterBytes(Integer.parseInt(v));
                case "outboundLowWaterBytes" -> outboundLowWaterBytes(Integer.parseInt(v));
                case "memtableFlushSize" -> store(store.withMemtableFlushSize(Long.parseLong(v)));
                case "walSegmentSize" -> store(store.withWalSegmentSize(Long.parseLong(v)));
                case "blockCacheSize" -> store(store.withBlockCacheSize(Long.parseLong(v)));
                case "rowCacheSize" -> store(store.withRowCacheSize(Long.parseLong(v)));
                case "maxWalSize" -> store(store.withMaxWalSize(Long.parseLong(v)));
                case "memtableMemoryLimit" -> store(store.withMemtableMemoryLimit(Long.parseLong(v)));
                case "backgroundRetries" -> store(store.withBackgroundRetries(Integer.parseInt(v),
                        store.backgroundRetryBackoff()));
                case "backgroundRetryBackoffMillis" -> store(store.withBackgroundRetries(store.backgroundRetries(),
                        Duration.ofMillis(Long.parseLong(v))));
                case "regionSplitSize" -> store(store.withRegionSplitSize(Long.parseLong(v)));
                case "compactionTrigger" -> store(store.withCompaction(Integer.parseInt(v), store.writeStallFiles()));
                case "writeStallFiles" -> store(store.withCompaction(store.compactionTrigger(), Integer.parseInt(v)));
                case "readCompactionBytes" -> store(store.withReadCompactionBytes(Long.parseLong(v)));
                case "httpPort" -> httpPort(Integer.parseInt(v));
                case "slowRequestMillis" -> slowRequest(Duration.ofMillis(Long.parseLong(v)));
                case "metricsMaxTables" -> metricsMaxTables(Integer.parseInt(v));
                case "requestMetrics" -> requestMetrics(parseBoolean(v));
                case "inlineGets" -> inlineGets(parseBoolean(v));
                case "logDir" -> log(log.withDir(Path.of(v)));
                case "logConfig" -> log(log.withConfig(Path.of(v)));
                case "logMaxFileSize" -> log(log.withMaxFileSize(Long.parseLong(v)));
                case "logTotalSizeCap" -> log(log.withTotalSizeCap(Long.parseLong(v)));
                case "logMaxHistoryDays" -> log(log.withMaxHistoryDays(Integer.parseInt(v)));
                // TLS settings are checked together at build(): a file may set them in any order
                case "tlsCert" -> tlsCert = v.isEmpty() ? null : Path.of(v);
                case "tlsKey" -> tlsKey = v.isEmpty() ? null : Path.of(v);
                case "tlsCa" -> tlsCa = v.isEmpty() ? null : Path.of(v);
                case "tlsClientAuth" -> tlsClientAuth = io.basalt.protocol.Tls.ClientCertificates.parse(v);
                case "tlsReloadSeconds" -> tlsReload = Duration.ofSeconds(Long.parseLong(v));
                case "insecure" -> insecure(parseBoolean(v));
                case "auth" -> auth = auth.withMode(AuthMode.parse(v));
                case "superusers" -> auth = auth.withSuperusers(java.util.Arrays.stream(v.split(","))
                        .map(String::trim).filter(u -> !u.isEmpty()).collect(java.util.stream.Collectors.toSet()));
                case "authMaxFailures" -> auth = auth.withFailures(Integer.parseInt(v), auth.failureWindow());
                case "authFailureWindowSeconds" -> auth = auth.withFailures(auth.maxFailures(),
                        Duration.ofSeconds(Long.parseLong(v)));
                case "aclRefreshSeconds" -> auth = auth.withRefresh(Duration.ofSeconds(Long.parseLong(v)));
                default -> throw new IllegalArgumentException("unknown key");
            }
        }

        public Builder host(String v) {
            host = v;
            return this;
        }

        public Builder port(int v) {
            port = v;
            return this;
        }

        public Builder dataDir(Path v) {
            dataDir = v;
            return this;
        }

        public Builder store(StoreOptions v) {
            store = v;
            return this;
        }

        public Builder maxFrameSize(int v) {
            maxFrameSize = v;
            return this;
        }

        public Builder writeMode(WriteMode v) {
            writeMode = v;
            return this;
        }

        public Builder groupingThreshold(int v) {
            groupingThreshold = v;
            return this;
        }

        public Builder linger(Duration v) {
            linger = v;
            return this;
        }

        public Builder flushConsolidation(boolean v) {
            flushConsolidation = v;
            return this;
        }

        public Builder ioThreads(int v) {
            ioThreads = v;
            return this;
        }

        public Builder frameTimeout(Duration v) {
            frameTimeout = v;
            return this;
        }

        public Builder scannerLease(Duration v) {
            scannerLease = v;
            return this;
        }

        public Builder scanTimeLimit(Duration v) {
            scanTimeLimit = v;
            return this;
        }

        public Builder shutdownGrace(Duration v) {
            shutdownGrace = v;
            return this;
        }

        public Builder maxConnections(int v) {
            maxConnections = v;
            return this;
        }

        public Builder maxInFlightPerConnection(int v) {
            maxInFlightPerConnection = v;
            return this;
        }

        public Builder maxScannersPerConnection(int v) {
            maxScannersPerConnection = v;
            return this;
        }

        public Builder outboundHighWaterBytes(int v) {
            outboundHighWaterBytes = v;
            return this;
        }

        public Builder outboundLowWaterBytes(int v) {
            outboundLowWaterBytes = v;
            return this;
        }

        /** The HTTP port; -1 for none (see {@link ServerConfig#httpPort()} for the default). */
        public Builder httpPort(int v) {
            httpPort = v;
            return this;
        }

        public Builder slowRequest(Duration v) {
            slowRequest = v;
            return this;
        }

        public Builder metricsMaxTables(int v) {
            metricsMaxTables = v;
            return this;
        }

        /** Whether requests are recorded in the metrics (see {@link ServerConfig#requestMetrics()}). */
        public Builder requestMetrics(boolean v) {
            requestMetrics = v;
            return this;
        }

        /** Whether gets are tried on the event loop first (see {@link ServerConfig#inlineGets()}). */
        public Builder inlineGets(boolean v) {
            inlineGets = v;
            return this;
        }

        public Builder log(LogSettings v) {
            log = v;
            return this;
        }

        /** Serve another address than loopback without authentication (see {@link ServerConfig#insecure()}). */
        public Builder insecure(boolean v) {
            insecure = v;
            return this;
        }

        /** Authentication and permissions ({@link AuthSettings}). */
        public Builder auth(AuthSettings v) {
            auth = Objects.requireNonNull(v, "auth");
            return this;
        }

        /** TLS on the client port ({@link TlsSettings}); replaces any TLS key set from a file. */
        public Builder tls(TlsSettings v) {
            tls = v;
            tlsCert = null;
            tlsKey = null;
            tlsCa = null;
            tlsClientAuth = null;
            tlsReload = null;
            return this;
        }


        private TlsSettings tlsSettings() {
            return new TlsSettings(tlsCert != null ? tlsCert : tls.cert(), tlsKey != null ? tlsKey : tls.key(),
                    tlsCa != null ? tlsCa : tls.ca(), tlsClientAuth != null ? tlsClientAuth : tls.clientAuth(),
                    tlsReload != null ? tlsReload : tls.reload());
        }

        public ServerConfig build() {
            return new ServerConfig(host, port, dataDir, store, maxFrameSize, writeMode, groupingThreshold, linger,
                    flushConsolidation, ioThreads, inlineGets, frameTimeout, scannerLease, scanTimeLimit, shutdownGrace,
                    maxConnections, maxInFlightPerConnection, maxScannersPerConnection, outboundHighWaterBytes,
                    outboundLowWaterBytes,
                    httpPort != null ? httpPort : defaultHttpPort(port), slowRequest, metricsMaxTables, requestMetrics,
                    log, tlsSettings(), insecure, auth);
        }
    }
}
