package io.basalt.protocol;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelOutboundHandlerAdapter;
import io.netty.channel.ChannelPromise;
import io.netty.channel.WriteBufferWaterMark;
import io.netty.channel.embedded.EmbeddedChannel;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@link GroupedWriter} on an {@link EmbeddedChannel}: what reaches the pipeline, in which
 * buffers, with how many flushes, and what happens to frames after close.
 *
 * <p>The embedded event loop runs its tasks only when the test says so ({@code runPendingTasks}),
 * and is not thread-safe: the concurrent test lets its writers run while the loop is idle and
 * drains between rounds, which is where a real event loop would interleave drains with writes.
 */
class GroupedWriterTest {

    /** Counts what goes down the pipeline. */
    static final class Counter extends ChannelOutboundHandlerAdapter {
        int writes;
        int flushes;

        @Override
        public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
            writes++;
            ctx.write(msg, promise);
        }

        @Override
        public void flush(ChannelHandlerContext ctx) {
            flushes++;
            ctx.flush();
        }
    }

    private final Counter counter = new Counter();
    private final TrackingAllocator allocator = new TrackingAllocator();
    private EmbeddedChannel channel;

    private EmbeddedChannel open() {
        channel = new EmbeddedChannel(counter);
        channel.config().setAllocator(allocator);
        return channel;
    }

    @AfterEach
    void close() {
        if (channel != null) {
            channel.finishAndReleaseAll();
        }
        for (ByteBuf b : allocator.allocated) {
            assertThat(b.refCnt()).as("buffer the writer allocated is released").isZero();
        }
    }

    /** A frame whose request id and body are functions of (stream, seq), with a body of {@code size} bytes. */
    static ByteBuf frame(int stream, int seq, int size) {
        ByteBuf buf = Unpooled.buffer();
        int start = FrameLayout.begin(buf, ((long) stream << 32) | seq, OpCode.PUT, Status.OK, false);
        for (int i = 0; i < size; i++) {
            buf.writeByte(stream * 31 + seq * 7 + i);
        }
        FrameLayout.finish(buf, start);
        return buf;
    }

    private static byte[] expected(int stream, int seq, int size) {
        ByteBuf f = frame(stream, seq, size);
        byte[] bytes = ByteBufUtil.getBytes(f);
        f.release();
        return bytes;
    }

    /** Everything written to the channel so far, one entry per pipeline message. */
    private List<byte[]> outbound() {
        List<byte[]> out = new ArrayList<>();
        ByteBuf b;
        while ((b = channel.readOutbound()) != null) {
            out.add(ByteBufUtil.getBytes(b));
            b.release();
        }
        return out;
    }

    /** Cuts a byte stream into frames by their length fields. */
    private static List<byte[]> frames(List<byte[]> messages) {
        ByteBuf all = Unpooled.buffer();
        for (byte[] m : messages) {
            all.writeBytes(m);
        }
        List<byte[]> out = new ArrayList<>();
        while (all.isReadable()) {
            int length = all.getInt(all.readerIndex() + FrameLayout.LENGTH_OFFSET);
            byte[] f = new byte[length + 4];
            all.readBytes(f);
            out.add(f);
        }
        return out;
    }

    private static long requestId(byte[] frame) {
        return Unpooled.wrappedBuffer(frame).getLong(FrameLayout.REQUEST_ID_OFFSET);
    }

    @Test
    void framesFromSeveralThreadsAllArriveInOrderPerThreadByteExactAndGrouped() throws Exception {
        writeFromSeveralThreads(false, GroupedWriter.DEFAULT_STRIPES);
    }

    @Test
    void framesEncodedBySeveralThreadsInPlaceOrAsideAllArriveInOrderPerThreadByteExact() throws Exception {
        writeFromSeveralThreads(true, GroupedWriter.DEFAULT_STRIPES);
    }

    @Test
    void framesEncodedBySeveralThreadsSharingOneStripeInPlaceOrAsideAllArriveInOrderPerThreadByteExact()
            throws Exception {
        writeFromSeveralThreads(true, 1); // encoders race for the one lock: the losers encode aside
    }

    private void writeFromSeveralThreads(boolean encoders, int stripes) throws Exception {
        open();
        GroupedWriter writer = new GroupedWriter(channel, WriteMode.GROUPED, 4096, 0, stripes);
        int threads = 4;
        int rounds = 20;
        int perRound = 50;
        CyclicBarrier wrote = new CyclicBarrier(threads + 1);
        CyclicBarrier drained = new CyclicBarrier(threads + 1);
        List<Thread> writers = new ArrayList<>();
        List<Throwable> failures = new CopyOnWriteArrayList<>();
        for (int t = 0; t < threads; t++) {
            int stream = t;
            writers.add(Thread.ofPlatform().name("writer-" + t).start(() -> {
                try {
                    int seq = 0;
                    for (int r = 0; r < rounds; r++) {
                        for (int i = 0; i < perRound; i++, seq++) {
                            if (encoders) {
                                byte[] bytes = expected(stream, seq, seq % 97);
                                assertThat(writer.write(bytes.length, b -> b.writeBytes(bytes))).isTrue();
                            } else {
                                assertThat(writer.write(frame(stream, seq, seq % 97))).isTrue();
                            }
                        }
                        wrote.await(30, TimeUnit.SECONDS);
                        drained.await(30, TimeUnit.SECONDS);
                    }
                } catch (Throwable e) {
                    failures.add(e);
                    wrote.reset();
                    drained.reset();
                }
            }));
        }
        for (int r = 0; r < rounds; r++) {
            wrote.await(30, TimeUnit.SECONDS);
            channel.runPendingTasks();
            drained.await(30, TimeUnit.SECONDS);
        }
        for (Thread w : writers) {
            w.join(TimeUnit.SECONDS.toMillis(30));
        }
        assertThat(failures).isEmpty();

        List<byte[]> frames = frames(outbound());
        int total = threads * rounds * perRound;
        assertThat(frames).hasSize(total);
        int[] next = new int[threads];
        for (byte[] f : frames) {
            long id = requestId(f);
            int stream = (int) (id >>> 32);
            int seq = (int) id;
            assertThat(seq).as("stream %d in order", stream).isEqualTo(next[stream]);
            assertThat(f).isEqualTo(expected(stream, seq, seq % 97));
            next[stream]++;
        }
        assertThat(counter.flushes).as("one flush per drained round").isEqualTo(rounds);
        assertThat(counter.writes).as("grouped: fewer pipeline writes than frames").isLessThan(total / 10);
        assertThat(writer.batches()).isEqualTo(rounds);
        assertThat(writer.frames()).isEqualTo(total);
    }

    @Test
    void smallFramesShareOneBufferAndOneFlush() {
        open();
        GroupedWriter writer = new GroupedWriter(channel, WriteMode.GROUPED, 4096, 0);
        for (int i = 0; i < 10; i++) {
            writer.write(frame(0, i, 10));
        }
        assertThat(outbound()).as("nothing goes out before the drain runs").isEmpty();
        channel.runPendingTasks();
        List<byte[]> messages = outbound();
        assertThat(messages).hasSize(1);
        assertThat(counter.flushes).isEqualTo(1);
        List<byte[]> frames = frames(messages);
        for (int i = 0; i < 10; i++) {
            assertThat(frames.get(i)).isEqualTo(expected(0, i, 10));
        }
    }

    @Test
    void framesEncodedInPlaceShareTheGroupAndAFailedEncodingLeavesNoTrace() {
        open();
        GroupedWriter writer = new GroupedWriter(channel, WriteMode.GROUPED, 4096, 0);
        writer.write(64, buf -> buf.writeBytes(expected(0, 0, 10)));
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> writer.write(64, buf -> {
            buf.writeBytes(expected(0, 99, 10)); // half written, then the encoding fails
            throw new IllegalStateException("encoding failed");
        })).hasMessage("encoding failed");
        writer.write(64, buf -> buf.writeBytes(expected(0, 1, 10)));
        assertThat(writer.write(8192, buf -> buf.writeBytes(expected(0, 2, 5000)))).isTrue();
        channel.runPendingTasks();

        List<byte[]> messages = outbound();
        assertThat(messages).as("one group of two frames, then the large frame alone").hasSize(2);
        assertThat(frames(messages)).containsExactly(expected(0, 0, 10), expected(0, 1, 10), expected(0, 2, 5000));
        assertThat(counter.flushes).isEqualTo(1);
    }

    @Test
    void aWriterThatFindsTheLockHeldEncodesAsideWhileTheHolderEncodesAndThenJoinsTheGroup() throws Exception {
        open();
        GroupedWriter writer = new GroupedWriter(channel, WriteMode.GROUPED, 4096, 0, 1); // every thread meets on one lock
        CountDownLatch asideEncoded = new CountDownLatch(1);
        CountDownLatch asideFailed = new CountDownLatch(1);
        List<Throwable> failures = new CopyOnWriteArrayList<>();
        Thread[] others = new Thread[2];
        // The first frame is encoded in place, holding the lock; while it is inside its encoder,
        // a second thread's frame is encoded aside (its encoder runs to the end while the lock is
        // still held), and a third thread's encoding fails aside.
        writer.write(64, buf -> {
            buf.writeBytes(expected(0, 0, 10));
            others[0] = Thread.ofPlatform().start(() -> {
                try {
                    writer.write(64, b -> {
                        b.writeBytes(expected(1, 0, 10));
                        asideEncoded.countDown();
                    });
                } catch (Throwable e) {
                    failures.add(e);
                }
            });
            others[1] = Thread.ofPlatform().start(() -> {
                try {
                    writer.write(64, b -> {
                        b.writeBytes(expected(2, 99, 10));
                        throw new IllegalStateException("encoding failed aside");
                    });
                } catch (IllegalStateException e) {
                    asideFailed.countDown();
                }
            });
            try {
                assertThat(asideEncoded.await(30, TimeUnit.SECONDS)).as("encoded while the lock was held").isTrue();
                assertThat(asideFailed.await(30, TimeUnit.SECONDS)).as("failed without the lock").isTrue();
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        });
        others[0].join(TimeUnit.SECONDS.toMillis(30));
        others[1].join(TimeUnit.SECONDS.toMillis(30));
        assertThat(failures).isEmpty();
        writer.write(64, buf -> buf.writeBytes(expected(0, 1, 10)));
        channel.runPendingTasks();

        List<byte[]> messages = outbound();
        assertThat(messages).hasSize(1);
        assertThat(frames(messages)).containsExactly(expected(0, 0, 10), expected(1, 0, 10), expected(0, 1, 10));
        assertThat(writer.frames()).isEqualTo(3);
    }

    @Test
    void threadsOnDifferentStripesEncodeInPlaceAtTheSameTimeAndEachKeepsItsOrder() throws Exception {
        open();
        GroupedWriter writer = new GroupedWriter(channel, WriteMode.GROUPED, 4096, 0, 4);
        int self = GroupedWriter.threadNumber();
        CountDownLatch otherDone = new CountDownLatch(1);
        List<ByteBuf> otherGot = new CopyOnWriteArrayList<>();
        List<Throwable> failures = new CopyOnWriteArrayList<>();
        Thread other;
        CountDownLatch go = new CountDownLatch(1);
        while (true) { // a thread whose number maps to another of the four stripes
            CompletableFuture<Integer> number = new CompletableFuture<>();
            other = Thread.ofPlatform().start(() -> {
                number.complete(GroupedWriter.threadNumber());
                if (((number.join() ^ self) & 3) == 0) {
                    return; // the same stripe as the test's thread: the test tries another thread
                }
                try {
                    go.await();
                    for (int seq = 0; seq < 3; seq++) {
                        int s = seq;
                        writer.write(64, b -> {
                            otherGot.add(b);
                            b.writeBytes(expected(1, s, 10));
                        });
                    }
                } catch (Throwable e) {
                    failures.add(e);
                } finally {
                    otherDone.countDown();
                }
            });
            if (((number.get(30, TimeUnit.SECONDS) ^ self) & 3) != 0) {
                break;
            }
            other.join();
        }
        // This thread holds its stripe's lock (it is inside its encoder) while the other thread
        // writes three frames: they go straight into its own stripe's buffer, not aside.
        writer.write(64, buf -> {
            buf.writeBytes(expected(0, 0, 10));
            go.countDown();
            try {
                assertThat(otherDone.await(30, TimeUnit.SECONDS)).as("the other thread did not wait for this lock").isTrue();
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        });
        other.join(TimeUnit.SECONDS.toMillis(30));
        assertThat(failures).isEmpty();
        assertThat(otherGot).as("encoded in place: into the stripe's direct buffer, not the thread's heap scratch")
                .hasSize(3).allSatisfy(b -> assertThat(b.isDirect()).isTrue());
        writer.write(64, buf -> buf.writeBytes(expected(0, 1, 10)));
        channel.runPendingTasks();

        List<byte[]> messages = outbound();
        assertThat(messages).as("one buffer per stripe in use, one flush").hasSize(2);
        assertThat(counter.flushes).isEqualTo(1);
        List<byte[]> frames = frames(messages);
        assertThat(frames).hasSize(5);
        assertThat(frames.stream().filter(f -> requestId(f) >>> 32 == 0).toList())
                .containsExactly(expected(0, 0, 10), expected(0, 1, 10));
        assertThat(frames.stream().filter(f -> requestId(f) >>> 32 == 1).toList())
                .containsExactly(expected(1, 0, 10), expected(1, 1, 10), expected(1, 2, 10));
        assertThat(writer.frames()).isEqualTo(5);
    }

    @Test
    void anEncoderThatWritesToItsOwnWriterFailsAtOnceAndTheWriterGoesOn() {
        open();
        GroupedWriter writer = new GroupedWriter(channel, WriteMode.GROUPED, 4096, 0);
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> writer.write(64, buf -> {
            buf.writeBytes(expected(0, 0, 10));
            writer.write(64, inner -> inner.writeBytes(expected(0, 99, 10)));
        })).isInstanceOf(IllegalStateException.class).hasMessageContaining("not reentrant");
        writer.write(64, buf -> buf.writeBytes(expected(0, 1, 10)));
        channel.runPendingTasks();
        assertThat(frames(outbound())).containsExactly(expected(0, 1, 10));
    }

    @Test
    void closingTheWriterWhileADrainIsWritingReleasesWhatTheDrainHadNotWritten() {
        open();
        channel.config().setWriteBufferWaterMark(new WriteBufferWaterMark(1, 2)); // unwritable after any write
        GroupedWriter writer = new GroupedWriter(channel, WriteMode.GROUPED, 200, 0);
        channel.pipeline().addFirst(new ChannelOutboundHandlerAdapter() {
            @Override
            public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
                writer.close(); // the connection is closing while the drain writes its first group
                ctx.write(msg, promise);
            }
        });
        for (int i = 0; i < 10; i++) {
            writer.write(frame(0, i, 30)); // groups of 4, 4 and 2 frames
        }
        channel.runPendingTasks();
        // The first group went out; the two the drain had taken but not written were released
        // (the after-each check finds every allocated buffer released).
        assertThat(outbound()).extracting(m -> m.length).containsExactly(200);
        assertThat(writer.write(frame(0, 10, 30))).isFalse();
    }

    @Test
    void aFrameAtTheThresholdGoesAloneAfterWhatWasPending() {
        open();
        int threshold = 256;
        GroupedWriter writer = new GroupedWriter(channel, WriteMode.GROUPED, threshold, 0);
        writer.write(frame(0, 0, 20));
        writer.write(frame(0, 1, 20));
        ByteBuf large = frame(0, 2, threshold - FrameLayout.HEADER_SIZE); // exactly the threshold
        assertThat(large.readableBytes()).isEqualTo(threshold);
        writer.write(large);
        writer.write(frame(0, 3, 20));
        ByteBuf larger = frame(0, 4, threshold * 3);
        writer.write(larger);
        channel.runPendingTasks();

        List<ByteBuf> messages = new ArrayList<>();
        ByteBuf b;
        while ((b = channel.readOutbound()) != null) {
            messages.add(b);
        }
        assertThat(messages).hasSize(4);
        assertThat(messages.get(1)).as("the large frame is written as is, not copied").isSameAs(large);
        assertThat(messages.get(3)).isSameAs(larger);
        assertThat(ByteBufUtil.getBytes(messages.get(0)))
                .isEqualTo(concat(expected(0, 0, 20), expected(0, 1, 20)));
        assertThat(ByteBufUtil.getBytes(messages.get(1))).isEqualTo(expected(0, 2, threshold - FrameLayout.HEADER_SIZE));
        assertThat(ByteBufUtil.getBytes(messages.get(2))).isEqualTo(expected(0, 3, 20));
        assertThat(ByteBufUtil.getBytes(messages.get(3))).isEqualTo(expected(0, 4, threshold * 3));
        assertThat(counter.flushes).isEqualTo(1);
        messages.forEach(ByteBuf::release);
    }

    @Test
    void aGroupThatReachesTheThresholdIsClosedOffAndANewOneStarted() {
        open();
        int threshold = 200;
        GroupedWriter writer = new GroupedWriter(channel, WriteMode.GROUPED, threshold, 0);
        int frameSize = FrameLayout.HEADER_SIZE + 30; // 50 bytes: four fill a group
        for (int i = 0; i < 10; i++) {
            writer.write(frame(0, i, 30));
        }
        channel.runPendingTasks();
        List<byte[]> messages = outbound();
        assertThat(messages).extracting(m -> m.length).containsExactly(4 * frameSize, 4 * frameSize, 2 * frameSize);
        List<byte[]> frames = frames(messages);
        for (int i = 0; i < 10; i++) {
            assertThat(frames.get(i)).isEqualTo(expected(0, i, 30));
        }
    }

    @Test
    void aDrainThatFindsTheChannelUnwritableStopsAndGoesOnInOrderWhenItIsWritableAgain() {
        open();
        channel.config().setWriteBufferWaterMark(new WriteBufferWaterMark(1, 2)); // unwritable after any write
        GroupedWriter writer = new GroupedWriter(channel, WriteMode.GROUPED, 200, 0);
        List<Boolean> writableAtResume = new ArrayList<>();
        channel.pipeline().addLast(new ChannelInboundHandlerAdapter() {
            @Override
            public void channelWritabilityChanged(ChannelHandlerContext ctx) {
                writableAtResume.add(ctx.channel().isWritable());
                writer.writabilityChanged();
                ctx.fireChannelWritabilityChanged();
            }
        });
        for (int i = 0; i < 10; i++) {
            writer.write(frame(0, i, 30)); // 50-byte frames: groups of 4, 4 and 2
        }
        channel.runPendingTasks();
        List<byte[]> messages = outbound();
        // One group per flush: each drain stopped after one write and the next began when the flush
        // made the channel writable again.
        assertThat(messages).extracting(m -> m.length).containsExactly(200, 200, 100);
        assertThat(counter.flushes).isEqualTo(3);
        assertThat(writableAtResume).contains(true);
        List<byte[]> frames = frames(messages);
        for (int i = 0; i < 10; i++) {
            assertThat(frames.get(i)).isEqualTo(expected(0, i, 30));
        }
        writer.write(frame(0, 10, 30)); // the writer still posts drains afterwards
        channel.runPendingTasks();
        assertThat(frames(outbound())).singleElement().isEqualTo(expected(0, 10, 30));
    }

    @Test
    void framesWrittenAfterADrainGoInTheNextBatch() {
        open();
        GroupedWriter writer = new GroupedWriter(channel, WriteMode.GROUPED, 4096, 0);
        writer.write(frame(0, 0, 5));
        channel.runPendingTasks();
        writer.write(frame(0, 1, 5));
        writer.write(frame(0, 2, 5));
        channel.runPendingTasks();
        channel.runPendingTasks(); // nothing pending: no empty write, no extra flush
        assertThat(outbound()).extracting(m -> m.length).containsExactly(25, 50);
        assertThat(counter.flushes).isEqualTo(2);
        assertThat(writer.batches()).isEqualTo(2);
        assertThat(writer.frames()).isEqualTo(3);
    }

    @Test
    void flushEachWritesAndFlushesEveryFrame() {
        open();
        GroupedWriter writer = new GroupedWriter(channel, WriteMode.FLUSH_EACH, 4096, 0);
        List<ByteBuf> sent = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            ByteBuf f = frame(0, i, 8);
            sent.add(f);
            assertThat(writer.write(f)).isTrue();
            assertThat(counter.flushes).as("flushed at once").isEqualTo(i + 1);
        }
        for (int i = 0; i < 5; i++) {
            ByteBuf out = channel.readOutbound();
            assertThat(out).isSameAs(sent.get(i));
            out.release();
        }
        assertThat(counter.writes).isEqualTo(5);
    }

    @Test
    void afterCloseHeldFramesAreReleasedAndNewOnesRefused() {
        open();
        int threshold = 256;
        GroupedWriter writer = new GroupedWriter(channel, WriteMode.GROUPED, threshold, 0);
        ByteBuf small = frame(0, 0, 10);
        ByteBuf large = frame(0, 1, threshold);
        ByteBuf lastSmall = frame(0, 2, 10);
        writer.write(small);
        writer.write(large);
        writer.write(lastSmall);
        assertThat(small.refCnt()).as("a small frame is copied into the group and released").isZero();
        assertThat(large.refCnt()).as("a large frame is held as is").isEqualTo(1);
        assertThat(allocator.allocated).as("two groups: before and after the large frame").hasSize(2);

        writer.close();
        assertThat(large.refCnt()).isZero();
        for (ByteBuf group : allocator.allocated) {
            assertThat(group.refCnt()).isZero();
        }
        ByteBuf refused = frame(0, 3, 10);
        assertThat(writer.write(refused)).isFalse();
        assertThat(refused.refCnt()).isZero();
        ByteBuf refusedLarge = frame(0, 4, threshold);
        assertThat(writer.write(refusedLarge)).isFalse();
        assertThat(refusedLarge.refCnt()).isZero();

        channel.runPendingTasks();
        assertThat(outbound()).as("the posted drain sends nothing after close").isEmpty();
        assertThat(counter.flushes).isZero();
        writer.close(); // idempotent
    }

    @Test
    void flushEachRefusesAndReleasesOnAnInactiveChannel() {
        open();
        GroupedWriter writer = new GroupedWriter(channel, WriteMode.FLUSH_EACH, 4096, 0);
        channel.close();
        ByteBuf f = frame(0, 0, 10);
        assertThat(writer.write(f)).isFalse();
        assertThat(f.refCnt()).isZero();
    }

    private static byte[] concat(byte[] a, byte[] b) {
        byte[] out = new byte[a.length + b.length];
        System.arraycopy(a, 0, out, 0, a.length);
        System.arraycopy(b, 0, out, a.length, b.length);
        return out;
    }
}
