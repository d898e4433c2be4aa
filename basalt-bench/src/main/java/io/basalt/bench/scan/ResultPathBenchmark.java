package io.basalt.bench.scan;

import io.basalt.client.Result;
import io.basalt.client.net.Messages;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
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
import org.openjdk.jmh.infra.Blackhole;

/**
 * Suite {@code scan}, method {@code resultPath} (HBASE-20866): what the client does with one
 * server batch of {@code rows} rows of 50 cells, from the frame body to the caller having seen
 * every row.
 *
 * <ul>
 *   <li>{@code basalt}: the batch is decoded once ({@link Messages#readResults}) and the caller is
 *       served from that list;</li>
 *   <li>{@code copy-to-list}: our model of HBase 1.3's {@code ClientScanner} path the seed
 *       describes: the same decode into an array, then {@code addResultsToList} copies it into a
 *       new {@code ArrayList}, then {@code loadCache} copies each result into the scanner's cache
 *       queue, and the caller polls the cache.</li>
 * </ul>
 * Both decode the same bytes the same way, so the difference is the copying alone.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
public class ResultPathBenchmark {

    static final int QUALIFIERS = 50;

    @Param({"basalt", "copy-to-list"})
    public String impl;

    @Param({"100", "1000"})
    public int rows;

    private ByteBuf batch;

    @Setup(Level.Trial)
    public void encode() {
        batch = Unpooled.directBuffer();
        Messages.writeResults(batch, Rows.make(rows, QUALIFIERS));
        if (!impl.equals("basalt") && !impl.equals("copy-to-list")) {
            throw new IllegalArgumentException("unknown impl " + impl);
        }
    }

    @TearDown(Level.Trial)
    public void release() {
        batch.release();
    }

    @Benchmark
    public void resultPath(Blackhole bh) {
        ByteBuf body = batch.duplicate();
        if (impl.equals("basalt")) {
            List<Result> results = Messages.readResults(body);
            for (int i = 0, n = results.size(); i < n; i++) {
                bh.consume(results.get(i));
            }
        } else {
            Result[] fromServer = Messages.readResults(body).toArray(Result[]::new);
            // addResultsToList: the array becomes a new list...
            List<Result> toAdd = new ArrayList<>(fromServer.length);
            toAdd.addAll(Arrays.asList(fromServer));
            // ...loadCache: each one is added to the scanner's cache...
            ArrayDeque<Result> cache = new ArrayDeque<>();
            for (Result r : toAdd) {
                cache.add(r);
            }
            // ...and the caller polls the cache.
            Result r;
            while ((r = cache.poll()) != null) {
                bh.consume(r);
            }
        }
    }
}
