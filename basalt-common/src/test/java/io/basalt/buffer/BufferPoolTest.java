package io.basalt.buffer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.basalt.buffer.BufferPoolConfig.Exhaustion;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class BufferPoolTest {

    @Test
    void reservesNoMemoryUntilTheFirstAllocationThenOneSlabAtATime() {
        try (BufferPool pool = TestPools.pool(64, 8)) {
            assertThat(pool.metrics()).isEqualTo(new BufferPoolMetrics(0, 0, 8, 0, 0, 0, 0));
            Buffer a = pool.allocate(64);
            assertThat(pool.metrics()).isEqualTo(new BufferPoolMetrics(1, 3, 8, 1, 0, 0, 0));
            List<Buffer> more = new ArrayList<>();
            for (int i = 0; i < 4; i++) {
                more.add(pool.allocate(1));
            }
            assertThat(pool.metrics()).isEqualTo(new BufferPoolMetrics(5, 3, 8, 2, 0, 0, 0));
            a.release();
            more.forEach(Buffer::release);
            assertThat(pool.metrics()).isEqualTo(new BufferPoolMetrics(0, 8, 8, 2, 0, 0, 0));
        }
    }

    @Test
    void aRequestOfUpToOneChunkTakesOneChunkAndALargerOneSeveral() {
        try (BufferPool pool = TestPools.pool(64, 16)) {
            Buffer one = pool.allocate(1);
            Buffer full = pool.allocate(64);
            Buffer two = pool.allocate(65);
            Buffer three = pool.allocate(192);
            assertThat(one).isInstanceOf(SingleChunkBuffer.class);
            assertThat(full).isInstanceOf(SingleChunkBuffer.class);
            assertThat(two).isInstanceOf(MultiChunkBuffer.class);
            assertThat(three).isInstanceOf(MultiChunkBuffer.class);
            assertThat(List.of(one.capacity(), full.capacity(), two.capacity(), three.capacity()))
                    .containsExactly(1, 64, 65, 192);
            assertThat(pool.metrics().chunksInUse()).isEqualTo(1 + 1 + 2 + 3);
            three.release();
            assertThat(pool.metrics().chunksInUse()).isEqualTo(4);
            one.release();
            full.release();
            two.release();
        }
    }

    @Test
    void aZeroByteBufferTakesNoChunkAndANegativeSizeIsRejected() {
        try (BufferPool pool = TestPools.pool(64, 4)) {
            Buffer empty = pool.allocate(0);
            assertThat(empty.capacity()).isZero();
            assertThat(pool.metrics().chunksInUse()).isZero();
            assertThat(empty.release()).isTrue();
            assertThatThrownBy(() -> pool.allocate(-1)).isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("buffer size must not be negative, was -1");
        }
    }

    @Test
    void aRecycledChunkIsHandedOutAgainAndNoChunkTwiceAtOnce() {
        try (BufferPool pool = TestPools.pool(64, 8)) {
            List<Buffer> all = new ArrayList<>();
            Set<Integer> chunks = new HashSet<>();
            for (int i = 0; i < 8; i++) {
                Buffer b = pool.allocate(64);
                all.add(b);
                assertThat(chunks.add(b.refCount.chunk)).isTrue();
            }
            assertThat(chunks).containsExactlyInAnyOrder(0, 1, 2, 3, 4, 5, 6, 7);
            int freed = all.get(5).refCount.chunk;
            all.get(5).release();
            Buffer again = pool.allocate(10);
            assertThat(again.refCount.chunk).isEqualTo(freed);
            again.release();
            for (int i = 0; i < 8; i++) {
                if (i != 5) {
                    all.get(i).release();
                }
            }
        }
    }

    @Test
    void writesThroughOneBufferNeverShowInAnother() {
        try (BufferPool pool = TestPools.pool(16, 16)) {
            Buffer a = pool.allocate(40);
            Buffer b = pool.allocate(40);
            for (int i = 0; i < 40; i++) {
                a.putByte(i, (byte) 1);
                b.putByte(i, (byte) 2);
            }
            for (int i = 0; i < 40; i++) {
                assertThat(a.getByte(i)).isEqualTo((byte) 1);
            }
            a.release();
            b.release();
        }
    }

    @Test
    void whenExhaustedItFailsFastWithAClearErrorAndCountsTheFailure() {
        try (BufferPool pool = TestPools.pool(64, 4)) {
            Buffer a = pool.allocate(64 * 3);
            assertThatThrownBy(() -> pool.allocate(65)).isInstanceOf(BufferPoolExhaustedException.class)
                    .hasMessage("buffer pool 'test-64' is exhausted: cannot allocate 65 bytes (2 chunks of 64 bytes);"
                            + " 3 of 4 chunks are in use and maxMemory (256 bytes) is reached. Release buffers sooner,"
                            + " raise maxMemory, or choose HEAP_FALLBACK for small requests");
            // The several-chunk request gave back the one chunk it had taken.
            assertThat(pool.metrics().chunksInUse()).isEqualTo(3);
            assertThat(pool.metrics().allocationFailures()).isEqualTo(1);
            Buffer b = pool.allocate(64);
            assertThatThrownBy(() -> pool.allocate(1)).isInstanceOf(BufferPoolExhaustedException.class)
                    .hasMessageContaining("cannot allocate 1 bytes (1 chunk of 64 bytes); 4 of 4 chunks are in use");
            assertThat(pool.metrics().allocationFailures()).isEqualTo(2);
            assertThatThrownBy(() -> pool.allocate(1000)).isInstanceOf(BufferPoolExhaustedException.class);
            assertThat(pool.metrics().slabs()).isEqualTo(1);
            a.release();
            b.release();
            pool.allocate(256).release();
        }
    }

    @Test
    void tryAllocateAnswersNullWhenExhaustedWithoutCountingAFailureOrFallingBack() {
        BufferPoolConfig config = TestPools.config(64, 4).withExhaustion(Exhaustion.HEAP_FALLBACK, 100);
        try (BufferPool pool = BufferPool.create(config)) {
            Buffer a = pool.tryAllocate(64 * 3);
            assertThat(a).isNotNull();
            assertThat(pool.tryAllocate(65)).isNull();
            assertThat(pool.metrics().chunksInUse()).as("the two-chunk try gave its one chunk back").isEqualTo(3);
            Buffer b = pool.tryAllocate(64);
            assertThat(pool.tryAllocate(1)).as("no heap fallback for a try").isNull();
            assertThat(pool.tryAllocate(1000)).isNull();
            assertThat(pool.metrics().allocationFailures()).isZero();
            assertThat(pool.metrics().heapFallbacks()).isZero();
            b.release();
            Buffer c = pool.tryAllocate(1);
            assertThat(c).isNotNull();
            assertThat(isHeap(c)).isFalse();
            c.release();
            a.release();
            assertThatThrownBy(() -> pool.tryAllocate(-1)).isInstanceOf(IllegalArgumentException.class);
        }
    }

    @Test
    void aRequestLargerThanThePoolFailsWithoutReservingAnything() {
        try (BufferPool pool = TestPools.pool(64, 8)) {
            assertThatThrownBy(() -> pool.allocate(Integer.MAX_VALUE)).isInstanceOf(BufferPoolExhaustedException.class)
                    .hasMessageContaining("cannot allocate 2147483647 bytes (33554432 chunks of 64 bytes); 0 of 8 chunks"
                            + " are in use and the request is larger than maxMemory (512 bytes).");
            assertThat(pool.metrics()).isEqualTo(new BufferPoolMetrics(0, 0, 8, 0, 1, 0, 0));
        }
    }

    @Test
    void withHeapFallbackSmallRequestsGetHeapMemoryAndLargeOnesStillFail() {
        BufferPoolConfig config = TestPools.config(64, 4).withExhaustion(Exhaustion.HEAP_FALLBACK, 100);
        try (BufferPool pool = BufferPool.create(config)) {
            Buffer all = pool.allocate(256);
            Buffer heap = pool.allocate(100);
            assertThat(isHeap(heap)).isTrue();
            heap.putLong(92, 42);
            assertThat(heap.getLong(92)).isEqualTo(42);
            assertThat(pool.metrics().heapFallbacks()).isEqualTo(1);
            assertThat(pool.metrics().chunksInUse()).isEqualTo(4);
            assertThatThrownBy(() -> pool.allocate(101)).isInstanceOf(BufferPoolExhaustedException.class)
                    .hasMessageContaining("and the request is larger than heapFallbackMaxSize (100)");
            assertThat(pool.metrics().allocationFailures()).isEqualTo(1);
            assertThat(heap.release()).isTrue();
            assertThat(pool.metrics().chunksInUse()).isEqualTo(4);
            assertThatThrownBy(() -> heap.getLong(0)).isInstanceOf(IllegalStateException.class);
            all.release();
            Buffer pooled = pool.allocate(100);
            assertThat(isHeap(pooled)).isFalse();
            assertThat(pool.metrics().heapFallbacks()).isEqualTo(1);
            pooled.release();
        }
    }

    private static boolean isHeap(Buffer buffer) {
        return buffer instanceof SingleChunkBuffer single && !single.segment.isNative();
    }

    @Test
    void aClosedPoolRefusesAllocationsAndItsBuffersFailInsteadOfReadingFreedMemory() {
        BufferPool pool = TestPools.pool(64, 8);
        Buffer b = pool.allocate(100);
        b.putLong(0, 7);
        pool.close();
        pool.close();
        assertThatThrownBy(() -> pool.allocate(1)).isInstanceOf(IllegalStateException.class)
                .hasMessage("buffer pool 'test-64' is closed");
        assertThatThrownBy(() -> b.getLong(0)).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("closed");
        assertThatThrownBy(() -> b.putByte(70, (byte) 1)).isInstanceOf(IllegalStateException.class);
        assertThat(b.release()).isTrue();
    }

    @Test
    void namesConfigAndToStringDescribeThePool() {
        BufferPoolConfig config = TestPools.config(64, 8).withName("blocks");
        try (BufferPool pool = BufferPool.create(config); BufferPool byName = BufferPool.create("rpc")) {
            assertThat(pool.name()).isEqualTo("blocks");
            assertThat(pool.config()).isSameAs(config);
            assertThat(byName.config()).isEqualTo(BufferPoolConfig.defaults().withName("rpc"));
            Buffer b = pool.allocate(100);
            assertThat(pool).hasToString("BufferPool[blocks, 2 of 8 chunks in use]");
            b.release();
        }
    }
}
