package io.basalt.buffer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.basalt.buffer.TestPools.Fixture;
import io.basalt.buffer.TestPools.Shape;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** Every operation of {@link Buffer} and its bounds, on every shape a buffer takes. */
class BufferTest {

    private static final int CAP = Shape.CAPACITY;

    @Test
    void shapesAreTheIntendedImplementations() {
        try (Fixture one = Shape.ONE_CHUNK.make(); Fixture several = Shape.SEVERAL_CHUNKS.make();
             Fixture sliceOfSeveral = Shape.SLICE_OF_SEVERAL_CHUNKS.make()) {
            assertThat(one.buffer()).isInstanceOf(SingleChunkBuffer.class);
            assertThat(several.buffer()).isInstanceOf(MultiChunkBuffer.class);
            assertThat(sliceOfSeveral.buffer()).isInstanceOf(MultiChunkBuffer.class);
            assertThat(several.buffer().capacity()).isEqualTo(CAP);
        }
    }

    @ParameterizedTest
    @EnumSource(Shape.class)
    void bytesReadBackWhatWasWrittenAtEveryIndex(Shape shape) {
        try (Fixture f = shape.make()) {
            Buffer b = f.buffer();
            for (int i = 0; i < CAP; i++) {
                assertThat(b.putByte(i, (byte) (i * 7 + 1))).isSameAs(b);
            }
            for (int i = 0; i < CAP; i++) {
                assertThat(b.getByte(i)).isEqualTo((byte) (i * 7 + 1));
            }
        }
    }

    @ParameterizedTest
    @EnumSource(Shape.class)
    void intsAndLongsReadBackAtEveryIndexIncludingAcrossChunkBoundaries(Shape shape) {
        try (Fixture f = shape.make()) {
            Buffer b = f.buffer();
            for (int i = 0; i <= CAP - Integer.BYTES; i++) {
                int value = 0x9E3779B9 * (i + 1);
                assertThat(b.putInt(i, value)).isSameAs(b);
                assertThat(b.getInt(i)).as("int at %d", i).isEqualTo(value);
            }
            for (int i = 0; i <= CAP - Long.BYTES; i++) {
                long value = 0x9E3779B97F4A7C15L * (i + 1);
                assertThat(b.putLong(i, value)).isSameAs(b);
                assertThat(b.getLong(i)).as("long at %d", i).isEqualTo(value);
            }
        }
    }

    @ParameterizedTest
    @EnumSource(Shape.class)
    void intsAndLongsAreBigEndian(Shape shape) {
        try (Fixture f = shape.make()) {
            Buffer b = f.buffer();
            for (int at : new int[] {0, 13, CAP - 8}) {
                b.putLong(at, 0x0102030405060708L);
                for (int k = 0; k < 8; k++) {
                    assertThat(b.getByte(at + k)).isEqualTo((byte) (k + 1));
                }
                b.putInt(at, 0xA1B2C3D4);
                assertThat(new byte[] {b.getByte(at), b.getByte(at + 1), b.getByte(at + 2), b.getByte(at + 3)})
                        .containsExactly(0xA1, 0xB2, 0xC3, 0xD4);
                assertThat(b.getLong(at)).isEqualTo(0xA1B2C3D405060708L);
            }
        }
    }

    @ParameterizedTest
    @EnumSource(Shape.class)
    void everyAccessorRejectsIndexesOutsideTheBufferAndTouchesNothing(Shape shape) {
        try (Fixture f = shape.make()) {
            Buffer b = f.buffer();
            for (int i = 0; i < CAP; i++) {
                b.putByte(i, (byte) 0x5A);
            }
            Map<String, Integer> sizes = Map.of("getByte", 1, "putByte", 1, "getInt", 4, "putInt", 4,
                    "getLong", 8, "putLong", 8);
            for (var entry : sizes.entrySet()) {
                String op = entry.getKey();
                int size = entry.getValue();
                for (int index : new int[] {-1, CAP - size + 1, CAP, Integer.MAX_VALUE, Integer.MIN_VALUE}) {
                    assertThatThrownBy(() -> access(b, op, index)).as("%s(%d)", op, index)
                            .isInstanceOf(IndexOutOfBoundsException.class)
                            .hasMessage(op + " of " + size + " bytes at index " + index + " is outside the buffer's "
                                    + CAP + " bytes");
                }
            }
            for (int i = 0; i < CAP; i++) {
                assertThat(b.getByte(i)).isEqualTo((byte) 0x5A);
            }
            for (var entry : sizes.entrySet()) {
                access(b, entry.getKey(), 0);
                access(b, entry.getKey(), CAP - entry.getValue());
            }
        }
    }

    private static void access(Buffer b, String op, int index) {
        switch (op) {
            case "getByte" -> b.getByte(index);
            case "putByte" -> b.putByte(index, (byte) 1);
            case "getInt" -> b.getInt(index);
            case "putInt" -> b.putInt(index, 1);
            case "getLong" -> b.getLong(index);
            case "putLong" -> b.putLong(index, 1);
            default -> throw new AssertionError(op);
        }
    }

    @ParameterizedTest
    @EnumSource(Shape.class)
    void bulkCopiesMoveBytesToAndFromArraysAndSegments(Shape shape) {
        try (Fixture f = shape.make(); Arena arena = Arena.ofConfined()) {
            Buffer b = f.buffer();
            byte[] source = new byte[CAP + 10];
            for (int i = 0; i < source.length; i++) {
                source[i] = (byte) (i * 31);
            }
            assertThat(b.putBytes(0, source, 10, CAP)).isSameAs(b);
            byte[] back = new byte[CAP + 4];
            b.getBytes(0, back, 4, CAP);
            assertThat(Arrays.copyOfRange(back, 4, CAP + 4)).isEqualTo(Arrays.copyOfRange(source, 10, CAP + 10));

            MemorySegment segment = arena.allocate(300);
            segment.fill((byte) 0x11);
            assertThat(b.putBytes(50, segment, 7, 100)).isSameAs(b);
            for (int i = 0; i < CAP; i++) {
                assertThat(b.getByte(i)).isEqualTo(i >= 50 && i < 150 ? (byte) 0x11 : source[10 + i]);
            }
            MemorySegment out = arena.allocate(CAP + 3);
            b.getBytes(0, out, 3, CAP);
            for (int i = 0; i < CAP; i++) {
                assertThat(out.get(ValueLayout.JAVA_BYTE, 3 + i)).isEqualTo(b.getByte(i));
            }
            b.getBytes(CAP, back, 0, 0);
            b.putBytes(0, source, source.length, 0);
        }
    }

    @ParameterizedTest
    @EnumSource(Shape.class)
    void bulkCopiesCheckBothRanges(Shape shape) {
        try (Fixture f = shape.make(); Arena arena = Arena.ofConfined()) {
            Buffer b = f.buffer();
            byte[] array = new byte[CAP];
            MemorySegment segment = arena.allocate(CAP);
            assertThatThrownBy(() -> b.getBytes(1, array, 0, CAP)).isInstanceOf(IndexOutOfBoundsException.class)
                    .hasMessage("getBytes of 200 bytes at index 1 is outside the buffer's 200 bytes");
            assertThatThrownBy(() -> b.putBytes(-1, array, 0, 1)).isInstanceOf(IndexOutOfBoundsException.class)
                    .hasMessage("putBytes of 1 bytes at index -1 is outside the buffer's 200 bytes");
            assertThatThrownBy(() -> b.getBytes(0, array, 0, -1)).isInstanceOf(IndexOutOfBoundsException.class)
                    .hasMessage("getBytes of -1 bytes at index 0 is outside the buffer's 200 bytes");
            assertThatThrownBy(() -> b.getBytes(0, array, 1, CAP)).isInstanceOf(IndexOutOfBoundsException.class)
                    .hasMessageContaining("out of bounds for length 200");
            assertThatThrownBy(() -> b.putBytes(0, array, -1, 2)).isInstanceOf(IndexOutOfBoundsException.class);
            assertThatThrownBy(() -> b.getBytes(0, segment, 1, CAP)).isInstanceOf(IndexOutOfBoundsException.class)
                    .hasMessageContaining("out of bounds for length 200");
            assertThatThrownBy(() -> b.putBytes(CAP - 1, segment, 0, 2)).isInstanceOf(IndexOutOfBoundsException.class)
                    .hasMessage("putBytes of 2 bytes at index 199 is outside the buffer's 200 bytes");
            assertThatThrownBy(() -> b.putBytes(0, segment, CAP, 1)).isInstanceOf(IndexOutOfBoundsException.class);
        }
    }

    @ParameterizedTest
    @EnumSource(Shape.class)
    void copyToMovesBytesBetweenBuffersOfEveryShape(Shape shape) {
        for (Shape other : Shape.values()) {
            try (Fixture from = shape.make(); Fixture to = other.make()) {
                for (int i = 0; i < CAP; i++) {
                    from.buffer().putByte(i, (byte) i);
                    to.buffer().putByte(i, (byte) -1);
                }
                from.buffer().copyTo(5, to.buffer(), 20, 150);
                for (int i = 0; i < CAP; i++) {
                    assertThat(to.buffer().getByte(i)).as("%s -> %s at %d", shape, other, i)
                            .isEqualTo(i >= 20 && i < 170 ? (byte) (i - 15) : (byte) -1);
                }
                assertThatThrownBy(() -> from.buffer().copyTo(100, to.buffer(), 0, 101))
                        .isInstanceOf(IndexOutOfBoundsException.class)
                        .hasMessage("copyTo of 101 bytes at index 100 is outside the buffer's 200 bytes");
                assertThatThrownBy(() -> from.buffer().copyTo(0, to.buffer(), 150, 51))
                        .isInstanceOf(IndexOutOfBoundsException.class)
                        .hasMessage("copyTo of 51 bytes at index 150 is outside the buffer's 200 bytes");
            }
        }
    }

    @ParameterizedTest
    @EnumSource(Shape.class)
    void copyToWithinOverlappingViewsOfOneBufferActsAsIfThroughATemporaryArray(Shape shape) {
        try (Fixture f = shape.make()) {
            Buffer b = f.buffer();
            byte[] model = new byte[CAP];
            for (int i = 0; i < CAP; i++) {
                model[i] = (byte) i;
                b.putByte(i, (byte) i);
            }
            b.copyTo(10, b, 30, 100);
            System.arraycopy(model, 10, model, 30, 100);
            b.slice(50, 100).copyTo(0, b, 40, 100);
            System.arraycopy(model, 50, model, 40, 100);
            byte[] actual = new byte[CAP];
            b.getBytes(0, actual, 0, CAP);
            assertThat(actual).isEqualTo(model);
        }
    }

    @ParameterizedTest
    @EnumSource(Shape.class)
    void slicesAndDuplicatesViewTheSameBytes(Shape shape) {
        try (Fixture f = shape.make()) {
            Buffer b = f.buffer();
            Buffer slice = b.slice(17, 150);
            Buffer sliceOfSlice = slice.slice(3, 100);
            Buffer duplicate = b.duplicate();
            assertThat(slice.capacity()).isEqualTo(150);
            assertThat(sliceOfSlice.capacity()).isEqualTo(100);
            assertThat(duplicate.capacity()).isEqualTo(CAP);
            b.putLong(20, 0x1122334455667788L);
            assertThat(slice.getLong(3)).isEqualTo(0x1122334455667788L);
            assertThat(sliceOfSlice.getLong(0)).isEqualTo(0x1122334455667788L);
            assertThat(duplicate.getLong(20)).isEqualTo(0x1122334455667788L);
            sliceOfSlice.putInt(96, 0xCAFEBABE);
            assertThat(b.getInt(17 + 3 + 96)).isEqualTo(0xCAFEBABE);
            assertThat(b.slice(CAP, 0).capacity()).isZero();
            assertThat(b.slice(0, 0).capacity()).isZero();
            assertThat(b.slice(0, CAP).getLong(20)).isEqualTo(0x1122334455667788L);
        }
    }

    @ParameterizedTest
    @EnumSource(Shape.class)
    void slicesRejectRangesOutsideTheBuffer(Shape shape) {
        try (Fixture f = shape.make()) {
            Buffer b = f.buffer();
            int[][] bad = {{-1, 1}, {0, CAP + 1}, {CAP, 1}, {1, -1}, {Integer.MAX_VALUE, 1}, {10, Integer.MAX_VALUE}};
            for (int[] range : bad) {
                assertThatThrownBy(() -> b.slice(range[0], range[1])).isInstanceOf(IndexOutOfBoundsException.class)
                        .hasMessage("slice of " + range[1] + " bytes at index " + range[0]
                                + " is outside the buffer's 200 bytes");
            }
            Buffer slice = b.slice(100, 50);
            assertThatThrownBy(() -> slice.getLong(43)).isInstanceOf(IndexOutOfBoundsException.class)
                    .hasMessage("getLong of 8 bytes at index 43 is outside the buffer's 50 bytes");
            assertThatThrownBy(() -> slice.slice(40, 11)).isInstanceOf(IndexOutOfBoundsException.class);
        }
    }

    @ParameterizedTest
    @EnumSource(Shape.class)
    void slicesAndDuplicatesShareTheCountOfTheirParent(Shape shape) {
        try (Fixture f = shape.make()) {
            Buffer b = f.buffer();
            Buffer slice = b.slice(8, 64);
            Buffer duplicate = slice.duplicate();
            assertThat(b.refCount()).isEqualTo(1);
            assertThat(slice.retain()).isSameAs(slice);
            assertThat(b.refCount()).isEqualTo(2);
            assertThat(duplicate.refCount()).isEqualTo(2);
            assertThat(duplicate.release()).isFalse();
            assertThat(b.refCount()).isEqualTo(1);
            int inUse = f.pool().metrics().chunksInUse();
            assertThat(slice.release()).isTrue();
            assertThat(b.refCount()).isZero();
            assertThat(f.pool().metrics().chunksInUse()).isLessThan(inUse);
        }
    }

    @ParameterizedTest
    @EnumSource(Shape.class)
    void releaseReturnsTrueOnlyForTheLastReferenceAndRecyclesOnce(Shape shape) {
        try (Fixture f = shape.make()) {
            Buffer b = f.buffer();
            int chunks = chunksOf(shape);
            assertThat(f.pool().metrics().chunksInUse()).isEqualTo(chunks);
            b.retain().retain();
            assertThat(b.refCount()).isEqualTo(3);
            assertThat(b.release()).isFalse();
            assertThat(b.release()).isFalse();
            assertThat(f.pool().metrics().chunksInUse()).isEqualTo(chunks);
            assertThat(b.release()).isTrue();
            assertThat(f.pool().metrics().chunksInUse()).isZero();
            assertThatThrownBy(b::release).isInstanceOf(IllegalStateException.class)
                    .hasMessage("release on a released buffer: its reference count already reached 0 and its memory"
                            + " went back to the pool");
            assertThatThrownBy(b::retain).isInstanceOf(IllegalStateException.class)
                    .hasMessageStartingWith("retain on a released buffer");
            assertThat(b.refCount()).isZero();
            assertThat(f.pool().metrics().chunksInUse()).isZero();
        }
    }

    private static int chunksOf(Shape shape) {
        return (shape.allocation + shape.chunkSize - 1) / shape.chunkSize;
    }

    @ParameterizedTest
    @EnumSource(Shape.class)
    void everyOperationOnAReleasedBufferOrAnyOfItsViewsFails(Shape shape) {
        try (Fixture f = shape.make(); Fixture other = Shape.ONE_CHUNK.make()) {
            Buffer b = f.buffer();
            Buffer slice = b.slice(0, 100);
            Buffer duplicate = b.duplicate();
            b.release();
            for (Buffer view : new Buffer[] {b, slice, duplicate}) {
                for (Op op : operations(other.buffer())) {
                    assertThatThrownBy(() -> op.action().accept(view)).as(op.name())
                            .isInstanceOf(IllegalStateException.class)
                            .hasMessage(op.name() + " on a released buffer: its reference count already reached 0"
                                    + " and its memory went back to the pool");
                }
            }
            assertThatThrownBy(() -> other.buffer().copyTo(0, b, 0, 1)).isInstanceOf(IllegalStateException.class)
                    .hasMessageStartingWith("copyTo on a released buffer");
        }
    }

    private record Op(String name, Consumer<Buffer> action) {}

    private static List<Op> operations(Buffer other) {
        byte[] array = new byte[8];
        MemorySegment segment = MemorySegment.ofArray(new byte[8]);
        return List.of(
                new Op("getByte", b -> b.getByte(0)),
                new Op("putByte", b -> b.putByte(0, (byte) 1)),
                new Op("getInt", b -> b.getInt(0)),
                new Op("putInt", b -> b.putInt(0, 1)),
                new Op("getLong", b -> b.getLong(0)),
                new Op("putLong", b -> b.putLong(0, 1)),
                new Op("getBytes", b -> b.getBytes(0, array, 0, 8)),
                new Op("putBytes", b -> b.putBytes(0, array, 0, 8)),
                new Op("getBytes", b -> b.getBytes(0, segment, 0, 8)),
                new Op("putBytes", b -> b.putBytes(0, segment, 0, 8)),
                new Op("copyTo", b -> b.copyTo(0, other, 0, 8)),
                new Op("slice", b -> b.slice(0, 1)),
                new Op("duplicate", Buffer::duplicate),
                new Op("nioBuffer", b -> b.nioBuffer(0, 8)),
                new Op("retain", Buffer::retain),
                new Op("release", Buffer::release));
    }

    @Test
    void toStringShowsCapacityAndCount() {
        try (Fixture f = Shape.SEVERAL_CHUNKS.make()) {
            assertThat(f.buffer()).hasToString("Buffer[capacity=200, refCount=1]");
            f.buffer().retain();
            assertThat(f.buffer().slice(0, 10)).hasToString("Buffer[capacity=10, refCount=2]");
        }
    }

    /**
     * A single-chunk buffer's NIO view is its own bytes (a bulk read into it is what its readers
     * see), bounded like every access; a buffer of several chunks has none.
     */
    @ParameterizedTest
    @EnumSource(Shape.class)
    void nioViewsWriteIntoTheBufferOrAreRefusedForSeveralChunks(Shape shape) {
        try (Fixture f = shape.make()) {
            Buffer b = f.buffer();
            java.nio.ByteBuffer view = b.nioBuffer(10, 100);
            if (b instanceof MultiChunkBuffer) {
                assertThat(view).isNull();
                return;
            }
            assertThat(view.remaining()).isEqualTo(100);
            for (int i = 0; i < 100; i++) {
                view.put((byte) (i + 3));
            }
            for (int i = 0; i < 100; i++) {
                assertThat(b.getByte(10 + i)).isEqualTo((byte) (i + 3));
            }
            assertThatThrownBy(() -> b.nioBuffer(150, 51)).isInstanceOf(IndexOutOfBoundsException.class);
        }
    }
}
