package io.basalt.cluster;

import io.basalt.protocol.Tls;
import io.basalt.server.ServerConfig;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.security.cert.CertificateException;
import java.security.cert.X509Certificate;
import java.util.concurrent.atomic.AtomicBoolean;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManager;
import javax.net.ssl.X509TrustManager;
import org.apache.ratis.client.RaftClient;
import org.apache.ratis.conf.Parameters;
import org.apache.ratis.grpc.GrpcConfigKeys;
import org.apache.ratis.grpc.GrpcTlsConfig;
import org.apache.ratis.server.RaftServer;

/**
 * Whether the Raft links (Ratis over gRPC: appendEntries, votes and snapshots between nodes, and
 * every Raft client a node or a tool makes) are mutual TLS, and with which files. Every
 * {@link RaftServer} and {@link RaftClient} of this module is built through one of these.
 *
 * <p>On when the node's configuration has {@code tlsCert}, {@code tlsKey} and {@code tlsCa} (the
 * client port's settings, {@link ServerConfig.TlsSettings}): each end presents its certificate and
 * accepts only one {@code tlsCa} signed, and the side that connects checks that the other's
 * certificate names the host it connected to (the Raft address in the peers list). The files are
 * read when the server or client is made; unlike the client port's, a renewed certificate takes
 * effect on the Raft links only when the node restarts.
 */
public final class RaftTls {

    /** Plaintext Raft links. */
    public static final RaftTls OFF = new RaftTls(null);

    private final GrpcTlsConfig conf;

    private RaftTls(GrpcTlsConfig conf) {
        this.conf = conf;
    }

    /**
     * The Raft links for a node (or a tool) with these TLS settings: off without {@code tlsCert};
     * mutual TLS with {@code tlsCert}, {@code tlsKey} and {@code tlsCa}.
     *
     * @throws IllegalArgumentException when {@code tlsCert} is set without {@code tlsCa} (the nodes
     *     could not check each other), or a file is missing or does not read as what it should be
     */
    public static RaftTls of(ServerConfig.TlsSettings tls) {
        if (!tls.enabled()) {
            return OFF;
        }
        if (tls.ca() == null) {
            throw new IllegalArgumentException("cluster nodes authenticate each other with certificates: set tlsCa, the"
                    + " CA that signed every node's certificate (tlsCert " + tls.cert() + " is set, so the Raft links"
                    + " between nodes are TLS)");
        }
        // Read now, so that a missing or unreadable file is named before a Raft server or client is made.
        Tls.server(tls.cert(), tls.key(), tls.ca(), Tls.ClientCertificates.REQUIRE);
        return new RaftTls(new GrpcTlsConfig(tls.key().toFile(), tls.cert().toFile(), tls.ca().toFile(), true));
    }

    public boolean enabled() {
        return conf != null;
    }

    /** Ratis parameters carrying the TLS configuration for every kind of its gRPC links. */
    private Parameters parameters() {
        Parameters p = new Parameters();
        GrpcConfigKeys.Server.setTlsConf(p, conf); // between servers, and the single port's listener
        GrpcConfigKeys.Client.setTlsConf(p, conf); // clients' requests
        GrpcConfigKeys.Admin.setTlsConf(p, conf); // clients' group and leadership management
        return p;
    }

    /** A Raft server builder whose links are as these settings say. */
    RaftServer.Builder server() {
        RaftServer.Builder b = RaftServer.newBuilder();
        return enabled() ? b.setParameters(parameters()) : b;
    }

    /** A Raft client builder whose links are as these settings say. */
    RaftClient.Builder client() {
        RaftClient.Builder b = RaftClient.newBuilder();
        return enabled() ? b.setParameters(parameters()) : b;
    }

    /**
     * Whether something at {@code host:port} answers a TLS handshake with a certificate: what tells
     * a plaintext tool that a node it cannot reach is up but wants TLS. Nothing is trusted or sent
     * beyond a client hello; the handshake is abandoned once the certificate is seen.
     */
    static boolean speaksTls(String host, int port, int timeoutMillis) {
        AtomicBoolean seen = new AtomicBoolean();
        X509TrustManager recorder = new X509TrustManager() {
            @Override
            public void checkClientTrusted(X509Certificate[] chain, String authType) throws CertificateException {
                throw new CertificateException("not a server");
            }

            @Override
            public void checkServerTrusted(X509Certificate[] chain, String authType) throws CertificateException {
                seen.set(chain != null && chain.length > 0);
                throw new CertificateException("probe only: the handshake stops here");
            }

            @Override
            public X509Certificate[] getAcceptedIssuers() {
                return new X509Certificate[0];
            }
        };
        try {
            SSLContext context = SSLContext.getInstance("TLS");
            context.init(null, new TrustManager[] {recorder}, null);
            try (java.net.Socket raw = new java.net.Socket()) {
                raw.connect(new InetSocketAddress(host, port), timeoutMillis);
                raw.setSoTimeout(timeoutMillis);
                try (SSLSocket s = (SSLSocket) context.getSocketFactory().createSocket(raw, host, port, false)) {
                    s.startHandshake();
                }
            }
        } catch (IOException | java.security.GeneralSecurityException e) {
            // refused, silent, plaintext, or the probe's own stop: what counts is whether a certificate came
        }
        return seen.get();
    }
}
