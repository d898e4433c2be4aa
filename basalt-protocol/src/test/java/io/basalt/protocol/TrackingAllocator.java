package io.basalt.protocol;

import io.netty.buffer.AbstractByteBufAllocator;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/** Hands out unpooled buffers and remembers them, so a test can check that each was released. */
final class TrackingAllocator extends AbstractByteBufAllocator {

    final List<ByteBuf> allocated = new CopyOnWriteArrayList<>();

    TrackingAllocator() {
        super(false);
    }

    @Override
    protected ByteBuf newHeapBuffer(int initialCapacity, int maxCapacity) {
        ByteBuf b = Unpooled.buffer(initialCapacity, maxCapacity);
        allocated.add(b);
        return b;
    }

    @Override
    protected ByteBuf newDirectBuffer(int initialCapacity, int maxCapacity) {
        ByteBuf b = Unpooled.directBuffer(initialCapacity, maxCapacity);
        allocated.add(b);
        return b;
    }

    @Override
    public boolean isDirectBufferPooled() {
        return false;
    }

    /** The buffers not yet released. */
    List<ByteBuf> unreleased() {
        return allocated.stream().filter(b -> b.refCnt() > 0).toList();
    }
}
