package io.basalt.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.basalt.cell.Cell;
import io.basalt.client.Basalt;
import io.basalt.client.Connection;
import io.basalt.client.Put;
import io.basalt.client.Result;
import io.basalt.client.ResultScanner;
import io.basalt.client.Scan;
import io.basalt.client.ScannerExpiredException;
import io.basalt.client.TableDescriptor;
import io.basalt.client.TooManyScannersException;
import io.basalt.client.net.ClientOptions;
import io.basalt.client.net.Messages;
import io.basalt.client.net.RemoteConnection;
import io.basalt.protocol.OpCode;
import io.basalt.protocol.Status;
import io.basalt.protocol.Wire;
import io.netty.buffer.ByteBuf;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import java.util.function.Function;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Scanner leases: a scanner idle longer than {@link ServerConfig#scannerLease()} is closed on the
 * server, engine scanner included, and the network client's scanner resumes after the last whole
 * row it returned, or restarts the row it was stitching, or fails with a clear
 * {@link ScannerExpiredException} when its last result was part of a row. A connection holds at
 * most {@link ServerConfig#maxScannersPerConnection()} scanners, and only its own.
 *
 * <p>The tables are flushed before they are scanned, so the engine scanners read blocks from the
 * pooled block cache: a scanner that expiry failed to close would also show up as a buffer leak
 * in the after-each-test invariants.
 */
class ScannerLeaseTest {

    private static final Duration LEASE = Duration.ofMillis(200);
    private static final byte[] F = bytes("f");

    @TempDir
    Path dir;

    /** Counts the engine scanners opened on a store and those still open. */
    private static final class CountingStore {
        final HookedStore store;
        final AtomicInteger opened = new AtomicInteger();
        final AtomicInteger open = new AtomicInteger();

        CountingStore(Connection store) {
            this.store = new HookedStore(store, (table, method, args) -> method.getName().equals("scanner")
                    ? counted(table.scanner((Scan) args[0])) : HookedStore.pass(table, method, args));
        }

        private ResultScanner counted(ResultScanner scanner) {
            opened.incrementAndGet();
            open.incrementAndGet();
            AtomicBoolean closed = new AtomicBoolean();
            return new ResultScanner() {
                @Override
                public Result next() {
                    return scanner.next();
                }

                @Override
                public void close() {
                    if (closed.compareAndSet(false, true)) {
                        open.decrementAndGet();
                    }
                    scanner.close();
                }
            };
        }
    }

    /** A server with a 200 ms scanner lease over {@code store}, its handler made by {@code handlers}. */
    private BasaltServer start(Function<ServerConfig, RequestHandler> handlers) throws InterruptedException {
        return BasaltServer.start(ServerConfig.builder().port(0).dataDir(dir).ioThreads(2).scannerLease(LEASE).build(),
                handlers);
    }

    private static Connection connect(BasaltServer server) {
        return connect(server, 1);
    }

    /** A client whose scanners keep {@code readAhead} batches requested ahead (of 2 MiB each). */
    private static Connection connect(BasaltServer server, int readAhead) {
        return new RemoteConnection("127.0.0.1", server.address().getPort(), ClientOptions.builder()
                .scanPrefetchBytes(readAhead * new Scan().maxResultSize()).build());
    }

    /** Creates table "t" with {@code rows} rows of {@code columns} columns each, flushed to a file. */
    private static void load(Connection c, List<String> rows, int columns) throws Exception {
        c.admin().createTable(TableDescriptor.of("t", "f")).get(30, TimeUnit.SECONDS);
        for (String row : rows) {
            Put put = new Put(bytes(row));
            for (int q = 0; q < columns; q++) {
                put.addColumn(F, bytes(qualifier(q)), bytes("value-" + row + "-" + q));
            }
            c.table("t").put(put).get(30, TimeUnit.SECONDS);
        }
        c.admin().flush("t").get(30, TimeUnit.SECONDS);
    }

    private static String qualifier(int q) {
        return String.format("q%02d", q);
    }

    /** Polls {@code condition} for up to 30 s: never a fixed sleep standing in for "long enough". */
    private static void await(BooleanSupplier condition, String what) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - deadline > 0) {
                throw new AssertionError("waited 30 s for " + what);
            }
            Thread.sleep(5);
        }
    }

    /** Waits until the server has expired every scanner and the engine's scanners are closed. */
    private static void awaitExpired(EngineHandler handler, CountingStore store) throws InterruptedException {
        await(() -> handler.openScanners() == 0, "the server to expire the idle scanner");
        await(() -> store.open.get() == 0, "the expired scanner's engine scanner to close");
    }

    private static List<String> rows(int n) {
        List<String> rows = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            rows.add(String.format("r%02d", i));
        }
        return rows;
    }

    /**
     * YCSB's scans: a limit, a batch of that many rows, the rows read and the scanner closed
     * without asking past the last. Every server scanner must close when its client closes it,
     * long before any lease would expire it, also when the client spreads its requests over
     * several connections (YCSB's binding uses two): a scanner's requests must all go out on the
     * connection that opened it, or the server refuses them and the scan leaves it behind.
     */
    @ParameterizedTest(name = "read ahead={0}, connections={1}")
    @CsvSource({"1, 1", "3, 1", "1, 2", "3, 3"})
    void scannersReadToTheirLimitAndClosedAreClosedOnTheServer(int readAhead, int connections) throws Exception {
        EngineHandler[] handler = new EngineHandler[1];
        CountingStore[] store = new CountingStore[1];
        try (BasaltServer server = BasaltServer.start(ServerConfig.builder().port(0).dataDir(dir).ioThreads(2)
                .scannerLease(Duration.ofMinutes(10)).build(), c -> handler[0] = EngineHandler.over(
                        (store[0] = new CountingStore(Basalt.open(c.dataDir(), c.store()))).store, c));
             Connection client = new RemoteConnection("127.0.0.1", server.address().getPort(), ClientOptions.builder()
                     .scanPrefetchBytes(readAhead * new Scan().maxResultSize()).connections(connections).build())) {
            List<String> all = rows(40);
            load(client, all, 2);
            for (int i = 0; i < 100; i++) {
                int limit = 1 + i % 7;
                List<String> seen = new ArrayList<>();
                try (ResultScanner s = client.table("t").scanner(new Scan().withStartRow(bytes(all.get(i % 30)))
                        .setLimit(limit).setCaching(limit))) {
                    // The binding's loop: it asks once more after the last row it wants.
                    for (Result r = s.next(); r != null && seen.size() < limit; r = s.next()) {
                        seen.add(string(r.row()));
                    }
                }
                assertThat(seen).hasSize(limit);
            }
            assertThat(store[0].opened.get()).as("one server scanner per scan: none resumed").isEqualTo(100);
            await(() -> handler[0].openScanners() == 0 && store[0].open.get() == 0,
                    "every closed scan's scanner to close on the server");
        }
    }

    @ParameterizedTest(name = "reversed={0}, limit={1}, read ahead={2}")
    @CsvSource({"false, 0, 1", "true, 0, 1", "false, 13, 1", "true, 9, 1", "false, 0, 4", "true, 9, 3"})
    void anIdleScannerExpiresAndTheScanResumesAfterTheLastRowItReturned(boolean reversed, int limit, int readAhead)
            throws Exception {
        EngineHandler[] handler = new EngineHandler[1];
        CountingStore[] store = new CountingStore[1];
        try (BasaltServer server = start(c -> handler[0] = EngineHandler.over(
                (store[0] = new CountingStore(Basalt.open(c.dataDir(), c.store()))).store, c));
             Connection client = connect(server, readAhead)) {
            List<String> all = rows(20);
            load(client, all, 1);
            List<String> expected = new ArrayList<>(all);
            if (reversed) {
                Collections.reverse(expected);
            }
            if (limit > 0) {
                expected = expected.subList(0, limit);
            }

            List<String> seen = new ArrayList<>();
            try (ResultScanner s = client.table("t").scanner(new Scan().setCaching(2).setReversed(reversed)
                    .setLimit(limit))) {
                for (Result r = s.next(); r != null; r = s.next()) {
                    seen.add(string(r.row()));
                    if (seen.size() == 1 || seen.size() == 2 + 2 * readAhead + 2) {
                        // Idle past the lease: the batches fetched ahead arrive meanwhile, and the
                        // request after them finds the scanner gone. The second pause comes
                        // after those batches and the first of the resumed scan.
                        awaitExpired(handler[0], store[0]);
                    }
                }
            }
            assertThat(seen).as("every row once, in order, across two expiries").isEqualTo(expected);
            // Reading further ahead, the rows can run out before the second pause matters.
            assertThat(store[0].opened.get()).as("engine scanners: the first and one per resume")
                    .isGreaterThanOrEqualTo(readAhead == 1 ? 3 : 2);
            await(() -> handler[0].openScanners() == 0 && store[0].open.get() == 0, "the finished scan to close");
        }
    }

    @Test
    void aScanWhoseLastResultWasPartOfARowFailsWithAClearErrorWhenItsScannerExpired() throws Exception {
        EngineHandler[] handler = new EngineHandler[1];
        CountingStore[] store = new CountingStore[1];
        try (BasaltServer server = start(c -> handler[0] = EngineHandler.over(
                (store[0] = new CountingStore(Basalt.open(c.dataDir(), c.store()))).store, c));
             Connection client = connect(server)) {
            load(client, rows(3), 5);
            List<Result> seen = new ArrayList<>();
            ScannerExpiredException failure = null;
            try (ResultScanner s = client.table("t").scanner(new Scan().setBatch(1).setCaching(2))) {
                seen.add(s.next());
                awaitExpired(handler[0], store[0]);
                try {
                    for (Result r = s.next(); r != null; r = s.next()) {
                        seen.add(r);
                    }
                } catch (ScannerExpiredException e) {
                    failure = e;
                }
            }
            assertThat(failure).as("the scan fails instead of skipping or repeating part of a row").isNotNull();
            assertThat(failure).hasMessageContaining("scanner lease of " + LEASE.toMillis() + " ms")
                    .hasMessageContaining("cannot resume because its last result was part of a row");
            assertThat(seen.getLast().isPartial()).isTrue();
            List<String> cells = new ArrayList<>();
            for (Result r : seen) {
                assertThat(r.size()).isEqualTo(1);
                cells.add(string(r.row()) + "/" + string(r.cells().getFirst().qualifierBytes()));
            }
            List<String> expected = new ArrayList<>();
            for (int q = 0; q < cells.size(); q++) {
                expected.add("r00/" + qualifier(q));
            }
            assertThat(cells).as("the parts returned before the failure").isEqualTo(expected);
            assertThat(store[0].opened.get()).as("no resumed scanner").isEqualTo(1);
            await(() -> handler[0].openScanners() == 0 && store[0].open.get() == 0, "every scanner to close");
        }
    }

    /**
     * Passes requests to the engine, but holds the {@code holdAt}-th {@code SCAN_NEXT} until the
     * engine has expired the scanner it asks for; records every scan opened.
     */
    private static final class HoldScanNext extends DeferringHandler {
        final int holdAt;
        final AtomicInteger scanNexts = new AtomicInteger();
        final List<Scan> opened = Collections.synchronizedList(new ArrayList<>());

        HoldScanNext(EngineHandler engine, int holdAt) {
            super(engine);
            this.holdAt = holdAt;
        }

        @Override
        boolean hold(OpCode op, ByteBuf body) {
            if (op == OpCode.SCAN_OPEN) {
                ByteBuf peek = body.duplicate();
                Wire.readString(peek, "table");
                opened.add(Messages.readScan(peek));
            }
            return op == OpCode.SCAN_NEXT && scanNexts.incrementAndGet() == holdAt;
        }

        @Override
        void awaitRelease() throws InterruptedException {
            await(() -> engine.openScanners() == 0, "the scanner to expire");
        }
    }

    @Test
    void aRowBeingStitchedWhenItsScannerExpiredIsRestartedAndStillComesWholeOnce() throws Exception {
        CountingStore[] store = new CountingStore[1];
        HoldScanNext[] handler = new HoldScanNext[1];
        List<String> wide = List.of("r0", "r1", "r2", "r3");
        try (BasaltServer server = start(c -> handler[0] = new HoldScanNext(EngineHandler.over(
                (store[0] = new CountingStore(Basalt.open(c.dataDir(), c.store()))).store, c), 40));
             Connection client = connect(server)) {
            load(client, wide, 50);
            client.table("t").put(new Put(bytes("s0")).addColumn(F, bytes("q"), bytes("value-s0-0")))
                    .get(30, TimeUnit.SECONDS);

            // 100 bytes per batch holds one or two of these cells: each wide row takes 25 to 50
            // batches, so the 40th SCAN_NEXT, held until its scanner expired, falls inside a row.
            List<Result> seen = new ArrayList<>();
            try (ResultScanner s = client.table("t").scanner(new Scan().setMaxResultSize(100))) {
                s.forEach(seen::add);
            }

            List<Scan> opened = List.copyOf(handler[0].opened);
            assertThat(opened).as("the scan and its resumption").hasSizeGreaterThanOrEqualTo(2);
            assertThat(opened.subList(1, opened.size())).as("resumed at a row being stitched, to restart it")
                    .anyMatch(resumed -> resumed.startInclusive() && wide.contains(string(resumed.startRow())));

            List<String> rows = new ArrayList<>();
            for (Result r : seen) {
                rows.add(string(r.row()));
                assertThat(r.isPartial()).isFalse();
                List<String> qualifiers = new ArrayList<>();
                for (Cell cell : r.cells()) {
                    qualifiers.add(string(cell.qualifierBytes()));
                    assertThat(string(cell.valueBytes())).startsWith("value-" + string(r.row()) + "-");
                }
                if (wide.contains(string(r.row()))) {
                    List<String> all = new ArrayList<>();
                    for (int q = 0; q < 50; q++) {
                        all.add(qualifier(q));
                    }
                    assertThat(qualifiers).as("row %s whole, each cell once", string(r.row())).isEqualTo(all);
                }
            }
            assertThat(rows).containsExactly("r0", "r1", "r2", "r3", "s0");
            await(() -> handler[0].engine.openScanners() == 0 && store[0].open.get() == 0, "every scanner to close");
        }
    }

    /** A server whose connections may each hold {@code max} scanners, over a counting store. */
    private BasaltServer startLimited(int max, Duration lease, EngineHandler[] handler, CountingStore[] store)
            throws InterruptedException {
        return BasaltServer.start(ServerConfig.builder().port(0).dataDir(dir).ioThreads(2).scannerLease(lease)
                .maxScannersPerConnection(max).build(), c -> handler[0] = EngineHandler.over(
                        (store[0] = new CountingStore(Basalt.open(c.dataDir(), c.store()))).store, c));
    }

    /** Opens a scanner of one row per batch and reads its first row, so it is open on the server. */
    private static ResultScanner openAndReadOne(Connection client) {
        ResultScanner s = client.table("t").scanner(new Scan().setCaching(1));
        assertThat(string(s.next().row())).isEqualTo("r00");
        return s;
    }

    /**
     * Whether a scanner opens on {@code client} now; one refused for the connection's limit does
     * not. One that opens is read to its end, where the server closes it before it answers, so it
     * has given its place back when this returns.
     */
    private static boolean opens(Connection client) {
        try (ResultScanner s = client.table("t").scanner(new Scan().setCaching(1))) {
            return !rest(s).isEmpty();
        } catch (TooManyScannersException e) {
            return false;
        }
    }

    private static List<String> rest(ResultScanner s) {
        List<String> rows = new ArrayList<>();
        s.forEach(r -> rows.add(string(r.row())));
        return rows;
    }

    /**
     * A client that keeps scanners open (forgotten, or on purpose) fills its connection's
     * allowance, not the server's heap: one more open is refused with a message naming the limit,
     * before the store opens anything; other connections scan on; the open scanners lose nothing;
     * and each place comes back when its scanner ends, is closed, or its connection goes.
     */
    @Test
    void aConnectionAtItsScannerLimitIsRefusedClearlyAndOthersScanOn() throws Exception {
        EngineHandler[] handler = new EngineHandler[1];
        CountingStore[] store = new CountingStore[1];
        List<String> all = rows(30);
        try (BasaltServer server = startLimited(4, Duration.ofMinutes(10), handler, store);
             Connection other = connect(server)) {
            load(other, all, 1);
            try (Connection hog = connect(server)) {
                fillAndRelease(hog, other, all, store[0]);
            } // its scanners close with the connection
            await(() -> handler[0].openScanners() == 0 && store[0].open.get() == 0, "the connection's scanners to close");
        }
    }

    private static void fillAndRelease(Connection hog, Connection other, List<String> all, CountingStore store)
            throws InterruptedException {
        List<ResultScanner> held = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            held.add(openAndReadOne(hog));
        }
        int opened = store.opened.get();
        try (ResultScanner refused = hog.table("t").scanner(new Scan().setCaching(1))) {
            assertThatThrownBy(refused::next).isInstanceOf(TooManyScannersException.class)
                    .hasMessageContaining("holds 4 open scanners")
                    .hasMessageContaining("maxScannersPerConnection");
        }
        assertThat(store.opened.get()).as("refused before the store opened a scanner").isEqualTo(opened);

        try (ResultScanner s = other.table("t").scanner(new Scan().setCaching(1))) {
            assertThat(rest(s)).as("another connection scans at once").isEqualTo(all);
        }
        for (ResultScanner s : held) {
            assertThat(rest(s)).as("a held scanner, read to its end").isEqualTo(all.subList(1, all.size()));
        }
        await(() -> opens(hog), "a scanner read to its end to give its place back");

        held.clear();
        for (int i = 0; i < 4; i++) {
            held.add(openAndReadOne(hog));
        }
        held.getFirst().close();
        await(() -> opens(hog), "a closed scanner to give its place back");
    }

    /**
     * A scan whose first batch fails never tells the client its scanner's id, so the client cannot
     * close it: the server closes it at once, rather than holding it (and one of the connection's
     * places) until its lease runs out.
     */
    @Test
    void aScannerWhoseFirstBatchFailedIsClosedAtOnce() throws Exception {
        EngineHandler[] handler = new EngineHandler[1];
        AtomicInteger open = new AtomicInteger();
        try (BasaltServer server = BasaltServer.start(ServerConfig.builder().port(0).dataDir(dir).ioThreads(2)
                .scannerLease(Duration.ofMinutes(10)).maxScannersPerConnection(1).build(),
                c -> handler[0] = EngineHandler.over(new HookedStore(Basalt.open(c.dataDir(), c.store()),
                        (table, method, args) -> method.getName().equals("scanner")
                                ? failing(table.scanner((Scan) args[0]), open)
                                : HookedStore.pass(table, method, args)), c));
             Connection client = connect(server)) {
            load(client, rows(5), 1);
            for (int i = 0; i < 3; i++) { // with one place per connection, a scanner left open refuses the next
                try (ResultScanner s = client.table("t").scanner(new Scan())) {
                    assertThatThrownBy(s::next).hasMessageContaining("the disk is gone");
                }
                await(() -> handler[0].openScanners() == 0 && open.get() == 0, "the failed scanner to close");
            }
        }
    }

    /** A store scanner whose every {@code next()} fails; counts those not yet closed. */
    private static ResultScanner failing(ResultScanner scanner, AtomicInteger open) {
        open.incrementAndGet();
        AtomicBoolean closed = new AtomicBoolean();
        return new ResultScanner() {
            @Override
            public Result next() {
                throw new IllegalStateException("the disk is gone");
            }

            @Override
            public void close() {
                if (closed.compareAndSet(false, true)) {
                    open.decrementAndGet();
                }
                scanner.close();
            }
        };
    }

    @Test
    void scannersLeftOpenGiveTheirPlacesBackWhenTheirLeaseRunsOut() throws Exception {
        EngineHandler[] handler = new EngineHandler[1];
        CountingStore[] store = new CountingStore[1];
        try (BasaltServer server = startLimited(2, LEASE, handler, store);
             Connection client = connect(server)) {
            load(client, rows(10), 1);
            List<ResultScanner> forgotten = List.of(openAndReadOne(client), openAndReadOne(client));
            assertThat(forgotten).hasSize(2);
            awaitExpired(handler[0], store[0]);
            assertThat(opens(client)).as("the expired scanners' places are free").isTrue();
        }
    }

    /**
     * Scanner ids are small consecutive numbers, so another connection can name them: its
     * {@code SCAN_CLOSE} must not close them (before, it did, and the owner's scans went on only
     * by reopening on new server scanners).
     */
    @Test
    void anotherConnectionCannotCloseAConnectionsScanners() throws Exception {
        EngineHandler[] handler = new EngineHandler[1];
        CountingStore[] store = new CountingStore[1];
        List<String> all = rows(30);
        try (BasaltServer server = startLimited(8, Duration.ofMinutes(10), handler, store);
             Connection client = connect(server);
             RawClient hostile = new RawClient(server.address().getPort()).handshake()) {
            load(client, all, 1);
            List<ResultScanner> held = List.of(openAndReadOne(client), openAndReadOne(client), openAndReadOne(client));
            int opened = store[0].opened.get();
            for (long id = 0; id < 64; id++) {
                long scannerId = id;
                hostile.send(RawClient.frame(100 + id, OpCode.SCAN_CLOSE.code(), 0, 0,
                        b -> Wire.writeVarlong(b, scannerId)));
                assertThat(hostile.read().status()).as("closing an id that is not its own is answered like "
                        + "closing an unknown one").isEqualTo(Status.OK.code());
            }
            assertThat(handler[0].openScanners()).isEqualTo(3);
            for (ResultScanner s : held) {
                assertThat(rest(s)).isEqualTo(all.subList(1, all.size()));
                s.close();
            }
            assertThat(store[0].opened.get()).as("no scan had to reopen").isEqualTo(opened);
        }
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static String string(byte[] b) {
        return new String(b, StandardCharsets.UTF_8);
    }
}
