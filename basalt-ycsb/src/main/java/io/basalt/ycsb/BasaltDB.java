package io.basalt.ycsb;

import io.basalt.cell.Cell;
import io.basalt.cell.EncodedCell;
import io.basalt.client.AsyncTable;
import io.basalt.client.BufferedMutator;
import io.basalt.client.Delete;
import io.basalt.client.Get;
import io.basalt.client.Mutation;
import io.basalt.client.Put;
import io.basalt.client.Result;
import io.basalt.client.ResultScanner;
import io.basalt.client.Scan;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.Vector;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import site.ycsb.ByteArrayByteIterator;
import site.ycsb.ByteIterator;
import site.ycsb.DB;
import site.ycsb.DBException;
import site.ycsb.Status;

/**
 * YCSB's {@link DB} for Basalt: one row per record, one column per field in one family, as YCSB's
 * HBase binding stores them. YCSB makes one instance per client thread; the instances of one
 * process share one connection per URI (an embedded store can be open only once per process).
 *
 * <p>Properties ({@link BindingOptions} has their defaults and checks): {@code basalt.uri} (a
 * directory or {@code file:} URI for an embedded store, {@code basalt://host:port[,...]} for a
 * server or cluster), {@code basalt.family} (or HBase's {@code columnfamily}), {@code
 * basalt.clientbuffering} and {@code basalt.writebuffersize} (puts and deletes go through a {@link
 * BufferedMutator}, acknowledged when YCSB's thread ends), {@code basalt.durability} and the store
 * sizes for embedded stores, {@code basalt.createtable}, {@code basalt.timeout} and {@code debug}.
 */
public final class BasaltDB extends DB {

    /** Failures printed per instance before the rest are only counted (YCSB counts every one). */
    static final int PRINTED_FAILURES = 10;

    private BindingOptions options;
    private SharedConnections.Lease lease;
    private final Map<String, AsyncTable> tables = new HashMap<>();
    private final Map<String, BufferedMutator> mutators = new HashMap<>();
    /** Buffered writes that failed after YCSB counted them: reported by a later call and by cleanup. */
    private final AtomicLong bufferedFailures = new AtomicLong();
    private final AtomicReference<Throwable> bufferedFailure = new AtomicReference<>();
    private byte[] family;
    private long failures;
    private final FieldNames names = new FieldNames();

    @Override
    public void init() throws DBException {
        try {
            options = BindingOptions.from(getProperties());
            lease = SharedConnections.acquire(options);
        } catch (IllegalArgumentException e) {
            throw new DBException("basalt-ycsb: " + e.getMessage(), e);
        } catch (RuntimeException e) {
            throw new DBException("basalt-ycsb: cannot connect to " + getProperties().getProperty(BindingOptions.URI)
                    + ": " + e.getMessage(), e);
        }
        family = options.family().getBytes(StandardCharsets.UTF_8);
    }

    /** The table handle, after checking once per connection that the table exists with the family. */
    private AsyncTable table(String name) throws Exception {
        AsyncTable table = tables.get(name);
        if (table == null) {
            lease.ensureTable(name, options);
            table = lease.connection().table(name);
            tables.put(name, table);
        }
        return table;
    }

    private BufferedMutator mutator(String name) throws Exception {
        BufferedMutator mutator = mutators.get(name);
        if (mutator == null) {
            table(name);
            mutator = lease.connection().bufferedMutator(name).writeBufferSize(options.writeBufferSize()).build();
            mutators.put(name, mutator);
        }
        return mutator;
    }

    @Override
    public Status read(String table, String key, Set<String> fields, Map<String, ByteIterator> result) {
        try {
            Get get = new Get(bytes(key));
            if (fields == null) {
                get.addFamily(family);
            } else {
                for (String field : fields) {
                    get.addColumn(family, names.qualifier(field));
                }
            }
            Result row = await(table(table).get(get));
            debug("read", table, key, row.size() + " cells");
            if (row.isEmpty()) {
                return Status.NOT_FOUND;
            }
            copy(row, result);
            return Status.OK;
        } catch (Exception e) {
            return failed("read", key, e);
        }
    }

    @Override
    public Status scan(String table, String startkey, int recordcount, Set<String> fields,
                       Vector<HashMap<String, ByteIterator>> result) {
        Scan scan = new Scan().withStartRow(bytes(startkey)).setLimit(recordcount)
                .setCaching(Math.max(1, Math.min(recordcount, 10_000)));
        if (fields == null) {
            scan.addFamily(family);
        } else {
            for (String field : fields) {
                scan.addColumn(family, names.qualifier(field));
            }
        }
        try (ResultScanner scanner = table(table).scanner(scan)) {
            for (Result row = scanner.next(); row != null && result.size() < recordcount; row = scanner.next()) {
                HashMap<String, ByteIterator> values = HashMap.newHashMap(row.size());
                copy(row, values);
                result.add(values);
            }
            debug("scan", table, startkey, result.size() + " rows");
            return Status.OK;
        } catch (Exception e) {
            return failed("scan", startkey, e);
        }
    }

    @Override
    public Status update(String table, String key, Map<String, ByteIterator> values) {
        return write("update", table, key, values);
    }

    @Override
    public Status insert(String table, String key, Map<String, ByteIterator> values) {
        return write("insert", table, key, values);
    }

    private Status write(String operation, String table, String key, Map<String, ByteIterator> values) {
        try {
            Put put = new Put(bytes(key));
            for (Map.Entry<String, ByteIterator> field : values.entrySet()) {
                put.addColumn(family, names.qualifier(field.getKey()), field.getValue().toArray());
            }
            debug(operation, table, key, values.size() + " fields");
            if (options.clientBuffering()) {
                return buffered(mutator(table), put);
            }
            await(table(table).put(put));
            return Status.OK;
        } catch (Exception e) {
            return failed(operation, key, e);
        }
    }

    @Override
    public Status delete(String table, String key) {
        try {
            Delete delete = new Delete(bytes(key));
            debug("delete", table, key, "");
            if (options.clientBuffering()) {
                return buffered(mutator(table), delete);
            }
            await(table(table).delete(delete));
            return Status.OK;
        } catch (Exception e) {
            return failed("delete", key, e);
        }
    }

    /**
     * Hands a mutation to the mutator. YCSB counts it as done (as its HBase binding does with
     * client-side buffering); a failure shows in a later call's status or in {@link #cleanup}.
     */
    private Status buffered(BufferedMutator mutator, Mutation mutation) {
        mutator.mutate(mutation).whenComplete((ok, e) -> {
            if (e != null) {
                bufferedFailures.incrementAndGet();
                bufferedFailure.compareAndSet(null, e);
            }
        });
        return bufferedFailures.get() == 0 ? Status.BATCHED_OK : Status.ERROR;
    }

    /**
     * Sends what the mutators still hold and waits for it, then gives the connection back (the last
     * instance closes it).
     *
     * @throws DBException when a buffered write failed: YCSB must not report it as done
     */
    @Override
    public void cleanup() throws DBException {
        if (lease == null) {
            return;
        }
        DBException failure = null;
        try {
            for (BufferedMutator mutator : mutators.values()) {
                try {
                    mutator.flush().get(options.timeoutMillis(), TimeUnit.MILLISECONDS);
                } catch (ExecutionException | TimeoutException e) {
                    // counted by the mutation's own future below
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    failure = new DBException("basalt-ycsb: interrupted while flushing buffered writes", e);
                } finally {
                    mutator.close();
                }
            }
            if (bufferedFailures.get() > 0) {
                Throwable first = bufferedFailure.get();
                failure = new DBException("basalt-ycsb: " + bufferedFailures.get() + " buffered write(s) failed; the"
                        + " first: " + (first == null ? "unknown" : message(first)), first);
            }
        } finally {
            mutators.clear();
            tables.clear();
            SharedConnections.Lease done = lease;
            lease = null;
            done.release();
        }
        if (failure != null) {
            throw failure;
        }
    }

    private <T> T await(CompletableFuture<T> future) throws Exception {
        try {
            return future.get(options.timeoutMillis(), TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            throw e.getCause() instanceof Exception cause ? cause : e;
        } catch (TimeoutException e) {
            future.cancel(false);
            throw new TimeoutException("no answer within " + options.timeoutMillis() + " ms (basalt.timeout)");
        }
    }

    /**
     * The row's cells as YCSB's fields. A cell read from a file or a memtable lies whole in a heap
     * array of its own that nothing writes again ({@link EncodedCell#array()}): its value is read
     * in place and its name found from it ({@link FieldNames}), where copying both out first was
     * two arrays per field and a quarter of what a scan allocated. YCSB only reads the values it
     * is given.
     */
    private void copy(Result row, Map<String, ByteIterator> into) {
        for (Cell cell : row.cells()) {
            if (cell instanceof EncodedCell e && e.array() != null) {
                byte[] bytes = e.array();
                into.put(names.name(bytes, (int) e.qualifierOffset(), e.qualifierLength()),
                        new ByteArrayByteIterator(bytes, (int) e.valueOffset(), e.valueLength()));
            } else {
                byte[] qualifier = cell.qualifierBytes();
                into.put(names.name(qualifier, 0, qualifier.length), new ByteArrayByteIterator(cell.valueBytes()));
            }
        }
    }

    private Status failed(String operation, String key, Exception e) {
        if (e instanceof InterruptedException) {
            Thread.currentThread().interrupt();
        }
        failures++;
        if (failures <= PRINTED_FAILURES || options.debug()) {
            System.err.println("basalt-ycsb: " + operation + " '" + key + "' failed: " + message(e)
                    + (failures == PRINTED_FAILURES && !options.debug()
                    ? " (further failures of this thread are counted, not printed; set debug=true to see all)" : ""));
        }
        return Status.ERROR;
    }

    /**
     * The metrics of the embedded store the binding's threads share for {@code uri}, while one is
     * open; empty for a server or when none is open. For benchmarks that report what the store's
     * caches did.
     */
    public static java.util.Optional<io.basalt.engine.StoreMetrics> embeddedMetrics(String uri) {
        return SharedConnections.open(uri).filter(io.basalt.engine.StoreMetrics::available)
                .map(io.basalt.engine.StoreMetrics::of);
    }

    /**
     * Runs a major compaction of {@code table} in the embedded store that {@code uri} shares and
     * waits for it (for benchmark experiments: reads over one file per family); false when no
     * embedded store is open at {@code uri}.
     */
    public static boolean compactEmbedded(String uri, String table) throws Exception {
        var connection = SharedConnections.open(uri);
        if (connection.isEmpty()) {
            return false;
        }
        connection.get().admin().compact(table).get();
        return true;
    }

    private static String message(Throwable e) {
        return e.getClass().getSimpleName() + (e.getMessage() == null ? "" : ": " + e.getMessage());
    }

    private void debug(String operation, String table, String key, String detail) {
        if (options.debug()) {
            System.err.println("basalt-ycsb: " + operation + " " + table + " '" + key + "' " + detail);
        }
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
