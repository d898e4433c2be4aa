package io.basalt.bench.scan;

import io.basalt.cell.Cell;
import io.basalt.client.Result;
import io.basalt.client.net.Messages;
import io.basalt.protocol.Frame;
import io.basalt.protocol.FrameDecoder;
import io.basalt.protocol.FrameLayout;
import io.basalt.protocol.OpCode;
import io.basalt.protocol.Status;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
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
 *   <li>{@code basalt}: the batch is decoded once, as a scanner decodes it
 *       ({@link Messages.EncodedResults#decode}), and the caller is served from that list;</li>
 *   <li>{@code copy-to-list}: our model of HBase 1.3's {@code ClientScanner} path the seed
 *       describes: the same decode into an array, then {@code addResultsToList} copies it into a
 *       new {@code ArrayList}, then {@code loadCache} copies each result into the scanner's cache
 *       queue, and the caller polls the cache.</li>
 * </ul>
 * Both decode the same bytes the same way, so the difference is the copying alone.
 *
 * <p>{@code read}: what the caller does with each row. {@code rows} takes the result and looks no
 * further (the seed's measure: the copy against the rest of handing rows over); {@code cells}
 * also reads every cell's value, as the loopback scan does. A result's cells are checked when
 * its cell list is first read, so under {@code rows} the checking is not paid at all, and under
 * {@code cells} it is, by both implementations alike.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
public class ResultPathBenchmark {

    static final int QUALIFIERS = 50;

    private static final String SOURCE = "a benchmark batch";

    @Param({"basalt", "copy-to-list"})
    public String impl;

    @Param({"100", "1000"})
    public int rows;

    @Param({"rows", "cells"})
    public String read;

    private ByteBuf batch;
    private boolean readCells;

    @Setup(Level.Trial)
    public void encode() {
        batch = throughDecoder(Rows.make(rows, QUALIFIERS));
        if (!impl.equals("basalt") && !impl.equals("copy-to-list")) {
            throw new IllegalArgumentException("unknown impl " + impl);
        }
        if (!read.equals("rows") && !read.equals("cells")) {
            throw new IllegalArgumentException("unknown read " + read);
        }
        readCells = read.equals("cells");
    }

    @TearDown(Level.Trial)
    public void release() {
        batch.release();
    }

    /**
     * The body of a {@code SCAN_NEXT} response holding {@code results}, as the client's frame
     * decoder hands it over: the frame is encoded, cut into the 64 KiB pieces a socket delivers,
     * and fed through a {@link FrameDecoder}.
     */
    static ByteBuf throughDecoder(List<Result> results) {
        ByteBuf frame = Unpooled.directBuffer();
        int start = FrameLayout.begin(frame, 1, OpCode.SCAN_NEXT, Status.OK, true);
        Messages.writeResults(frame, results);
        FrameLayout.finish(frame, start);
        EmbeddedChannel channel = new EmbeddedChannel(new FrameDecoder(FrameLayout.DEFAULT_MAX_FRAME_SIZE));
        ByteBuf handshake = Unpooled.buffer();
        FrameLayout.writeHandshake(handshake, FrameLayout.VERSION, 0);
        channel.writeInbound(handshake);
        channel.readInbound();
        while (frame.isReadable()) {
            channel.writeInbound(frame.readRetainedSlice(Math.min(64 * 1024, frame.readableBytes())));
        }
        frame.release();
        Frame decoded = channel.readInbound();
        channel.finishAndReleaseAll();
        return decoded.body();
    }

    @Benchmark
    public void resultPath(Blackhole bh) {
        ByteBuf body = batch.duplicate();
        if (impl.equals("basalt")) {
            List<Result> results = Messages.readEncodedResults(body).decode(SOURCE);
            for (int i = 0, n = results.size(); i < n; i++) {
                use(results.get(i), bh);
            }
        } else {
            Result[] fromServer = Messages.readEncodedResults(body).decode(SOURCE).toArray(Result[]::new);
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
                use(r, bh);
            }
        }
    }

    private void use(Result r, Blackhole bh) {
        bh.consume(r);
        if (readCells) {
            List<Cell> cells = r.cells();
            for (int i = 0, n = cells.size(); i < n; i++) {
                bh.consume(cells.get(i).value());
            }
        }
    }
}
