package io.basalt.engine;

import static org.assertj.core.api.Assertions.assertThat;

import io.basalt.bytes.Bytes;
import io.basalt.client.AsyncTable;
import io.basalt.client.CheckAndMutate;
import io.basalt.client.Connection;
import io.basalt.client.Durability;
import io.basalt.client.Get;
import io.basalt.client.Increment;
import io.basalt.client.Put;
import io.basalt.client.Result;
import io.basalt.client.StoreOptions;
import io.basalt.client.TableDescriptor;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLongArray;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Readers race writers of a few hot rows through a small row cache while flushes and compactions
 * run: no get may return a value older than one whose write was acknowledged before the get
 * began, nor go back in time for one reader. Each row has one writer, using each write path
 * (put, a batch of puts, increment, check-and-mutate), writing increasing values. Bounded: a
 * fixed number of writes per row, and a deadline.
 */
class RowCacheStressTest {

    private static final byte[] F = Bytes.utf8("f");
    private static final byte[] Q = Bytes.utf8("q");
    private static final int ROWS = 6;
    private static final int WRITES = 1_500;
    private static final long DEADLINE_NANOS = TimeUnit.SECONDS.toNanos(60);

    @TempDir
    Path dir;

    private static byte[] row(int i) {
        return Bytes.utf8("row" + i);
    }

    private static long valueOf(Result r) {
        return r.isEmpty() ? 0 : Increment.decode(r.latest(F, Q).value());
    }

    @Test
    void noGetReturnsAnAnswerOlderThanAnAcknowledgedWrite() throws Exception {
        StoreOptions options = StoreOptions.defaults().withDurability(Durability.ASYNC).withRegionSplitSize(0)
                .withMemtableFlushSize(64 * 1024).withRowCacheSize(64 * 1024).withCompaction(2, 50);
        Store store = Store.open(dir, options, System::currentTimeMillis, new StripedRegionLocks());
        try (Connection c = new EmbeddedConnection(store)) {
            c.admin().createTable(TableDescriptor.of("t", "f")).get(30, TimeUnit.SECONDS);
            AsyncTable t = c.table("t");
            AtomicLongArray acked = new AtomicLongArray(ROWS);
            AtomicBoolean writing = new AtomicBoolean(true);
            ConcurrentLinkedQueue<String> failures = new ConcurrentLinkedQueue<>();
            long deadline = System.nanoTime() + DEADLINE_NANOS;
            byte[] padding = new byte[200]; // so that the memtable fills and flushes often
            List<Thread> threads = new ArrayList<>();
            threads.add(Thread.ofPlatform().start(() -> {
                try {
                    for (long v = 1; v <= WRITES && System.nanoTime() < deadline; v++) {
                        t.put(new Put(row(0)).addColumn(F, Q, Increment.encode(v)).addColumn(F, Bytes.utf8("p"), padding))
                                .get(30, TimeUnit.SECONDS);
                        acked.set(0, v);
                        t.batch(List.of(new Put(row(1)).addColumn(F, Q, Increment.encode(v)),
                                new Put(row(2)).addColumn(F, Q, Increment.encode(v)).addColumn(F, Bytes.utf8("p"), padding)))
                                .forEach(f -> f.join());
                        acked.set(1, v);
                        acked.set(2, v);
                        t.increment(Increment.of("row3").addColumn(F, Q, 1)).get(30, TimeUnit.SECONDS);
                        acked.set(3, v);
                        t.checkAndMutate(CheckAndMutate.onRow(row(4)).always()
                                .then(new Put(row(4)).addColumn(F, Q, Increment.encode(v)))).get(30, TimeUnit.SECONDS);
                        acked.set(4, v);
                        t.put(new Put(row(5)).addColumn(F, Q, Increment.encode(v))).get(30, TimeUnit.SECONDS);
                        acked.set(5, v);
                    }
                } catch (Exception e) {
                    failures.add("writer: " + e);
                } finally {
                    writing.set(false);
                }
            }));
            threads.add(Thread.ofPlatform().start(() -> {
                try {
                    while (writing.get() && System.nanoTime() < deadline) {
                        c.admin().flush("t").get(30, TimeUnit.SECONDS);
                        Thread.sleep(20);
                    }
                } catch (Exception e) {
                    failures.add("flusher: " + e);
                }
            }));
            for (int reader = 0; reader < 3; reader++) {
                threads.add(Thread.ofPlatform().start(() -> {
                    long[] last = new long[ROWS];
                    int i = 0;
                    while (writing.get() && System.nanoTime() < deadline && failures.size() < 10) {
                        int r = i++ % ROWS;
                        long floor = acked.get(r);
                        long v = valueOf(t.get(new Get(row(r))).join());
                        if (v < floor) {
                            failures.add("row" + r + ": read " + v + " after " + floor + " was acknowledged");
                        }
                        if (v < last[r]) {
                            failures.add("row" + r + ": read " + v + " after reading " + last[r]);
                        }
                        last[r] = v;
                    }
                }));
            }
            for (Thread thread : threads) {
                thread.join(TimeUnit.NANOSECONDS.toMillis(DEADLINE_NANOS) + 30_000);
            }
            assertThat(failures).isEmpty();
            for (int r = 0; r < ROWS; r++) {
                assertThat(valueOf(t.get(new Get(row(r))).join())).isEqualTo(acked.get(r));
            }
            assertThat(acked.get(5)).as("the writer finished its writes").isEqualTo(WRITES);
            assertThat(store.rowCache().hits()).as("the cache answered some gets").isPositive();
            assertThat(store.statistics().flushes()).as("flushes ran").isPositive();
        }
    }
}
