package io.basalt.bench.metrics;

import io.basalt.client.AsyncTable;
import io.basalt.client.Durability;
import io.basalt.client.Get;
import io.basalt.client.Put;
import io.basalt.client.StoreOptions;
import io.basalt.client.TableDescriptor;
import io.basalt.client.net.ClientOptions;
import io.basalt.client.net.RemoteConnection;
import io.basalt.server.BasaltServer;
import io.basalt.server.EngineHandler;
import io.basalt.server.ServerConfig;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;
import java.util.stream.Stream;
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

/**
 * The loop both request-overhead suites share ({@code metrics}, {@code auth}): a server on
 * 127.0.0.1 with the store behind it ({@link Durability#ASYNC}, so the disk does not set the pace),
 * a client in this JVM, and {@code streams} closed loops each keeping one request in flight: when a
 * request is answered its completion, handed to one of the application's threads (one per core, as
 * in the {@code grouping} suite), sends the next. One invocation is {@value #OPS} requests spread
 * evenly over the streams; JMH divides by that count, so the score is requests per second. Each
 * stream works on rows of its own among {@value #ROWS} loaded at the start: {@code puts} overwrites
 * them with another 60-byte value, {@code gets} reads them (found in the memtable, so the read is
 * cheap and the server's own work per request is a large share). A subclass says how the server
 * and the client differ between the settings it compares.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
public abstract class LoopbackRequestBenchmark {

    /** Requests per benchmark invocation, over all streams. */
    public static final int OPS = 10_000;
    /** Rows loaded before the trial, shared out among the streams. */
    static final int ROWS = 10_000;

    private static final byte[] FAMILY = "f".getBytes(StandardCharsets.UTF_8);
    private static final byte[] QUALIFIER = "q".getBytes(StandardCharsets.UTF_8);

    @Param({"1", "50"})
    public int streams;

    protected Path dir;
    private BasaltServer server;
    private RemoteConnection client;
    private AsyncTable table;
    private Put[] puts;
    private Get[] gets;
    private volatile Throwable failed;
    /** The application's threads: one per core, as an asynchronous application would have. */
    private ExecutorService app;

    /** The store's directory, before the server opens it: what a setting needs there (users, grants). */
    protected void prepare(Path storeDir) throws Exception {}

    /** The server's configuration for the setting measured. */
    protected abstract ServerConfig.Builder server(ServerConfig.Builder defaults);

    /** The client's options for the setting measured. */
    protected ClientOptions.Builder client(ClientOptions.Builder defaults) {
        return defaults;
    }

    @Setup(Level.Trial)
    public void start() throws Exception {
        dir = Files.createTempDirectory("basalt-requests-");
        prepare(dir);
        ServerConfig config = server(ServerConfig.builder().port(0).dataDir(dir).ioThreads(1)
                .store(StoreOptions.defaults().withDurability(Durability.ASYNC))).build();
        server = BasaltServer.start(config, EngineHandler::open);
        client = new RemoteConnection("127.0.0.1", server.address().getPort(),
                client(ClientOptions.builder().ioThreads(1)).build());
        if (client.admin().listTables().join().stream().noneMatch(t -> t.name().equals("t"))) {
            client.admin().createTable(TableDescriptor.of("t", "f")).join();
        }
        table = client.table("t");
        byte[] value = new byte[60];
        Arrays.fill(value, (byte) 'v');
        puts = new Put[ROWS];
        gets = new Get[ROWS];
        List<CompletableFuture<Void>> loading = new ArrayList<>();
        for (int i = 0; i < ROWS; i++) {
            byte[] row = String.format("row%05d", i).getBytes(StandardCharsets.UTF_8);
            puts[i] = new Put(row).addColumn(FAMILY, QUALIFIER, value);
            gets[i] = new Get(row);
            loading.add(table.put(puts[i]));
            if (loading.size() == 256) {
                CompletableFuture.allOf(loading.toArray(CompletableFuture[]::new)).join();
                loading.clear();
            }
        }
        CompletableFuture.allOf(loading.toArray(CompletableFuture[]::new)).join();
        if (table.get(gets[ROWS - 1]).join().isEmpty()) {
            throw new IllegalStateException("a loaded row is not there");
        }
        app = Executors.newFixedThreadPool(Runtime.getRuntime().availableProcessors(),
                r -> Thread.ofPlatform().daemon().name("app").unstarted(r));
    }

    @Benchmark
    @OperationsPerInvocation(OPS)
    public void puts() throws InterruptedException {
        run(true);
    }

    @Benchmark
    @OperationsPerInvocation(OPS)
    public void gets() throws InterruptedException {
        run(false);
    }

    /** Runs {@link #OPS} requests over {@link #streams} closed loops and waits for all of them. */
    private void run(boolean put) throws InterruptedException {
        CountDownLatch done = new CountDownLatch(streams);
        for (int s = 0; s < streams; s++) {
            new Loop(s, OPS / streams + (s < OPS % streams ? 1 : 0), put, done).send();
        }
        if (!done.await(5, TimeUnit.MINUTES)) {
            throw new IllegalStateException("requests did not finish in 5 minutes");
        }
        if (failed != null) {
            throw new IllegalStateException("a request failed", failed);
        }
    }

    /**
     * One stream: sends a request and, when it is answered, the next, until it has sent its share.
     * Its rows are those whose index is its number modulo {@link #streams}.
     */
    private final class Loop implements BiConsumer<Object, Throwable> {
        private final int first;
        private final boolean put;
        private final CountDownLatch done;
        private int row;
        private int left;

        Loop(int first, int left, boolean put, CountDownLatch done) {
            this.first = first;
            this.row = first;
            this.left = left;
            this.put = put;
            this.done = done;
        }

        void send() {
            if (left == 0) {
                done.countDown();
                return;
            }
            left--;
            CompletableFuture<?> answer = put ? table.put(puts[row]) : table.get(gets[row]);
            row += streams;
            if (row >= ROWS) {
                row = first;
            }
            answer.whenCompleteAsync(this, app);
        }

        @Override
        public void accept(Object result, Throwable failure) {
            if (failure != null) {
                failed = failure;
                done.countDown();
                return;
            }
            send();
        }
    }

    @TearDown(Level.Trial)
    public void stop() throws IOException {
        app.shutdownNow();
        client.close();
        server.close();
        try (Stream<Path> files = Files.walk(dir)) {
            files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
    }
}
