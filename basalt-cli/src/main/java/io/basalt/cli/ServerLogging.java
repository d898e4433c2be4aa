package io.basalt.cli;

import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.joran.JoranConfigurator;
import ch.qos.logback.core.joran.spi.JoranException;
import ch.qos.logback.core.status.Status;
import io.basalt.server.ServerConfig;
import java.io.IOException;
import java.net.URL;
import java.nio.file.Files;
import java.nio.file.Path;
import org.slf4j.LoggerFactory;

/**
 * Points Logback at the server's log: {@code basalt.log} in {@link ServerConfig.LogSettings#directory}
 * (by default {@code DATA/logs}), rolled over by size and day, with a cap on the rolled-over files'
 * total size and age; warnings and errors still go to the console. An operator's own Logback file
 * ({@code logConfig}) replaces Basalt's. Only the launcher does this: a process embedding the
 * server keeps its own logging, and the libraries use the SLF4J API only.
 */
final class ServerLogging {

    /** The bundled configuration. */
    static final String DEFAULT_CONFIG = "server-logback.xml";

    private ServerLogging() {}

    /**
     * Configures Logback for a server with {@code config}; returns the log file, or {@code null}
     * when the operator's own configuration decides where it goes.
     *
     * @throws IllegalStateException naming the file and Logback's complaint when the configuration
     *     does not load (an operator's file with an error, an unwritable directory)
     */
    static Path configure(ServerConfig config) throws IOException {
        if (!(LoggerFactory.getILoggerFactory() instanceof LoggerContext context)) {
            return null; // another SLF4J binding: it is the operator's to configure
        }
        ServerConfig.LogSettings log = config.log();
        Path dir = log.directory(config.dataDir()).toAbsolutePath().normalize();
        Files.createDirectories(dir);
        context.reset();
        context.getStatusManager().clear();
        context.putProperty("basalt.log.dir", dir.toString());
        context.putProperty("basalt.log.maxFileSize", Long.toString(log.maxFileSize()));
        context.putProperty("basalt.log.totalSizeCap", Long.toString(log.totalSizeCap()));
        context.putProperty("basalt.log.maxHistory", Integer.toString(log.maxHistoryDays()));
        JoranConfigurator joran = new JoranConfigurator();
        joran.setContext(context);
        String source;
        try {
            if (log.config() != null) {
                source = log.config().toString();
                if (!Files.isReadable(log.config())) {
                    throw new IllegalStateException("logConfig " + log.config() + " cannot be read");
                }
                joran.doConfigure(log.config().toFile());
            } else {
                URL bundled = ServerLogging.class.getResource(DEFAULT_CONFIG);
                source = String.valueOf(bundled);
                joran.doConfigure(bundled);
            }
        } catch (JoranException e) {
            throw new IllegalStateException("the log configuration " + (log.config() != null ? log.config()
                    : DEFAULT_CONFIG) + " did not load: " + e.getMessage(), e);
        }
        for (Status s : context.getStatusManager().getCopyOfStatusList()) {
            if (s.getEffectiveLevel() >= Status.ERROR) {
                throw new IllegalStateException("the log configuration " + source + " has errors: " + s.getMessage());
            }
        }
        return log.config() != null ? null : dir.resolve("basalt.log");
    }
}
