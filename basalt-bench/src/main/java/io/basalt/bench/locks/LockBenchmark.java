package io.basalt.bench.locks;

import java.nio.charset.StandardCharsets;
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

/**
 * Suite {@code locks} (HDDS-8765): throughput of lock + unlock on a shared lock table, all threads
 * together, in operations per microsecond.
 *
 * <ul>
 *   <li>{@code hotRead}: every thread read-locks the same key, the seed's experiment (100 threads
 *       reading one bucket) and Basalt's hot path (every operation read-locks its table).
 *   <li>{@code uniformRead}: read-locks a random key of {@value #KEYS}.
 *   <li>{@code mixed}: a random key of {@value #KEYS}, write-locked one time in ten.
 * </ul>
 *
 * <p>{@code basalt} and {@code guava-striped} both have {@value #STRIPES} stripes (Ozone's
 * default); {@code dynamic-table} has an entry per key in use. Nothing runs under the lock: this
 * is the cost of the lock itself. Run: {@code ./basalt bench locks} (or {@code --quick}).
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
public class LockBenchmark {

    static final int KEYS = 100_000;
    static final int STRIPES = 512;

    @Param({"basalt", "dynamic-table", "guava-striped"})
    public String impl;

    private ResourceLocks locks;
    private byte[][] keys;
    private byte[] hot;

    /** Each thread's own random keys (xorshift: no shared state, a few cycles per draw). */
    @State(Scope.Thread)
    public static class Draw {
        private long x = System.nanoTime() | 1;

        int next() {
            x ^= x << 13;
            x ^= x >>> 7;
            x ^= x << 17;
            return (int) (x >>> 33);
        }
    }

    @Setup(Level.Trial)
    public void setUp() {
        locks = ResourceLocks.of(impl, STRIPES);
        keys = new byte[KEYS][];
        for (int i = 0; i < KEYS; i++) {
            keys[i] = String.format("table-%08d", i).getBytes(StandardCharsets.US_ASCII);
        }
        hot = "hot-table".getBytes(StandardCharsets.US_ASCII);
    }

    ResourceLocks locks() {
        return locks;
    }

    @Benchmark
    public Object hotRead() {
        Object token = locks.lock(hot, false);
        locks.unlock(hot, token, false);
        return token;
    }

    @Benchmark
    public Object uniformRead(Draw draw) {
        byte[] key = keys[draw.next() % KEYS];
        Object token = locks.lock(key, false);
        locks.unlock(key, token, false);
        return token;
    }

    @Benchmark
    public Object mixed(Draw draw) {
        int r = draw.next();
        byte[] key = keys[r % KEYS];
        boolean write = (r >>> 20) % 10 == 0;
        Object token = locks.lock(key, write);
        locks.unlock(key, token, write);
        return token;
    }
}
