package io.basalt.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.basalt.client.AsyncTable;
import io.basalt.client.Connection;
import io.basalt.client.OperationTimeoutException;
import io.basalt.client.Put;
import io.basalt.client.Result;
import io.basalt.client.ResultScanner;
import io.basalt.client.Scan;
import io.basalt.client.net.ClientOptions;
import io.basalt.client.net.RemoteConnection;
import java.lang.reflect.Proxy;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A scan that finds no row for longer than the client's request timeout (a selective scan over
 * many rows) survives through heartbeats: the server answers each request after its scan time
 * limit with what it has, possibly nothing, and keeps looking.
 */
class ScanHeartbeatTest {

    @TempDir
    Path dir;

    /** A store whose one table yields row "a", then nothing until {@code release}, then "b". */
    private static Connection slowStore(CountDownLatch release) {
        ResultScanner scanner = new ResultScanner() {
            private int next;

            @Override
            public Result next() {
                next++;
                if (next == 1) {
                    return row("a");
                }
                if (next == 2) {
                    try {
                        release.await();
                    } catch (InterruptedException e) {
                        throw new IllegalStateException(e);
                    }
                    return row("b");
                }
                return null;
            }

            @Override
            public void close() {}
        };
        AsyncTable table = (AsyncTable) Proxy.newProxyInstance(ScanHeartbeatTest.class.getClassLoader(),
                new Class<?>[] {AsyncTable.class}, (_, method, _) -> switch (method.getName()) {
                    case "name" -> "t";
                    case "scanner" -> scanner;
                    default -> throw new UnsupportedOperationException("the slow store only scans: " + method.getName());
                });
        return (Connection) Proxy.newProxyInstance(ScanHeartbeatTest.class.getClassLoader(),
                new Class<?>[] {Connection.class}, (_, method, _) -> switch (method.getName()) {
                    case "table" -> table;
                    case "target" -> "slow store";
                    case "close" -> null;
                    default -> throw new UnsupportedOperationException("the slow store only scans: " + method.getName());
                });
    }

    private static Result row(String row) {
        return Result.of(Put.of(row).addColumn("f", "q", "v").cells());
    }

    private static ServerConfig config(Path dir, Duration scanTimeLimit) {
        return ServerConfig.builder().port(0).dataDir(dir).scanTimeLimit(scanTimeLimit).build();
    }

    private static final ClientOptions ONE_SECOND = ClientOptions.builder().operationTimeout(Duration.ofSeconds(1))
            .retries(0).build();

    @Test
    void heartbeatsCarryAScanPastTheRequestTimeout() throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        EngineHandler[] handler = new EngineHandler[1];
        try (BasaltServer server = BasaltServer.start(config(dir, Duration.ofMillis(100)),
                c -> handler[0] = EngineHandler.over(slowStore(release), c));
             RemoteConnection client = new RemoteConnection("127.0.0.1", server.address().getPort(), ONE_SECOND);
             ResultScanner scanner = client.table("t").scanner(new Scan().setCaching(1))) {
            assertThat(new String(scanner.next().row(), StandardCharsets.UTF_8)).isEqualTo("a");
            Thread.ofPlatform().start(() -> {
                // Hold the second row back for three request timeouts, then let it through.
                try {
                    Thread.sleep(3_000);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                release.countDown();
            });
            assertThat(new String(scanner.next().row(), StandardCharsets.UTF_8)).isEqualTo("b");
            assertThat(scanner.next()).isNull();
            assertThat(handler[0].heartbeats()).isPositive();
        }
    }

    @Test
    void withoutHeartbeatsTheSameScanTimesOut() throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        try (BasaltServer server = BasaltServer.start(config(dir, Duration.ofMinutes(10)),
                c -> EngineHandler.over(slowStore(release), c));
             RemoteConnection client = new RemoteConnection("127.0.0.1", server.address().getPort(), ONE_SECOND);
             ResultScanner scanner = client.table("t").scanner(new Scan().setCaching(1))) {
            try {
                assertThat(scanner.next()).isNotNull();
                assertThatThrownBy(scanner::next).isInstanceOf(OperationTimeoutException.class)
                        .hasMessageContaining("SCAN_NEXT");
            } finally {
                release.countDown(); // before the server stops: it waits for the scan in flight
            }
        }
    }
}
