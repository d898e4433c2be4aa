package io.basalt.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.basalt.client.AsyncTable;
import io.basalt.client.Basalt;
import io.basalt.client.Connection;
import io.basalt.client.Get;
import io.basalt.client.Put;
import io.basalt.client.Result;
import io.basalt.client.StoreOptions;
import io.basalt.client.TableDescriptor;
import io.basalt.client.net.ClientOptions;
import io.basalt.client.net.Messages;
import io.basalt.protocol.OpCode;
import io.basalt.protocol.Wire;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import java.io.BufferedReader;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue #17: a client that pipelines GETs of a 1 MiB row and never reads the responses. Before,
 * the server read every request and queued every response (18.6 GB of RSS in 16 s, other clients
 * timing out, the server killed). Now it stops reading that connection while its responses are
 * queued past the high-water mark or {@code maxInFlightPerConnection} of its requests are
 * executing, so the memory it holds for it is bounded, and it keeps serving everyone else.
 *
 * <p>The server runs in a child JVM ({@link SlowReaderServer}) with {@code -Xmx256m
 * -XX:MaxDirectMemorySize=256m}, which halts itself once its resident set passes
 * {@link #RSS_LIMIT}: a server that still queued without bound fails the test there, and does
 * not take the machine down.
 *
 * <p>The bound checked: the child's resident set stays under {@link #RSS_BOUND}. What the server
 * may hold for the slow connection is the high-water mark (8 MiB, the default) plus the
 * responses of its requests executing (16 here, 1 MiB each), about 25 MiB above a JVM whose heap
 * may grow to 256 MiB; the old code passed 1 GiB within seconds.
 */
class SlowReaderIT {

    private static final int ROW_BYTES = 1 << 20;
    private static final int MAX_IN_FLIGHT = 16;
    private static final long RSS_BOUND = 640L << 20;
    private static final long RSS_LIMIT = 1L << 30;
    /** Bounds every phase of the test. */
    private static final long PHASE_SECONDS = 30;

    @TempDir
    Path dir;

    static byte[] getFrame(long id) {
        ByteBuf body = Unpooled.buffer();
        Wire.writeString(body, "t");
        Messages.writeGet(body, Get.of("big"));
        return RawClient.frame(id, OpCode.GET.code(), ByteBufUtil.getBytes(body));
    }

    @Test
    void aClientThatNeverReadsCannotExhaustTheServerAndOthersAreStillServed() throws Exception {
        Process child = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx256m", "-XX:MaxDirectMemorySize=256m", "--enable-native-access=ALL-UNNAMED",
                "-cp", System.getProperty("java.class.path"), SlowReaderServer.class.getName(),
                dir.resolve("data").toString(), Integer.toString(MAX_IN_FLIGHT), Long.toString(RSS_LIMIT))
                .redirectError(ProcessBuilder.Redirect.INHERIT).start();
        AtomicLong maxRss = new AtomicLong();
        AtomicLong maxHeap = new AtomicLong();
        CompletableFuture<Integer> port = new CompletableFuture<>();
        AtomicReference<String> last = new AtomicReference<>("");
        Thread reader = Thread.ofPlatform().daemon().start(() -> {
            try (BufferedReader out = new BufferedReader(new InputStreamReader(child.getInputStream(),
                    StandardCharsets.UTF_8))) {
                for (String line; (line = out.readLine()) != null; ) {
                    last.set(line);
                    String[] words = line.split(" ");
                    if (words[0].equals("PORT")) {
                        port.complete(Integer.parseInt(words[1]));
                    } else if (words[0].equals("MEM")) {
                        maxHeap.accumulateAndGet(Long.parseLong(words[1]), Math::max);
                        maxRss.accumulateAndGet(Long.parseLong(words[2]), Math::max);
                    }
                }
            } catch (IOException e) {
                port.completeExceptionally(e);
            }
            port.completeExceptionally(new AssertionError("the server exited before it listened"));
        });
        try {
            int p = port.get(PHASE_SECONDS, TimeUnit.SECONDS);
            byte[] big = new byte[ROW_BYTES];
            Arrays.fill(big, (byte) 'x');
            try (Connection good = Basalt.connect("basalt://127.0.0.1:" + p, ClientOptions.builder()
                    .operationTimeout(Duration.ofSeconds(PHASE_SECONDS)).build(), StoreOptions.defaults())) {
                good.admin().createTable(TableDescriptor.of("t", "f")).get(PHASE_SECONDS, TimeUnit.SECONDS);
                AsyncTable t = good.table("t");
                t.put(Put.of("big").addColumn("f".getBytes(), "q".getBytes(), big)).get(PHASE_SECONDS, TimeUnit.SECONDS);
                long rssBefore = maxRss.get();

                RawClient slow = new RawClient(p).handshake();
                AtomicLong sent = new AtomicLong();
                Thread flood = Thread.ofPlatform().daemon().name("slow-reader").start(() -> {
                    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
                    try {
                        for (long id = 0; id < 200_000 && System.nanoTime() < deadline; ) {
                            ByteArrayOutputStream batch = new ByteArrayOutputStream();
                            for (int i = 0; i < 100; i++, id++) {
                                batch.write(getFrame(id));
                            }
                            slow.send(batch.toByteArray()); // blocks once the server stops reading
                            sent.addAndGet(100);
                        }
                    } catch (IOException e) {
                        // closed below
                    }
                });
                // Meanwhile the good client is served: a thousand puts and gets, each read back.
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(PHASE_SECONDS);
                int served = 0;
                while (served < 1000 && System.nanoTime() - deadline < 0) {
                    String row = "small-" + served;
                    t.put(Put.of(row).addColumn("f", "q", "v" + served)).get(PHASE_SECONDS, TimeUnit.SECONDS);
                    assertThat(t.get(Get.of(row)).get(PHASE_SECONDS, TimeUnit.SECONDS).value("f", "q")).asString()
                            .isEqualTo("v" + served);
                    served++;
                }
                assertThat(served).as("the good client's requests served while the slow one flooded").isEqualTo(1000);
                assertThat(sent.get()).as("GETs the slow reader sent: each asks for 1 MiB").isGreaterThan(1000);
                assertThat(child.isAlive()).as("the server process is alive").isTrue();
                slow.close();
                flood.join(TimeUnit.SECONDS.toMillis(PHASE_SECONDS));

                Result r = t.get(Get.of("big")).get(PHASE_SECONDS, TimeUnit.SECONDS);
                assertThat(r.value("f", "q")).as("the 1 MiB row is intact").isEqualTo(big);
                for (int i = 0; i < served; i++) {
                    assertThat(t.get(Get.of("small-" + i)).get(PHASE_SECONDS, TimeUnit.SECONDS).value("f", "q"))
                            .asString().isEqualTo("v" + i);
                }
                System.out.printf("slow reader: %d GETs sent; server resident set at most %d MiB (%d MiB before),"
                        + " heap in use at most %d MiB%n", sent.get(), maxRss.get() >> 20, rssBefore >> 20,
                        maxHeap.get() >> 20);
                assertThat(maxRss.get()).as("the server's resident set, bytes (last report: %s)", last.get())
                        .isLessThan(RSS_BOUND);
            }
        } finally {
            child.getOutputStream().close();
            if (!child.waitFor(PHASE_SECONDS, TimeUnit.SECONDS)) {
                child.destroyForcibly().waitFor(PHASE_SECONDS, TimeUnit.SECONDS);
            }
            reader.join(TimeUnit.SECONDS.toMillis(5));
        }
        assertThat(child.exitValue()).as("the server stopped cleanly").isZero();
        assertThat(last.get()).isEqualTo("STOPPED");
    }
}
