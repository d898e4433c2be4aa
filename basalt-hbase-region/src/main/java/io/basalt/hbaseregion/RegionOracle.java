package io.basalt.hbaseregion;

import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Stream;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.CellUtil;
import org.apache.hadoop.hbase.HBaseConfiguration;
import org.apache.hadoop.hbase.HConstants;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptorBuilder;
import org.apache.hadoop.hbase.client.Durability;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.RegionInfo;
import org.apache.hadoop.hbase.client.RegionInfoBuilder;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.client.TableDescriptorBuilder;
import org.apache.hadoop.hbase.regionserver.HRegion;
import org.apache.hadoop.hbase.regionserver.RegionScanner;
import org.apache.hadoop.hbase.shaded.protobuf.ProtobufUtil;
import org.apache.hadoop.hbase.shaded.protobuf.generated.FilterProtos;
import org.apache.hadoop.hbase.util.Bytes;
import org.apache.hadoop.hbase.wal.WALFactory;

/**
 * Scans cells with a filter in a real HBase 2.6.4 region and prints what comes back.
 *
 * <p>Usage: {@code RegionOracle CASES RESULTS [timeoutMillis]}. Each line of {@code CASES} is one
 * scan: {@code reversed TAB versions TAB cells TAB filter}, where cells are
 * {@code row|family|qualifier|timestamp|value} joined by {@code ;} (bytes escaped as {@link CellText#esc}
 * does) and the filter is HBase's protobuf form in base64, or {@code -} for none. For each, a
 * fresh region of one table with families {@code f} and {@code g} (five versions each) takes the
 * cells, is scanned (every {@code next} call until it says there is no more, {@code
 * readVersions(versions)}, reversed or not), flushed to an HFile, and scanned again: the filter
 * is decoded anew for each scan, as a server does per request. {@code RESULTS} gets one line per
 * case, {@code memstore TAB hfile}, each {@code OK}, a space and the cells as
 * {@code row/family:qualifier@ts=value} joined by {@code ;}, or {@code THREW} and the exception's
 * class, or {@code HANG} when the scan did not end in time; after a hang the oracle stops, since
 * the scan's thread cannot be stopped. Exit code 0 when every case ran.
 */
public final class RegionOracle {

    private static final byte[][] FAMILIES = {Bytes.toBytes("f"), Bytes.toBytes("g")};

    private final Configuration conf;
    private final org.apache.hadoop.fs.Path root;
    private final WALFactory wals;
    private final ExecutorService scans = Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "oracle-scan");
        t.setDaemon(true);
        return t;
    });
    private final long timeoutMillis;
    private int tables;

    private RegionOracle(Path dir, long timeoutMillis) throws IOException {
        this.timeoutMillis = timeoutMillis;
        conf = HBaseConfiguration.create();
        conf.set("fs.defaultFS", "file:///");
        conf.set(HConstants.HBASE_DIR, dir.toUri().toString());
        conf.set("hbase.wal.provider", "filesystem");
        conf.setBoolean("hbase.hregion.memstore.mslab.enabled", false);
        conf.setBoolean("hbase.unsafe.stream.capability.enforce", false);
        root = new org.apache.hadoop.fs.Path(dir.toUri().toString());
        wals = new WALFactory(conf, "oracle");
    }

    public static void main(String[] args) throws Exception {
        if (args.length < 2) {
            System.err.println("usage: RegionOracle CASES RESULTS [timeoutMillis]");
            System.exit(2);
        }
        long timeout = args.length > 2 ? Long.parseLong(args[2]) : 10_000;
        Path dir = Files.createTempDirectory("basalt-hbase-region");
        int status = 0;
        try (BufferedReader in = Files.newBufferedReader(Path.of(args[0]), StandardCharsets.UTF_8);
             PrintWriter out = new PrintWriter(Files.newBufferedWriter(Path.of(args[1]), StandardCharsets.UTF_8))) {
            RegionOracle oracle = new RegionOracle(dir, timeout);
            String line;
            int n = 0;
            while ((line = in.readLine()) != null) {
                n++;
                String[] f = line.split("\t", -1);
                if (f.length != 4) {
                    throw new IllegalArgumentException("case " + n + ": expected 4 tab-separated fields, got " + f.length);
                }
                String[] results = oracle.run(Boolean.parseBoolean(f[0]), Integer.parseInt(f[1]), cells(f[2]),
                        f[3].equals("-") ? null : Base64.getDecoder().decode(f[3]));
                out.println(results[0] + "\t" + results[1]);
                if (results[0].equals("HANG") || results[1].equals("HANG")) {
                    status = 3;
                    break;
                }
            }
            oracle.wals.close();
        } finally {
            try (Stream<Path> files = Files.walk(dir)) {
                files.sorted(Comparator.reverseOrder()).map(Path::toFile).forEach(File::delete);
            }
        }
        System.exit(status);
    }

    private static List<byte[][]> cells(String field) {
        List<byte[][]> cells = new ArrayList<>();
        if (field.isEmpty()) {
            return cells;
        }
        for (String cell : field.split(";", -1)) {
            String[] p = cell.split("\\|", -1);
            if (p.length != 5) {
                throw new IllegalArgumentException("a cell needs row|family|qualifier|timestamp|value: " + cell);
            }
            cells.add(new byte[][] {Bytes.toBytesBinary(p[0]), Bytes.toBytesBinary(p[1]), Bytes.toBytesBinary(p[2]),
                Bytes.toBytes(Long.parseLong(p[3])), Bytes.toBytesBinary(p[4])});
        }
        return cells;
    }

    /** The memstore scan's result and the HFile scan's. */
    private String[] run(boolean reversed, int versions, List<byte[][]> cells, byte[] filter) throws IOException {
        TableName name = TableName.valueOf("t" + tables++);
        TableDescriptorBuilder table = TableDescriptorBuilder.newBuilder(name);
        for (byte[] family : FAMILIES) {
            table.setColumnFamily(ColumnFamilyDescriptorBuilder.newBuilder(family).setMaxVersions(5).build());
        }
        RegionInfo info = RegionInfoBuilder.newBuilder(name).build();
        HRegion region = HRegion.createHRegion(info, root, conf, table.build(), wals.getWAL(info));
        String[] results = new String[2];
        try {
            for (byte[][] c : cells) {
                Put put = new Put(c[0]);
                put.addColumn(c[1], c[2], Bytes.toLong(c[3]), c[4]);
                put.setDurability(Durability.SKIP_WAL);
                region.put(put);
            }
            results[0] = scan(region, reversed, versions, filter);
            if (!results[0].equals("HANG")) {
                region.flush(true);
                results[1] = scan(region, reversed, versions, filter);
            } else {
                results[1] = "HANG";
            }
        } finally {
            if (!results[0].equals("HANG") && !"HANG".equals(results[1])) {
                region.close();
            }
        }
        return results;
    }

    private String scan(HRegion region, boolean reversed, int versions, byte[] filter) {
        Future<List<String>> scan = scans.submit(() -> {
            Scan s = new Scan().readVersions(versions).setReversed(reversed);
            if (filter != null) {
                s.setFilter(ProtobufUtil.toFilter(FilterProtos.Filter.parseFrom(filter)));
            }
            List<String> out = new ArrayList<>();
            try (RegionScanner scanner = region.getScanner(s)) {
                boolean more;
                do {
                    List<Cell> batch = new ArrayList<>();
                    more = scanner.next(batch);
                    for (Cell c : batch) {
                        out.add(text(c));
                    }
                } while (more);
            }
            return out;
        });
        try {
            return "OK " + String.join(";", scan.get(timeoutMillis, TimeUnit.MILLISECONDS));
        } catch (TimeoutException e) {
            return "HANG";
        } catch (ExecutionException e) {
            return "THREW " + e.getCause().getClass().getName();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "THREW " + e.getClass().getName();
        }
    }

    /** {@code row/family:qualifier@ts=value}, bytes as {@link CellText#esc}. */
    private static String text(Cell c) {
        return CellText.esc(CellUtil.cloneRow(c)) + "/" + CellText.esc(CellUtil.cloneFamily(c)) + ":"
                + CellText.esc(CellUtil.cloneQualifier(c)) + "@" + c.getTimestamp() + "=" + CellText.esc(CellUtil.cloneValue(c));
    }
}
