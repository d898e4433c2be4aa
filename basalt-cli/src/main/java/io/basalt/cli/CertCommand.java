package io.basalt.cli;

import io.basalt.protocol.TlsCertificates;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

/**
 * {@code basalt cert}: a CA of one's own and the certificates it signs, for trying TLS out. Made
 * with the JDK's keytool; a production deployment uses its organisation's CA instead.
 */
@Command(name = "cert", mixinStandardHelpOptions = true,
        description = {"Make a CA and certificates it signs, as PEM files, for trying TLS out.",
            "  basalt cert --dir certs                      a CA (certs/ca.pem) and a certificate for this machine"
                    + " (certs/node.pem, certs/node.key), valid for localhost and 127.0.0.1",
            "  basalt cert --dir certs --name n2 --host h2  one more, signed by the same CA",
            "  basalt cert --dir certs --name alice --client a client's, for mutual TLS",
            "Then: server config tlsCert=certs/node.pem, tlsKey=certs/node.key; "
                    + "basalt shell --connect basalts://127.0.0.1:16020 --tls-ca certs/ca.pem"})
final class CertCommand implements Callable<Integer> {

    @Spec
    private CommandSpec spec;

    @Option(names = "--dir", paramLabel = "DIR", defaultValue = "basalt-certs",
            description = "where the CA and the certificates go (default: ${DEFAULT-VALUE}); a CA is made there"
                    + " when it holds none")
    private Path dir;

    @Option(names = "--name", paramLabel = "NAME", defaultValue = "node",
            description = "the certificate's name, and its files' (default: ${DEFAULT-VALUE})")
    private String name;

    @Option(names = "--host", paramLabel = "HOST", split = ",",
            description = "DNS names or IP addresses the server is reached at (default: localhost,127.0.0.1)")
    private List<String> hosts;

    @Option(names = "--client", description = "a client's certificate: no host names")
    private boolean client;

    @Option(names = "--days", paramLabel = "N", defaultValue = "365",
            description = "how long it is valid (default: ${DEFAULT-VALUE} days)")
    private int days;

    @Override
    public Integer call() throws Exception {
        var out = spec.commandLine().getOut();
        if (days < 1) {
            throw new IllegalArgumentException("--days " + days + " must be at least 1");
        }
        if (!Files.exists(dir.resolve("ca.p12"))) {
            Path ca = TlsCertificates.createAuthority(dir, "Basalt CA " + dir.toAbsolutePath().getFileName(),
                    Math.max(days, 3650));
            out.println("made a CA: " + ca + " (its key: " + dir.resolve("ca.p12") + ", " + dir.resolve("ca.password")
                    + ")");
        }
        List<String> names = client ? List.of() : hosts == null ? List.of("localhost", "127.0.0.1") : hosts;
        TlsCertificates.Issued issued = TlsCertificates.issue(dir, dir, name, names, 0, days);
        out.println("made " + issued.cert() + " and " + issued.key() + (names.isEmpty() ? " (a client's)"
                : " for " + String.join(", ", names)) + ", valid " + days + " days, signed by " + issued.ca());
        out.flush();
        return 0;
    }
}
