package io.basalt.server;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.basalt.client.AsyncTable;
import io.basalt.client.Basalt;
import io.basalt.client.CheckAndMutate;
import io.basalt.client.Connection;
import io.basalt.client.Delete;
import io.basalt.client.Durability;
import io.basalt.client.Get;
import io.basalt.client.Increment;
import io.basalt.client.Mutation;
import io.basalt.client.Put;
import io.basalt.client.Result;
import io.basalt.client.Scan;
import io.basalt.client.StoreOptions;
import io.basalt.client.TableDescriptor;
import io.basalt.client.net.Messages;
import io.basalt.protocol.FrameLayout;
import io.basalt.protocol.OpCode;
import io.basalt.protocol.Status;
import io.basalt.protocol.Wire;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.util.ResourceLeakDetector;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

/**
 * Sends at least 100,000 random and mutated frames to a server on 127.0.0.1 over raw sockets,
 * while a well-behaved client reads and writes its own table through the network client.
 *
 * <p>Checks: every frame that keeps the stream in step (correct length and checksum, no reserved
 * flag) gets exactly one response with its request id, whatever its op, status, flags or body;
 * every connection sent something that breaks the stream (a checksum mismatch, a length under the
 * header, reserved flags, a bad handshake, a frame cut short, random bytes) is closed by the
 * server; the well-behaved client never sees an error, reads back every value it wrote, and its
 * table holds exactly what it wrote (the fuzzer's valid requests all name another table); and
 * Netty's leak detector, tracking every buffer, reports no buffer collected unreleased.
 * Each of its gets, issued right after the put's acknowledgement, must see that put: this test
 * found the engine acknowledging writes before the read point covered them (fixed in
 * {@code Mvcc.complete(write, whenVisible)}).
 *
 * <p>{@code -Dbasalt.fuzz.frames=N} runs a longer fuzz (default 100,000);
 * {@code -Dbasalt.fuzz.seed=S} repeats a run.
 */
class ServerFuzzTest {

    private static final int MAX_FRAME = 64 * 1024;
    private static final String FUZZ_TABLE = "fuzz";
    private static final String CHECKED_TABLE = "checked";

    @TempDir
    Path dir;

    /** A request body for each op, against the fuzz table: the seeds that mutation starts from. */
    private static List<Map.Entry<OpCode, byte[]>> templates() {
        List<Map.Entry<OpCode, byte[]>> out = new ArrayList<>();
        Put put = Put.of("row").addColumn("f", "q", "value");
        Delete delete = Delete.of("row").addColumn("f".getBytes(), "q".getBytes());
        Increment inc = Increment.of("counter").addColumn("f".getBytes(), "n".getBytes(), 5);
        out.add(Map.entry(OpCode.PUT, body(b -> Messages.writeMutation(b, put))));
        out.add(Map.entry(OpCode.DELETE, body(b -> Messages.writeMutation(b, delete))));
        out.add(Map.entry(OpCode.INCREMENT, body(b -> Messages.writeMutation(b, inc))));
        out.add(Map.entry(OpCode.GET, body(b -> Messages.writeGet(b, Get.of("row")))));
        out.add(Map.entry(OpCode.BATCH, body(b -> Messages.writeMutations(b, List.<Mutation>of(put, delete)))));
        out.add(Map.entry(OpCode.CHECK_AND_MUTATE, body(b -> Messages.writeCheckAndMutate(b,
                CheckAndMutate.onRow("row".getBytes()).ifAbsent("f".getBytes(), "x".getBytes()).then(put)))));
        out.add(Map.entry(OpCode.SCAN_OPEN, body(b -> Messages.writeScan(b, new Scan().setCaching(2)))));
        out.add(Map.entry(OpCode.SCAN_NEXT, body(b -> {
            Wire.writeVarlong(b, 1); // scanner id
            Wire.writeVarlong(b, 1); // batch number
        })));
        out.add(Map.entry(OpCode.SCAN_CLOSE, scannerBody(2)));
        out.add(Map.entry(OpCode.PING, new byte[0]));
        out.add(Map.entry(OpCode.LIST_TABLES, new byte[0]));
        out.add(Map.entry(OpCode.DESCRIBE_TABLE, tableOnly()));
        return out;
    }

    private static byte[] body(Consumer<ByteBuf> rest) {
        ByteBuf b = Unpooled.buffer();
        Wire.writeString(b, FUZZ_TABLE);
        rest.accept(b);
        return ByteBufUtil.getBytes(b);
    }

    private static byte[] tableOnly() {
        ByteBuf b = Unpooled.buffer();
        Wire.writeString(b, FUZZ_TABLE);
        return ByteBufUtil.getBytes(b);
    }

    private static byte[] scannerBody(long id) {
        ByteBuf b = Unpooled.buffer();
        Wire.writeVarlong(b, id);
        return ByteBufUtil.getBytes(b);
    }

    /** Makes frames; one per fuzzing thread. */
    static final class Fuzzer {
        private final SplittableRandom random;
        private final List<Map.Entry<OpCode, byte[]>> templates = templates();
        private long nextId;

        Fuzzer(long seed) {
            random = new SplittableRandom(seed);
        }

        private byte[] randomBytes(int n) {
            byte[] b = new byte[n];
            for (int i = 0; i < n; i++) {
                b[i] = (byte) random.nextInt(256);
            }
            return b;
        }

        /** A template body with one to three mutations: flipped bits, cuts, inserted or repeated bytes. */
        private byte[] mutated(byte[] body) {
            byte[] b = body.clone();
            int rounds = 1 + random.nextInt(3);
            for (int r = 0; r < rounds; r++) {
                switch (random.nextInt(5)) {
                    case 0, 1 -> {
                        if (b.length > 0) {
                            b[random.nextInt(b.length)] ^= (byte) (1 << random.nextInt(8));
                        }
                    }
                    case 2 -> b = java.util.Arrays.copyOf(b, random.nextInt(b.length + 1));
                    case 3 -> {
                        int at = random.nextInt(b.length + 1);
                        byte[] extra = randomBytes(1 + random.nextInt(8));
                        byte[] n = new byte[b.length + extra.length];
                        System.arraycopy(b, 0, n, 0, at);
                        System.arraycopy(extra, 0, n, at, extra.length);
                        System.arraycopy(b, at, n, at + extra.length, b.length - at);
                        b = n;
                    }
                    default -> {
                        if (b.length > 0) {
                            b[random.nextInt(b.length)] = (byte) (random.nextBoolean() ? 0xFF : 0x80);
                        }
                    }
                }
            }
            return b;
        }

        /**
         * A frame that keeps the stream in step and must be answered: a mutated valid request,
         * garbage under any op/status/response flag, or an oversized frame sent whole.
         */
        byte[] answerable(Set<Long> ids) {
            long id = random.nextInt(10) == 0 ? random.nextLong() : nextId++;
            while (!ids.add(id)) {
                id = nextId++;
            }
            int kind = random.nextInt(100);
            if (kind < 55) {
                Map.Entry<OpCode, byte[]> t = templates.get(random.nextInt(templates.size()));
                byte[] body = random.nextInt(10) == 0 ? t.getValue() : mutated(t.getValue());
                return RawClient.frame(id, t.getKey().code(), body);
            }
            if (kind < 95) {
                int op = random.nextInt(4) == 0 ? random.nextInt(256) : OpCode.values()[random.nextInt(
                        OpCode.values().length)].code();
                int status = random.nextInt(5) == 0 ? random.nextInt(256) : 0;
                int flags = random.nextInt(5) == 0 ? FrameLayout.FLAG_RESPONSE : 0;
                byte[] body = randomBytes(random.nextInt(64));
                if (op == OpCode.DROP_TABLE.code() || op == OpCode.COMPACT.code() || op == OpCode.FLUSH.code()) {
                    op = OpCode.PING.code(); // slow admin ops on random names only cost time
                }
                return RawClient.frame(id, op, status, flags, b -> b.writeBytes(body));
            }
            int length = MAX_FRAME + 1 + random.nextInt(MAX_FRAME);
            ByteBuf b = Unpooled.buffer(length);
            b.writeInt(length - 4).writeInt(random.nextInt()).writeLong(id).writeByte(random.nextInt(256))
                    .writeByte(random.nextInt(256)).writeShort(random.nextInt(65536));
            b.writeZero(length - FrameLayout.HEADER_SIZE);
            return ByteBufUtil.getBytes(b);
        }

        /** Bytes after which the server must close the connection; whether the server waits for a timeout first. */
        record Killer(byte[] bytes, boolean random) {}

        Killer killer() {
            byte[] valid = RawClient.frame(nextId++, OpCode.PING.code(), randomBytes(random.nextInt(40)));
            return switch (random.nextInt(6)) {
                case 0 -> { // checksum mismatch anywhere after the length field
                    int at = 4 + random.nextInt(valid.length - 4);
                    valid[at] ^= (byte) (1 + random.nextInt(255));
                    yield new Killer(valid, false);
                }
                case 1 -> new Killer(new byte[] {0, 0, 0, (byte) random.nextInt(FrameLayout.MIN_LENGTH), 1, 2, 3, 4},
                        false);
                case 2 -> new Killer(RawClient.frame(nextId++, OpCode.PING.code(), 0,
                        1 << (1 + random.nextInt(15)), _ -> { }), false);
                case 3 -> new Killer(java.util.Arrays.copyOf(valid, 1 + random.nextInt(valid.length - 1)), false);
                case 4 -> { // a huge length, then silence: answered, then timed out
                    ByteBuf b = Unpooled.buffer();
                    b.writeInt(-1 - random.nextInt(1000)).writeInt(0).writeLong(nextId++).writeByte(1).writeByte(0)
                            .writeShort(0);
                    yield new Killer(ByteBufUtil.getBytes(b), false);
                }
                default -> new Killer(randomBytes(1 + random.nextInt(200)), true);
            };
        }
    }

    /** Reports of Netty's leak detector (paranoid: every buffer tracked) while the test runs. */
    private static ListAppender<ILoggingEvent> captureLeaks() {
        ResourceLeakDetector.setLevel(ResourceLeakDetector.Level.PARANOID);
        ListAppender<ILoggingEvent> appender = new ListAppender<>();
        appender.start();
        ((Logger) LoggerFactory.getLogger(ResourceLeakDetector.class)).addAppender(appender);
        return appender;
    }

    /** Collects garbage and allocates, so the detector reports buffers collected unreleased. */
    private static List<String> leaks(ListAppender<ILoggingEvent> appender) throws InterruptedException {
        for (int i = 0; i < 5; i++) {
            System.gc();
            Thread.sleep(50);
            for (int j = 0; j < 100; j++) {
                ByteBufAllocator.DEFAULT.directBuffer(16).release();
                ByteBufAllocator.DEFAULT.heapBuffer(16).release();
            }
        }
        ((Logger) LoggerFactory.getLogger(ResourceLeakDetector.class)).detachAppender(appender);
        ResourceLeakDetector.setLevel(ResourceLeakDetector.Level.SIMPLE);
        return appender.list.stream().map(ILoggingEvent::getFormattedMessage).filter(m -> m.contains("LEAK")).toList();
    }

    @Test
    void theServerSurvivesRandomAndMutatedFramesAndNoDataChanges() throws Exception {
        long frames = Long.getLong("basalt.fuzz.frames", 100_000);
        long seed = Long.getLong("basalt.fuzz.seed", System.nanoTime());
        ListAppender<ILoggingEvent> leakReports = captureLeaks();
        ServerConfig config = ServerConfig.builder().port(0).dataDir(dir).ioThreads(2).maxFrameSize(MAX_FRAME)
                .frameTimeout(Duration.ofSeconds(2)).store(StoreOptions.defaults().withDurability(Durability.ASYNC))
                .build();
        BasaltServer server = BasaltServer.start(config);
        int port = server.address().getPort();
        Map<String, String> written = new TreeMap<>();
        List<Throwable> goodClientErrors = new CopyOnWriteArrayList<>();
        AtomicBoolean fuzzing = new AtomicBoolean(true);
        AtomicLong sent = new AtomicLong();
        AtomicLong answered = new AtomicLong();
        AtomicLong killed = new AtomicLong(); // frames sent on connections the server had to close
        Connection good = Basalt.connect("basalt://127.0.0.1:" + port);
        try {
            good.admin().createTable(TableDescriptor.of(CHECKED_TABLE, "f")).get(30, TimeUnit.SECONDS);
            good.admin().createTable(TableDescriptor.of(FUZZ_TABLE, "f")).get(30, TimeUnit.SECONDS);
            AsyncTable checked = good.table(CHECKED_TABLE);

            Thread goodClient = Thread.ofPlatform().name("good-client").start(() -> {
                int i = 0;
                while (fuzzing.get() || i < 100) {
                    String row = String.format("row-%06d", i % 5000);
                    String value = "v" + i;
                    try {
                        checked.put(Put.of(row).addColumn("f", "q", value)).get(30, TimeUnit.SECONDS);
                        written.put(row, value);
                        Result r = checked.get(Get.of(row)).get(30, TimeUnit.SECONDS);
                        String got = r.value("f", "q") == null ? null : new String(r.value("f", "q"));
                        if (!value.equals(got)) {
                            goodClientErrors.add(new AssertionError(row + " read " + got + ", wrote " + value));
                        }
                    } catch (Exception e) {
                        goodClientErrors.add(e);
                        return;
                    }
                    i++;
                }
            });

            int threads = 4;
            ExecutorService pool = Executors.newFixedThreadPool(threads);
            List<Future<?>> workers = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                Fuzzer fuzzer = new Fuzzer(seed + t);
                workers.add(pool.submit(() -> {
                    SplittableRandom choose = new SplittableRandom(seed ^ fuzzer.hashCode());
                    while (sent.get() < frames) {
                        if (choose.nextInt(10) < 6) {
                            answered.addAndGet(answerableConnection(port, fuzzer, 1000 + choose.nextInt(2000)));
                        } else {
                            killed.addAndGet(killerConnection(port, fuzzer, choose.nextInt(30)));
                        }
                        sent.set(answered.get() + killed.get());
                    }
                    return null;
                }));
            }
            for (Future<?> w : workers) {
                w.get(10, TimeUnit.MINUTES);
            }
            pool.shutdown();
            fuzzing.set(false);
            goodClient.join(TimeUnit.MINUTES.toMillis(2));
            assertThat(goodClientErrors).as("seed %d", seed).isEmpty();
            assertThat(answered.get() + killed.get()).as("frames sent").isGreaterThanOrEqualTo(frames * 9 / 10);

            List<Result> rows = checked.scanAll(new Scan()).get(30, TimeUnit.SECONDS);
            Map<String, String> stored = new TreeMap<>();
            for (Result r : rows) {
                assertThat(r.cells()).as("only what the good client wrote").hasSize(1);
                stored.put(new String(r.row()), new String(r.value("f", "q")));
            }
            assertThat(stored).as("seed %d", seed).isEqualTo(written);
        } finally {
            good.close();
            server.close();
        }
        assertThat(leaks(leakReports)).as("Netty buffers collected without release (seed %d)", seed).isEmpty();
        System.out.println("fuzz: " + (answered.get() + killed.get()) + " frames, seed " + seed);
    }

    /** Sends {@code count} frames that must each be answered once; returns how many were. */
    private static int answerableConnection(int port, Fuzzer fuzzer, int count) throws Exception {
        Set<Long> ids = new HashSet<>();
        ByteArrayOutputStream all = new ByteArrayOutputStream();
        for (int i = 0; i < count; i++) {
            all.write(fuzzer.answerable(ids));
        }
        try (RawClient c = new RawClient(port).handshake()) {
            Thread writer = Thread.ofPlatform().daemon().start(() -> {
                try {
                    c.send(all.toByteArray());
                } catch (IOException e) {
                    throw new java.io.UncheckedIOException(e);
                }
            });
            Set<Long> seen = new HashSet<>();
            for (int i = 0; i < count; i++) {
                RawClient.Response r = c.read();
                assertThat(ids).as("response to a request that was sent").contains(r.requestId());
                assertThat(seen.add(r.requestId())).as("one response per request, id %d", r.requestId()).isTrue();
                assertThat(r.flags()).isEqualTo(FrameLayout.FLAG_RESPONSE);
                assertThat(Status.of(r.status())).as("a known status").isNotNull();
            }
            writer.join();
            return count;
        }
    }

    /** Sends some good frames then something that breaks the stream; the server must close the connection. */
    private static int killerConnection(int port, Fuzzer fuzzer, int before) throws Exception {
        ByteArrayOutputStream all = new ByteArrayOutputStream();
        Set<Long> ids = new HashSet<>();
        for (int i = 0; i < before; i++) {
            all.write(fuzzer.answerable(ids));
        }
        Fuzzer.Killer killer = fuzzer.killer();
        all.write(killer.bytes());
        try (RawClient c = new RawClient(port)) {
            if (fuzzer.random.nextInt(20) == 0) {
                c.send(RawClient.handshakeBytes(FrameLayout.VERSION)); // then nothing: a handshake alone is fine
                c.send(new byte[] {(byte) 0x80, 0, 0});
            } else if (fuzzer.random.nextInt(20) == 0) {
                byte[] bad = RawClient.handshakeBytes(FrameLayout.VERSION);
                bad[fuzzer.random.nextInt(4)] ^= 0x20; // wrong magic
                c.send(bad);
            } else {
                c.handshake();
                try {
                    c.send(all.toByteArray());
                } catch (IOException e) {
                    // the server may close while we still write
                }
            }
            assertThat(c.awaitClosedByServer()).as("the server closes a connection whose stream broke").isTrue();
        }
        return before + 1;
    }
}
