package io.basalt.server;

import io.basalt.client.ServerStatus;
import io.basalt.engine.StoreMetrics;
import io.basalt.protocol.OpCode;
import io.basalt.protocol.Status;
import io.prometheus.metrics.core.datapoints.CounterDataPoint;
import io.prometheus.metrics.core.datapoints.DistributionDataPoint;
import io.prometheus.metrics.core.metrics.Counter;
import io.prometheus.metrics.core.metrics.CounterWithCallback;
import io.prometheus.metrics.core.metrics.GaugeWithCallback;
import io.prometheus.metrics.core.metrics.Histogram;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;
import io.prometheus.metrics.model.snapshots.ClassicHistogramBuckets;
import io.prometheus.metrics.model.snapshots.HistogramSnapshot;
import io.prometheus.metrics.model.snapshots.Unit;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The server's metrics, in a Prometheus registry of its own (served at {@code /metrics} and over
 * JMX), and the recent slow requests.
 *
 * <p>What a request records is allocation-free and takes no lock: the counter and histogram data
 * points of every op are made once, here, and indexed by op code; each is a set of adders. With
 * {@link ServerConfig#requestMetrics()} off the connections never call {@link #requestDone}, so the
 * request series stay registered at zero (the store's and connections' metrics are unaffected). What
 * the store and the connections know already (flushes, cache hits, queued bytes) is not counted
 * twice: callback metrics read it when a scrape asks, from one {@link StoreMetrics} per scrape.
 * docs/operations.md lists every metric.
 */
public final class ServerMetrics {

    private static final Logger LOG = LoggerFactory.getLogger("io.basalt.server.SlowRequests");

    /** Latency buckets, seconds: 50 µs to 10 s. */
    static final double[] LATENCY_BUCKETS = {0.00005, 0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025,
        0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10};
    /** Slow requests kept for the status page. */
    static final int RECENT_SLOW = 32;
    /** Label value of the tables beyond {@link ServerConfig#metricsMaxTables()}. */
    public static final String OTHER_TABLES = "_other";

    /** One slow request, as the status page lists it. */
    public record SlowRequest(Instant at, String op, String peer, long micros, String status) {}

    private final PrometheusRegistry registry = new PrometheusRegistry();
    private final CounterDataPoint[] requests;
    private final CounterDataPoint[] errors;
    private final DistributionDataPoint[] latency;
    private final Histogram latencies;
    private final CounterDataPoint unknownOps;
    private final CounterDataPoint getsInMemory;
    private final CounterDataPoint getsHandedOff;
    private final LongAdder slowCount = new LongAdder();
    private final long slowNanos;
    private final ArrayDeque<SlowRequest> recentSlow = new ArrayDeque<>();
    private final int maxTables;
    /** The store's metrics for the scrape under way ({@link #scrape}), taken by its first callback. */
    private StoreMetrics snapshot;

    ServerMetrics(ServerConfig config) {
        this.slowNanos = config.slowRequest().toNanos();
        this.maxTables = config.metricsMaxTables();
        Counter requestCounter = Counter.builder().name("basalt_requests_total")
                .help("Requests answered, by op (errors included)").labelNames("op").withoutExemplars().register(registry);
        Counter errorCounter = Counter.builder().name("basalt_request_errors_total")
                .help("Requests answered with an error status, by op").labelNames("op").withoutExemplars()
                .register(registry);
        latencies = Histogram.builder().name("basalt_request_duration_seconds")
                .help("Time from a request's arrival to its answer being queued for the connection, by op")
                .unit(Unit.SECONDS).labelNames("op").classicOnly().classicUpperBounds(LATENCY_BUCKETS)
                .withoutExemplars().register(registry);
        int size = 0;
        for (OpCode op : OpCode.values()) {
            size = Math.max(size, op.code() + 1);
        }
        requests = new CounterDataPoint[size];
        errors = new CounterDataPoint[size];
        latency = new DistributionDataPoint[size];
        for (OpCode op : OpCode.values()) {
            String name = op.name();
            requests[op.code()] = requestCounter.labelValues(name);
            errors[op.code()] = errorCounter.labelValues(name);
            latency[op.code()] = latencies.labelValues(name);
        }
        unknownOps = errorCounter.labelValues("UNKNOWN");
        Counter eventLoopGets = Counter.builder().name("basalt_event_loop_gets_total")
                .help("Gets tried on the event loop (inlineGets): answered there from memory, or handed to a worker"
                        + " because they needed the disk or more blocks than an attempt may read, or because the"
                        + " connection's answers were queued past the high-water mark")
                .labelNames("outcome").withoutExemplars().register(registry);
        getsInMemory = eventLoopGets.labelValues("answered");
        getsHandedOff = eventLoopGets.labelValues("handed_off");
        CounterWithCallback.builder().name("basalt_slow_requests_total")
                .help("Requests that took at least slowRequestMillis").callback(cb -> cb.call(slowCount.sum()))
                .register(registry);
    }

    /** A get tried on the event loop was answered there ({@code true}) or handed to a worker. */
    void eventLoopGet(boolean answered) {
        (answered ? getsInMemory : getsHandedOff).inc();
    }

    /**
     * Every metric now. One scrape at a time, so the store is asked once per scrape and every
     * store metric of a scrape comes from the same reading.
     */
    public synchronized MetricSnapshots scrape() {
        snapshot = null;
        try {
            return registry.scrape();
        } finally {
            snapshot = null;
        }
    }

    /**
     * A request was answered. Allocation-free unless it was slow. {@code op} is null for a frame
     * whose op code is unknown; {@code startNanos} is {@link RequestTimes#UNKNOWN} when it was not
     * recorded.
     */
    void requestDone(OpCode op, Status status, long startNanos, String peer) {
        if (op == null) {
            unknownOps.inc();
            return;
        }
        int code = op.code();
        // latency and the slow-request record first: whoever sees the count move sees them too
        if (startNanos != RequestTimes.UNKNOWN) {
            long nanos = System.nanoTime() - startNanos;
            latency[code].observe(nanos / 1e9);
            if (nanos >= slowNanos) {
                slow(op, status, nanos, peer);
            }
        }
        if (status != Status.OK) {
            errors[code].inc();
        }
        requests[code].inc();
    }

    private void slow(OpCode op, Status status, long nanos, String peer) {
        slowCount.increment();
        long micros = TimeUnit.NANOSECONDS.toMicros(nanos);
        LOG.info("Slow request: {} from {} took {} ms ({})", op, peer, micros / 1000, status);
        synchronized (recentSlow) {
            if (recentSlow.size() == RECENT_SLOW) {
                recentSlow.removeFirst();
            }
            recentSlow.addLast(new SlowRequest(Instant.now(), op.name(), peer, micros, status.name()));
        }
    }

    /** The most recent slow requests, oldest first. */
    public List<SlowRequest> recentSlowRequests() {
        synchronized (recentSlow) {
            return new ArrayList<>(recentSlow);
        }
    }

    /** Requests answered so far, every op together. */
    public long requestsAnswered() {
        long n = 0;
        for (CounterDataPoint c : requests) {
            if (c != null) {
                n += (long) c.get();
            }
        }
        return n;
    }

    /**
     * Requests answered so far within each of {@link #LATENCY_BUCKETS}, cumulative, every op
     * together; the last entry (one past the bounds) is every request timed.
     */
    long[] latencyBuckets() {
        long[] out = new long[LATENCY_BUCKETS.length + 1];
        for (HistogramSnapshot.HistogramDataPointSnapshot p : latencies.collect().getDataPoints()) {
            ClassicHistogramBuckets buckets = p.getClassicBuckets();
            for (int i = 0; i < buckets.size(); i++) {
                int at = Math.min(i, out.length - 1);
                out[at] += buckets.getCount(i);
            }
        }
        for (int i = 1; i < out.length; i++) {
            out[i] += out[i - 1];
        }
        return out;
    }

    /** The sum of every timed request's latency, seconds. */
    double latencySumSeconds() {
        double sum = 0;
        for (DistributionDataPoint d : latency) {
            if (d != null) {
                sum += d.getSum();
            }
        }
        return sum;
    }

    /** Registers the metrics the server's connections know (read at scrape time). */
    void registerServer(BasaltServer server) {
        GaugeWithCallback.builder().name("basalt_connections").help("Client connections open")
                .callback(cb -> cb.call(server.connections())).register(registry);
        CounterWithCallback.builder().name("basalt_connections_refused_total")
                .help("Connections refused at their handshake because maxConnections were open")
                .callback(cb -> cb.call(server.refusedConnections())).register(registry);
        CounterWithCallback.builder().name("basalt_tls_handshake_failures_total")
                .help("TLS handshakes that failed (a plaintext client, an untrusted or expired certificate)")
                .callback(cb -> cb.call(server.tlsHandshakeFailures())).register(registry);
        GaugeWithCallback.builder().name("basalt_requests_in_flight").help("Requests received and not yet answered")
                .callback(cb -> cb.call(server.inFlight())).register(registry);
        GaugeWithCallback.builder().name("basalt_scanners_open").help("Scanners holding a lease")
                .callback(cb -> cb.call(server.handler().openScanners())).register(registry);
        CounterWithCallback.builder().name("basalt_grouped_write_batches_total")
                .help("Writes to the socket of grouped responses (a batch carries one or more responses)")
                .callback(cb -> cb.call(server.groupedBatches())).register(registry);
        CounterWithCallback.builder().name("basalt_grouped_write_frames_total")
                .help("Response frames written in grouped batches; divided by the batches, the mean batch size")
                .callback(cb -> cb.call(server.groupedFrames())).register(registry);
    }

    /**
     * Registers the store's metrics, read through {@code store} (called once per {@link #scrape}).
     */
    void registerStore(Supplier<StoreMetrics> store) {
        Supplier<StoreMetrics> s = () -> {
            StoreMetrics m = snapshot;
            if (m == null) {
                m = store.get();
                snapshot = m;
            }
            return m;
        };
        counter("basalt_flushes_total", "Memtables written to SSTables", () -> s.get().background().flushes());
        counter("basalt_flushed_bytes_total", "Bytes of SSTables written by flushes", () -> s.get().background().flushedBytes());
        counter("basalt_flush_seconds_total", "Time spent flushing", () -> s.get().background().flushNanos() / 1e9);
        counter("basalt_compactions_total", "Compactions finished", () -> s.get().background().compactions());
        gauge("basalt_compactions_running", "Compactions under way", () -> s.get().background().compactionsRunning());
        counter("basalt_compaction_seconds_total", "Time spent compacting", () -> s.get().background().compactionNanos() / 1e9);
        counter("basalt_compaction_read_bytes_total", "Bytes of SSTables compactions read",
                () -> s.get().background().compactionReadBytes());
        counter("basalt_compaction_written_bytes_total", "Bytes of SSTables compactions wrote",
                () -> s.get().background().compactedBytes());
        counter("basalt_wal_syncs_total", "Forces of the write-ahead log to the disk", () -> s.get().walSyncs());
        counter("basalt_wal_batches_total", "Batches of records written to the write-ahead log",
                () -> s.get().walBatches());
        counter("basalt_wal_bytes_total", "Bytes written to the write-ahead log", () -> s.get().walBytes());
        counter("basalt_write_stalls_total", "Times writers waited for room (too many files or memtables)",
                () -> s.get().background().stalls());
        counter("basalt_write_stall_seconds_total", "Time writers spent in stalls that ended",
                () -> s.get().background().stallNanos() / 1e9);
        gauge("basalt_memtable_bytes", "Bytes held by memtables, frozen ones included", () -> s.get().memtableBytes());
        counter("basalt_block_cache_hits_total", "Data blocks found in the block cache", () -> s.get().blockCacheHits());
        counter("basalt_block_cache_misses_total", "Data blocks read from a file", () -> s.get().blockCacheMisses());
        counter("basalt_block_cache_evictions_total", "Blocks evicted from the block cache to make room",
                () -> s.get().blockCacheEvictions());
        gauge("basalt_block_cache_bytes", "Bytes the cached blocks are charged", () -> s.get().blockCacheBytes());
        gauge("basalt_block_cache_capacity_bytes", "The block cache's size", () -> s.get().blockCacheCapacity());
        counter("basalt_row_cache_hits_total", "Gets answered from the row cache", () -> s.get().rowCacheHits());
        counter("basalt_row_cache_misses_total", "Gets the row cache could answer but did not hold",
                () -> s.get().rowCacheMisses());
        gauge("basalt_row_cache_bytes", "Bytes the row cache's entries are charged", () -> s.get().rowCacheBytes());
        gauge("basalt_buffer_pool_chunks_in_use", "Chunks of the block cache's buffer pool in use",
                () -> s.get().bufferChunksInUse());
        gauge("basalt_buffer_pool_chunks_max", "The most chunks the block cache's buffer pool can have",
                () -> s.get().bufferChunksMax());
        counter("basalt_lock_waits_total", "Table and row lock acquisitions that had to wait", () -> s.get().lockWaits());
        counter("basalt_lock_timeouts_total", "Lock waits that ran out of time", () -> s.get().lockTimeouts());
        gauge("basalt_read_only", "1 when the store refuses writes until reopened (see the log for why)",
                () -> s.get().readOnly() ? 1 : 0);
        gauge("basalt_tables", "Tables in the store", () -> s.get().tables().size());
        tableGauge("basalt_table_regions", "Regions of a table", s, t -> t.regions().size());
        tableGauge("basalt_table_files", "SSTables of a table", s, t -> t.files());
        tableGauge("basalt_table_size_bytes", "Bytes of SSTable data of a table", s, t -> t.sizeBytes());
        tableGauge("basalt_table_memtable_bytes", "Bytes in a table's memtables", s, t -> t.memtableBytes());
        tableCounter("basalt_table_read_requests_total", "Rows read from a table's regions (gets, rows scans returned)",
                s, t -> t.readRequests());
        tableCounter("basalt_table_write_requests_total", "Mutations applied to a table's regions", s,
                t -> t.writeRequests());
    }

    private void counter(String name, String help, java.util.function.DoubleSupplier value) {
        CounterWithCallback.builder().name(name).help(help).callback(cb -> cb.call(value.getAsDouble()))
                .register(registry);
    }

    private void gauge(String name, String help, java.util.function.DoubleSupplier value) {
        GaugeWithCallback.builder().name(name).help(help).callback(cb -> cb.call(value.getAsDouble()))
                .register(registry);
    }

    /**
     * A gauge per table, for the first {@link ServerConfig#metricsMaxTables()} tables by name; the
     * others' values summed under {@link #OTHER_TABLES}.
     */
    private void tableGauge(String name, String help, Supplier<StoreMetrics> s,
                            java.util.function.ToDoubleFunction<ServerStatus.Table> value) {
        GaugeWithCallback.builder().name(name).help(help).labelNames("table")
                .callback(cb -> perTable(s, value, cb::call)).register(registry);
    }

    /** A counter per table, bounded as {@link #tableGauge} is. */
    private void tableCounter(String name, String help, Supplier<StoreMetrics> s,
                              java.util.function.ToDoubleFunction<ServerStatus.Table> value) {
        CounterWithCallback.builder().name(name).help(help).labelNames("table")
                .callback(cb -> perTable(s, value, cb::call)).register(registry);
    }

    /** A sample of one table's (or {@link #OTHER_TABLES}') value. */
    private interface TableSample {
        void call(double value, String... labels);
    }

    private void perTable(Supplier<StoreMetrics> s, java.util.function.ToDoubleFunction<ServerStatus.Table> value,
                          TableSample sample) {
        List<ServerStatus.Table> tables = s.get().tables();
        double other = 0;
        for (int i = 0; i < tables.size(); i++) {
            if (i < maxTables) {
                sample.call(value.applyAsDouble(tables.get(i)), tables.get(i).name());
            } else {
                other += value.applyAsDouble(tables.get(i));
            }
        }
        if (tables.size() > maxTables) {
            sample.call(other, OTHER_TABLES);
        }
    }
}
