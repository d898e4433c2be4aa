package io.basalt.bench.grouping;

import io.basalt.client.AsyncTable;
import io.basalt.client.Put;
import io.basalt.client.TableDescriptor;
import io.basalt.client.net.ClientOptions;
import io.basalt.client.net.RemoteConnection;
import io.basalt.protocol.WriteMode;
import io.basalt.server.BasaltServer;
import io.basalt.server.EngineHandler;
import io.basalt.server.ServerConfig;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Comparator;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.HdrHistogram.Histogram;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.infra.IterationParams;
import org.openjdk.jmh.runner.IterationType;

/**
 * Suite {@code grouping} (BookKeeper #3886): puts per second from a client with {@code streams}
 * concurrent in-flight streams to a server on 127.0.0.1, both in this JVM.
 *
 * <p>A stream sends a put and, when it is acknowledged, the next one: {@code streams} puts are in
 * flight at any time, as with the seed's writers. Acknowledgements are handed to the
 * application's threads (one per core) and the next put is sent from there, so every request
 * is written by an application thread, not by the connection's event loop — the case the seed is
 * about, where a flush per request posts a task per request to the event loop. Each put carries a 60-byte value (the seed's entry
 * size; the frame is about 130 bytes with headers, row, family and qualifier). One benchmark
 * invocation is {@value #OPS} puts spread evenly over the streams; JMH divides by that count, so
 * the score is puts per second. With {@code engine=off} (the default, as in the seed, which
 * measured the client) the server decodes each put and acknowledges it on its event loop
 * ({@link AckHandler}); {@code -p engine=on} runs the store behind it (ASYNC durability, so the
 * disk does not set the pace).
 *
 * <p>The implementations differ only in how both ends write frames:
 * <ul>
 *   <li>{@code basalt}: {@link WriteMode#GROUPED}, small frames share one buffer, one event-loop
 *       task and one flush per batch;</li>
 *   <li>{@code flush-each}: {@link WriteMode#FLUSH_EACH}, {@code writeAndFlush} per frame;</li>
 *   <li>{@code netty-consolidation}: flush-each with Netty's
 *       {@code FlushConsolidationHandler(1024, true)} first in both pipelines, what BookKeeper
 *       ships.</li>
 * </ul>
 * Latency: every put's round trip goes into an HdrHistogram during the measured iterations; at
 * the end of the trial p50 and p99 are appended to {@code bench-results/grouping-latency.csv}
 * (override with {@code -Dbasalt.bench.latencyOut=FILE}).
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
public class GroupingBenchmark {

    /** Puts per benchmark invocation, over all streams. */
    public static final int OPS = 20_000;

    @Param({"basalt", "flush-each", "netty-consolidation"})
    public String impl;

    @Param({"1", "50", "100", "500"})
    public int streams;

    @Param({"off"})
    public String engine;

    /** How long a group may wait for more frames ({@code basalt} only; 0 is the default design). */
    @Param({"0"})
    public int lingerMicros;

    private Path dir;
    private BasaltServer server;
    private RemoteConnection client;
    private AsyncTable table;
    private Put[] puts;
    /**
     * Round trips, one histogram per application thread: recording stays in that thread's cache.
     * (A histogram per stream, 200 KB each at this range and precision, made every recording a
     * cache miss at 50-500 streams: 3-5% of all CPU, for every implementation alike.)
     */
    private ThreadLocal<Histogram> latency;
    private final Queue<Histogram> histograms = new ConcurrentLinkedQueue<>();
    private volatile boolean recording;
    private volatile Throwable failed;
    /** The application's threads: one per core, as an asynchronous application would have. */
    private ExecutorService app;

    @Setup(Level.Trial)
    public void start() throws Exception {
        WriteMode mode = impl.equals("basalt") ? WriteMode.GROUPED : WriteMode.FLUSH_EACH;
        boolean consolidation = switch (impl) {
            case "basalt", "flush-each" -> false;
            case "netty-consolidation" -> true;
            default -> throw new IllegalArgumentException("unknown impl " + impl);
        };
        dir = Files.createTempDirectory("basalt-grouping-");
        java.time.Duration linger = java.time.Duration.ofNanos(lingerMicros * 1000L);
        ServerConfig config = ServerConfig.builder().port(0).dataDir(dir).ioThreads(1).writeMode(mode)
                .flushConsolidation(consolidation).linger(linger)
                .store(io.basalt.client.StoreOptions.defaults().withDurability(io.basalt.client.Durability.ASYNC))
                .build();
        boolean engineOn = switch (engine) {
            case "on" -> true;
            case "off" -> false;
            default -> throw new IllegalArgumentException("engine is on or off, not " + engine);
        };
        server = BasaltServer.start(config, engineOn ? EngineHandler::open : _ -> new AckHandler());
        client = new RemoteConnection("127.0.0.1", server.address().getPort(), ClientOptions.builder()
                .ioThreads(1).writeMode(mode).flushConsolidation(consolidation).linger(linger).build());
        if (engineOn) {
            client.admin().createTable(TableDescriptor.of("t", "f")).join();
        }
        table = client.table("t");
        byte[] value = new byte[60];
        java.util.Arrays.fill(value, (byte) 'v');
        puts = new Put[streams];
        for (int i = 0; i < streams; i++) {
            puts[i] = new Put(String.format("stream%05d", i).getBytes(StandardCharsets.UTF_8))
                    .addColumn("f".getBytes(StandardCharsets.UTF_8), "q".getBytes(StandardCharsets.UTF_8), value);
        }
        latency = ThreadLocal.withInitial(() -> {
            Histogram h = new Histogram(TimeUnit.SECONDS.toNanos(10), 3);
            histograms.add(h);
            return h;
        });
        app = Executors.newFixedThreadPool(Runtime.getRuntime().availableProcessors(),
                r -> Thread.ofPlatform().daemon().name("app").unstarted(r));
        table.put(puts[0]).join();
    }

    @Setup(Level.Iteration)
    public void iteration(IterationParams params) {
        recording = params.getType() == IterationType.MEASUREMENT;
    }

    @Benchmark
    @OperationsPerInvocation(OPS)
    public void throughput() throws InterruptedException {
        CountDownLatch done = new CountDownLatch(streams);
        for (int s = 0; s < streams; s++) {
            int ops = OPS / streams + (s < OPS % streams ? 1 : 0);
            int stream = s;
            app.execute(() -> send(stream, ops, done));
        }
        if (!done.await(5, TimeUnit.MINUTES)) {
            throw new IllegalStateException("puts did not finish in 5 minutes");
        }
        if (failed != null) {
            throw new IllegalStateException("a put failed", failed);
        }
    }

    /**
     * Sends the stream's next put; its completion, handed to an application thread, records the
     * round trip and sends the one after, until {@code left} puts are done.
     */
    private void send(int stream, int left, CountDownLatch done) {
        if (left == 0) {
            done.countDown();
            return;
        }
        long start = System.nanoTime();
        table.put(puts[stream]).whenCompleteAsync((_, failure) -> {
            if (failure != null) {
                failed = failure;
                done.countDown();
                return;
            }
            if (recording) {
                Histogram h = latency.get();
                h.recordValue(Math.min(System.nanoTime() - start, h.getHighestTrackableValue()));
            }
            send(stream, left - 1, done);
        }, app);
    }

    @TearDown(Level.Trial)
    public void stop() throws IOException {
        Histogram all = new Histogram(TimeUnit.SECONDS.toNanos(10), 3);
        for (Histogram h : histograms) {
            all.add(h);
        }
        Path out = Path.of(System.getProperty("basalt.bench.latencyOut", "bench-results/grouping-latency.csv"));
        Files.createDirectories(out.toAbsolutePath().getParent());
        if (!Files.exists(out)) {
            Files.writeString(out, "impl,streams,engine,puts,p50_us,p99_us,p999_us\n");
        }
        Files.writeString(out, String.format("%s,%d,%s,%d,%.1f,%.1f,%.1f%n", impl, streams, engine,
                all.getTotalCount(), all.getValueAtPercentile(50) / 1e3, all.getValueAtPercentile(99) / 1e3,
                all.getValueAtPercentile(99.9) / 1e3), StandardOpenOption.APPEND);
        app.shutdownNow();
        client.close();
        server.close();
        try (Stream<Path> files = Files.walk(dir)) {
            files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
    }
}
