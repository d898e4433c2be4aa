package io.basalt.bench.engine;

import io.basalt.client.AsyncTable;
import io.basalt.client.Basalt;
import io.basalt.client.Connection;
import io.basalt.client.Durability;
import io.basalt.client.Put;
import io.basalt.client.StoreOptions;
import io.basalt.client.TableDescriptor;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * A single-row put into a store whose one table has {@code regions} regions: whether a write's
 * cost grows with the number of regions the store holds. Every put goes through the store's
 * write-room check (is there memory for it, is a flush to be asked for), which until the
 * twenty-sixth session summed every region's memtables on each write. HBase users run a few
 * hundred regions on a server.
 *
 * <p>Puts go to keys spread over the whole table, one cell of 100 bytes each, acknowledged
 * without waiting for the disk ({@link Durability#ASYNC}, the log forced each second).
 * Flushes and compactions run as they would; with many regions each memtable stays small, so
 * flushes are asked for when the memtables together reach their memory limit.
 *
 * <p>Not part of a suite (it compares Basalt with itself at several region counts, not with
 * another implementation): run it with JMH's own main on the bench module's classpath, as
 * {@code docs/benchmarks.md} ("Region count and the write path") shows.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
public class RegionCountPutBenchmark {

    @Param({"1", "64", "512"})
    public int regions;

    private Path dir;
    private Connection store;
    private AsyncTable table;
    private final byte[] family = "f".getBytes(StandardCharsets.UTF_8);
    private final byte[] qualifier = "q".getBytes(StandardCharsets.UTF_8);
    private final byte[] value = new byte[100];

    /** The keys' space: "k" and eight hex digits, split evenly between the regions. */
    static byte[] key(long n) {
        return String.format("k%08x", n & 0xffffffffL).getBytes(StandardCharsets.US_ASCII);
    }

    @Setup(Level.Trial)
    public void open() throws Exception {
        dir = Files.createTempDirectory("basalt-bench-regions-");
        store = Basalt.open(dir, StoreOptions.defaults().withDurability(Durability.ASYNC).withRegionSplitSize(0));
        List<byte[]> splits = new ArrayList<>();
        for (int i = 1; i < regions; i++) {
            splits.add(key((0x1_0000_0000L * i) / regions));
        }
        store.admin().createTable(TableDescriptor.of("t", "f"), splits).get();
        table = store.table("t");
    }

    @TearDown(Level.Trial)
    public void close() throws Exception {
        store.close();
        EngineLoadBenchmark.delete(dir);
    }

    /** A thread's place in the key space: a Weyl sequence, so its keys land in every region. */
    @State(Scope.Thread)
    public static class Keys {
        long next = System.nanoTime();

        byte[] next() {
            next += 0x9E3779B97F4A7C15L;
            return key(next >>> 32);
        }
    }

    @Benchmark
    public Object put(Keys keys) throws Exception {
        return table.put(new Put(keys.next()).addColumn(family, qualifier, value)).get();
    }
}
