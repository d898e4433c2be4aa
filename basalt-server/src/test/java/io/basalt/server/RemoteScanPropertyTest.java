package io.basalt.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.basalt.bytes.Bytes;
import io.basalt.cell.Cell;
import io.basalt.client.AsyncTable;
import io.basalt.client.Basalt;
import io.basalt.client.Connection;
import io.basalt.client.Delete;
import io.basalt.client.FamilyDescriptor;
import io.basalt.client.Mutation;
import io.basalt.client.Put;
import io.basalt.client.Result;
import io.basalt.client.ResultScanner;
import io.basalt.client.Scan;
import io.basalt.client.ScanConsumer;
import io.basalt.client.ScanController;
import io.basalt.client.TableDescriptor;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.LongRange;
import net.jqwik.api.lifecycle.AfterContainer;
import net.jqwik.api.lifecycle.BeforeContainer;

/**
 * Every combination of caching, batch, {@code maxResultSize}, {@code allowPartialResults},
 * reversed, limit, start and stop rows, columns and versions returns over the network exactly
 * what the embedded store's {@code scanAll} returns for the same data: the same cells in the same
 * order, through the iterator, {@code scanAll} and the consumer-style scan alike.
 *
 * <p>Result boundaries: the embedded store cuts rows only by {@code batch}; the server also cuts
 * them by {@code maxResultSize}, and the client joins the parts again unless partial results
 * were allowed or a batch was set. So with neither, each result must be the embedded store's
 * result (a whole row, not partial); otherwise the concatenated cells must match, no result may
 * hold more than {@code batch} cells, and a result is partial exactly when the next one continues
 * its row.
 *
 * <p>The data set (30 rows of 1 to 40 columns in two families, versions, deletes of every kind,
 * half of it flushed) is written with explicit timestamps, in the same order, through a server
 * over one directory and into an embedded store in another, so both hold the same cells.
 */
class RemoteScanPropertyTest {

    private static final String TABLE = "t";
    private static final int ROWS = 30;
    private static final int MAX_WIDTH = 40;
    /** Scan bounds: unbounded, rows, and keys between, before and after them. */
    private static final List<String> BOUNDS = List.of("", "a", "row", "row00", "row07", "row075", "row1", "row15",
            "row150", "row2", "row29", "row3", "z");

    private static Path serverDir;
    private static Path embeddedDir;
    private static BasaltServer server;
    private static Connection remote;
    private static Connection embedded;

    @BeforeContainer
    static void start() throws Exception {
        serverDir = Files.createTempDirectory("remote-scan-server");
        embeddedDir = Files.createTempDirectory("remote-scan-embedded");
        server = BasaltServer.start(ServerConfig.builder().port(0).dataDir(serverDir).ioThreads(2).build());
        remote = Basalt.connect("basalt://127.0.0.1:" + server.address().getPort());
        embedded = Basalt.open(embeddedDir);
        TableDescriptor table = new TableDescriptor(TABLE, List.of(FamilyDescriptor.of("a"),
                FamilyDescriptor.of("b").withMaxVersions(3)));
        for (Connection c : List.of(remote, embedded)) {
            c.admin().createTable(table).get(30, TimeUnit.SECONDS);
        }
        List<Mutation> data = dataSet();
        for (int i = 0; i < data.size(); i++) {
            for (Connection c : List.of(remote, embedded)) {
                AsyncTable t = c.table(TABLE);
                Mutation m = data.get(i);
                (m instanceof Put p ? t.put(p) : t.delete((Delete) m)).get(30, TimeUnit.SECONDS);
                if (i == data.size() / 2) {
                    c.admin().flush(TABLE).get(30, TimeUnit.SECONDS);
                }
            }
        }
        // Every data block into the block caches now: the tries' reads then hit blocks cached
        // before the property, and the leak check after it sees no cached block as its own.
        for (Connection c : List.of(remote, embedded)) {
            c.table(TABLE).scanAll(new Scan().readAllVersions()).get(30, TimeUnit.SECONDS);
        }
    }

    @AfterContainer
    static void stop() throws IOException {
        try (Connection _ = embedded; BasaltServer _ = server; Connection _ = remote) {
            // closed in reverse order: the client, the server, the embedded store
        }
        for (Path dir : List.of(serverDir, embeddedDir)) {
            try (Stream<Path> files = Files.walk(dir)) {
                for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
                    Files.delete(p);
                }
            }
        }
    }

    /** The fixed data set, from a fixed seed: puts with versions, then deletes, then puts over some. */
    private static List<Mutation> dataSet() {
        Random random = new Random(20240607);
        List<Mutation> out = new ArrayList<>();
        for (int r = 0; r < ROWS; r++) {
            byte[] row = Bytes.utf8(String.format("row%02d", r));
            int width = 1 + random.nextInt(MAX_WIDTH);
            Put put = new Put(row);
            for (int q = 0; q < width; q++) {
                String family = random.nextInt(3) == 0 ? "a" : "b";
                int versions = 1 + random.nextInt(family.equals("b") ? 4 : 2);
                for (int v = 0; v < versions; v++) {
                    long ts = 100 + 10L * v;
                    put.addColumn(Bytes.utf8(family), qualifier(q), ts,
                            Bytes.utf8("v" + r + "." + q + "." + ts + "-".repeat(random.nextInt(30))));
                }
            }
            out.add(put);
        }
        for (int i = 0; i < 12; i++) {
            byte[] row = Bytes.utf8(String.format("row%02d", random.nextInt(ROWS)));
            byte[] family = Bytes.utf8(random.nextBoolean() ? "a" : "b");
            byte[] qualifier = qualifier(random.nextInt(MAX_WIDTH / 2));
            out.add(switch (i % 4) {
                case 0 -> new Delete(row).addColumns(family, qualifier, 1_000);
                case 1 -> new Delete(row).addColumn(family, qualifier, 110);
                case 2 -> new Delete(row).addFamily(family, 115);
                default -> new Delete(row, 1_000);
            });
        }
        for (int i = 0; i < 5; i++) {
            byte[] row = Bytes.utf8(String.format("row%02d", random.nextInt(ROWS)));
            out.add(new Put(row).addColumn(Bytes.utf8("b"), qualifier(random.nextInt(MAX_WIDTH)), 2_000,
                    Bytes.utf8("late" + i)));
        }
        return out;
    }

    private static byte[] qualifier(int q) {
        return Bytes.utf8(String.format("c%02d", q));
    }

    /** A column selection: a family alone (null qualifier) or one column. */
    record Column(String family, String qualifier) {}

    @Provide
    Arbitrary<List<Column>> columns() {
        Arbitrary<Column> column = Arbitraries.of("a", "b").flatMap(f -> Arbitraries.frequencyOf(
                Tuple.of(1, Arbitraries.just(new Column(f, null))),
                Tuple.of(4, Arbitraries.integers().between(0, MAX_WIDTH - 1)
                        .map(q -> new Column(f, String.format("c%02d", q))))));
        return Arbitraries.frequencyOf(
                Tuple.of(2, Arbitraries.just(List.of())),
                Tuple.of(3, column.list().ofMinSize(1).ofMaxSize(6)));
    }

    @Provide
    Arbitrary<String> bounds() {
        return Arbitraries.frequencyOf(Tuple.of(2, Arbitraries.just("")), Tuple.of(3, Arbitraries.of(BOUNDS)));
    }

    @Provide
    Arbitrary<Integer> limits() {
        return Arbitraries.frequencyOf(Tuple.of(2, Arbitraries.just(0)),
                Tuple.of(1, Arbitraries.integers().between(1, ROWS + 5)));
    }

    @Property(tries = 200)
    void aNetworkScanReturnsWhatTheEmbeddedStoreReturns(
            @ForAll @IntRange(max = 5) int caching,
            @ForAll @IntRange(max = 7) int batch,
            @ForAll @LongRange(min = 50, max = 5000) long maxResultSize,
            @ForAll boolean allowPartialResults,
            @ForAll boolean reversed,
            @ForAll("limits") int limit,
            @ForAll("bounds") String low, @ForAll boolean startInclusive,
            @ForAll("bounds") String high, @ForAll boolean stopInclusive,
            @ForAll @IntRange(max = 9) int crossed,
            @ForAll("columns") List<Column> columns,
            @ForAll @IntRange(min = 1, max = 4) int versions) throws Exception {
        if (crossed > 0 && !low.isEmpty() && !high.isEmpty() && low.compareTo(high) > 0) {
            String swap = low; // mostly a range that holds rows; one in ten stays crossed
            low = high;
            high = swap;
        }
        String start = reversed ? high : low;
        String stop = reversed ? low : high;
        Scan scan = new Scan().setCaching(caching).setBatch(batch).setMaxResultSize(maxResultSize)
                .setAllowPartialResults(allowPartialResults).setReversed(reversed).setLimit(limit)
                .withStartRow(Bytes.utf8(start), startInclusive).withStopRow(Bytes.utf8(stop), stopInclusive);
        for (Column c : columns) {
            if (c.qualifier() == null) {
                scan.addFamily(Bytes.utf8(c.family()));
            } else {
                scan.addColumn(Bytes.utf8(c.family()), Bytes.utf8(c.qualifier()));
            }
        }
        if (versions == 4) {
            scan.readAllVersions();
        } else {
            scan.readVersions(versions);
        }

        List<Result> expected = embedded.table(TABLE).scanAll(scan.copy()).get(30, TimeUnit.SECONDS);
        AsyncTable table = remote.table(TABLE);
        List<Result> iterated = new ArrayList<>();
        try (ResultScanner s = table.scanner(scan.copy())) {
            s.forEach(iterated::add);
        }
        check("scanner()", iterated, expected, scan);
        check("scanAll", table.scanAll(scan.copy()).get(30, TimeUnit.SECONDS), expected, scan);
        check("scan(consumer)", consume(table, scan.copy()).get(30, TimeUnit.SECONDS), expected, scan);
    }

    /** Every row the consumer-style scan delivers, once it completed. */
    private static CompletableFuture<List<Result>> consume(AsyncTable table, Scan scan) {
        CompletableFuture<List<Result>> done = new CompletableFuture<>();
        List<Result> rows = new ArrayList<>();
        table.scan(scan, new ScanConsumer() {
            @Override
            public void onNext(Result row, ScanController controller) {
                rows.add(row);
            }

            @Override
            public void onError(Throwable error) {
                done.completeExceptionally(error);
            }

            @Override
            public void onComplete() {
                done.complete(rows);
            }
        });
        return done;
    }

    private static void check(String api, List<Result> actual, List<Result> expected, Scan scan) {
        assertThat(cells(actual)).as("%s: the cells, in order", api).isEqualTo(cells(expected));
        for (int i = 0; i < actual.size(); i++) {
            Result r = actual.get(i);
            assertThat(r.isEmpty()).as("%s: result %d is empty", api, i).isFalse();
            for (Cell cell : r.cells()) {
                assertThat(cell.rowBytes()).as("%s: result %d holds one row", api, i).isEqualTo(r.row());
            }
            if (scan.batch() > 0) {
                assertThat(r.size()).as("%s: result %d within the batch", api, i).isLessThanOrEqualTo(scan.batch());
            }
            boolean continued = i + 1 < actual.size() && Arrays.equals(actual.get(i + 1).row(), r.row());
            assertThat(r.isPartial()).as("%s: result %d is partial exactly when the next continues its row", api, i)
                    .isEqualTo(continued);
        }
        if (!scan.allowPartialResults() && scan.batch() == 0) {
            assertThat(actual.stream().map(r -> cells(List.of(r))).toList()).as("%s: whole rows", api)
                    .isEqualTo(expected.stream().map(r -> cells(List.of(r))).toList());
            assertThat(actual).as("%s: no partial result", api).noneMatch(Result::isPartial);
        }
    }

    private static List<String> cells(List<Result> results) {
        List<String> out = new ArrayList<>();
        for (Result r : results) {
            for (Cell c : r.cells()) {
                out.add(Bytes.toStringBinary(c.rowBytes()) + "/" + Bytes.toStringBinary(c.familyBytes()) + ":"
                        + Bytes.toStringBinary(c.qualifierBytes()) + "@" + c.timestamp() + " " + c.type() + " "
                        + Bytes.toStringBinary(c.valueBytes()));
            }
        }
        return out;
    }
}
