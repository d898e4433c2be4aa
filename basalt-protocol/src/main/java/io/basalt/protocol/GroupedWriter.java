package io.basalt.protocol;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.EventLoop;
import java.util.ArrayDeque;
import java.util.concurrent.TimeUnit;
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
 *       its own, no copy. When another thread holds the lock, the frame is encoded outside it,
 *       into the writing thread's scratch buffer, and only copied in under the lock: a writer
 *       that finds the lock taken encodes meanwhile instead of queueing behind the holder's
 *       encoding. The lock is a {@link SpinYieldLock}: a release never wakes anyone. A frame
 *       of {@code threshold} bytes or more is encoded into a buffer of its own outside the lock
 *       and not copied: the filling buffer is closed off first and the
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

    /** Held only to append a frame or swap buffers out ({@link SpinYieldLock} says why not a {@code ReentrantLock}). */
    private final SpinYieldLock lock = new SpinYieldLock();
    // Guarded by lock.
    private ByteBuf filling;
    private final ArrayDeque<ByteBuf> ready = new ArrayDeque<>();
    private boolean drainPosted;
    private boolean closed;
    private int nextCapacity = MIN_CAPACITY;

    // Event loop only: the buffers one drain took, in order.
    private final ArrayDeque<ByteBuf> sending = new ArrayDeque<>();
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
     * threshold) joins the channel's filling buffer: when the writer's lock is free it is encoded
     * straight into that buffer under the lock (no buffer of its own, no copy); when another
     * thread holds the lock it is encoded outside it, into this thread's scratch buffer, and then
     * copied in, so a writer that finds the lock taken encodes meanwhile and waits only for the
     * copy. An encoder must not write to the same writer (the lock is not reentrant: that fails
     * with an {@link IllegalStateException}). A larger frame is encoded into its own buffer
     * outside the lock and goes alone. If {@code encoder} throws, nothing of the frame is sent and
     * the exception propagates. Returns false when the writer is closed (nothing was sent).
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
        ByteBuf scratch = null;
        if (!lock.tryLock()) {
            scratch = encodeAside(encoder);
            try {
                lock.lock();
            } catch (RuntimeException e) {
                doneWith(scratch);
                throw e;
            }
        }
        boolean post;
        boolean now;
        try {
            if (closed) {
                return false;
            }
            if (filling == null) {
                filling = channel.alloc().directBuffer(Math.max(nextCapacity, scratch == null ? 0 : scratch.readableBytes()));
            }
            if (scratch != null) {
                filling.writeBytes(scratch);
            } else {
                int mark = filling.writerIndex();
                try {
                    encoder.accept(filling);
                } catch (RuntimeException e) {
                    filling.writerIndex(mark);
                    throw e;
                }
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
            if (scratch != null) {
                doneWith(scratch);
            }
        }
        if (post) {
            schedule(now);
        }
        return true;
    }

    /** Most bytes a thread's scratch buffer keeps between frames; a larger one is dropped. */
    private static final int SCRATCH_KEEP = 64 * 1024;
    /**
     * Each thread's buffer for frames encoded while another thread holds a writer's lock (heap
     * memory, so a thread that ends needs no release). Taken out while in use, so a frame
     * encoded from inside another's encoder gets a buffer of its own instead of clearing the
     * outer one.
     */
    private static final ThreadLocal<ByteBuf> SCRATCH = new ThreadLocal<>();

    /** Encodes a frame into this thread's scratch buffer, outside the lock. */
    private static ByteBuf encodeAside(Consumer<ByteBuf> encoder) {
        ByteBuf scratch = SCRATCH.get();
        if (scratch == null) {
            scratch = Unpooled.buffer(MIN_CAPACITY);
        } else {
            SCRATCH.remove();
        }
        try {
            encoder.accept(scratch);
        } catch (RuntimeException e) {
            doneWith(scratch);
            throw e;
        }
        return scratch;
    }

    /** Gives the scratch buffer back to its thread for the next frame, unless it grew too large. */
    private static void doneWith(ByteBuf scratch) {
        if (scratch.capacity() > SCRATCH_KEEP) {
            scratch.release();
            return;
        }
        scratch.clear();
        SCRATCH.set(scratch);
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

    /**
     * Takes every queued buffer (and the filling one) in one turn of the lock, then writes them
     * and flushes once. If the channel stops being writable part-way, what is left goes back to
     * the front of the queue, still in order, and the drain resumes in
     * {@link #writabilityChanged()}.
     */
    private void drain() {
        lock.lock();
        try {
            drainPosted = false; // a frame accepted from now on posts the next drain
            if (closed) {
                return;
            }
            closeFilling();
            for (ByteBuf b; (b = ready.poll()) != null; ) {
                sending.add(b);
            }
            frames += framesSinceDrain;
            framesSinceDrain = 0;
        } finally {
            lock.unlock();
        }
        int written = 0;
        for (ByteBuf next; (next = sending.peek()) != null; ) {
            if (written > 0 && !channel.isWritable()) {
                putBack();
                break;
            }
            sending.poll();
            channel.write(next, channel.voidPromise());
            written++;
        }
        if (written > 0) {
            batches++;
            channel.flush();
        }
    }

    /** Returns the buffers a drain could not write to the front of the queue, to go first when writable. */
    private void putBack() {
        lock.lock();
        try {
            if (closed) {
                for (ByteBuf b; (b = sending.poll()) != null; ) {
                    b.release();
                }
                return;
            }
            for (ByteBuf b; (b = sending.pollLast()) != null; ) {
                ready.addFirst(b);
            }
            drainPosted = true; // writabilityChanged() resumes; writers need not post
        } finally {
            lock.unlock();
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
