package io.basalt.bench.scan;

import io.basalt.cell.Cell;
import io.basalt.cell.CellLayout;
import io.basalt.client.AsyncTable;
import io.basalt.client.Result;
import io.basalt.client.ResultScanner;
import io.basalt.client.Scan;
import io.basalt.client.net.ClientOptions;
import io.basalt.client.net.RemoteConnection;
import io.basalt.server.BasaltServer;
import io.basalt.server.ServerConfig;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Path;
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
 * Suite {@code scan}, method {@code loopback}: one scan of {@code scanRows} rows of 50 cells (the
 * seed's slow case) over 127.0.0.1, time per scan, next to the raw loopback bandwidth measured in
 * the same run.
 *
 * <ul>
 *   <li>{@code basalt}: a {@link ResultScanner} from the network client reads every row and every
 *       cell's value from a server ({@link RowSourceHandler}: rows from memory, real scanners,
 *       2 MiB batches) — so rows/s and bytes/s are the protocol's and the client's, not the
 *       engine's;</li>
 *   <li>{@code raw-loopback}: the same number of bytes (the encoded cells) written by one socket
 *       and read by another in 64 KiB chunks, blocking I/O, nothing decoded: the physical limit
 *       of this machine's loopback.</li>
 * </ul>
 * Rows/s is {@code scanRows} ÷ the score; bytes/s is the cell bytes ÷ the score (printed at setup).
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.SingleShotTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
public class LoopbackScanBenchmark {

    @Param({"basalt", "raw-loopback"})
    public String impl;

    @Param({"1000000"})
    public int scanRows;

    private long bytes;
    private BasaltServer server;
    private RemoteConnection client;
    private AsyncTable table;
    private ServerSocket rawServer;
    private Thread rawWriter;
    private volatile boolean stopping;

    @Setup(Level.Trial)
    public void start() throws Exception {
        List<Result> source = Rows.make(1000, ResultPathBenchmark.QUALIFIERS);
        long rowBytes = 0;
        for (Cell c : source.getFirst().cells()) {
            rowBytes += CellLayout.encodedLength(c);
        }
        bytes = rowBytes * scanRows;
        System.out.printf("%n[scan] %d rows x %d cells = %d cell bytes per scan%n", scanRows,
                ResultPathBenchmark.QUALIFIERS, bytes);
        switch (impl) {
            case "basalt" -> {
                server = BasaltServer.start(ServerConfig.builder().port(0).ioThreads(1)
                        .dataDir(Path.of("unused")).build(), _ -> new RowSourceHandler(source, scanRows));
                client = new RemoteConnection("127.0.0.1", server.address().getPort(), ClientOptions.defaults());
                table = client.table("t");
            }
            case "raw-loopback" -> startRaw();
            default -> throw new IllegalArgumentException("unknown impl " + impl);
        }
    }

    /** A writer that sends {@code bytes} bytes on each connection it accepts. */
    private void startRaw() throws IOException {
        rawServer = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        rawWriter = Thread.ofPlatform().daemon().name("raw-writer").start(() -> {
            byte[] chunk = new byte[64 * 1024];
            while (!stopping) {
                try (Socket s = rawServer.accept(); OutputStream out = s.getOutputStream()) {
                    long left = bytes;
                    while (left > 0) {
                        int n = (int) Math.min(chunk.length, left);
                        out.write(chunk, 0, n);
                        left -= n;
                    }
                } catch (IOException e) {
                    if (!stopping) {
                        throw new IllegalStateException(e);
                    }
                }
            }
        });
    }

    @Benchmark
    public long loopback(Blackhole bh) throws IOException {
        if (table != null) {
            long seen = 0;
            try (ResultScanner scanner = table.scanner(new Scan())) {
                for (Result r = scanner.next(); r != null; r = scanner.next()) {
                    List<Cell> cells = r.cells();
                    for (int i = 0, n = cells.size(); i < n; i++) {
                        bh.consume(cells.get(i).value());
                    }
                    seen++;
                }
            }
            if (seen != scanRows) {
                throw new IllegalStateException("scanned " + seen + " rows, expected " + scanRows);
            }
            return seen;
        }
        long read = 0;
        byte[] buf = new byte[64 * 1024];
        try (Socket s = new Socket(InetAddress.getLoopbackAddress(), rawServer.getLocalPort());
             InputStream in = s.getInputStream()) {
            for (int n = in.read(buf); n > 0; n = in.read(buf)) {
                read += n;
            }
        }
        if (read != bytes) {
            throw new IllegalStateException("read " + read + " bytes, expected " + bytes);
        }
        return read;
    }

    @TearDown(Level.Trial)
    public void stop() throws IOException {
        stopping = true;
        if (client != null) {
            client.close();
            server.close();
        }
        if (rawServer != null) {
            rawServer.close();
        }
    }
}
