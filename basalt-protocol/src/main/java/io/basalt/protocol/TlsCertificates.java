package io.basalt.protocol;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.GeneralSecurityException;
import java.security.Key;
import java.security.KeyStore;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Makes a certificate authority and certificates it signs, as PEM files a server and its clients
 * read ({@code ./basalt cert}, and the TLS tests). It drives the JDK's own {@code keytool}, so it
 * needs nothing but the running JDK: keys are EC P-256, the CA's key stays in a PKCS#12 file under
 * a random password kept beside it (both readable by their owner only).
 *
 * <p>For trying TLS out and for tests; a production deployment uses its organisation's CA.
 */
public final class TlsCertificates {

    /** A certificate (PEM) and its private key (PKCS#8 PEM), and the CA certificate that signed it. */
    public record Issued(Path cert, Path key, Path ca) {}

    private TlsCertificates() {}

    /**
     * A CA in {@code dir}: {@code ca.pem} (its certificate, what both ends trust), {@code ca.p12}
     * and {@code ca.password} (its key, to sign more). Returns {@code ca.pem}.
     */
    public static Path createAuthority(Path dir, String name, int days) throws IOException {
        Files.createDirectories(dir);
        String password = HexFormat.of().formatHex(new SecureRandom().generateSeed(16));
        Path store = dir.resolve("ca.p12");
        Path secret = dir.resolve("ca.password");
        if (Files.exists(store)) {
            throw new IllegalArgumentException(dir + " holds a CA already (ca.p12); use another directory or sign with it");
        }
        Files.writeString(secret, password, StandardCharsets.US_ASCII);
        ownerOnly(secret);
        keytool("-genkeypair", "-alias", "ca", "-keyalg", "EC", "-groupname", "secp256r1", "-dname", "CN=" + name,
                "-ext", "bc:c", "-ext", "ku:c=keyCertSign,cRLSign", "-validity", Integer.toString(days), "-keystore",
                store.toString(), "-storetype", "PKCS12", "-storepass:file", secret.toString());
        ownerOnly(store);
        Path pem = dir.resolve("ca.pem");
        keytool("-exportcert", "-rfc", "-alias", "ca", "-keystore", store.toString(), "-storepass:file",
                secret.toString(), "-file", pem.toString());
        return pem;
    }

    /**
     * A certificate for {@code name} signed by the CA in {@code caDir}, valid for the DNS names and
     * IP addresses in {@code hosts} (a server's; a client certificate may have none), from
     * {@code startDaysAgo} days ago for {@code days} days: {@code NAME.pem} and {@code NAME.key} in
     * {@code dir}.
     */
    public static Issued issue(Path caDir, Path dir, String name, List<String> hosts, int startDaysAgo, int days)
            throws IOException {
        if (!name.matches("[A-Za-z0-9._-]+")) {
            throw new IllegalArgumentException("certificate name '" + name + "' is not a plain file name");
        }
        Path caStore = caDir.resolve("ca.p12");
        if (!Files.exists(caStore)) {
            throw new IllegalArgumentException(caDir + " holds no CA (ca.p12): make one first");
        }
        Path caSecret = caDir.resolve("ca.password");
        Files.createDirectories(dir);
        Path work = Files.createTempDirectory(dir, ".issue-");
        try {
            String password = HexFormat.of().formatHex(new SecureRandom().generateSeed(16));
            Path store = work.resolve("node.p12");
            keytool("-genkeypair", "-alias", "node", "-keyalg", "EC", "-groupname", "secp256r1", "-dname", "CN=" + name,
                    "-keystore", store.toString(), "-storetype", "PKCS12", "-storepass", password);
            Path csr = work.resolve("node.csr");
            keytool("-certreq", "-alias", "node", "-keystore", store.toString(), "-storepass", password, "-file",
                    csr.toString());
            Path cert = dir.resolve(name + ".pem");
            List<String> args = new ArrayList<>(List.of("-gencert", "-rfc", "-alias", "ca", "-keystore",
                    caStore.toString(), "-storepass:file", caSecret.toString(), "-infile", csr.toString(), "-outfile", cert.toString(),
                    "-validity", Integer.toString(days), "-ext", "ku:c=digitalSignature,keyAgreement",
                    "-ext", "eku=serverAuth,clientAuth"));
            if (startDaysAgo != 0) {
                args.addAll(List.of("-startdate", "-" + startDaysAgo + "d"));
            }
            if (!hosts.isEmpty()) {
                List<String> names = new ArrayList<>();
                for (String h : hosts) {
                    names.add((h.matches("[0-9.]+") || h.contains(":") ? "ip:" : "dns:") + h);
                }
                args.addAll(List.of("-ext", "san=" + String.join(",", names)));
            }
            keytool(args.toArray(String[]::new));
            Path key = dir.resolve(name + ".key");
            writePrivateKey(store, password, key);
            return new Issued(cert, key, caDir.resolve("ca.pem"));
        } finally {
            try (var files = Files.list(work)) {
                for (Path p : files.toList()) {
                    Files.deleteIfExists(p);
                }
            }
            Files.deleteIfExists(work);
        }
    }

    private static void writePrivateKey(Path store, String password, Path target) throws IOException {
        try (InputStream in = Files.newInputStream(store)) {
            KeyStore ks = KeyStore.getInstance("PKCS12");
            ks.load(in, password.toCharArray());
            Key key = ks.getKey("node", password.toCharArray());
            String pem = "-----BEGIN PRIVATE KEY-----\n"
                    + Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII)).encodeToString(key.getEncoded())
                    + "\n-----END PRIVATE KEY-----\n";
            Files.deleteIfExists(target);
            Files.createFile(target);
            ownerOnly(target);
            Files.writeString(target, pem, StandardCharsets.US_ASCII);
        } catch (GeneralSecurityException e) {
            throw new IOException("cannot read the new key from " + store + ": " + e.getMessage(), e);
        }
    }

    private static void ownerOnly(Path file) throws IOException {
        try {
            Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-------"));
        } catch (UnsupportedOperationException e) {
            // not a POSIX file system: left to its defaults
        }
    }

    private static void keytool(String... args) throws IOException {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "keytool").toString());
        command.add("-noprompt");
        command.addAll(List.of(args));
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        String out;
        try (InputStream in = p.getInputStream()) {
            out = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
        try {
            if (!p.waitFor(60, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                throw new IOException("keytool " + args[0] + " did not finish in 60 s");
            }
        } catch (InterruptedException e) {
            p.destroyForcibly();
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while keytool " + args[0] + " ran", e);
        }
        if (p.exitValue() != 0) {
            throw new IOException("keytool " + args[0] + " failed (exit " + p.exitValue() + "): " + out.strip());
        }
    }
}
