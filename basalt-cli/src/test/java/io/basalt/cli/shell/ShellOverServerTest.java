package io.basalt.cli.shell;

import static org.assertj.core.api.Assertions.assertThat;

import io.basalt.client.Basalt;
import io.basalt.client.Connection;
import io.basalt.server.BasaltServer;
import io.basalt.server.ServerConfig;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 22: {@code status} over the network shows the server's address, its connections and the
 * requests it answered, with the same store view as embedded.
 */
class ShellOverServerTest {

    @TempDir
    Path dir;

    @Test
    void statusOfAServerNamesItAndCountsItsRequests() throws Exception {
        ServerConfig config = ServerConfig.builder().port(0).httpPort(ServerConfig.NO_HTTP).dataDir(dir).ioThreads(1)
                .build();
        try (BasaltServer server = BasaltServer.start(config);
             Connection client = Basalt.connect("basalt://127.0.0.1:" + server.address().getPort())) {
            ByteArrayOutputStream bytes = new ByteArrayOutputStream();
            Shell shell = new Shell(client, new PrintStream(bytes, true, StandardCharsets.UTF_8));
            assertThat(shell.run("create 't', 'f'; put 't', 'r', 'f:q', 'v'; get 't', 'r'; flush 't'"))
                    .isEqualTo(Shell.Outcome.OK);
            // a request is counted just after its answer is queued: wait (bounded) for the fourth
            for (int i = 0; i < 1000 && server.metrics().requestsAnswered() < 4; i++) {
                Thread.sleep(10);
            }
            bytes.reset();
            assertThat(shell.run("status 'detailed'")).isEqualTo(Shell.Outcome.OK);
            String out = bytes.toString(StandardCharsets.UTF_8);
            assertThat(out).startsWith("server 127.0.0.1:" + server.address().getPort() + ", up ")
                    .contains(", 1 connection(s), 4 request(s) answered")
                    .contains("1 table(s), 1 region(s), 1 file(s), ")
                    .contains("1 row(s) read, 1 mutation(s) applied; 1 flush(es)")
                    .contains("write-ahead log: ");
            assertThat(out.lines().filter(l -> l.startsWith(" t,,")).findFirst().orElseThrow())
                    .matches(" t,,\\d+ +\\|  +\\|  +\\| [1-9]\\d* +\\| 1 +\\| 0 +\\| 1 +\\| 1");
        }
    }
}
