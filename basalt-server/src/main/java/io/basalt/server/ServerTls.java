package io.basalt.server;

import io.basalt.protocol.Tls;
import io.netty.buffer.ByteBufAllocator;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslHandler;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The server's TLS context, made from {@link ServerConfig.TlsSettings}'s PEM files and made again
 * when one of them changes ({@link #reloadIfChanged}), so a renewed certificate serves new
 * connections without a restart. Connections already open keep the context they started with.
 */
final class ServerTls {

    private static final Logger LOG = LoggerFactory.getLogger(ServerTls.class);

    private final ServerConfig.TlsSettings settings;
    private volatile SslContext context;
    private List<FileTime> stamps;

    /** @throws IllegalArgumentException naming the file when the settings do not make a context */
    ServerTls(ServerConfig.TlsSettings settings) {
        this.settings = settings;
        this.stamps = stamps();
        this.context = build();
        this.keys = keyManager(settings.cert(), settings.key());
    }

    /** The key and certificate the HTTPS endpoint presents now, replaced with {@link #context}. */
    private volatile javax.net.ssl.X509KeyManager keys;

    /**
     * A JDK context for the HTTP endpoint (HTTPS, no client certificates: it authenticates with
     * passwords), presenting the same certificate as the client port; a reloaded certificate
     * serves its new connections too, since the key manager it holds reads {@link #keys} each time.
     */
    javax.net.ssl.SSLContext httpsContext() {
        try {
            javax.net.ssl.SSLContext ssl = javax.net.ssl.SSLContext.getInstance("TLS");
            ssl.init(new javax.net.ssl.KeyManager[] {new CurrentKeys()}, null, null);
            return ssl;
        } catch (java.security.GeneralSecurityException e) {
            throw new IllegalStateException("the JDK offers no TLS context: " + e.getMessage(), e);
        }
    }

    /** Reads the PEM certificate chain and PKCS#8 key into a key manager. */
    private static javax.net.ssl.X509KeyManager keyManager(Path cert, Path key) {
        try {
            java.util.Collection<? extends java.security.cert.Certificate> chain;
            try (java.io.InputStream in = Files.newInputStream(cert)) {
                chain = java.security.cert.CertificateFactory.getInstance("X.509").generateCertificates(in);
            }
            String pem = Files.readString(key, java.nio.charset.StandardCharsets.US_ASCII);
            String base64 = pem.replaceAll("-----(BEGIN|END) PRIVATE KEY-----", "").replaceAll("\\s", "");
            java.security.spec.PKCS8EncodedKeySpec spec = new java.security.spec.PKCS8EncodedKeySpec(
                    java.util.Base64.getDecoder().decode(base64));
            java.security.PrivateKey privateKey = null;
            for (String algorithm : new String[] {"EC", "RSA", "Ed25519"}) {
                try {
                    privateKey = java.security.KeyFactory.getInstance(algorithm).generatePrivate(spec);
                    break;
                } catch (java.security.spec.InvalidKeySpecException wrongAlgorithm) {
                    // try the next
                }
            }
            if (privateKey == null) {
                throw new IllegalArgumentException("tlsKey " + key + " is not a PKCS#8 EC, RSA or Ed25519 key");
            }
            char[] none = new char[0];
            java.security.KeyStore store = java.security.KeyStore.getInstance("PKCS12");
            store.load(null, null);
            store.setKeyEntry("basalt", privateKey, none, chain.toArray(new java.security.cert.Certificate[0]));
            javax.net.ssl.KeyManagerFactory f = javax.net.ssl.KeyManagerFactory.getInstance(
                    javax.net.ssl.KeyManagerFactory.getDefaultAlgorithm());
            f.init(store, none);
            for (javax.net.ssl.KeyManager m : f.getKeyManagers()) {
                if (m instanceof javax.net.ssl.X509KeyManager x) {
                    return x;
                }
            }
            throw new IllegalStateException("the JDK made no X.509 key manager");
        } catch (IOException | java.security.GeneralSecurityException | IllegalArgumentException e) {
            throw new IllegalArgumentException("cannot use tlsCert " + cert + " with tlsKey " + key + " for HTTPS: "
                    + e.getMessage(), e);
        }
    }

    /** Asks {@link #keys} as it is at each handshake. */
    private final class CurrentKeys extends javax.net.ssl.X509ExtendedKeyManager {
        @Override
        public String[] getClientAliases(String keyType, java.security.Principal[] issuers) {
            return null;
        }

        @Override
        public String chooseClientAlias(String[] keyType, java.security.Principal[] issuers, java.net.Socket socket) {
            return null;
        }

        @Override
        public String[] getServerAliases(String keyType, java.security.Principal[] issuers) {
            return keys.getServerAliases(keyType, issuers);
        }

        @Override
        public String chooseServerAlias(String keyType, java.security.Principal[] issuers, java.net.Socket socket) {
            return keys.chooseServerAlias(keyType, issuers, socket);
        }

        @Override
        public String chooseEngineServerAlias(String keyType, java.security.Principal[] issuers,
                                              javax.net.ssl.SSLEngine engine) {
            javax.net.ssl.X509KeyManager k = keys;
            return k instanceof javax.net.ssl.X509ExtendedKeyManager x ? x.chooseEngineServerAlias(keyType, issuers, engine)
                    : k.chooseServerAlias(keyType, issuers, null);
        }

        @Override
        public java.security.cert.X509Certificate[] getCertificateChain(String alias) {
            return keys.getCertificateChain(alias);
        }

        @Override
        public java.security.PrivateKey getPrivateKey(String alias) {
            return keys.getPrivateKey(alias);
        }
    }

    private SslContext build() {
        return Tls.server(settings.cert(), settings.key(), settings.ca(), settings.clientAuth());
    }

    private List<FileTime> stamps() {
        List<FileTime> out = new ArrayList<>();
        for (Path p : new Path[] {settings.cert(), settings.key(), settings.ca()}) {
            try {
                out.add(p == null ? null : Files.getLastModifiedTime(p));
            } catch (IOException e) {
                out.add(null); // missing now: building from it says so
            }
        }
        return out;
    }

    /** A handler for a new connection, with the context in use now. */
    SslHandler newHandler(ByteBufAllocator alloc) {
        return context.newHandler(alloc);
    }

    /**
     * Makes the context again when a file changed since it was last read; a file that does not
     * read keeps the context in use (and says why in the log). True when it reloaded.
     */
    synchronized boolean reloadIfChanged() {
        List<FileTime> now = stamps();
        if (Objects.equals(now, stamps)) {
            return false;
        }
        try {
            SslContext fresh = build();
            javax.net.ssl.X509KeyManager freshKeys = keyManager(settings.cert(), settings.key());
            context = fresh;
            keys = freshKeys;
            stamps = now;
            LOG.info("TLS certificate reloaded from {} (new connections use it; open ones keep theirs)",
                    settings.cert());
            return true;
        } catch (RuntimeException e) {
            // a half-written renewal is retried at the next check, once its files change again
            stamps = now;
            LOG.warn("TLS files changed but cannot be used; keeping the certificate in use: {}", e.getMessage());
            return false;
        }
    }
}
