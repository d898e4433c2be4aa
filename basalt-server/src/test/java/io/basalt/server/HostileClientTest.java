package io.basalt.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.basalt.client.AsyncTable;
import io.basalt.client.Basalt;
import io.basalt.client.Connection;
import io.basalt.client.Get;
import io.basalt.client.Put;
import io.basalt.client.Result;
import io.basalt.client.Scan;
import io.basalt.client.TableDescriptor;
import io.basalt.protocol.FrameLayout;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue #17: clients that open too many connections or send garbage after a good handshake are
 * cut off, and a well-behaved client on the same server keeps being served and keeps its data.
 */
class HostileClientTest {

    private static final int MAX_CONNECTIONS = 8;

    @TempDir
    Path dir;

    private BasaltServer server;
    private Connection good;
    private AsyncTable table;
    /** What the good client wrote and was acknowledged, row by value. */
    private final Map<String, String> written = new TreeMap<>();
    private final List<Throwable> goodErrors = new CopyOnWriteArrayList<>();

    @BeforeEach
    void start() throws Exception {
        server = BasaltServer.start(ServerConfig.builder().port(0).dataDir(dir).ioThreads(2).maxFrameSize(64 * 1024)
                .frameTimeout(Duration.ofMillis(300)).maxConnections(MAX_CONNECTIONS).build());
        good = Basalt.connect("basalt://127.0.0.1:" + server.address().getPort());
        good.admin().createTable(TableDescriptor.of("t", "f")).get(30, TimeUnit.SECONDS);
        table = good.table("t");
        for (int i = 0; i < 50; i++) {
            putAndCheck("before-" + i, "v" + i);
        }
    }

    @AfterEach
    void stop() {
        good.close();
        server.close();
    }

    private void putAndCheck(String row, String value) throws Exception {
        table.put(Put.of(row).addColumn("f", "q", value)).get(30, TimeUnit.SECONDS);
        written.put(row, value);
        Result r = table.get(Get.of(row)).get(30, TimeUnit.SECONDS);
        assertThat(r.value("f", "q")).as("read back %s", row).asString().isEqualTo(value);
    }

    /** The good client writing and reading back on a thread of its own until {@code until} is set. */
    private Thread goodClient(AtomicBoolean until) {
        return Thread.ofPlatform().name("good-client").start(() -> {
            for (int i = 0; i < 100_000 && !until.get(); i++) {
                try {
                    putAndCheck("during-" + i, "w" + i);
                } catch (Exception | AssertionError e) {
                    goodErrors.add(e);
                    return;
                }
            }
        });
    }

    /** The good client was never refused or failed, and the table holds exactly what it wrote. */
    private void assertGoodClientServedAndDataIntact(Thread client) throws Exception {
        client.join(TimeUnit.SECONDS.toMillis(60));
        assertThat(client.isAlive()).isFalse();
        assertThat(goodErrors).isEmpty();
        Map<String, String> stored = new TreeMap<>();
        for (Result r : table.scanAll(new Scan()).get(30, TimeUnit.SECONDS)) {
            stored.put(new String(r.row()), new String(r.value("f", "q")));
        }
        assertThat(stored).isEqualTo(written);
    }

    @Test
    void aFloodOfConnectionsBeyondTheLimitIsRefusedWhileConnectedClientsKeepWorking() throws Exception {
        AtomicBoolean done = new AtomicBoolean();
        Thread client = goodClient(done);
        int flood = 40;
        List<RawClient> raw = new ArrayList<>();
        int accepted = 0;
        int busy = 0;
        try {
            for (int i = 0; i < flood; i++) {
                raw.add(new RawClient(server.address().getPort()));
            }
            for (RawClient c : raw) {
                c.send(RawClient.handshakeBytes(FrameLayout.VERSION));
            }
            List<RawClient> refused = new ArrayList<>();
            for (RawClient c : raw) {
                int[] reply = c.readHandshake();
                assertThat(reply[0]).isEqualTo(FrameLayout.MAGIC);
                if (reply[2] == FrameLayout.HANDSHAKE_ACCEPTED) {
                    accepted++;
                } else {
                    assertThat(reply[2]).isEqualTo(FrameLayout.HANDSHAKE_BUSY);
                    busy++;
                    refused.add(c);
                }
            }
            assertThat(accepted).as("accepted: the limit less the good client's connection").isEqualTo(MAX_CONNECTIONS - 1);
            assertThat(busy).isEqualTo(flood - accepted);
            for (RawClient c : refused) {
                assertThat(c.awaitClosedByServer()).as("a refused connection is closed").isTrue();
            }
            assertThat(server.refusedConnections()).isEqualTo(busy);
        } finally {
            for (RawClient c : raw) {
                c.close();
            }
        }
        // Places free up as connections close: a new one is accepted again.
        boolean again = false;
        for (int attempt = 0; attempt < 3000 && !again; attempt++) {
            try (RawClient c = new RawClient(server.address().getPort())) {
                c.send(RawClient.handshakeBytes(FrameLayout.VERSION));
                again = c.readHandshake()[2] == FrameLayout.HANDSHAKE_ACCEPTED;
            }
            if (!again) {
                Thread.sleep(10);
            }
        }
        assertThat(again).as("a connection is accepted once the flood closed").isTrue();
        done.set(true);
        assertGoodClientServedAndDataIntact(client);
    }

    /**
     * Garbage after a good handshake: a length under the header, a huge length, a plausible length
     * followed by noise, and seeded random bytes; each followed by a byte every 40 ms (within the
     * 300 ms frame timeout of the one before), so only a timeout measured from the frame's start,
     * or the bytes themselves, closes it. None may run a request or touch the good client's data.
     */
    @Test
    void garbageAfterAGoodHandshakeClosesTheConnectionAndTouchesNothingElse() throws Exception {
        long seed = System.nanoTime();
        SplittableRandom random = new SplittableRandom(seed);
        List<byte[]> garbage = new ArrayList<>();
        garbage.add(new byte[] {0, 0, 0, 5, 1, 2, 3});
        garbage.add(new byte[] {(byte) 0xFF, (byte) 0xFF, (byte) 0xFF, 0x10, 0, 0, 0, 0, 0, 0, 0, 7, 20, 0, 0, 0});
        garbage.add(new byte[] {0, 0, 3, (byte) 0xE8, 9, 9, 9, 9});
        for (int i = 0; i < 5; i++) {
            byte[] b = new byte[1 + random.nextInt(64)];
            random.nextBytes(b);
            garbage.add(b);
        }
        AtomicBoolean done = new AtomicBoolean();
        Thread client = goodClient(done);
        for (byte[] g : garbage) {
            try (RawClient c = new RawClient(server.address().getPort()).handshake()) {
                c.send(g);
                AtomicInteger trickled = new AtomicInteger();
                Thread trickler = Thread.ofVirtual().start(() -> {
                    try {
                        for (int i = 0; i < 200; i++) {
                            c.send(new byte[] {(byte) random.nextInt(256)});
                            trickled.incrementAndGet();
                            Thread.sleep(40);
                        }
                    } catch (IOException | InterruptedException e) {
                        // closed by the server
                    }
                });
                assertThat(c.awaitClosedByServer()).as("closed (seed %d)", seed).isTrue();
                assertThat(trickled.get()).as("closed while bytes still came (seed %d)", seed).isLessThan(200);
                trickler.interrupt();
                trickler.join();
            }
        }
        done.set(true);
        assertGoodClientServedAndDataIntact(client);
    }
}
