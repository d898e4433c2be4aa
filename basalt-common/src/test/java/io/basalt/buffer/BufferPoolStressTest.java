package io.basalt.buffer;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.SplittableRandom;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.LongAdder;
import org.junit.jupiter.api.Test;

/**
 * Eight threads allocate, stamp, slice, retain, pass buffers to each other and release them, for a
 * bounded time, on a pool small enough to run out now and then. Checked all along: no chunk is
 * ever handed out while another buffer holds it (an ownership table indexed by chunk, claimed by
 * CAS), no buffer's bytes change under its owner (every buffer carries a stamp that every holder
 * checks), and {@code release()} says true exactly for the last reference. At the end every
 * chunk is back.
 */
class BufferPoolStressTest {

    private static final int THREADS = 8;
    private static final long RUN_NANOS = 1_500_000_000L;
    private static final int MAX_OPS_PER_THREAD = 400_000;
    private static final int CHUNK = 64;
    private static final int MAX_CHUNKS = 100;
    private static final int INBOX = 4;

    /** One allocation: who owns its chunks, its stamp, and how many holders are still working. */
    private static final class Lease {
        final Buffer base;
        final int token;
        final int[] chunks;
        final AtomicInteger holders = new AtomicInteger();

        Lease(Buffer base, int token) {
            this.base = base;
            this.token = token;
            this.chunks = base.refCount.chunks != null ? base.refCount.chunks : new int[] {base.refCount.chunk};
        }
    }

    /** One holder's reference: a view of part of the allocation, starting at {@code offset}. */
    private record Handle(Lease lease, Buffer view, int offset) {}

    private final AtomicIntegerArray owner = new AtomicIntegerArray(MAX_CHUNKS);
    private final AtomicInteger tokens = new AtomicInteger();
    private final Queue<String> errors = new ConcurrentLinkedQueue<>();
    private final LongAdder exhausted = new LongAdder();
    private final LongAdder operations = new LongAdder();

    @Test
    void eightThreadsSharingBuffersNeverGetAChunkThatIsInUseAndGiveEveryChunkBack() throws Exception {
        List<Queue<Handle>> inboxes = new ArrayList<>();
        for (int t = 0; t < THREADS; t++) {
            inboxes.add(new ArrayBlockingQueue<>(INBOX));
        }
        try (BufferPool pool = TestPools.pool(CHUNK, MAX_CHUNKS)) {
            CountDownLatch start = new CountDownLatch(1);
            long deadline = System.nanoTime() + RUN_NANOS;
            List<Thread> threads = new ArrayList<>();
            for (int t = 0; t < THREADS; t++) {
                int me = t;
                threads.add(Thread.ofPlatform().name("stress-" + t).start(() -> {
                    try {
                        start.await();
                        work(pool, me, inboxes, deadline);
                    } catch (Throwable e) {
                        errors.add("thread " + me + " died: " + e);
                    }
                }));
            }
            start.countDown();
            for (Thread thread : threads) {
                thread.join();
            }
            for (Queue<Handle> inbox : inboxes) {
                for (Handle h; (h = inbox.poll()) != null; ) {
                    drop(h);
                }
            }
            assertThat(errors).isEmpty();
            BufferPoolMetrics metrics = pool.metrics();
            assertThat(metrics.chunksInUse()).isZero();
            assertThat(metrics.chunksFree()).isEqualTo(metrics.slabs() * 4);
            assertThat(metrics.allocationFailures()).isEqualTo(exhausted.sum());
            for (int c = 0; c < MAX_CHUNKS; c++) {
                assertThat(owner.get(c)).as("owner of chunk %d", c).isZero();
            }
            assertThat(operations.sum()).isPositive();
        }
    }

    private void work(BufferPool pool, int me, List<Queue<Handle>> inboxes, long deadline) {
        SplittableRandom random = new SplittableRandom(me * 7919L);
        List<Handle> mine = new ArrayList<>();
        for (int op = 0; op < MAX_OPS_PER_THREAD && System.nanoTime() < deadline && errors.isEmpty(); op++) {
            operations.increment();
            int dice = random.nextInt(20);
            int target = random.nextInt(THREADS);
            if (mine.size() > 4 || (dice < 6 && !mine.isEmpty())) {
                drop(mine.remove(random.nextInt(mine.size())));
            } else if (dice < 12) {
                Handle h = allocate(pool, random);
                if (h != null) {
                    mine.add(h);
                }
            } else if (dice < 14 && !mine.isEmpty()) {
                // share: a new reference for another thread, to a slice of what this thread holds
                Handle h = mine.get(random.nextInt(mine.size()));
                int from = random.nextInt(h.view().capacity() + 1);
                int length = random.nextInt(h.view().capacity() - from + 1);
                h.lease().holders.incrementAndGet();
                Buffer shared = h.view().slice(from, length).retain();
                Handle handle = new Handle(h.lease(), shared, h.offset() + from);
                if (!inboxes.get(target).offer(handle)) {
                    drop(handle);
                }
            } else if (dice < 16 && !mine.isEmpty()) {
                // pass on: the reference itself moves to another thread, no retain
                int pick = random.nextInt(mine.size());
                if (inboxes.get(target).offer(mine.get(pick))) {
                    mine.remove(pick);
                }
            } else {
                for (Handle received; mine.size() < 8 && (received = inboxes.get(me).poll()) != null; ) {
                    check(received);
                    mine.add(received);
                }
            }
        }
        mine.forEach(this::drop);
    }

    private Handle allocate(BufferPool pool, SplittableRandom random) {
        Buffer base;
        try {
            base = pool.allocate(1 + random.nextInt(CHUNK * 3));
        } catch (BufferPoolExhaustedException e) {
            exhausted.increment();
            return null;
        }
        Lease lease = new Lease(base, tokens.incrementAndGet());
        for (int chunk : lease.chunks) {
            if (!owner.compareAndSet(chunk, 0, lease.token)) {
                errors.add("chunk " + chunk + " handed to allocation " + lease.token + " while allocation "
                        + owner.get(chunk) + " holds it");
            }
        }
        for (int i = 0; i < base.capacity(); i++) {
            base.putByte(i, stamp(lease.token, i));
        }
        lease.holders.incrementAndGet();
        return new Handle(lease, base.duplicate().retain(), 0);
    }

    private static byte stamp(int token, int index) {
        return (byte) (token * 31 + index);
    }

    private void check(Handle h) {
        Buffer view = h.view();
        for (int i = 0; i < view.capacity(); i++) {
            if (view.getByte(i) != stamp(h.lease().token, h.offset() + i)) {
                errors.add("allocation " + h.lease().token + " changed under its holders at byte " + (h.offset() + i));
                return;
            }
        }
    }

    /**
     * Releases one holder's reference. The allocation keeps one base reference of its own, so a
     * holder's release is never the last; the holder that finishes last frees the chunks in the
     * ownership table and then drops the base reference, which must be the one that recycles.
     */
    private void drop(Handle h) {
        check(h);
        Lease lease = h.lease();
        if (h.view().release()) {
            errors.add("a holder's release of allocation " + lease.token + " recycled it while the base reference lived");
        }
        if (lease.holders.decrementAndGet() == 0) {
            for (int chunk : lease.chunks) {
                if (!owner.compareAndSet(chunk, lease.token, 0)) {
                    errors.add("chunk " + chunk + " of allocation " + lease.token + " was taken over by "
                            + owner.get(chunk));
                }
            }
            if (!lease.base.release()) {
                errors.add("the last release of allocation " + lease.token + " did not recycle it");
            }
        }
    }
}
