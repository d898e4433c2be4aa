package io.basalt.protocol;

import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.EventLoop;
import java.util.ArrayDeque;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Writes frames to one channel, grouping small ones into one buffer (seed: BookKeeper #3886).
 *
 * <h2>Design</h2>
 * With {@link WriteMode#FLUSH_EACH} every frame is a {@code writeAndFlush}; from a thread other
 * than the channel's event loop that posts one task per frame and costs one syscall per frame.
 * Netty's {@code FlushConsolidationHandler} saves syscalls but still sends every frame through
 * the pipeline and posts a task per write. Here, in {@link WriteMode#GROUPED}:
 * <ul>
 *   <li>The caller encodes its frame into a buffer of its own, outside any lock. A small frame is
 *       then copied into the channel's <em>filling</em> buffer under a short lock; a frame of
 *       {@code threshold} bytes or more is not copied: the filling buffer is closed off first and
 *       the large frame queued after it, so it goes alone, after what was pending.</li>
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
     * Sends one encoded frame (ownership passes to the writer). Returns false, having released the
     * frame, when the writer is closed.
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
                    filling = channel.alloc().directBuffer(Math.max(threshold, size));
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
            if (now) {
                loop.execute(drainTask);
            } else {
                loop.schedule(drainTask, lingerNanos, TimeUnit.NANOSECONDS);
            }
        }
        return true;
    }

    private void closeFilling() {
        if (filling != null && filling.isReadable()) {
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
