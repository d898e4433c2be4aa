package io.basalt.bench.refcount;

import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Group;
import org.openjdk.jmh.annotations.GroupThreads;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.infra.BenchmarkParams;

/**
 * Suite {@code refcount} (seed HBASE-27730): what a reference-counted off-heap buffer's liveness
 * check costs on a scan, and what its retain/release pair costs.
 *
 * <ul>
 *   <li>{@code scan}: the sum of every long (big-endian) of 256 MiB held in 4,096 pooled blocks of
 *       64 KiB, read through each implementation's absolute {@code getLong(index)}; time per whole
 *       256 MiB pass. The data is far larger than the caches, as a block-cache scan's is.</li>
 *   <li>{@code retainRelease}: one {@code retain()} and one {@code release()} of a live buffer, one
 *       thread.</li>
 *   <li>{@code retainReleaseShared}: the same pair from two threads at once on the same buffer (a
 *       JMH group of two threads; this state is benchmark-scoped, so both threads see the same
 *       buffer, and JMH rounds the suite's one thread up to the group's two, so the table shows 2
 *       threads): the cost of the contended count's cache line.</li>
 * </ul>
 *
 * {@code impl}: {@code raw} (unchecked {@code MemorySegment}s, the physical limit; its count is one
 * atomic add each way), {@code basalt}, {@code hbase-2.6.4} ({@code ByteBuffAllocator} pool,
 * {@code SingleByteBuff}), {@code netty} ({@code PooledByteBufAllocator} direct {@code ByteBuf},
 * default checks). One adapter per impl, see {@link PooledBlocks}.
 *
 * <p>Run: {@code ./basalt bench refcount} (or {@code --quick}).
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
public class RefcountBenchmark {

    static final int BLOCK_SIZE = 64 * 1024;
    static final long SCAN_BYTES = 256L << 20;
    static final int SCAN_BLOCKS = (int) (SCAN_BYTES / BLOCK_SIZE);

    @Param({"raw", "basalt", "hbase-2.6.4", "netty"})
    public String impl;

    private PooledBlocks blocks;

    /**
     * Only {@code scan} needs the 256 MiB, and it runs with every library's production leak
     * detection (sampling touches no access path). The retain/release methods get one block and
     * no leak detection: HBase's sampled buffers (1 in 128) record a stack trace on every retain
     * and release, so with it on, a fork's result would hinge on whether its one buffer was
     * sampled (docs/benchmarks.md gives that cost).
     */
    @Setup(Level.Trial)
    public void setUp(BenchmarkParams params) {
        boolean scan = params.getBenchmark().endsWith(".scan");
        blocks = PooledBlocks.of(impl, scan ? SCAN_BLOCKS : 1, BLOCK_SIZE, scan);
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        blocks.close();
    }

    /** Time to sum all 256 MiB once. */
    @Benchmark
    @OutputTimeUnit(TimeUnit.MILLISECONDS)
    public long scan() {
        return blocks.scan();
    }

    /** Time of one retain + release, uncontended. */
    @Benchmark
    @OutputTimeUnit(TimeUnit.NANOSECONDS)
    public void retainRelease() {
        blocks.retainRelease();
    }

    /** Time of one retain + release while a second thread does the same on the same buffer. */
    @Benchmark
    @Group("retainReleaseShared")
    @GroupThreads(2)
    @OutputTimeUnit(TimeUnit.NANOSECONDS)
    public void retainReleaseShared() {
        blocks.retainRelease();
    }
}
