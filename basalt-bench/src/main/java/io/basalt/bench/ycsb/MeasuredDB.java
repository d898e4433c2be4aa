package io.basalt.bench.ycsb;

import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.Vector;
import java.util.concurrent.atomic.LongAdder;
import org.HdrHistogram.Recorder;
import site.ycsb.ByteIterator;
import site.ycsb.DB;
import site.ycsb.DBException;
import site.ycsb.Status;

/**
 * Wraps the DB under test: each call's latency goes into one HdrHistogram recorder per operation
 * type (microseconds), failures are counted, and the bytes of keys and values written are summed
 * for write amplification. Shared by the threads of a phase; recorders are thread-safe.
 */
final class MeasuredDB extends DB {

    /** Operation types, in the order tables print them. */
    enum Op { READ, UPDATE, INSERT, SCAN, DELETE }

    /** What every thread's wrapper records into. */
    static final class Meters {
        final Recorder[] latency = new Recorder[Op.values().length];
        final LongAdder failures = new LongAdder();
        final LongAdder bytesWritten = new LongAdder();
        volatile Status firstFailure;

        Meters() {
            for (int i = 0; i < latency.length; i++) {
                latency[i] = new Recorder(3);
            }
        }
    }

    private final DB db;
    private final Meters meters;

    MeasuredDB(DB db, Meters meters) {
        this.db = db;
        this.meters = meters;
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

    private Status record(Op op, long started, Status status) {
        meters.latency[op.ordinal()].recordValue(Math.max(1, (System.nanoTime() - started) / 1000));
        if (!status.isOk()) {
            meters.failures.increment();
            if (meters.firstFailure == null) {
                meters.firstFailure = status;
            }
        }
        return status;
    }

    private void written(String key, Map<String, ByteIterator> values) {
        long bytes = key.length();
        for (Map.Entry<String, ByteIterator> e : values.entrySet()) {
            bytes += e.getKey().length() + e.getValue().bytesLeft();
        }
        meters.bytesWritten.add(bytes);
    }

    @Override
    public Status read(String table, String key, Set<String> fields, Map<String, ByteIterator> result) {
        long t = System.nanoTime();
        return record(Op.READ, t, db.read(table, key, fields, result));
    }

    @Override
    public Status scan(String table, String startkey, int recordcount, Set<String> fields,
                       Vector<HashMap<String, ByteIterator>> result) {
        long t = System.nanoTime();
        return record(Op.SCAN, t, db.scan(table, startkey, recordcount, fields, result));
    }

    @Override
    public Status update(String table, String key, Map<String, ByteIterator> values) {
        written(key, values);
        long t = System.nanoTime();
        return record(Op.UPDATE, t, db.update(table, key, values));
    }

    @Override
    public Status insert(String table, String key, Map<String, ByteIterator> values) {
        written(key, values);
        long t = System.nanoTime();
        return record(Op.INSERT, t, db.insert(table, key, values));
    }

    @Override
    public Status delete(String table, String key) {
        long t = System.nanoTime();
        return record(Op.DELETE, t, db.delete(table, key));
    }
}
