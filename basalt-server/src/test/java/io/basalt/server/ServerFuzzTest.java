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
import io.basalt.client.ResultScanner;
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
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
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
 * <p>Mutation starts from two kinds of seed. One is a request body per op built with the client's
 * encoders ({@link #templates()}). The other is real traffic: before fuzzing, the network client
 * runs a workload (create table, puts, a batch, a get, an increment, a check-and-mutate, a delete,
 * a scan read to its end and one closed early, list tables, describe, flush) on a scratch table
 * through {@link RecordingProxy}, a proxy on 127.0.0.1 that records every byte the client sends;
 * the recorded stream is cut into its handshake and frames by the offsets of {@link FrameLayout}
 * ({@link #parseRecording}). About a third of the frames that must be answered are recorded frames
 * with their body mutated and, sometimes, another op code, status, response flag or request id,
 * sent with a correct length and checksum; a third of the frames that break the stream are
 * recorded frames mutated in place (a stale checksum, reserved flags, cut short, a length under
 * the header). The test checks the recording holds every op of the workload and that recorded
 * seeds of each op were sent and answered.
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
    /** The table of the recorded workload; no mutation of its name can reach {@link #CHECKED_TABLE}. */
    private static final String RECORDED_TABLE = "recorded";
    /** The ops the recorded workload must show, so the recording cannot silently be empty or partial. */
    private static final Set<OpCode> RECORDED_OPS = EnumSet.of(OpCode.CREATE_TABLE, OpCode.PUT, OpCode.BATCH,
            OpCode.GET, OpCode.INCREMENT, OpCode.CHECK_AND_MUTATE, OpCode.DELETE, OpCode.SCAN_OPEN,
            OpCode.SCAN_NEXT, OpCode.SCAN_CLOSE, OpCode.LIST_TABLES, OpCode.DESCRIBE_TABLE, OpCode.FLUSH);
    /**
     * Recorded frames of these ops cost the server real work (a flush, maybe a new table): each
     * fuzzer sends at most {@link #COSTLY_SEEDS_PER_FUZZER} of them to be answered, then other
     * recorded frames in their place.
     */
    private static final Set<OpCode> COSTLY_OPS = EnumSet.of(OpCode.FLUSH, OpCode.CREATE_TABLE);
    private static final int COSTLY_SEEDS_PER_FUZZER = 64;

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
        /** The recorded frames, and those of them whose op is not costly. */
        private final List<RecordedFrame> recorded;
        private final List<RecordedFrame> cheapRecorded;
        /** Op codes that name no op: a recorded body under one of them must still be answered. */
        private final int[] unknownOps;
        private int costlyLeft = COSTLY_SEEDS_PER_FUZZER;
        private long nextId;
        /** Recorded seeds made for the connection being filled, by recorded op; see {@link #answered}. */
        private final long[] pendingSeeds = new long[256];
        /** Recorded seeds sent on connections where every frame was answered, by recorded op. */
        final long[] answeredSeeds = new long[256];
        /** Recorded seeds made to be answered, on any connection (some go before a killer). */
        long recordedSeeds;
        /** Killers made, and those of them made from recorded frames. */
        long killers;
        long recordedKillers;

        Fuzzer(long seed, List<RecordedFrame> recorded) {
            random = new SplittableRandom(seed);
            this.recorded = List.copyOf(recorded);
            this.cheapRecorded = recorded.stream().filter(r -> !COSTLY_OPS.contains(r.op())).toList();
            this.unknownOps = java.util.stream.IntStream.range(0, 256).filter(c -> OpCode.of(c) == null).toArray();
        }

        /** Every frame made since the last call was answered: counts its recorded seeds as sent and answered. */
        void answered() {
            for (int i = 0; i < pendingSeeds.length; i++) {
                answeredSeeds[i] += pendingSeeds[i];
            }
            java.util.Arrays.fill(pendingSeeds, 0);
        }

        /** The frames made since the last call went before a killer: not all of them need have been answered. */
        void unanswered() {
            java.util.Arrays.fill(pendingSeeds, 0);
        }

        /** A request id not yet used on the connection: usually the next, sometimes a random one. */
        private long freshId(Set<Long> ids) {
            long id = random.nextInt(10) == 0 ? random.nextLong() : nextId++;
            while (!ids.add(id)) {
                id = nextId++;
            }
            return id;
        }

        /** A recorded frame to start from: a costly op only while this fuzzer's budget for them lasts. */
        private RecordedFrame recordedSeed() {
            RecordedFrame r = recorded.get(random.nextInt(recorded.size()));
            if (COSTLY_OPS.contains(r.op())) {
                if (costlyLeft == 0) {
                    return cheapRecorded.get(random.nextInt(cheapRecorded.size()));
                }
                costlyLeft--;
            }
            return r;
        }

        /**
         * A recorded frame, re-framed with a correct length and checksum so it must be answered:
         * its body mutated (one time in ten as recorded), and sometimes its op code (another
         * recorded op, or a code that names none), status, response flag or request id changed.
         */
        private byte[] fromRecording(Set<Long> ids) {
            RecordedFrame r = recordedSeed();
            byte[] body = random.nextInt(10) == 0 ? r.body() : mutated(r.body());
            int op = r.op().code();
            if (random.nextInt(8) == 0) {
                op = random.nextInt(3) == 0 ? unknownOps[random.nextInt(unknownOps.length)]
                        : cheapRecorded.get(random.nextInt(cheapRecorded.size())).op().code();
            }
            int status = random.nextInt(10) == 0 ? random.nextInt(256) : r.status();
            int flags = random.nextInt(10) == 0 ? FrameLayout.FLAG_RESPONSE : r.flags();
            long id = random.nextInt(5) == 0 && ids.add(r.requestId()) ? r.requestId() : freshId(ids);
            recordedSeeds++;
            pendingSeeds[r.op().code()]++;
            return RawClient.frame(id, op, status, flags, b -> b.writeBytes(body));
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
            if (random.nextInt(3) == 0) {
                return fromRecording(ids);
            }
            long id = freshId(ids);
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
            killers++;
            if (recordedKillers == 0 || random.nextInt(3) == 0) { // each fuzzer's first killer is recorded traffic
                return recordedKiller();
            }
            byte[] valid = RawClient.frame(nextId++, OpCode.PING.code(), randomBytes(random.nextInt(40)));
            return switch (random.nextInt(6)) {
                case 0 -> { // checksum mismatch anywhere after the length field
                    int at = 4 + random.nextInt(valid.length - 4);
                    valid[at] ^= (byte) (1 + random.nextInt(255));
                    yield new Killer(valid, false);
                }
                case 1 -> new Killer(new byte[] {0, 0, 0, (byte) random.nextInt(FrameLayout.MIN_LENGTH), 1, 2, 3, 4},
                        false);
                case 2 -> { // reserved flags: bit 1 (FLAG_CALL) is legal on a request, so only with bit 0
                    int bit = 1 + random.nextInt(15);
                    int flags = (1 << bit) | (bit == 1 ? FrameLayout.FLAG_RESPONSE : 0);
                    yield new Killer(RawClient.frame(nextId++, OpCode.PING.code(), 0, flags, _ -> { }), false);
                }
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

        /**
         * A recorded frame broken so the server must close the connection. None of these is ever
         * executed, so costly ops are as good a start as any.
         */
        Killer recordedKiller() {
            RecordedFrame r = recorded.get(random.nextInt(recorded.size()));
            recordedKillers++;
            byte[] f = r.frame().clone();
            return switch (random.nextInt(5)) {
                case 0 -> { // the body mutated, the length made to fit it, the recorded checksum kept
                    byte[] body = mutated(r.body());
                    ByteBuf b = Unpooled.buffer();
                    b.writeInt(FrameLayout.MIN_LENGTH + body.length)
                            .writeBytes(f, FrameLayout.CRC_OFFSET, FrameLayout.HEADER_SIZE - FrameLayout.CRC_OFFSET)
                            .writeBytes(body);
                    yield new Killer(staleChecksum(ByteBufUtil.getBytes(b)), false);
                }
                case 1 -> { // header bytes after the length (checksum, id, op, status, flags) changed in place
                    int changes = 1 + random.nextInt(3);
                    for (int i = 0; i < changes; i++) {
                        f[FrameLayout.CRC_OFFSET + random.nextInt(FrameLayout.HEADER_SIZE - FrameLayout.CRC_OFFSET)]
                                ^= (byte) (1 + random.nextInt(255));
                    }
                    yield new Killer(staleChecksum(f), false);
                }
                case 2 -> { // a correct checksum over reserved flags
                    byte[] body = random.nextBoolean() ? r.body() : mutated(r.body());
                    // bit 1 (FLAG_CALL) is legal on a request, so it counts as reserved only with bit 0
                    int bit = 1 + random.nextInt(15);
                    int flags = (1 << bit) | (bit == 1 || random.nextBoolean() ? FrameLayout.FLAG_RESPONSE : 0);
                    yield new Killer(RawClient.frame(r.requestId(), r.op().code(), r.status(), flags,
                            b -> b.writeBytes(body)), false);
                }
                case 3 -> new Killer(java.util.Arrays.copyOf(f, 1 + random.nextInt(f.length - 1)), false); // cut short
                default -> { // a length under the header's
                    Unpooled.wrappedBuffer(f).setInt(FrameLayout.LENGTH_OFFSET, random.nextInt(FrameLayout.MIN_LENGTH));
                    yield new Killer(f, false);
                }
            };
        }

        /** The frame with its checksum made wrong, should the changes have left it right. */
        private static byte[] staleChecksum(byte[] frame) {
            int length = frame.length - 4;
            ByteBuf b = Unpooled.wrappedBuffer(frame);
            if (b.getInt(FrameLayout.CRC_OFFSET) == FrameLayout.crc(b, FrameLayout.REQUEST_ID_OFFSET, length - 4)) {
                frame[FrameLayout.CRC_OFFSET] ^= 1;
            }
            return frame;
        }
    }

    /** A frame the network client sent, as recorded: {@code frame} holds its header and body. */
    record RecordedFrame(OpCode op, long requestId, int status, int flags, byte[] frame) {
        byte[] body() {
            return java.util.Arrays.copyOfRange(frame, FrameLayout.HEADER_SIZE, frame.length);
        }
    }

    /**
     * A TCP proxy on 127.0.0.1 in front of the server: forwards both directions and records every
     * byte each client connection sends. Its threads are daemons, ended by {@link #stop}.
     */
    static final class RecordingProxy implements AutoCloseable {
        private static final long JOIN_MILLIS = 10_000;

        private final ServerSocket listener;
        private final int target;
        private final Thread acceptor;
        /** Per accepted connection, in order: what the client sent. */
        private final List<ByteArrayOutputStream> sent = new CopyOnWriteArrayList<>();
        private final List<Socket> sockets = new CopyOnWriteArrayList<>();
        private final List<Thread> pumps = new CopyOnWriteArrayList<>();
        private final List<Throwable> errors = new CopyOnWriteArrayList<>();
        private volatile boolean stopping;

        RecordingProxy(int target) throws IOException {
            this.target = target;
            listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
            acceptor = Thread.ofPlatform().daemon().name("fuzz-proxy-accept").start(this::accept);
        }

        int port() {
            return listener.getLocalPort();
        }

        private void accept() {
            while (!stopping) {
                Socket client;
                try {
                    client = listener.accept();
                } catch (IOException e) {
                    if (!stopping) {
                        errors.add(e);
                    }
                    return;
                }
                sockets.add(client);
                try {
                    Socket server = new Socket(InetAddress.getLoopbackAddress(), target);
                    sockets.add(server);
                    client.setTcpNoDelay(true);
                    server.setTcpNoDelay(true);
                    ByteArrayOutputStream record = new ByteArrayOutputStream();
                    sent.add(record);
                    pumps.add(pump(client, server, record));
                    pumps.add(pump(server, client, null));
                } catch (IOException e) {
                    errors.add(e);
                    closeQuietly(client);
                }
            }
        }

        /** Copies {@code from} to {@code to} (recording it when {@code record} is given) until either closes. */
        private Thread pump(Socket from, Socket to, ByteArrayOutputStream record) {
            return Thread.ofPlatform().daemon().name("fuzz-proxy-pump").start(() -> {
                byte[] buf = new byte[16 * 1024];
                try {
                    InputStream in = from.getInputStream();
                    OutputStream out = to.getOutputStream();
                    int n;
                    while ((n = in.read(buf)) >= 0) {
                        if (record != null) {
                            synchronized (record) {
                                record.write(buf, 0, n);
                            }
                        }
                        out.write(buf, 0, n);
                        out.flush();
                    }
                    to.shutdownOutput(); // pass the end of the stream on
                } catch (IOException e) {
                    closeQuietly(from); // one side is gone: end the other direction too
                    closeQuietly(to);
                }
            });
        }

        private static void closeQuietly(Socket s) {
            try {
                s.close();
            } catch (IOException e) {
                // closing anyway
            }
        }

        /** Stops accepting, closes every connection, waits for the threads; returns what each client sent. */
        List<byte[]> stop() throws InterruptedException {
            close();
            acceptor.join(JOIN_MILLIS);
            for (Thread t : pumps) {
                t.join(JOIN_MILLIS);
            }
            assertThat(acceptor.isAlive()).as("proxy acceptor ended").isFalse();
            assertThat(pumps).as("proxy pumps ended").noneMatch(Thread::isAlive);
            assertThat(errors).as("proxy errors").isEmpty();
            List<byte[]> out = new ArrayList<>();
            for (ByteArrayOutputStream record : sent) {
                synchronized (record) {
                    out.add(record.toByteArray());
                }
            }
            return out;
        }

        @Override
        public void close() {
            stopping = true;
            try {
                listener.close();
            } catch (IOException e) {
                // closing anyway
            }
            for (Socket s : sockets) {
                closeQuietly(s);
            }
        }
    }

    /**
     * Runs the workload of {@link #RECORDED_OPS} through the network client, connected to the
     * server through a {@link RecordingProxy}, and returns what the client sent on each connection.
     */
    private static List<byte[]> recordWorkload(int serverPort) throws Exception {
        try (RecordingProxy proxy = new RecordingProxy(serverPort)) {
            Connection client = Basalt.connect("basalt://127.0.0.1:" + proxy.port());
            try {
                client.admin().createTable(TableDescriptor.of(RECORDED_TABLE, "f")).get(30, TimeUnit.SECONDS);
                AsyncTable table = client.table(RECORDED_TABLE);
                for (int i = 0; i < 8; i++) {
                    table.put(Put.of("row-" + i).addColumn("f", "q", "value-" + i)).get(30, TimeUnit.SECONDS);
                }
                List<CompletableFuture<Object>> batch = table.batch(List.of(
                        Put.of("row-8").addColumn("f", "q", "value-8"),
                        Put.of("row-9").addColumn("f", "q", "value-9").addColumn("f", "r", "other"),
                        Delete.of("row-7")));
                for (CompletableFuture<Object> f : batch) {
                    f.get(30, TimeUnit.SECONDS);
                }
                Result got = table.get(Get.of("row-1")).get(30, TimeUnit.SECONDS);
                assertThat(got.value("f", "q")).isEqualTo("value-1".getBytes());
                Result counter = table.increment(Increment.of("counter").addColumn("f".getBytes(), "n".getBytes(), 5))
                        .get(30, TimeUnit.SECONDS);
                assertThat(counter.value("f", "n")).isEqualTo(Increment.encode(5));
                boolean applied = table.checkAndMutate(CheckAndMutate.onRow("row-1".getBytes())
                        .ifEquals("f".getBytes(), "q".getBytes(), "value-1".getBytes())
                        .then(Put.of("row-1").addColumn("f", "q", "swapped"))).get(30, TimeUnit.SECONDS);
                assertThat(applied).isTrue();
                table.delete(Delete.of("row-2").addColumn("f".getBytes(), "q".getBytes())).get(30, TimeUnit.SECONDS);
                int rows = 0;
                try (ResultScanner scanner = table.scanner(new Scan().setCaching(2))) {
                    for (Result r = scanner.next(); r != null && rows < 1000; r = scanner.next()) {
                        rows++;
                    }
                }
                assertThat(rows).as("rows 0-9 but 2 and 7, and the counter").isEqualTo(9);
                try (ResultScanner scanner = table.scanner(new Scan().setCaching(2))) {
                    assertThat(scanner.next()).isNotNull(); // then closed early: SCAN_CLOSE
                }
                assertThat(client.admin().listTables().get(30, TimeUnit.SECONDS))
                        .extracting(TableDescriptor::name).contains(RECORDED_TABLE);
                assertThat(client.admin().describeTable(RECORDED_TABLE).get(30, TimeUnit.SECONDS).name())
                        .isEqualTo(RECORDED_TABLE);
                client.admin().flush(RECORDED_TABLE).get(30, TimeUnit.SECONDS);
            } finally {
                client.close();
            }
            return proxy.stop();
        }
    }

    /**
     * Cuts each recorded client stream into its handshake, which must be the one {@link RawClient}
     * sends, and its frames, read by {@link FrameLayout}'s offsets: each with a correct checksum,
     * a known op, status 0 and no flags, and the stream ending where its last frame ends.
     */
    static List<RecordedFrame> parseRecording(List<byte[]> streams) {
        List<RecordedFrame> frames = new ArrayList<>();
        assertThat(streams).as("connections through the proxy").isNotEmpty();
        byte[] handshake = RawClient.handshakeBytes(FrameLayout.VERSION);
        for (byte[] s : streams) {
            assertThat(s.length).as("recorded bytes").isGreaterThanOrEqualTo(FrameLayout.HANDSHAKE_SIZE);
            assertThat(java.util.Arrays.copyOf(s, FrameLayout.HANDSHAKE_SIZE)).as("recorded handshake")
                    .isEqualTo(handshake);
            ByteBuf b = Unpooled.wrappedBuffer(s);
            int at = FrameLayout.HANDSHAKE_SIZE;
            while (at < s.length) { // each round moves past one frame of at least the header
                assertThat(s.length - at).as("a whole header at %d", at)
                        .isGreaterThanOrEqualTo(FrameLayout.HEADER_SIZE);
                long length = b.getUnsignedInt(at + FrameLayout.LENGTH_OFFSET);
                assertThat(length).as("frame length at %d", at).isBetween((long) FrameLayout.MIN_LENGTH,
                        (long) s.length - at - 4);
                assertThat(length + 4).as("a recorded frame stays well under the fuzzed server's limit")
                        .isLessThan(MAX_FRAME / 2);
                int crc = b.getInt(at + FrameLayout.CRC_OFFSET);
                assertThat(crc).as("checksum of the frame at %d", at)
                        .isEqualTo(FrameLayout.crc(b, at + FrameLayout.REQUEST_ID_OFFSET, (int) length - 4));
                OpCode op = OpCode.of(b.getUnsignedByte(at + FrameLayout.OP_OFFSET));
                assertThat(op).as("op of the frame at %d", at).isNotNull();
                int status = b.getUnsignedByte(at + FrameLayout.STATUS_OFFSET);
                int flags = b.getUnsignedShort(at + FrameLayout.FLAGS_OFFSET);
                assertThat(status).as("status of a request").isZero();
                assertThat(flags).as("flags of a request").isZero();
                long id = b.getLong(at + FrameLayout.REQUEST_ID_OFFSET);
                int end = at + 4 + (int) length;
                frames.add(new RecordedFrame(op, id, status, flags, java.util.Arrays.copyOfRange(s, at, end)));
                at = end;
            }
        }
        return frames;
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
        long recordedSeeds = 0;
        long recordedAnswered = 0;
        long recordedKillers = 0;
        Connection good = Basalt.connect("basalt://127.0.0.1:" + port);
        try {
            good.admin().createTable(TableDescriptor.of(CHECKED_TABLE, "f")).get(30, TimeUnit.SECONDS);
            good.admin().createTable(TableDescriptor.of(FUZZ_TABLE, "f")).get(30, TimeUnit.SECONDS);
            AsyncTable checked = good.table(CHECKED_TABLE);

            List<RecordedFrame> recording = parseRecording(recordWorkload(port));
            Map<OpCode, Long> recordedOps = recording.stream().collect(
                    java.util.stream.Collectors.groupingBy(RecordedFrame::op, TreeMap::new,
                            java.util.stream.Collectors.counting()));
            System.out.println("fuzz: seed " + seed + " (-Dbasalt.fuzz.seed repeats it); recorded " + recording.size()
                    + " frames: " + recordedOps);
            assertThat(recordedOps.keySet()).as("ops in the recorded traffic").containsAll(RECORDED_OPS);

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
            List<Fuzzer> fuzzers = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                Fuzzer fuzzer = new Fuzzer(seed + t, recording);
                fuzzers.add(fuzzer);
                long index = t;
                workers.add(pool.submit(() -> {
                    SplittableRandom choose = new SplittableRandom(seed ^ (index << 32));
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
            long[] seedsAnswered = new long[256];
            for (Fuzzer f : fuzzers) {
                recordedSeeds += f.recordedSeeds;
                recordedKillers += f.recordedKillers;
                for (int op = 0; op < seedsAnswered.length; op++) {
                    seedsAnswered[op] += f.answeredSeeds[op];
                }
            }
            recordedAnswered = java.util.Arrays.stream(seedsAnswered).sum();
            assertThat(recordedAnswered).as("recorded seeds sent and answered (a third of the answered frames)")
                    .isGreaterThanOrEqualTo(answered.get() / 5).isPositive();
            long killers = fuzzers.stream().mapToLong(f -> f.killers).sum();
            assertThat(recordedKillers).as("recorded frames sent broken (of %d killers)", killers)
                    .isGreaterThanOrEqualTo(Math.min(1, killers));
            for (OpCode op : recordedOps.keySet()) {
                assertThat(seedsAnswered[op.code()]).as("recorded %s seeds answered", op).isPositive();
            }

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
        System.out.println("fuzz: " + (answered.get() + killed.get()) + " frames (" + recordedSeeds
                + " from recorded traffic, " + recordedAnswered + " of them answered; " + recordedKillers
                + " recorded frames sent broken), seed " + seed);
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
            fuzzer.answered();
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
        fuzzer.unanswered();
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
            assertThat(c.awaitClosedByServer()).as("the server closes a connection whose stream broke (after %d good"
                    + " frames; the killer's first bytes: %s)", before, java.util.HexFormat.ofDelimiter(" ")
                    .formatHex(killer.bytes(), 0, Math.min(64, killer.bytes().length))).isTrue();
        }
        return before + 1;
    }
}
