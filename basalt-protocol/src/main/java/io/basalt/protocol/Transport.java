package io.basalt.protocol;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.IoHandlerFactory;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.epoll.EpollSocketChannel;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.ServerSocketChannel;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The Netty transport both ends use: native epoll where the platform has it, NIO otherwise, or
 * NIO on request ({@code -Dbasalt.transport=nio}).
 */
public enum Transport {
    EPOLL,
    NIO;

    /**
     * Buffers larger than this come from {@link #LARGE_BUFFERS}: it is the largest buffer Netty
     * 4.2's default (adaptive) allocator pools. Above it, that allocator makes a fresh native
     * buffer, which the JDK zeroes, for each request, and frees it again: for every 2 MiB scan
     * batch, at both ends.
     */
    public static final int LARGE_BUFFER = 1 << 20;

    /**
     * Where frames over {@link #LARGE_BUFFER} are built and received: a pooled allocator of its
     * own, direct memory only, in 16 MiB chunks (so a few batches share one and a chunk is rarely
     * emptied, freed and made again), with no per-thread caches. The {@code scan} suite's loopback
     * scan of 1M rows took 5.0 s with the adaptive allocator for these frames and 3.5 s with a
     * pooled one. The channels keep Netty's default for everything else, which suits small frames
     * better.
     */
    public static final ByteBufAllocator LARGE_BUFFERS = new PooledByteBufAllocator(true, 0,
            Math.max(1, Math.min(4, Runtime.getRuntime().availableProcessors())), 8192, 11, 0, 0, false);

    /** A direct buffer of {@code capacity} bytes: from {@code small} unless it is large. */
    public static ByteBuf directBuffer(ByteBufAllocator small, int capacity) {
        return capacity > LARGE_BUFFER ? LARGE_BUFFERS.directBuffer(capacity) : small.directBuffer(capacity);
    }

    /** The best transport available here. */
    public static Transport best() {
        if ("nio".equalsIgnoreCase(System.getProperty("basalt.transport"))) {
            return NIO;
        }
        return Epoll.isAvailable() ? EPOLL : NIO;
    }

    /** An event loop group of {@code threads} daemon threads named {@code name-N}. */
    public EventLoopGroup group(int threads, String name) {
        IoHandlerFactory factory = this == EPOLL ? EpollIoHandler.newFactory() : NioIoHandler.newFactory();
        AtomicInteger n = new AtomicInteger();
        ThreadFactory threadFactory = r -> Thread.ofPlatform().name(name + "-" + n.incrementAndGet()).daemon()
                .unstarted(r);
        return new MultiThreadIoEventLoopGroup(threads, threadFactory, factory);
    }

    public Class<? extends SocketChannel> socketChannel() {
        return this == EPOLL ? EpollSocketChannel.class : NioSocketChannel.class;
    }

    public Class<? extends ServerSocketChannel> serverChannel() {
        return this == EPOLL ? EpollServerSocketChannel.class : NioServerSocketChannel.class;
    }
}
