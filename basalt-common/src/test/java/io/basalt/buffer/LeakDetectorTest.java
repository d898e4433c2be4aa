package io.basalt.buffer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.basalt.buffer.BufferPoolConfig.Exhaustion;
import io.basalt.buffer.BufferPoolConfig.LeakDetection;
import io.basalt.testkit.IgnoreInvariants;
import java.util.ArrayList;
import java.util.List;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.junit.jupiter.api.Test;

class LeakDetectorTest {

    private static List<UnreleasedBuffer> unreleasedFrom(BufferPool pool) {
        return BufferPool.unreleasedBuffers().stream().filter(u -> u.pool().equals(pool.name())).toList();
    }

    @Test
    void withAllEveryPooledBufferIsFollowedFromItsAllocationSiteUntilItsFinalRelease() {
        BufferPoolConfig config = TestPools.config(64, 8).withName("followed")
                .withLeakDetection(LeakDetection.ALL, 1000);
        try (BufferPool pool = BufferPool.create(config)) {
            Buffer buffer = pool.allocate(100);
            List<UnreleasedBuffer> listed = unreleasedFrom(pool);
            assertThat(listed).hasSize(1);
            UnreleasedBuffer entry = listed.getFirst();
            assertThat(entry.size()).isEqualTo(100);
            assertThat(entry.thread()).isEqualTo(Thread.currentThread().getName());
            assertThat(entry.unreachable()).isFalse();
            StackTraceElement top = entry.allocationSite().getFirst();
            assertThat(top.getClassName()).isEqualTo(LeakDetectorTest.class.getName());
            assertThat(top.getMethodName())
                    .isEqualTo("withAllEveryPooledBufferIsFollowedFromItsAllocationSiteUntilItsFinalRelease");
            assertThat(entry.toString()).startsWith("buffer #" + entry.sequence() + " of 100 bytes from pool 'followed',"
                    + " allocated by thread '" + entry.thread() + "', never released; allocated at:"
                    + System.lineSeparator() + "\tat " + top);

            Buffer slice = buffer.slice(10, 20).retain();
            buffer.release();
            assertThat(unreleasedFrom(pool)).hasSize(1);
            slice.release();
            assertThat(unreleasedFrom(pool)).isEmpty();
            assertThat(pool.metrics().leaksReported()).isZero();
        }
    }

    @Test
    void laterBuffersGetLaterSequenceNumbersAndAreListedOldestFirst() {
        try (BufferPool pool = TestPools.pool(64, 8)) {
            Buffer first = pool.allocate(1);
            Buffer second = pool.allocate(2);
            List<UnreleasedBuffer> listed = unreleasedFrom(pool);
            assertThat(listed).extracting(UnreleasedBuffer::size).containsExactly(1, 2);
            assertThat(listed.get(1).sequence()).isGreaterThan(listed.get(0).sequence());
            first.release();
            second.release();
        }
    }

    @Test
    @IgnoreInvariants(value = BufferLeakInvariant.NAME, because = "leaks a buffer on purpose for the collector to find")
    void aBufferDroppedWithoutReleaseIsReportedWithItsAllocationSiteAndItsChunkIsNeverReused() throws Exception {
        Logger log = Logger.getLogger(BufferPool.class.getName());
        List<LogRecord> records = new ArrayList<>();
        Handler capture = new Handler() {
            @Override
            public void publish(LogRecord record) {
                synchronized (records) {
                    records.add(record);
                }
            }

            @Override
            public void flush() {}

            @Override
            public void close() {}
        };
        log.addHandler(capture);
        boolean toParents = log.getUseParentHandlers();
        log.setUseParentHandlers(false);
        try (BufferPool pool = BufferPool.create(TestPools.config(64, 8).withName("leaky"))) {
            int leakedChunk = allocateAndDrop(pool);
            for (int attempt = 0; attempt < 200 && pool.metrics().leaksReported() == 0; attempt++) {
                System.gc();
                Thread.sleep(10);
            }
            BufferPoolMetrics metrics = pool.metrics();
            assertThat(metrics.leaksReported()).isEqualTo(1);
            assertThat(metrics.chunksInUse()).isEqualTo(1);

            UnreleasedBuffer leak = unreleasedFrom(pool).getFirst();
            assertThat(leak.unreachable()).isTrue();
            assertThat(leak.allocationSite().getFirst().getMethodName()).isEqualTo("allocateAndDrop");
            assertThat(leak.toString()).contains(", leaked (unreachable, never released); allocated at:");

            LogRecord record;
            synchronized (records) {
                assertThat(records).hasSize(1);
                record = records.getFirst();
            }
            assertThat(record.getLevel()).isEqualTo(Level.SEVERE);
            assertThat(record.getMessage()).startsWith("LEAK: buffer #" + leak.sequence() + " of 48 bytes from pool"
                    + " 'leaky' (allocated by thread '" + Thread.currentThread().getName() + "') became unreachable"
                    + " without release(); its chunks stay out of the pool for good. Allocated at:"
                    + System.lineSeparator() + "\tat " + LeakDetectorTest.class.getName() + ".allocateAndDrop(");

            List<Buffer> rest = new ArrayList<>();
            for (int i = 0; i < 7; i++) {
                rest.add(pool.allocate(64));
            }
            assertThat(rest).extracting(b -> b.refCount.chunk).doesNotContain(leakedChunk);
            assertThatThrownBy(() -> pool.allocate(1)).isInstanceOf(BufferPoolExhaustedException.class);
            rest.forEach(Buffer::release);
            assertThat(pool.metrics().leaksReported()).isEqualTo(1);
        } finally {
            log.removeHandler(capture);
            log.setUseParentHandlers(toParents);
        }
    }

    /** Allocates a buffer and forgets it; returns its chunk. */
    private static int allocateAndDrop(BufferPool pool) {
        Buffer forgotten = pool.allocate(48).putLong(0, 1);
        return forgotten.refCount.chunk;
    }

    @Test
    void withOffNothingIsFollowed() {
        BufferPoolConfig config = TestPools.config(64, 8).withName("unfollowed")
                .withLeakDetection(LeakDetection.OFF, 1);
        try (BufferPool pool = BufferPool.create(config)) {
            Buffer buffer = pool.allocate(10);
            assertThat(unreleasedFrom(pool)).isEmpty();
            assertThat(buffer.refCount.tracker).isNull();
            buffer.release();
        }
    }

    @Test
    void withSampledAboutOneBufferInTheIntervalIsFollowed() {
        BufferPoolConfig everyFourth = TestPools.config(16, 4000).withName("sampled-4")
                .withLeakDetection(LeakDetection.SAMPLED, 4);
        BufferPoolConfig everyOne = TestPools.config(16, 100).withName("sampled-1")
                .withLeakDetection(LeakDetection.SAMPLED, 1);
        try (BufferPool quarter = BufferPool.create(everyFourth); BufferPool all = BufferPool.create(everyOne)) {
            List<Buffer> held = new ArrayList<>();
            for (int i = 0; i < 4000; i++) {
                held.add(quarter.allocate(16));
            }
            for (int i = 0; i < 100; i++) {
                held.add(all.allocate(16));
            }
            // 1000 expected, standard deviation 27: outside 800..1200 is a 7-sigma event.
            assertThat(unreleasedFrom(quarter).size()).isBetween(800, 1200);
            assertThat(unreleasedFrom(all)).hasSize(100);
            held.forEach(Buffer::release);
        }
    }

    @Test
    void heapFallbackBuffersAreNotFollowed() {
        BufferPoolConfig config = TestPools.config(64, 4).withName("fallback")
                .withExhaustion(Exhaustion.HEAP_FALLBACK, 64);
        try (BufferPool pool = BufferPool.create(config)) {
            Buffer all = pool.allocate(256);
            Buffer heap = pool.allocate(10);
            assertThat(unreleasedFrom(pool)).extracting(UnreleasedBuffer::size).containsExactly(256);
            heap.release();
            all.release();
        }
    }
}
