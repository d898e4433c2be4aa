package io.basalt.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.basalt.cell.Cell;
import io.basalt.client.Basalt;
import io.basalt.client.Result;
import io.basalt.client.ResultScanner;
import io.basalt.client.Scan;
import io.basalt.client.TableDescriptor;
import io.basalt.client.net.Messages;
import io.basalt.protocol.OpCode;
import io.basalt.protocol.Status;
import io.basalt.protocol.Wire;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue #17: a scan nobody will read any more stops, and a stopping server does not wait for it.
 * The store's scanner is stood in for by one the test feeds row by row, or holds in
 * {@code next()}.
 */
class AbandonedScanTest {

    @TempDir
    Path dir;

    /** A store scanner that hands out the rows the test offers, one per {@code next()}. */
    private static final class FedScanner implements ResultScanner {
        final SynchronousQueue<Result> rows = new SynchronousQueue<>();
        final AtomicInteger nexts = new AtomicInteger();
        final AtomicBoolean closed = new AtomicBoolean();
        final CountDownLatch asked = new CountDownLatch(1);

        @Override
        public Result next() {
            nexts.incrementAndGet();
            asked.countDown();
            try {
                return rows.take();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
        }

        @Override
        public void close() {
            closed.set(true);
        }
    }

    private static Result row(int i) {
        return Result.of(List.of(Cell.put(String.format("r%06d", i), "f", "q", 1, "v")));
    }

    private BasaltServer start(FedScanner scanner, Duration scanTimeLimit) throws InterruptedException {
        ServerConfig config = ServerConfig.builder().port(0).dataDir(dir).ioThreads(1).scanTimeLimit(scanTimeLimit)
                .shutdownGrace(Duration.ofMillis(200)).build();
        return BasaltServer.start(config, c -> EngineHandler.over(new HookedStore(Basalt.open(c.dataDir(), c.store()),
                (table, method, args) -> method.getName().equals("scanner") ? scanner
                        : HookedStore.pass(table, method, args)), c));
    }

    private static byte[] scanOpen(Scan scan) {
        ByteBuf body = Unpooled.buffer();
        Wire.writeString(body, "t");
        Messages.writeScan(body, scan);
        return RawClient.frame(1, OpCode.SCAN_OPEN.code(), ByteBufUtil.getBytes(body));
    }

    private static void createTable(RawClient c) throws Exception {
        ByteBuf table = Unpooled.buffer();
        Messages.writeTable(table, TableDescriptor.of("t", "f"));
        c.send(RawClient.frame(0, OpCode.CREATE_TABLE.code(), ByteBufUtil.getBytes(table)));
        assertThat(c.read().status()).isEqualTo(Status.OK.code());
    }

    /**
     * A batch with no row limit and no byte limit to speak of, under a scan time limit of a
     * minute, reads rows for as long as the store has them. Its client goes away: the scan stops
     * within a few rows instead of reading on until its time limit (the old code read all 10,000
     * rows offered, a millisecond apart, and never closed the store's scanner before them).
     */
    @Test
    void aScanWhoseConnectionClosedStopsAndClosesTheStoresScanner() throws Exception {
        FedScanner scanner = new FedScanner();
        try (BasaltServer server = start(scanner, Duration.ofMinutes(1))) {
            try (RawClient c = new RawClient(server.address().getPort()).handshake()) {
                createTable(c);
                c.send(scanOpen(new Scan().setMaxResultSize(Long.MAX_VALUE)));
                assertThat(scanner.asked.await(30, TimeUnit.SECONDS)).as("the scan began").isTrue();
                for (int i = 0; i < 10; i++) {
                    assertThat(scanner.rows.offer(row(i), 30, TimeUnit.SECONDS)).isTrue();
                }
            }
            int offered = 10;
            while (!scanner.closed.get() && offered < 10_000) {
                if (scanner.rows.offer(row(offered), 1, TimeUnit.MILLISECONDS)) {
                    offered++;
                }
            }
            assertThat(scanner.closed).as("the store's scanner was closed (%d rows offered)", offered).isTrue();
            assertThat(offered).as("rows read after the client went away").isLessThan(10_000);
            int nexts = scanner.nexts.get();
            for (int i = 0; i < 20; i++) {
                scanner.rows.offer(row(offered + i), 1, TimeUnit.MILLISECONDS);
            }
            assertThat(scanner.nexts.get()).as("no row asked for after the close").isEqualTo(nexts);
        }
    }

    /**
     * The store is in the middle of a {@code next()} that does not return (a selective scan over a
     * large table). Stopping the server takes its shutdown grace and a moment more, not until that
     * call ends (the old code waited for it without limit); when it does end, the store's scanner
     * is closed and asked for nothing more.
     */
    @Test
    void stoppingTheServerDoesNotWaitForAScanInTheStore() throws Exception {
        FedScanner scanner = new FedScanner();
        BasaltServer server = start(scanner, Duration.ofMillis(50));
        Thread closer = null;
        try {
            try (RawClient c = new RawClient(server.address().getPort()).handshake()) {
                createTable(c);
                c.send(scanOpen(new Scan()));
                RawClient.Response open = c.read(); // a heartbeat: no row yet, the search goes on
                assertThat(open.status()).isEqualTo(Status.OK.code());
                closer = Thread.ofPlatform().name("closer").start(server::close);
                closer.join(TimeUnit.SECONDS.toMillis(30));
                assertThat(closer.isAlive()).as("close() returned while the store's next() still ran").isFalse();
            }
            assertThat(scanner.rows.offer(row(0), 30, TimeUnit.SECONDS)).as("the running next() returns").isTrue();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (!scanner.closed.get() && System.nanoTime() - deadline < 0) {
                Thread.sleep(5);
            }
            assertThat(scanner.closed).as("the store's scanner closed once its call returned").isTrue();
            assertThat(scanner.nexts).as("nothing more asked of it").hasValue(1);
        } finally {
            scanner.rows.offer(row(1), 10, TimeUnit.MILLISECONDS);
            server.close();
            if (closer != null) {
                closer.join(TimeUnit.SECONDS.toMillis(30));
            }
        }
    }
}
