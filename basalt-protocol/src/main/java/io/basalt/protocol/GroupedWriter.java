package io.basalt.protocol;

import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.EventLoop;
import java.util.ArrayDeque;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;

/**
 * Writes frames to one channel, grouping small ones into one buffer (seed: BookKeeper #3886).
 *
 * <h2>Design</h2>
 * With {@link WriteMode#FLUSH_EACH} every frame is a {@code writeAndFlush}; from a thread other
 * than the channel's event loop that posts one task per frame and costs one syscall per frame.
 * Netty's {@code FlushConsolidationHandler} saves syscalls but still sends every frame through
 * the pipeline and posts a task per write. Here, in {@link WriteMode#GROUPED}:
 * <ul>
 *   <li>A frame the caller expects to be small is encoded straight into the channel's
 *       <em>filling</em> buffer under a short lock ({@link #write(int, Consumer)}): no buffer of
 *       its own, no copy. A frame of {@code threshold} bytes or more is encoded into a buffer of
 *       its own outside the lock and not copied: the filling buffer is closed off first and the
 *       large frame queued after it, so it goes alone, after what was pending. The filling
 *       buffer is sized after the previous group, so a quiet connection allocates small
 *       thread-cached buffers.</li>
 *   <li>When the filling buffer reaches {@code threshold} it is closed off and queued, and a new
 *       one started.</li>
 *   <li>The first frame after a drain posts one drain task to the event loop (a flag guards it),
 *       or schedules it after {@code linger} when a linger is set. Every frame that arrives before
 *       the task runs rides along: one task, one pipeline write per buffer and one flush per
 *       batch, however many frames.</li>
 *   <li>Self-clocking: while the socket cannot take more (the channel is not writable) the drain
 *       stops and frames accumulate; the next drain runs when the channel turns writable again
 *       ({@link #writabilityChanged()}).</li>
 * </ul>
 * Frames keep the order in which {@link #write} accepted them. After {@link #close()} the writer
 * releases what it holds and refuses frames (the caller's pending requests fail through the
 * channel's closing).
 */
public final class GroupedWriter {

    /** Default size at which a group is sent without waiting, and above which a frame goes alone. */
    public static final int DEFAULT_THRESHOLD = 64 * 1024;
    /** The smallest filling buffer allocated. */
    private static final int MIN_CAPACITY = 512;

    private final Channel channel;
    private final EventLoop loop;
    private final WriteMode mode;
    private final int threshold;
    private final long lingerNanos;
    private final Runnable drainTask = this::drain;

    private final ReentrantLock lock = new ReentrantLock();
    // Guarded by lock.
    private ByteBuf filling;
    private final ArrayDeque<ByteBuf> ready = new ArrayDeque<>();
    private boolean drainPosted;
    private boolean closed;
    private int nextCapacity = MIN_CAPACITY;

    // Written by the event loop only (framesSinceDrain: under lock, by writers and the drain).
    private long batches;
    private long frames;
    private long framesSinceDrain;

    public GroupedWriter(Channel channel, WriteMode mode, int threshold, long lingerNanos) {
        if (threshold < FrameLayout.HEADER_SIZE) {
            throw new IllegalArgumentException("grouping threshold " + threshold + " is below one frame header");
        }
        if (lingerNanos < 0) {
            throw new IllegalArgumentException("linger " + lingerNanos + " ns is negative");
        }
        this.channel = channel;
        this.loop = channel.eventLoop();
        this.mode = mode;
        this.threshold = threshold;
        this.lingerNanos = lingerNanos;
    }

    /**
     * Encodes one frame and sends it. A frame expected to be small ({@code sizeHint} below the
     * threshold) is encoded straight into the channel's filling buffer under the lock, so it costs
     * no buffer of its own and no copy; a larger one is encoded into its own buffer outside the
     * lock and goes alone. If {@code encoder} throws, nothing of the frame is sent and the
     * exception propagates. Returns false when the writer is closed (nothing was encoded).
     */
    public boolean write(int sizeHint, Consumer<ByteBuf> encoder) {
        if (mode == WriteMode.FLUSH_EACH || sizeHint >= threshold) {
            ByteBuf frame = mode == WriteMode.FLUSH_EACH ? channel.alloc().buffer(Math.max(64, sizeHint))
                    : channel.alloc().directBuffer(sizeHint);
            try {
                encoder.accept(frame);
            } catch (RuntimeException e) {
                frame.release();
                throw e;
            }
            return write(frame);
        }
        boolean post;
        boolean now;
        lock.lock();
        try {
            if (closed) {
                return false;
            }
            if (filling == null) {
                filling = channel.alloc().directBuffer(nextCapacity);
            }
            int mark = filling.writerIndex();
            try {
                encoder.accept(filling);
            } catch (RuntimeException e) {
                filling.writerIndex(mark);
                throw e;
            }
            framesSinceDrain++;
            if (filling.readableBytes() >= threshold) {
                closeFilling();
            }
            post = !drainPosted;
            drainPosted = true;
            now = lingerNanos == 0 || !ready.isEmpty();
        } finally {
            lock.unlock();
        }
        if (post) {
            schedule(now);
        }
        return true;
    }

    private void schedule(boolean now) {
        if (now) {
            loop.execute(drainTask);
        } else {
            loop.schedule(drainTask, lingerNanos, TimeUnit.NANOSECONDS);
        }
    }

    /**
     * Sends one encoded frame (ownership passes to the writer): small frames are copied into the
     * filling buffer, large ones go alone. Returns false, having released the frame, when the
     * writer is closed.
     */
    public boolean write(ByteBuf frame) {
        if (mode == WriteMode.FLUSH_EACH) {
            if (!channel.isActive()) {
                frame.release();
                return false;
            }
            channel.writeAndFlush(frame, channel.voidPromise());
            return true;
        }
        int size = frame.readableBytes();
        boolean post;
        boolean now;
        lock.lock();
        try {
            if (closed) {
                return false; // the finally releases the frame (releasing it here too threw)
            }
            framesSinceDrain++;
            if (size >= threshold) {
                closeFilling();
                ready.add(frame);
                frame = null;
            } else {
                if (filling == null) {
                    filling = channel.alloc().directBuffer(Math.max(nextCapacity, size));
                }
                filling.writeBytes(frame);
                if (filling.readableBytes() >= threshold) {
                    closeFilling();
                }
            }
            post = !drainPosted;
            drainPosted = true;
            now = lingerNanos == 0 || !ready.isEmpty();
        } finally {
            lock.unlock();
            if (frame != null) {
                frame.release();
            }
        }
        if (post) {
            schedule(now);
        }
        return true;
    }

    /**
     * Queues the filling buffer, and sizes the next one after it: about what the last group
     * needed, so a quiet connection allocates small (pooled, thread-cached) buffers and a busy one
     * rarely grows its buffer.
     */
    private void closeFilling() {
        if (filling != null && filling.isReadable()) {
            int used = filling.readableBytes();
            nextCapacity = Math.clamp(used + (used >> 1), Math.min(MIN_CAPACITY, threshold), threshold);
            ready.add(filling);
            filling = null;
        }
    }

    /** Call on the event loop when the channel's writability changed, to resume a stopped drain. */
    public void writabilityChanged() {
        if (channel.isWritable()) {
            drain();
        }
    }

    private void drain() {
        int written = 0;
        while (true) {
            ByteBuf next;
            lock.lock();
            try {
                if (closed) {
                    drainPosted = false;
                    return;
                }
                if (ready.isEmpty()) {
                    closeFilling();
                }
                next = ready.poll();
                if (next == null || (!channel.isWritable() && written > 0)) {
                    if (next != null) {
                        ready.addFirst(next); // resume when writable
                    } else {
                        frames += framesSinceDrain;
                        framesSinceDrain = 0;
                    }
                    drainPosted = next != null;
                    break;
                }
            } finally {
                lock.unlock();
            }
            channel.write(next, channel.voidPromise());
            written++;
        }
        if (written > 0) {
            batches++;
            channel.flush();
        }
    }

    /** Releases every buffered frame and refuses new ones. Idempotent. */
    public void close() {
        lock.lock();
        try {
            closed = true;
            if (filling != null) {
                filling.release();
                filling = null;
            }
            ByteBuf b;
            while ((b = ready.poll()) != null) {
                b.release();
            }
        } finally {
            lock.unlock();
        }
    }

    /** Flushes issued so far (event-loop view; for tests and metrics). */
    public long batches() {
        return batches;
    }

    /** Frames sent so far (event-loop view; for tests and metrics). */
    public long frames() {
        return frames;
    }
}
