package io.basalt.protocol;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.WriteBufferWaterMark;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@link GroupedWriter} on a real connection over 127.0.0.1: many threads write while the event
 * loop drains. The channel's write-buffer marks are a few frames, so drains keep stopping
 * part-way (the channel turns unwritable) and resuming when it is writable again, and the
 * receiver keeps pausing its reads so that the socket fills too. (Tiny socket buffers would
 * stall the connection on TCP's zero-window probes instead, for a minute or more.) Every frame must arrive, byte-exact, each
 * thread's in the order it wrote them: a frame stranded by a drain that missed it (the flag
 * protocol between writers and drains), lost in a stopped drain, or reordered within a thread
 * fails the test. The wait for the last bytes is a liveness bound, not a timing claim.
 */
class GroupedWriterStressTest {

    private static final int THRESHOLD = 1024;
    private final List<EventLoopGroup> groups = new ArrayList<>();

    @AfterEach
    void stop() {
        groups.forEach(g -> g.shutdownGracefully(0, 1, TimeUnit.SECONDS));
    }

    /** Accumulates what arrives; every 64th read it stops reading for a millisecond. */
    static final class Receiver extends ChannelInboundHandlerAdapter {
        final ByteBuf received = Unpooled.buffer();
        final AtomicLong bytes = new AtomicLong();
        private int reads;
        volatile Channel channel;

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            channel = ctx.channel();
            ByteBuf b = (ByteBuf) msg;
            bytes.addAndGet(b.readableBytes());
            received.writeBytes(b);
            b.release();
            if (++reads % 64 == 0) {
                ctx.channel().config().setAutoRead(false);
                ctx.executor().schedule(() -> ctx.channel().config().setAutoRead(true), 1, TimeUnit.MILLISECONDS);
            }
        }
    }

    @Test
    void framesFromManyThreadsRacingDrainsAndStallsAllArriveInOrderPerThread() throws Exception {
        Transport transport = Transport.best();
        EventLoopGroup serverLoop = transport.group(1, "stress-server");
        EventLoopGroup clientLoop = transport.group(1, "stress-client");
        groups.add(serverLoop);
        groups.add(clientLoop);
        Receiver receiver = new Receiver();
        Channel server = new ServerBootstrap().group(serverLoop).channel(transport.serverChannel())
                .childHandler(new ChannelInitializer<>() {
                    @Override
                    protected void initChannel(Channel ch) {
                        ch.pipeline().addLast(receiver);
                    }
                }).bind(new InetSocketAddress("127.0.0.1", 0)).sync().channel();

        CompletableFuture<GroupedWriter> writerReady = new CompletableFuture<>();
        Channel client = new Bootstrap().group(clientLoop).channel(transport.socketChannel())
                .option(ChannelOption.WRITE_BUFFER_WATER_MARK, new WriteBufferWaterMark(2 * 1024, 4 * 1024))
                .handler(new ChannelInboundHandlerAdapter() {
                    @Override
                    public void channelWritabilityChanged(ChannelHandlerContext ctx) {
                        GroupedWriter w = writerReady.getNow(null);
                        if (w != null) {
                            w.writabilityChanged();
                        }
                        ctx.fireChannelWritabilityChanged();
                    }
                }).connect(server.localAddress()).sync().channel();
        GroupedWriter writer = new GroupedWriter(client, WriteMode.GROUPED, THRESHOLD, 0);
        writerReady.complete(writer);

        int threads = 8;
        int perThread = 10_000;
        CountDownLatch start = new CountDownLatch(1);
        List<Throwable> failures = new CopyOnWriteArrayList<>();
        List<Thread> writers = new ArrayList<>();
        AtomicLong expectedBytes = new AtomicLong();
        for (int t = 0; t < threads; t++) {
            int stream = t;
            writers.add(Thread.ofPlatform().name("stress-writer-" + t).start(() -> {
                try {
                    start.await();
                    for (int seq = 0; seq < perThread; seq++) {
                        int size = size(stream, seq);
                        ByteBuf frame = GroupedWriterTest.frame(stream, seq, size);
                        expectedBytes.addAndGet(frame.readableBytes());
                        boolean accepted;
                        if (seq % 3 == 0) {
                            accepted = writer.write(frame); // encoded already: copied in, or alone when large
                        } else {
                            byte[] bytes = ByteBufUtil.getBytes(frame);
                            frame.release();
                            accepted = writer.write(bytes.length, b -> b.writeBytes(bytes));
                        }
                        assertThat(accepted).isTrue();
                    }
                } catch (Throwable e) {
                    failures.add(e);
                }
            }));
        }
        start.countDown();
        for (Thread w : writers) {
            w.join(TimeUnit.SECONDS.toMillis(60));
        }
        assertThat(failures).isEmpty();

        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (receiver.bytes.get() < expectedBytes.get() && System.nanoTime() < deadline) {
            Thread.sleep(5);
        }
        String state = clientLoop.submit(() -> writer + ", outbound bytes "
                + client.unsafe().outboundBuffer().totalPendingWriteBytes() + ", flushed entries "
                + client.unsafe().outboundBuffer().size() + ", receiver auto-read "
                + receiver.channel.config().isAutoRead()).get(30, TimeUnit.SECONDS);
        assertThat(receiver.bytes.get()).as("every byte written arrived; %s", state).isEqualTo(expectedBytes.get());
        ByteBuf all = server.eventLoop().submit(() -> receiver.received.copy()).get(30, TimeUnit.SECONDS);
        int[] next = new int[threads];
        int frames = 0;
        while (all.isReadable()) {
            int length = all.getInt(all.readerIndex() + FrameLayout.LENGTH_OFFSET);
            long id = all.getLong(all.readerIndex() + FrameLayout.REQUEST_ID_OFFSET);
            int stream = (int) (id >>> 32);
            int seq = (int) id;
            assertThat(seq).as("thread %d's frames in order", stream).isEqualTo(next[stream]);
            byte[] f = new byte[length + 4];
            all.readBytes(f);
            ByteBuf want = GroupedWriterTest.frame(stream, seq, size(stream, seq));
            assertThat(f).isEqualTo(ByteBufUtil.getBytes(want));
            want.release();
            next[stream]++;
            frames++;
        }
        assertThat(frames).isEqualTo(threads * perThread);
        assertThat(clientLoop.submit(() -> writer.frames()).get(30, TimeUnit.SECONDS)).isEqualTo((long) threads * perThread);
        long batches = clientLoop.submit(() -> writer.batches()).get(30, TimeUnit.SECONDS);
        assertThat(batches).as("grouped: fewer flushes than frames").isLessThan(threads * perThread);
        all.release();
        clientLoop.submit(() -> writer.close()).get(30, TimeUnit.SECONDS);
        client.close().sync();
        server.close().sync();
    }

    /** Body sizes: mostly small, every 50th frame above the threshold so that it goes alone. */
    private static int size(int stream, int seq) {
        return seq % 50 == 49 ? THRESHOLD + 100 + stream : (seq * 31 + stream * 7) % 300;
    }
}
