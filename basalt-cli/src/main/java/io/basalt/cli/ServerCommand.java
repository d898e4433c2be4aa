package io.basalt.cli;

import io.basalt.server.BasaltServer;
import io.basalt.server.ServerConfig;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code basalt server}: serves a store over the network until SIGTERM or Ctrl-C, then stops as
 * {@link BasaltServer#close()} says (no new requests, in-flight ones finish, data flushed).
 */
@Command(name = "server", mixinStandardHelpOptions = true,
        description = {"Serve a store over the network (the Basalt protocol, on Netty).",
            "Prints one line with its address when ready; SIGTERM or Ctrl-C stops it cleanly."})
final class ServerCommand implements Callable<Integer> {

    @Option(names = "--port", paramLabel = "PORT", description = "The port to listen on (default 16020; 0 picks one).")
    private Integer port;

    @Option(names = "--host", paramLabel = "ADDRESS",
            description = "The address to listen on (default 127.0.0.1; 0.0.0.0 for every interface).")
    private String host;

    @Option(names = "--data", paramLabel = "DIR", description = "The store's directory (default basalt-data).")
    private Path data;

    @Option(names = "--config", paramLabel = "FILE",
            description = "A properties file of server options (see docs/protocol.md); flags override it.")
    private Path config;

    @Override
    public Integer call() throws Exception {
        PrintStream out = new PrintStream(System.out, true, StandardCharsets.UTF_8);
        ServerConfig c = ServerConfig.defaults();
        if (config != null) {
            c = c.withFile(config);
        }
        ServerConfig.Builder b = c.toBuilder();
        if (port != null) {
            b.port(port);
        }
        if (host != null) {
            b.host(host);
        }
        if (data != null) {
            b.dataDir(data);
        }
        c = b.build();
        BasaltServer server = BasaltServer.start(c);
        CountDownLatch stopped = new CountDownLatch(1);
        Thread hook = Thread.ofPlatform().name("basalt-server-stop").unstarted(() -> {
            out.println("Basalt server stopping");
            server.close();
            out.println("Basalt server stopped");
            stopped.countDown();
        });
        Runtime.getRuntime().addShutdownHook(hook);
        out.println("Basalt server ready on " + server.address().getHostString() + ":" + server.address().getPort()
                + " (data " + c.dataDir().toAbsolutePath().normalize() + ")");
        stopped.await();
        return 0;
    }
}
