package io.basalt.cli;

import io.basalt.client.Basalt;
import io.basalt.client.Connection;
import io.basalt.client.net.ClientOptions;
import java.io.BufferedReader;
import java.io.Console;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import picocli.CommandLine.Option;

/**
 * Where a command finds the store: a directory (embedded) or a server, with TLS and a user. Shared
 * by {@code shell} and {@code user}.
 */
final class ConnectOptions {

    @Option(names = "--data", paramLabel = "DIR", defaultValue = "basalt-data",
            description = "The store's directory, created if needed (default: ${DEFAULT-VALUE}).")
    Path data;

    @Option(names = "--connect", paramLabel = "HOST:PORT",
            description = "Use the server at HOST:PORT (or basalt://HOST:PORT) instead of a local directory.")
    String connect;

    @Option(names = "--tls-ca", paramLabel = "FILE",
            description = "CA certificates (PEM) the server's certificate must be signed by; turns TLS on"
                    + " (basalts:// alone trusts the JDK's CAs)")
    Path tlsCa;

    @Option(names = "--tls-cert", paramLabel = "FILE", description = "this client's certificate (PEM), for mutual TLS")
    Path tlsCert;

    @Option(names = "--tls-key", paramLabel = "FILE", description = "its private key (PKCS#8 PEM)")
    Path tlsKey;

    @Option(names = "--user", paramLabel = "NAME",
            description = "Authenticate to the server as NAME (its password from --password-file, the BASALT_PASSWORD"
                    + " environment variable, or a prompt).")
    String user;

    @Option(names = "--password-file", paramLabel = "FILE",
            description = "A file whose first line is --user's password (keep it readable by you only).")
    Path passwordFile;

    /** Opens the store: embedded, or the server with the TLS and user given. */
    Connection open() {
        if (connect == null) {
            if (user != null) {
                throw new IllegalArgumentException("--user applies to a server (--connect); an embedded store is its"
                        + " files' owner's, unchecked");
            }
            return Basalt.open(data);
        }
        String uri = connect.contains("://") ? connect : "basalt://" + connect;
        ClientOptions.Builder options = ClientOptions.builder();
        boolean custom = false;
        if (tlsCa != null || tlsCert != null || tlsKey != null) {
            options.tls(new ClientOptions.ClientTls(tlsCa, tlsCert, tlsKey));
            custom = true;
        } else if (uri.startsWith("basalts://")) {
            options.tls(ClientOptions.ClientTls.systemTrust());
        }
        if (user != null) {
            char[] password = password("Password for " + user + ": ");
            options.credentials(user, password);
            java.util.Arrays.fill(password, '\0');
            custom = true;
        }
        return custom ? Basalt.connect(uri, options.build(), io.basalt.client.StoreOptions.defaults())
                : Basalt.connect(uri);
    }

    /** --user's password: from --password-file, BASALT_PASSWORD, or a prompt on the terminal. */
    private char[] password(String prompt) {
        if (passwordFile != null) {
            return firstLine(passwordFile, "--password-file");
        }
        String env = System.getenv("BASALT_PASSWORD");
        if (env != null) {
            return env.toCharArray();
        }
        Console console = System.console();
        if (console != null && console.isTerminal()) {
            char[] typed = console.readPassword("%s", prompt);
            if (typed != null) {
                return typed;
            }
        }
        throw new IllegalArgumentException("--user needs a password: give --password-file FILE or BASALT_PASSWORD, or run"
                + " on a terminal to be asked");
    }

    /** The first line of {@code file}, as characters (never a String kept around). */
    static char[] firstLine(Path file, String option) {
        try (BufferedReader r = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            String line = r.readLine();
            if (line == null || line.isEmpty()) {
                throw new IllegalArgumentException(option + " " + file + " is empty: its first line is the password");
            }
            return line.toCharArray();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + option + " " + file + ": " + e.getMessage(), e);
        }
    }

    /** One line of standard input (a password piped in), or null at its end. */
    static char[] stdinLine() {
        try {
            String line = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8)).readLine();
            return line == null ? null : line.toCharArray();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read standard input: " + e.getMessage(), e);
        }
    }
}
