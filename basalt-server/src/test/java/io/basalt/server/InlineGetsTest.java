package io.basalt.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.basalt.client.AsyncTable;
import io.basalt.client.Basalt;
import io.basalt.client.Connection;
import io.basalt.client.FamilyDescriptor;
import io.basalt.client.Get;
import io.basalt.client.Put;
import io.basalt.client.Result;
import io.basalt.client.StoreOptions;
import io.basalt.client.TableDescriptor;
import io.basalt.client.filter.PrefixFilter;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code inlineGets}: a get whose blocks are all in memory is answered on the event loop; one that
 * needs the disk, reads a row wider than the attempt's blocks, or carries a filter goes to a
 * worker; every one of them gets its whole answer. The {@code basalt_event_loop_gets_total}
 * counters say which way each went.
 */
class InlineGetsTest {

    @TempDir
    Path dir;

    private static final String ANSWERED = "basalt_event_loop_gets_total{outcome=\"answered\"}";
    private static final String HANDED_OFF = "basalt_event_loop_gets_total{outcome=\"handed_off\"}";

    private static <T> T await(CompletableFuture<T> f) throws Exception {
        return f.get(30, TimeUnit.SECONDS);
    }

    private static double counter(BasaltServer server, String sample) throws Exception {
        String text;
        try (var out = new java.io.ByteArrayOutputStream()) {
            io.prometheus.metrics.expositionformats.PrometheusTextFormatWriter.create().write(out, server.metrics().scrape());
            text = out.toString(java.nio.charset.StandardCharsets.UTF_8);
        }
        Double v = ServerMetricsTest.sample(text, sample);
        return v == null ? -1 : v;
    }

    private <T> T withServer(ServerConfig.Builder config, ServerTest<T> test) throws Exception {
        try (BasaltServer server = BasaltServer.start(config.port(0).dataDir(dir).ioThreads(1).httpPort(-1).build());
             Connection client = Basalt.connect("basalt://127.0.0.1:" + server.address().getPort())) {
            return test.run(server, client);
        }
    }

    private interface ServerTest<T> {
        T run(BasaltServer server, Connection client) throws Exception;
    }

    @Test
    void getsOfRowsInMemoryAreAnsweredOnTheEventLoop() throws Exception {
        withServer(ServerConfig.builder(), (server, client) -> {
            await(client.admin().createTable(TableDescriptor.of("t", "f")));
            AsyncTable t = client.table("t");
            for (int i = 0; i < 5; i++) {
                await(t.put(Put.of("r" + i).addColumn("f", "q", "v" + i)));
            }
            for (int i = 0; i < 5; i++) {
                assertThat(await(t.get(Get.of("r" + i))).value("f", "q")).isEqualTo(("v" + i).getBytes());
            }
            assertThat(await(t.get(Get.of("absent"))).isEmpty()).isTrue();
            assertThat(counter(server, ANSWERED)).isEqualTo(6.0);
            assertThat(counter(server, HANDED_OFF)).isEqualTo(0.0);
            return null;
        });
    }

    @Test
    void aGetThatNeedsTheDiskIsHandedToAWorkerAndAnsweredInFull() throws Exception {
        withServer(ServerConfig.builder().store(StoreOptions.defaults().withBlockCacheSize(0)), (server, client) -> {
            await(client.admin().createTable(TableDescriptor.of("t", "f")));
            AsyncTable t = client.table("t");
            await(t.put(Put.of("r").addColumn("f", "a", "1").addColumn("f", "b", "2")));
            await(client.admin().flush("t"));
            await(t.put(Put.of("r").addColumn("f", "c", "3"))); // one column in memory, two in the file
            Result r = await(t.get(Get.of("r")));
            assertThat(r.size()).isEqualTo(3);
            assertThat(r.value("f", "a")).isEqualTo("1".getBytes());
            assertThat(r.value("f", "c")).isEqualTo("3".getBytes());
            assertThat(counter(server, HANDED_OFF)).isEqualTo(1.0);
            assertThat(counter(server, ANSWERED)).isEqualTo(0.0);
            return null;
        });
    }

    /**
     * A block the block cache misses but the OS holds (the file was just written) is read on the
     * event loop by a read that cannot wait for the disk, where the system has such reads (Linux;
     * elsewhere the get goes to a worker, as a get that needs the disk does).
     */
    @Test
    void aBlockTheOsHoldsIsReadOnTheEventLoop() throws Exception {
        withServer(ServerConfig.builder().store(StoreOptions.defaults().withRowCacheSize(0)), (server, client) -> {
            await(client.admin().createTable(TableDescriptor.of("t", "f")));
            AsyncTable t = client.table("t");
            await(t.put(Put.of("r").addColumn("f", "a", "1")));
            await(client.admin().flush("t"));
            long misses = await(client.admin().serverStatus()).blockCacheMisses();
            assertThat(await(t.get(Get.of("r"))).value("f", "a")).isEqualTo("1".getBytes());
            assertThat(await(client.admin().serverStatus()).blockCacheMisses())
                    .as("the block was read from the file").isEqualTo(misses + 1);
            boolean linux = System.getProperty("os.name", "").toLowerCase(java.util.Locale.ROOT).contains("linux");
            assertThat(counter(server, ANSWERED)).isEqualTo(linux ? 1.0 : 0.0);
            assertThat(counter(server, HANDED_OFF)).isEqualTo(linux ? 0.0 : 1.0);
            return null;
        });
    }

    @Test
    void aRowWiderThanAnAttemptsBlocksIsReadByAWorkerEvenWhenCached() throws Exception {
        // without a row cache, which would answer the second get from memory
        withServer(ServerConfig.builder().store(StoreOptions.defaults().withRowCacheSize(0)), (server, client) -> {
            await(client.admin().createTable(new TableDescriptor("t",
                    List.of(FamilyDescriptor.of("f").withBlockSize(FamilyDescriptor.MIN_BLOCK_SIZE)))));
            AsyncTable t = client.table("t");
            Put wide = Put.of("r");
            int columns = 40 * EngineHandler.INLINE_BLOCKS; // ~100 bytes each: about four 1 KiB blocks per 40
            for (int i = 0; i < columns; i++) {
                wide.addColumn("f", String.format("q%05d", i), "v".repeat(100));
            }
            await(t.put(wide));
            await(client.admin().flush("t"));
            for (int i = 0; i < 2; i++) { // the first caches the blocks, the second finds them cached
                assertThat(await(t.get(Get.of("r"))).size()).isEqualTo(columns);
            }
            assertThat(counter(server, HANDED_OFF)).isEqualTo(2.0);
            assertThat(counter(server, ANSWERED)).isEqualTo(0.0);
            return null;
        });
    }

    @Test
    void aGetWithAFilterIsNeverTriedOnTheEventLoop() throws Exception {
        answeredWithoutATry(ServerConfig.builder(), Get.of("r").setFilter(new PrefixFilter("r".getBytes())));
    }

    @Test
    void withInlineGetsOffEveryGetGoesToAWorker() throws Exception {
        answeredWithoutATry(ServerConfig.builder().inlineGets(false), Get.of("r"));
    }

    /** {@code get} of a row in memory is answered in full, and never tried on the event loop. */
    private void answeredWithoutATry(ServerConfig.Builder config, Get get) throws Exception {
        withServer(config, (server, client) -> {
            await(client.admin().createTable(TableDescriptor.of("t", "f")));
            AsyncTable t = client.table("t");
            await(t.put(Put.of("r").addColumn("f", "q", "v")));
            assertThat(await(t.get(get)).value("f", "q")).isEqualTo("v".getBytes());
            assertThat(counter(server, ANSWERED)).isEqualTo(0.0);
            assertThat(counter(server, HANDED_OFF)).isEqualTo(0.0);
            return null;
        });
    }

    /**
     * A client that sends gets of a 1 MiB row and never reads: answers made on the event loop
     * between two reads are held to one high-water mark, the rest go to workers, where the
     * in-flight limit holds them (SlowReaderIT runs the same flood against a server's memory).
     */
    @Test
    void aFloodOfGetsForABigRowIsAnsweredOnTheEventLoopOnlyUpToTheHighWaterMark() throws Exception {
        int highWater = 2 << 20;
        withServer(ServerConfig.builder().outboundHighWaterBytes(highWater).outboundLowWaterBytes(1 << 20)
                .maxInFlightPerConnection(4), (server, client) -> {
            await(client.admin().createTable(TableDescriptor.of("t", "f")));
            byte[] big = new byte[1 << 20];
            await(client.table("t").put(Put.of("big").addColumn("f".getBytes(), "q".getBytes(), big)));
            try (RawClient slow = new RawClient(server.address().getPort()).handshake()) {
                java.io.ByteArrayOutputStream flood = new java.io.ByteArrayOutputStream();
                for (int id = 0; id < 200; id++) {
                    flood.write(SlowReaderIT.getFrame(id));
                }
                slow.send(flood.toByteArray()); // a few kilobytes: one or two reads for the server
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
                while (counter(server, ANSWERED) + counter(server, HANDED_OFF) < 8 && System.nanoTime() < deadline) {
                    Thread.sleep(10);
                }
                double answered = counter(server, ANSWERED);
                assertThat(answered).as("answered on the event loop").isGreaterThanOrEqualTo(1.0)
                        // per read, answers until the mark is passed: at most three 1 MiB answers a read
                        .isLessThanOrEqualTo(6.0);
                assertThat(counter(server, HANDED_OFF)).as("the rest went to workers").isGreaterThanOrEqualTo(1.0);
            }
            // the server still answers a well-behaved client
            assertThat(await(client.table("t").get(Get.of("big"))).value("f", "q")).isEqualTo(big);
            return null;
        });
    }

    @Test
    void aGetOfAMissingTableIsAnsweredWithItsError() throws Exception {
        withServer(ServerConfig.builder(), (server, client) -> {
            assertThat(client.table("nope").get(Get.of("r")))
                    .failsWithin(30, TimeUnit.SECONDS).withThrowableThat()
                    .havingRootCause().isInstanceOf(io.basalt.client.TableNotFoundException.class);
            return null;
        });
    }
}
