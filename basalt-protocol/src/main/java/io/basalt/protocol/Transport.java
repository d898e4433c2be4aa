package io.basalt.protocol;

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
