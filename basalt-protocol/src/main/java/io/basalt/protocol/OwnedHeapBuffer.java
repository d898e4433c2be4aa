package io.basalt.protocol;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.UnpooledHeapByteBuf;

/**
 * A heap buffer whose array belongs to the garbage collector alone: never pooled, never reused,
 * and never written below its writer index, so that a decoder may hand out views of a frame's
 * bytes ({@link Wire#readRows}) that outlive the buffer's own release, without copying them.
 *
 * <p>{@link FrameDecoder} holds a large frame in one of these. Netty's decoder compacts its
 * buffer now and then ({@code discardSomeReadBytes}), moving unread bytes over read ones; here
 * that is a no-op, since read bytes may be a body somebody still views. A buffer that grows gets
 * a new array; the old one is left as it was. Released, the buffer drops its array without
 * touching it ({@code UnpooledHeapByteBuf} never reuses one), and the collector frees it once no
 * view is left.
 */
final class OwnedHeapBuffer extends UnpooledHeapByteBuf {

    OwnedHeapBuffer(ByteBufAllocator alloc, int capacity) {
        super(alloc, capacity, capacity);
    }

    @Override
    public ByteBuf discardReadBytes() {
        return this;
    }

    @Override
    public ByteBuf discardSomeReadBytes() {
        return this;
    }

    /** Whether {@code buf} views an owned heap buffer: its array may be kept after release. */
    static boolean owns(ByteBuf buf) {
        for (ByteBuf b = buf; b != null; b = b.unwrap()) {
            if (b instanceof OwnedHeapBuffer) {
                return true;
            }
        }
        return false;
    }
}
