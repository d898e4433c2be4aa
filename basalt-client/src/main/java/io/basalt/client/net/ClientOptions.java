package io.basalt.client.net;

import io.basalt.protocol.FrameLayout;
import io.basalt.protocol.GroupedWriter;
import io.basalt.protocol.WriteMode;
import java.time.Duration;
import java.util.Objects;

/**
 * How a network connection behaves. Every option has a default that suits a client sending many
 * small requests; build with {@link #builder()}.
 *
 * @param operationTimeout how long one request may take, from send to response, before it fails
 *     with an {@link io.basalt.client.OperationTimeoutException} (default 30 s)
 * @param connectTimeout how long connecting (TCP and handshake) may take (default 5 s)
 * @param retries how many times a resendable read ({@link io.basalt.protocol.OpCode#resendable()})
 *     is sent again after its connection failed or it timed out (default 3); other requests are
 *     retried only when they were never sent, and an error response is never retried
 * @param retryBackoff the first pause before a retry, doubled each time (default 100 ms)
 * @param connections connections per server, requests spread over them (default 1)
 * @param ioThreads Netty event-loop threads (default 1)
 * @param writeMode {@link WriteMode#GROUPED} (default) or {@link WriteMode#FLUSH_EACH}
 * @param groupingThreshold bytes at which a group is sent at once, and above which a request goes
 *     alone (default 64 KiB)
 * @param linger how long a group may wait for more requests before it is sent (default 0: send as
 *     soon as the event loop gets to it)
 * @param flushConsolidation put Netty's {@code FlushConsolidationHandler(1024, true)} first in the
 *     pipeline (default off; it exists to compare against)
 * @param maxFrameSize the largest response frame accepted (default 64 MiB)
 * @param scanPrefetchBytes how far a scanner reads ahead of its caller, in bytes: it keeps
 *     {@code scanPrefetchBytes / maxResultSize} batches requested (at least 1, at most
 *     {@value #MAX_SCAN_PREFETCH_BATCHES}) beyond the one being read (default 4 MiB: two batches
 *     of the default 2 MiB)
 * @param routeToLeaders to a cluster, send each row's operations to its region's leader (default
 *     on); off, every request goes to the node talked to, which forwards what it does not lead
 *     (a hop more; the nemesis tests use both, so follower reads and forwarding stay exercised)
 * @param tls TLS to the server ({@link ClientTls}), or {@code null} for plaintext (the default;
 *     a {@code basalts://} URI turns it on with the JDK's trusted CAs)
 * @param credentials the user and password each connection authenticates with (SCRAM-SHA-256)
 *     right after the handshake, or {@code null} for none (the default): a server with
 *     {@code auth=password} then refuses every request but {@code PING}
 */
public record ClientOptions(Duration operationTimeout, Duration connectTimeout, int retries, Duration retryBackoff,
                            int connections, int ioThreads, WriteMode writeMode, int groupingThreshold,
                            Duration linger, boolean flushConsolidation, int maxFrameSize, long scanPrefetchBytes,
                            boolean routeToLeaders, ClientTls tls, Credentials credentials) {

    /** The most batches a scanner requests ahead of the one being read. */
    public static final int MAX_SCAN_PREFETCH_BATCHES = 4;

    public ClientOptions {
        Objects.requireNonNull(operationTimeout, "operationTimeout");
        Objects.requireNonNull(connectTimeout, "connectTimeout");
        Objects.requireNonNull(retryBackoff, "retryBackoff");
        Objects.requireNonNull(writeMode, "writeMode");
        Objects.requireNonNull(linger, "linger");
        positive(operationTimeout, "operationTimeout");
        positive(connectTimeout, "connectTimeout");
        if (retries < 0) {
            throw new IllegalArgumentException("retries " + retries + " is negative");
        }
        if (retryBackoff.isNegative() || linger.isNegative()) {
            throw new IllegalArgumentException("retryBackoff and linger must not be negative");
        }
        if (connections < 1 || ioThreads < 1) {
            throw new IllegalArgumentException("connections (" + connections + ") and ioThreads (" + ioThreads
                    + ") must be at least 1");
        }
        if (groupingThreshold < FrameLayout.HEADER_SIZE) {
            throw new IllegalArgumentException("groupingThreshold " + groupingThreshold + " is below one frame header");
        }
        if (maxFrameSize < FrameLayout.HEADER_SIZE) {
            throw new IllegalArgumentException("maxFrameSize " + maxFrameSize + " is below one frame header");
        }
        if (scanPrefetchBytes < 0) {
            throw new IllegalArgumentException("scanPrefetchBytes " + scanPrefetchBytes + " is negative");
        }
    }

    /**
     * TLS to the server: the server's certificate must be signed by a CA in {@code ca} (PEM), or,
     * when {@code ca} is null, by one the JDK trusts, and must name the host connected to. With
     * {@code cert} and {@code key} (PEM, the key PKCS#8) the client presents a certificate of its
     * own, for a server that asks (mutual TLS).
     */
    public record ClientTls(java.nio.file.Path ca, java.nio.file.Path cert, java.nio.file.Path key) {
        public ClientTls {
            if ((cert == null) != (key == null)) {
                throw new IllegalArgumentException("a client certificate needs its key, and a key its certificate");
            }
        }

        /** Trusting the JDK's CAs, with no certificate of the client's own. */
        public static ClientTls systemTrust() {
            return new ClientTls(null, null, null);
        }

        /** Trusting the CA certificates in {@code ca}. */
        public static ClientTls trusting(java.nio.file.Path ca) {
            return new ClientTls(ca, null, null);
        }

        /** The same trust, presenting {@code certificate} with {@code privateKey}. */
        public ClientTls presenting(java.nio.file.Path certificate, java.nio.file.Path privateKey) {
            return new ClientTls(ca, certificate, privateKey);
        }
    }

    /**
     * A user and password. The password stays in this object (never in a message, a log line or
     * {@link #toString()}) and goes into SCRAM's key derivation only; the server never sees it.
     */
    public record Credentials(String user, char[] password) {
        public Credentials {
            io.basalt.client.security.Permission.checkUser(user);
            Objects.requireNonNull(password, "password");
            password = password.clone();
        }

        @Override
        public char[] password() {
            return password.clone();
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Credentials c && c.user.equals(user) && java.util.Arrays.equals(c.password, password);
        }

        @Override
        public int hashCode() {
            return user.hashCode();
        }

        @Override
        public String toString() {
            return "Credentials[user=" + user + ", password=(hidden)]";
        }
    }

    /** How many batches a scan whose batches hold up to {@code maxResultSize} bytes requests ahead. */
    public int scanPrefetchBatches(long maxResultSize) {
        long batches = maxResultSize <= 0 ? 1 : scanPrefetchBytes / maxResultSize;
        return Math.clamp(batches, 1, MAX_SCAN_PREFETCH_BATCHES);
    }

    private static void positive(Duration d, String name) {
        if (d.isNegative() || d.isZero()) {
            throw new IllegalArgumentException(name + " " + d + " must be positive");
        }
    }

    public static ClientOptions defaults() {
        return builder().build();
    }

    public static Builder builder() {
        return new Builder();
    }

    public Builder toBuilder() {
        Builder b = new Builder();
        b.operationTimeout = operationTimeout;
        b.connectTimeout = connectTimeout;
        b.retries = retries;
        b.retryBackoff = retryBackoff;
        b.connections = connections;
        b.ioThreads = ioThreads;
        b.writeMode = writeMode;
        b.groupingThreshold = groupingThreshold;
        b.linger = linger;
        b.flushConsolidation = flushConsolidation;
        b.maxFrameSize = maxFrameSize;
        b.scanPrefetchBytes = scanPrefetchBytes;
        b.routeToLeaders = routeToLeaders;
        b.tls = tls;
        b.credentials = credentials;
        return b;
    }

    /** Builds {@link ClientOptions}. */
    public static final class Builder {
        private Duration operationTimeout = Duration.ofSeconds(30);
        private Duration connectTimeout = Duration.ofSeconds(5);
        private int retries = 3;
        private Duration retryBackoff = Duration.ofMillis(100);
        private int connections = 1;
        private int ioThreads = 1;
        private WriteMode writeMode = WriteMode.GROUPED;
        private int groupingThreshold = GroupedWriter.DEFAULT_THRESHOLD;
        private Duration linger = Duration.ZERO;
        private boolean flushConsolidation;
        private int maxFrameSize = FrameLayout.DEFAULT_MAX_FRAME_SIZE;
        private long scanPrefetchBytes = 4L << 20;
        private boolean routeToLeaders = true;
        private ClientTls tls;
        private Credentials credentials;

        /** Authenticate each connection as {@code user} with {@code password} (see {@link ClientOptions#credentials()}). */
        public Builder credentials(String user, char[] password) {
            credentials = new Credentials(user, password);
            return this;
        }

        /** No authentication, or {@code v}. */
        public Builder credentials(Credentials v) {
            credentials = v;
            return this;
        }

        /** TLS to the server, or {@code null} for plaintext (see {@link ClientOptions#tls()}). */
        public Builder tls(ClientTls v) {
            tls = v;
            return this;
        }

        public Builder operationTimeout(Duration d) {
            this.operationTimeout = d;
            return this;
        }

        public Builder connectTimeout(Duration d) {
            this.connectTimeout = d;
            return this;
        }

        public Builder retries(int n) {
            this.retries = n;
            return this;
        }

        public Builder retryBackoff(Duration d) {
            this.retryBackoff = d;
            return this;
        }

        public Builder connections(int n) {
            this.connections = n;
            return this;
        }

        public Builder ioThreads(int n) {
            this.ioThreads = n;
            return this;
        }

        public Builder writeMode(WriteMode mode) {
            this.writeMode = mode;
            return this;
        }

        public Builder groupingThreshold(int bytes) {
            this.groupingThreshold = bytes;
            return this;
        }

        public Builder linger(Duration d) {
            this.linger = d;
            return this;
        }

        public Builder flushConsolidation(boolean on) {
            this.flushConsolidation = on;
            return this;
        }

        public Builder maxFrameSize(int bytes) {
            this.maxFrameSize = bytes;
            return this;
        }

        public Builder scanPrefetchBytes(long bytes) {
            this.scanPrefetchBytes = bytes;
            return this;
        }

        public Builder routeToLeaders(boolean on) {
            this.routeToLeaders = on;
            return this;
        }

        public ClientOptions build() {
            return new ClientOptions(operationTimeout, connectTimeout, retries, retryBackoff, connections, ioThreads,
                    writeMode, groupingThreshold, linger, flushConsolidation, maxFrameSize, scanPrefetchBytes,
                    routeToLeaders, tls, credentials);
        }
    }
}
