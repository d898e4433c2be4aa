package io.basalt.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.basalt.client.AsyncTable;
import io.basalt.client.Basalt;
import io.basalt.client.Connection;
import io.basalt.client.Get;
import io.basalt.client.Increment;
import io.basalt.client.Put;
import io.basalt.client.Result;
import io.basalt.client.TableDescriptor;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Three node processes on loopback; a client writes through {@code basalt://n1,n2,n3} while the
 * leader of its region is killed with SIGKILL, three times, and restarted. No acknowledged write
 * is lost, the counter counts each acknowledged increment once (the client resends an increment
 * whose answer was lost, with its call id, and the region applies it once), and writes resume.
 */
class ClusterFailoverIT {

    @TempDir
    Path dir;

    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void killingTheLeaderLosesNoAcknowledgedWriteAndAppliesEachIncrementOnce() throws Exception {
        try (NodeProcesses cluster = new NodeProcesses(dir, 3, null)) {
            cluster.startAll();
            try (Connection c = Basalt.connect(cluster.uri())) {
                c.admin().createTable(TableDescriptor.of("t", "f")).get(90, TimeUnit.SECONDS);
                AsyncTable t = c.table("t");
                ConcurrentLinkedQueue<String> acked = new ConcurrentLinkedQueue<>();
                AtomicLong increments = new AtomicLong();
                AtomicLong unknownIncrements = new AtomicLong();
                // The invocation time of the last acknowledged increment, and when it was acknowledged.
                java.util.concurrent.atomic.AtomicReference<long[]> lastAck =
                        new java.util.concurrent.atomic.AtomicReference<>(new long[] {0, 0});
                AtomicBoolean stop = new AtomicBoolean();
                Thread writer = Thread.ofPlatform().name("writer").start(() -> {
                    for (int i = 0; !stop.get() && i < 100_000; i++) {
                        String row = "k" + i;
                        try {
                            t.put(Put.of(row).addColumn("f", "q", row)).get(60, TimeUnit.SECONDS);
                            acked.add(row);
                        } catch (Exception e) {
                            // not acknowledged: it may or may not be there, and is not checked
                        }
                        try {
                            long invoked = System.nanoTime();
                            t.increment(Increment.of("counter").addColumn(b("f"), b("n"), 1)).get(60, TimeUnit.SECONDS);
                            increments.incrementAndGet();
                            lastAck.set(new long[] {invoked, System.nanoTime()});
                        } catch (Exception e) {
                            if (unknownIncrements.incrementAndGet() <= 3) {
                                System.out.println("ClusterFailoverIT: an increment failed: " + e);
                            }
                        }
                    }
                });
                List<Long> resumedMillis = new ArrayList<>();
                for (int kill = 0; kill < 3; kill++) {
                    Thread.sleep(1000);
                    int leader = cluster.awaitLeader("t", Duration.ofSeconds(30));
                    long killedAt = System.nanoTime();
                    cluster.kill(leader);
                    long deadline = killedAt + TimeUnit.SECONDS.toNanos(60);
                    while (lastAck.get()[0] < killedAt && System.nanoTime() < deadline) {
                        Thread.sleep(10);
                    }
                    assertThat(lastAck.get()[0]).as("a write begun after killing node %s was acknowledged", leader)
                            .isGreaterThan(killedAt);
                    resumedMillis.add(TimeUnit.NANOSECONDS.toMillis(lastAck.get()[1] - killedAt));
                    cluster.start(leader);
                }
                Thread.sleep(1000);
                stop.set(true);
                writer.join(TimeUnit.MINUTES.toMillis(2));
                assertThat(writer.isAlive()).isFalse();
                System.out.println("ClusterFailoverIT: writes resumed after " + resumedMillis + " ms; " + acked.size()
                        + " puts and " + increments.get() + " increments acknowledged, " + unknownIncrements.get()
                        + " increments failed");

                for (String row : acked) {
                    Result r = t.get(Get.of(row)).get(30, TimeUnit.SECONDS);
                    assertThat(r.isEmpty()).as("acknowledged %s", row).isFalse();
                }
                Result counter = t.get(Get.of("counter")).get(30, TimeUnit.SECONDS);
                long value = Increment.decode(MemorySegment.ofArray(counter.value(b("f"), b("n"))));
                assertThat(value).as("each acknowledged increment counted once; failed ones at most once")
                        .isBetween(increments.get(), increments.get() + unknownIncrements.get());
                assertThat(acked).hasSizeGreaterThan(10);
                assertThat(unknownIncrements.get()).as("writes failing through a failover (the client retries what"
                        + " UNAVAILABLE answers, for about 10 s)").isLessThanOrEqualTo(increments.get() / 10);
            }
        }
    }
}
