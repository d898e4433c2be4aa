package io.basalt.ycsb;

import static org.assertj.core.api.Assertions.assertThat;

import io.basalt.server.BasaltServer;
import io.basalt.server.ServerConfig;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.Vector;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import site.ycsb.ByteIterator;
import site.ycsb.DB;
import site.ycsb.DBException;
import site.ycsb.Status;
import site.ycsb.measurements.Measurements;
import site.ycsb.measurements.exporter.TextMeasurementsExporter;
import site.ycsb.workloads.CoreWorkload;

/**
 * YCSB's own CoreWorkload, with the property files this module ships, through the binding:
 * loaded and run from several threads, embedded and against a server on loopback, with every
 * operation's status counted. With {@code dataintegrity} on, YCSB checks each value it reads
 * against the one it wrote; a read that returned other bytes shows as a VERIFY status other than OK.
 */
class CoreWorkloadTest {

    private static final int RECORDS = 400;
    private static final int OPERATIONS_PER_THREAD = 300;
    private static final int THREADS = 3;

    @TempDir
    Path dir;

    static {
        // CoreWorkload records read-modify-write latency in YCSB's global measurements, which
        // YCSB's Client configures before making a workload.
        Measurements.setProperties(new Properties());
    }

    @Test
    void everyWorkloadRunsCleanOnAnEmbeddedStore() throws Exception {
        runAll(dir.resolve("store").toString());
    }

    @Test
    void everyWorkloadRunsCleanAgainstAServer() throws Exception {
        try (BasaltServer server = BasaltServer.start(ServerConfig.defaults().withPort(0)
                .withDataDir(dir.resolve("server")))) {
            runAll("basalt://127.0.0.1:" + server.address().getPort());
        }
    }

    private void runAll(String uri) throws Exception {
        Map<String, AtomicLong> statuses = new ConcurrentHashMap<>();
        run(uri, "workloada", true, statuses);
        for (String workload : List.of("workloada", "workloadb", "workloadc", "workloadd", "workloade",
                "workloadf")) {
            run(uri, workload, false, statuses);
        }
        assertThat(statuses.keySet()).as("statuses seen, by operation").allMatch(k -> k.endsWith(" OK"));
        for (String op : List.of("insert", "read", "update", "scan")) {
            assertThat(statuses).as(op + " ran").containsKey(op + " OK");
        }
        assertThat(SharedConnections.openCount()).isZero();
        // YCSB's own check of every value read (dataintegrity=true) lands in its measurements.
        ByteArrayOutputStream report = new ByteArrayOutputStream();
        try (TextMeasurementsExporter exporter = new TextMeasurementsExporter(report)) {
            Measurements.getMeasurements().exportMeasurements(exporter);
        }
        String verified = report.toString(StandardCharsets.UTF_8).lines().filter(l -> l.startsWith("[VERIFY], Return="))
                .collect(Collectors.joining("\n"));
        assertThat(verified).as("YCSB's value checks").startsWith("[VERIFY], Return=OK").doesNotContain("\n");
    }

    private static Path workloads() {
        Path here = Path.of("workloads");
        return Files.isDirectory(here) ? here : Path.of("basalt-ycsb", "workloads");
    }

    /** One YCSB phase: {@code THREADS} client threads, as YCSB's Client runs them, each with its own DB. */
    private static void run(String uri, String workloadFile, boolean load, Map<String, AtomicLong> statuses)
            throws Exception {
        Properties p = new Properties();
        try (var in = Files.newBufferedReader(workloads().resolve(workloadFile))) {
            p.load(in);
        }
        p.setProperty("recordcount", String.valueOf(RECORDS));
        p.setProperty("operationcount", String.valueOf(OPERATIONS_PER_THREAD * THREADS));
        p.setProperty("dataintegrity", "true");
        p.setProperty("fieldlengthdistribution", "constant");
        p.setProperty(BindingOptions.URI, uri);
        if (load) {
            p.setProperty("insertcount", String.valueOf(RECORDS));
        }
        CoreWorkload workload = new CoreWorkload();
        workload.init(p);
        List<Throwable> failures = new ArrayList<>();
        List<Thread> threads = new ArrayList<>();
        for (int t = 0; t < THREADS; t++) {
            int id = t;
            threads.add(Thread.ofPlatform().start(() -> {
                try {
                    DB db = new Counting(statuses);
                    db.setProperties(p);
                    db.init();
                    Object state = workload.initThread(p, id, THREADS);
                    int ops = load ? RECORDS / THREADS + (id < RECORDS % THREADS ? 1 : 0) : OPERATIONS_PER_THREAD;
                    for (int i = 0; i < ops; i++) {
                        boolean ok = load ? workload.doInsert(db, state) : workload.doTransaction(db, state);
                        if (!ok) {
                            throw new AssertionError(workloadFile + ": operation " + i + " failed");
                        }
                    }
                    db.cleanup();
                } catch (Throwable e) {
                    synchronized (failures) {
                        failures.add(e);
                    }
                }
            }));
        }
        for (Thread t : threads) {
            t.join();
        }
        workload.cleanup();
        assertThat(failures).as(workloadFile + (load ? " load" : " run")).isEmpty();
    }

    /** The binding, with each call's status counted by operation. */
    private static final class Counting extends DB {
        private final BasaltDB db = new BasaltDB();
        private final Map<String, AtomicLong> statuses;

        Counting(Map<String, AtomicLong> statuses) {
            this.statuses = statuses;
        }

        private Status count(String op, Status status) {
            statuses.computeIfAbsent(op + " " + status.getName(), k -> new AtomicLong()).incrementAndGet();
            return status;
        }

        @Override
        public void init() throws DBException {
            db.setProperties(getProperties());
            db.init();
        }

        @Override
        public void cleanup() throws DBException {
            db.cleanup();
        }

        @Override
        public Status read(String table, String key, Set<String> fields, Map<String, ByteIterator> result) {
            return count("read", db.read(table, key, fields, result));
        }

        @Override
        public Status scan(String table, String startkey, int recordcount, Set<String> fields,
                           Vector<HashMap<String, ByteIterator>> result) {
            return count("scan", db.scan(table, startkey, recordcount, fields, result));
        }

        @Override
        public Status update(String table, String key, Map<String, ByteIterator> values) {
            return count("update", db.update(table, key, values));
        }

        @Override
        public Status insert(String table, String key, Map<String, ByteIterator> values) {
            return count("insert", db.insert(table, key, values));
        }

        @Override
        public Status delete(String table, String key) {
            return count("delete", db.delete(table, key));
        }
    }
}
