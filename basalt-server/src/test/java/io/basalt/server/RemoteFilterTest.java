package io.basalt.server;

import io.basalt.client.Basalt;
import io.basalt.client.Connection;
import io.basalt.client.FilterContract;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.io.TempDir;

/** The {@link FilterContract} against a server on 127.0.0.1: the filters travel and run there. */
class RemoteFilterTest extends FilterContract {

    @TempDir
    Path dir;

    private BasaltServer server;

    @Override
    protected Connection connect() throws Exception {
        server = BasaltServer.start(ServerConfig.defaults().withPort(0).withDataDir(dir).withIoThreads(2));
        return Basalt.connect("basalt://127.0.0.1:" + server.address().getPort());
    }

    @AfterEach
    void stopServer() {
        if (server != null) {
            connection.close();
            server.close();
        }
    }
}
