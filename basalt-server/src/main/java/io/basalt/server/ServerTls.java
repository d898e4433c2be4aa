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
            context = fresh;
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
