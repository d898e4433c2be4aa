package io.basalt.bench.load;

import io.basalt.server.BasaltServer;
import io.basalt.server.ServerConfig;
import java.nio.file.Path;

/**
 * One single-node server as a process of its own, the baseline of load runs that compare against a
 * cluster: {@code PORT DATA_DIR [CONFIG_FILE]}. Prints {@code server ready} once listening; SIGTERM stops it.
 */
public final class ServerProcess {

    private ServerProcess() {}

    public static void main(String[] args) throws Exception {
        ServerConfig config = ServerConfig.defaults().toBuilder().host("127.0.0.1").port(Integer.parseInt(args[0]))
                .dataDir(Path.of(args[1])).build();
        if (args.length > 2) {
            config = config.withFile(Path.of(args[2]));
        }
        BasaltServer server = BasaltServer.start(config);
        Runtime.getRuntime().addShutdownHook(new Thread(server::close));
        System.out.println("server ready (pid " + ProcessHandle.current().pid() + ")");
        System.out.flush();
        Thread.currentThread().join();
    }
}
