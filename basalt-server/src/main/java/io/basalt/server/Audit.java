package io.basalt.server;

import io.basalt.protocol.OpCode;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The audit log: one line per admin operation (who, from where, what, on what, and how it ended)
 * and per refused connection. Logger {@value #LOGGER}; the launcher sends it to
 * {@code DATA/logs/audit.log}, apart from the server's log (docs/security.md). Who is the subject
 * of the client's certificate under mutual TLS, else {@code anonymous}.
 */
final class Audit {

    static final String LOGGER = "io.basalt.audit";
    private static final Logger LOG = LoggerFactory.getLogger(LOGGER);

    private Audit() {}

    /** An admin operation on {@code target} was answered: {@code failure} null when it succeeded. */
    static void operation(ServerConnection c, OpCode op, String target, Throwable failure) {
        LOG.info("user={} from={} op={} target={} outcome={}", quote(c.user()), c.peer(), op, quote(target),
                failure == null ? "ok" : quote("failed: " + ServerConnection.unwrap(failure).getMessage()));
    }

    /** A request was refused for want of a permission. */
    static void denied(ServerConnection c, OpCode op, String why) {
        LOG.info("user={} from={} op={} target=- outcome={}", quote(c.user()), c.peer(), op, quote("refused: " + why));
    }

    /** An authentication ended: {@code failure} null when it succeeded. Never a password or a proof: a name and a reason. */
    static void authentication(ServerConnection c, String user, String failure) {
        LOG.info("user={} from={} op=AUTHENTICATE target=- outcome={}", quote(user == null ? "-" : user), c.peer(),
                failure == null ? "ok" : quote("refused: " + failure));
    }

    /** A connection was refused before any request: too many connections, a failed TLS handshake. */
    static void refused(String peer, String why) {
        LOG.info("user=- from={} op=CONNECT target=- outcome={}", peer, quote("refused: " + why));
    }

    /** A value in double quotes, its quotes and line breaks escaped, so a line stays one line. */
    static String quote(String s) {
        return "\"" + String.valueOf(s).replace("\\", "\\\\").replace("\"", "\\\"").replace("\n", "\\n")
                .replace("\r", "\\r") + "\"";
    }
}
