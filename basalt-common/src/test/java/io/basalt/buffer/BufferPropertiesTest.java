package io.basalt.buffer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;

/** Buffers, their counts and their pool against simple models: a byte array, an int, a chunk tally. */
class BufferPropertiesTest {

    enum Kind { GET_BYTE, PUT_BYTE, GET_INT, PUT_INT, GET_LONG, PUT_LONG, GET_BYTES, PUT_BYTES, SLICE_GET_LONG }

    record Access(Kind kind, int index, long value, int length) {}

    @Provide
    Arbitrary<List<Access>> accesses() {
        Arbitrary<Access> access = Combinators.combine(
                Arbitraries.of(Kind.class),
                Arbitraries.integers().between(-12, 620),
                Arbitraries.longs(),
                Arbitraries.integers().between(-2, 70)).as(Access::new);
        return access.list().ofMaxSize(60);
    }

    @Provide
    Arbitrary<Integer> chunkSizes() {
        return Arbitraries.of(16, 32, 64, 1024);
    }

    @Property(tries = 400)
    void accessesBehaveLikeOnAByteArrayAndFailExactlyWhenOutOfRange(
            @ForAll("chunkSizes") int chunkSize,
            @ForAll @IntRange(min = 1, max = 600) int size,
            @ForAll @IntRange(min = 0, max = 100) int sliceStartPercent,
            @ForAll("accesses") List<Access> accesses) {
        try (BufferPool pool = TestPools.pool(chunkSize, 4 * (1 + 640 / chunkSize))) {
            Buffer allocated = pool.allocate(size);
            int sliceAt = size * sliceStartPercent / 100 / 2;
            Buffer buffer = allocated.slice(sliceAt, size - sliceAt);
            int capacity = buffer.capacity();
            byte[] model = new byte[capacity];
            buffer.putBytes(0, model, 0, capacity);
            try {
                for (Access a : accesses) {
                    apply(buffer, model, a);
                }
                byte[] actual = new byte[capacity];
                buffer.getBytes(0, actual, 0, capacity);
                assertThat(actual).isEqualTo(model);
            } finally {
                allocated.release();
            }
        }
    }

    private static void apply(Buffer buffer, byte[] model, Access a) {
        int width = switch (a.kind()) {
            case GET_BYTE, PUT_BYTE -> 1;
            case GET_INT, PUT_INT -> 4;
            case GET_LONG, PUT_LONG, SLICE_GET_LONG -> 8;
            case GET_BYTES, PUT_BYTES -> a.length();
        };
        int i = a.index();
        boolean inRange = i >= 0 && width >= 0 && (long) i + width <= model.length;
        if (!inRange) {
            assertThatThrownBy(() -> run(buffer, a)).as("%s", a).isInstanceOf(IndexOutOfBoundsException.class);
            return;
        }
        long result = run(buffer, a);
        switch (a.kind()) {
            case GET_BYTE -> assertThat((byte) result).isEqualTo(model[i]);
            case GET_INT -> assertThat((int) result).isEqualTo((int) bigEndian(model, i, 4));
            case GET_LONG, SLICE_GET_LONG -> assertThat(result).isEqualTo(bigEndian(model, i, 8));
            case GET_BYTES -> assertThat(result).isEqualTo(Arrays.hashCode(Arrays.copyOfRange(model, i, i + width)));
            case PUT_BYTE, PUT_INT, PUT_LONG -> {
                for (int k = 0; k < width; k++) {
                    model[i + k] = (byte) (a.value() >>> (8 * (width - 1 - k)));
                }
            }
            case PUT_BYTES -> System.arraycopy(source(a), 0, model, i, width);
        }
    }

    /** Performs the access; returns what a get read (bulk gets: the hash of the bytes). */
    private static long run(Buffer b, Access a) {
        int i = a.index();
        return switch (a.kind()) {
            case GET_BYTE -> b.getByte(i);
            case PUT_BYTE -> {
                b.putByte(i, (byte) a.value());
                yield 0;
            }
            case GET_INT -> b.getInt(i);
            case PUT_INT -> {
                b.putInt(i, (int) a.value());
                yield 0;
            }
            case GET_LONG -> b.getLong(i);
            case PUT_LONG -> {
                b.putLong(i, a.value());
                yield 0;
            }
            case GET_BYTES -> {
                byte[] out = new byte[Math.max(0, a.length())];
                b.getBytes(i, out, 0, a.length());
                yield Arrays.hashCode(out);
            }
            case PUT_BYTES -> {
                b.putBytes(i, source(a), 0, a.length());
                yield 0;
            }
            case SLICE_GET_LONG -> b.slice(i, 8).getLong(0);
        };
    }

    private static byte[] source(Access a) {
        byte[] bytes = new byte[Math.max(0, a.length())];
        for (int k = 0; k < bytes.length; k++) {
            bytes[k] = (byte) (a.value() + k * 13);
        }
        return bytes;
    }

    private static long bigEndian(byte[] bytes, int at, int width) {
        long value = 0;
        for (int k = 0; k < width; k++) {
            value = (value << 8) | (bytes[at + k] & 0xFF);
        }
        return value;
    }

    @Property(tries = 300)
    void retainAndReleaseFollowACounterAndRecycleExactlyWhenItReachesZero(
            @ForAll("chunkSizes") int chunkSize,
            @ForAll @IntRange(min = 1, max = 300) int size,
            @ForAll @Size(max = 40) List<Boolean> retains) {
        try (BufferPool pool = TestPools.pool(chunkSize, 4 * (1 + 300 / chunkSize))) {
            Buffer buffer = pool.allocate(size);
            Buffer view = buffer.slice(0, size / 2);
            int chunks = pool.metrics().chunksInUse();
            int model = 1;
            for (boolean retain : retains) {
                Buffer through = model % 2 == 0 ? buffer : view;
                if (model == 0) {
                    assertThatThrownBy(retain ? through::retain : through::release)
                            .isInstanceOf(IllegalStateException.class);
                } else if (retain) {
                    through.retain();
                    model++;
                } else {
                    model--;
                    assertThat(through.release()).isEqualTo(model == 0);
                }
                assertThat(buffer.refCount()).isEqualTo(model);
                assertThat(pool.metrics().chunksInUse()).isEqualTo(model == 0 ? 0 : chunks);
            }
            while (model-- > 0) {
                buffer.release();
            }
            assertThat(pool.metrics().chunksInUse()).isZero();
        }
    }

    record PoolOp(boolean allocate, int size, int pick) {}

    @Provide
    Arbitrary<List<PoolOp>> poolOps() {
        return Combinators.combine(Arbitraries.of(true, true, false), Arbitraries.integers().between(0, 200),
                Arbitraries.integers().between(0, 1000)).as(PoolOp::new).list().ofMaxSize(80);
    }

    @Property(tries = 300)
    void thePoolHandsOutChunksUntilItsMaximumAndAccountsForEveryOne(
            @ForAll("chunkSizes") int chunkSize,
            @ForAll @IntRange(min = 1, max = 6) int slabs,
            @ForAll("poolOps") List<PoolOp> ops) {
        int maxChunks = 4 * slabs;
        try (BufferPool pool = TestPools.pool(chunkSize, maxChunks)) {
            List<Buffer> held = new ArrayList<>();
            int inUse = 0;
            long failures = 0;
            try {
                for (PoolOp op : ops) {
                    if (op.allocate()) {
                        int needed = (op.size() + chunkSize - 1) / chunkSize;
                        if (inUse + needed <= maxChunks) {
                            held.add(pool.allocate(op.size()));
                            inUse += needed;
                        } else {
                            assertThatThrownBy(() -> pool.allocate(op.size()))
                                    .isInstanceOf(BufferPoolExhaustedException.class);
                            failures++;
                        }
                    } else if (!held.isEmpty()) {
                        Buffer released = held.remove(op.pick() % held.size());
                        inUse -= (released.capacity() + chunkSize - 1) / chunkSize;
                        released.release();
                    }
                    BufferPoolMetrics m = pool.metrics();
                    assertThat(m.chunksInUse()).isEqualTo(inUse);
                    assertThat(m.chunksInUse() + m.chunksFree()).isEqualTo(m.slabs() * 4);
                    assertThat(m.slabs()).isLessThanOrEqualTo(slabs);
                    assertThat(m.allocationFailures()).isEqualTo(failures);
                }
            } finally {
                held.forEach(Buffer::release);
            }
            assertThat(pool.metrics().chunksInUse()).isZero();
        }
    }
}
