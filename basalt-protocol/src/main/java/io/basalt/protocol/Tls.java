package io.basalt.protocol;

import io.netty.buffer.ByteBufAllocator;
import io.netty.handler.ssl.ClientAuth;
import io.netty.handler.ssl.NotSslRecordException;
import io.netty.handler.ssl.OpenSsl;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslHandler;
import io.netty.handler.ssl.SslProvider;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.cert.CertPathValidatorException;
import java.security.cert.CertificateExpiredException;
import java.security.cert.CertificateNotYetValidException;
import java.util.Locale;
import javax.net.ssl.SSLException;
import javax.net.ssl.SSLHandshakeException;
import javax.net.ssl.SSLParameters;

/**
 * TLS for both ends of a connection: contexts made from PEM files, and failures said in words an
 * operator can act on. OpenSSL (netty-tcnative) is used when it is on the class path, the JDK's
 * provider otherwise; TLS 1.3 and 1.2 only.
 */
public final class Tls {

    /** Whether a server asks clients for certificates. */
    public enum ClientCertificates {
        /** Clients are not asked. */
        NONE,
        /** Clients may present one; a client that does must present one the CA signed. */
        OPTIONAL,
        /** Every client must present one the CA signed (mutual TLS). */
        REQUIRE;

        /** From the configuration's spelling: {@code none}, {@code optional}, {@code require}. */
        public static ClientCertificates parse(String s) {
            return switch (s.toLowerCase(Locale.ROOT)) {
                case "none" -> NONE;
                case "optional" -> OPTIONAL;
                case "require" -> REQUIRE;
                default -> throw new IllegalArgumentException("tlsClientAuth is none, optional or require, not '" + s + "'");
            };
        }
    }

    private static final String[] PROTOCOLS = {"TLSv1.3", "TLSv1.2"};

    private Tls() {}

    /** The provider contexts are made with: OpenSSL when netty-tcnative is loadable, else the JDK's. */
    public static SslProvider provider() {
        return OpenSsl.isAvailable() ? SslProvider.OPENSSL : SslProvider.JDK;
    }

    /**
     * A server's context: its certificate chain and private key (PEM; the key PKCS#8), and, when
     * clients present certificates, the CA certificates (PEM) that sign them.
     *
     * @throws IllegalArgumentException naming the file and the configuration key when one is
     *     missing or does not read as what it should be
     */
    public static SslContext server(Path cert, Path key, Path ca, ClientCertificates clients) {
        readable(cert, "tlsCert");
        readable(key, "tlsKey");
        if (clients != ClientCertificates.NONE && ca == null) {
            throw new IllegalArgumentException("tlsClientAuth " + clients.name().toLowerCase(Locale.ROOT)
                    + " needs tlsCa: the CA certificates that sign the clients' certificates");
        }
        try {
            SslContextBuilder b = SslContextBuilder.forServer(cert.toFile(), key.toFile()).sslProvider(provider())
                    .protocols(PROTOCOLS);
            if (ca != null) {
                readable(ca, "tlsCa");
                b.trustManager(ca.toFile());
            }
            b.clientAuth(switch (clients) {
                case NONE -> ClientAuth.NONE;
                case OPTIONAL -> ClientAuth.OPTIONAL;
                case REQUIRE -> ClientAuth.REQUIRE;
            });
            return b.build();
        } catch (SSLException | IllegalArgumentException e) {
            throw new IllegalArgumentException("cannot use tlsCert " + cert + " with tlsKey " + key
                    + (ca == null ? "" : " and tlsCa " + ca) + ": " + rootMessage(e), e);
        }
    }

    /**
     * A client's context: it trusts the CA certificates in {@code ca} (PEM), or the JDK's trusted
     * CAs when {@code ca} is null, and presents {@code cert} with {@code key} when both are given.
     */
    public static SslContext client(Path ca, Path cert, Path key) {
        if ((cert == null) != (key == null)) {
            throw new IllegalArgumentException("a client certificate needs its key and a key its certificate");
        }
        try {
            SslContextBuilder b = SslContextBuilder.forClient().sslProvider(provider()).protocols(PROTOCOLS);
            if (ca != null) {
                readable(ca, "the client's CA file");
                b.trustManager(ca.toFile());
            }
            if (cert != null) {
                readable(cert, "the client's certificate");
                readable(key, "the client's key");
                b.keyManager(cert.toFile(), key.toFile());
            }
            return b.build();
        } catch (SSLException | IllegalArgumentException e) {
            throw new IllegalArgumentException("cannot make the client's TLS context"
                    + (ca == null ? "" : " trusting " + ca) + (cert == null ? "" : " with certificate " + cert) + ": "
                    + rootMessage(e), e);
        }
    }

    /**
     * A client's handler for a connection to {@code host}: it checks that the server's certificate
     * names {@code host} (a DNS name or IP address among its subject alternative names), as HTTPS
     * does.
     */
    public static SslHandler clientHandler(SslContext context, ByteBufAllocator alloc, String host, int port) {
        SslHandler handler = context.newHandler(alloc, host, port);
        SSLParameters parameters = handler.engine().getSSLParameters();
        parameters.setEndpointIdentificationAlgorithm("HTTPS");
        handler.engine().setSSLParameters(parameters);
        return handler;
    }

    /** Whether {@code t} (or what caused it) is a TLS failure {@link #explain} can say something of. */
    public static boolean isTlsFailure(Throwable t) {
        for (Throwable c = t; c != null; c = c.getCause()) {
            if (c instanceof SSLException || c instanceof NotSslRecordException) {
                return true;
            }
        }
        return false;
    }

    /** What went wrong in a TLS handshake, in words that say what to check. */
    public static String explain(Throwable t) {
        // the most telling cause first: an expiry is also a failed path validation
        for (Throwable c = t; c != null; c = c.getCause()) {
            if (c instanceof NotSslRecordException) {
                return "the other end does not speak TLS (a plaintext client or server; TLS clients use basalts://)";
            }
            if (c instanceof CertificateExpiredException || (c instanceof CertPathValidatorException v
                    && v.getReason() == CertPathValidatorException.BasicReason.EXPIRED)) {
                return "a certificate has expired: " + c.getMessage();
            }
            if (c instanceof CertificateNotYetValidException || (c instanceof CertPathValidatorException v
                    && v.getReason() == CertPathValidatorException.BasicReason.NOT_YET_VALID)) {
                return "a certificate is not valid yet: " + c.getMessage();
            }
        }
        for (Throwable c = t; c != null; c = c.getCause()) {
            if (c instanceof CertPathValidatorException || (c.getMessage() != null
                    && c.getMessage().contains("unable to find valid certification path"))) {
                return "the certificate is not signed by a CA this end trusts (tlsCa): " + rootMessage(c);
            }
            if (c.getMessage() != null && c.getMessage().contains("No subject alternative")) {
                return "the server's certificate does not name the address connected to: " + c.getMessage();
            }
        }
        if (t instanceof SSLHandshakeException || t.getCause() instanceof SSLHandshakeException) {
            return "the TLS handshake failed: " + rootMessage(t);
        }
        return rootMessage(t);
    }

    private static void readable(Path file, String what) {
        if (file == null) {
            throw new IllegalArgumentException(what + " is not set");
        }
        if (!Files.isReadable(file)) {
            throw new IllegalArgumentException(what + " " + file + " is not a readable file");
        }
    }

    private static String rootMessage(Throwable t) {
        Throwable root = t;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        String m = root.getMessage() != null ? root.getMessage() : root.getClass().getSimpleName();
        return root == t ? m : (t.getMessage() != null && !t.getMessage().equals(m) ? t.getMessage() + " (" + m + ")" : m);
    }
}
