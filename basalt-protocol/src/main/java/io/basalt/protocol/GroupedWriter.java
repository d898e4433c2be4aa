package io.basalt.protocol;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.EventLoop;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.ArrayDeque;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.function.Consumer;

/**
 * Writes frames to one channel, grouping small ones into few buffers (seed: BookKeeper #3886).
 *
 * <h2>Design</h2>
 * With {@link WriteMode#FLUSH_EACH} every frame is a {@code writeAndFlush}; from a thread other
 * than the channel's event loop that posts one task per frame and costs one syscall per frame.
 * Netty's {@code FlushConsolidationHandler} saves syscalls but still sends every frame through
 * the pipeline and posts a task per write. Here, in {@link WriteMode#GROUPED}:
 * <ul>
 *   <li>The writer has a few <em>stripes</em>, each with its own lock and its own
 *       <em>filling</em> buffer; a thread always writes to the same stripe (picked by the order in
 *       which threads first wrote, {@link #threadNumber()}), so
 *       threads writing at once to one connection mostly do not meet on a lock. Profiled in the
 *       {@code grouping} suite at 50 streams, two application threads sharing one lock spent
 *       about an eighth of their CPU spinning on it and encoding frames aside to copy them in;
 *       with a stripe each, under one percent.</li>
 *   <li>A frame the caller expects to be small is encoded straight into its stripe's filling
 *       buffer under the stripe's short lock ({@link #write(int, Consumer)}): no buffer of its
 *       own, no copy. When another thread holds that lock (a thread sharing the stripe, or the
 *       drain), the frame is encoded outside it, into the writing thread's scratch buffer, and
 *       only copied in under the lock. The lock is a {@link SpinYieldLock}: a release never
 *       wakes anyone. A frame of {@code threshold} bytes or more is encoded into a buffer of its
 *       own outside the lock and not copied: the stripe's filling buffer is closed off first and
 *       the large frame queued after it, so it goes alone, after what the thread had pending. A
 *       filling buffer is sized after its stripe's previous group, so a quiet connection
 *       allocates small thread-cached buffers.</li>
 *   <li>When a filling buffer reaches {@code threshold} it is closed off and queued, and a new
 *       one started.</li>
 *   <li>The first frame after a drain posts one drain task to the event loop (a flag, set by
 *       compare-and-set, guards it), or schedules it after {@code linger} when a linger is set.
 *       Every frame that arrives before the task runs rides along: one task, one pipeline write
 *       per buffer (a few: one per stripe in use) and one flush per batch, however many
 *       frames.</li>
 *   <li>Self-clocking: while the socket cannot take more (the channel is not writable) the drain
 *       stops and frames accumulate; the next drain runs when the channel turns writable again
 *       ({@link #writabilityChanged()}).</li>
 * </ul>
 *
 * <h2>Order</h2>
 * Frames one thread writes go out in the order it wrote them. Frames from different threads have
 * no order between them: a drain takes the stripes one after another. The protocol needs none
 * (requests are matched to responses by id, and a server runs requests concurrently).
 *
 * <h2>No frame left behind</h2>
 * A drain clears the flag <em>before</em> it takes the stripes; a writer appends under its
 * stripe's lock <em>before</em> it reads the flag. So a writer that finds the flag still set
 * appended before the drain cleared it, and the drain, taking that stripe's lock afterwards,
 * takes the frame (or, when a stopped drain set the flag to hold writers off, the drain that
 * resumes on writability takes it); a writer that finds it clear posts the next drain itself.
 * The jcstress tests {@code GroupedWriterDrainRace} and {@code GroupedWriterSharedStripeDrainRace}
 * (module {@code basalt-jcstress}) race a writer against drains and check it.
 *
 * <p>After {@link #close()} the writer releases what it holds and refuses frames (the caller's
 * pending requests fail through the channel's closing).
 */
public final class GroupedWriter {

    /** Default size at which a group is sent without waiting, and above which a frame goes alone. */
    public static final int DEFAULT_THRESHOLD = 64 * 1024;
    /** The smallest filling buffer allocated. */
    private static final int MIN_CAPACITY = 512;
    /** Stripes per writer: a power of two, twice the cores (so that threads seldom share one), at most 32. */
    static final int DEFAULT_STRIPES = Math.min(32, Integer.highestOneBit(Math.max(1, 2 * Runtime.getRuntime().availableProcessors() - 1)) << 1);

    private static final VarHandle DRAIN_POSTED;

    static {
        try {
            DRAIN_POSTED = MethodHandles.lookup().findVarHandle(GroupedWriter.class, "drainPosted", boolean.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final Channel channel;
    private final EventLoop loop;
    /** Runs the drains writers post: the event loop (a concurrency test runs them itself). */
    private final Executor drains;
    private final WriteMode mode;
    private final int threshold;
    private final long lingerNanos;
    private final Runnable drainTask = this::drain;
    /** The drain's work on each stripe, made once (a method reference made per drain would be allocated per drain). */
    private final Consumer<Stripe> takeStripe = this::take;

    /**
     * Created on first use by a thread that maps to them, so a connection only ever written from
     * its event loop (a server's) has one, and each is allocated by the thread that uses it.
     */
    private final AtomicReferenceArray<Stripe> stripes;
    private final int stripeMask;
    /** Set by the writer that posts a drain, cleared by the drain before it takes the stripes. */
    private volatile boolean drainPosted;
    /** Set before {@link #close()} empties the stripes; checked by writers under their stripe's lock. */
    private volatile boolean closed;

    // Event loop only: the buffers one drain took, in order, and what a drain could not write
    // while the channel was not writable (written first by the next drain).
    private final ArrayDeque<ByteBuf> sending = new ArrayDeque<>();
    private long batches;
    private long frames;

    /** A lock and the buffers of frames written by the threads that map to it. */
    private static final class Stripe {
        /** Held only to append a frame or take the buffers ({@link SpinYieldLock} says why not a {@code ReentrantLock}). */
        final SpinYieldLock lock = new SpinYieldLock();
        // Guarded by lock.
        ByteBuf filling;
        final ArrayDeque<ByteBuf> ready = new ArrayDeque<>(4);
        int nextCapacity = MIN_CAPACITY;
        long framesSinceDrain;

        /**
         * Queues the filling buffer, and sizes the next one after it: about what the last group
         * needed, so a quiet stripe allocates small (pooled, thread-cached) buffers and a busy one
         * rarely grows its buffer.
         */
        void closeFilling(int threshold) {
            if (filling != null && filling.isReadable()) {
                int used = filling.readableBytes();
                nextCapacity = Math.clamp(used + (used >> 1), Math.min(MIN_CAPACITY, threshold), threshold);
                ready.add(filling);
                filling = null;
            }
        }

        /** The filling buffer, started (sized after the last group, at least {@code atLeast}) if there is none. */
        ByteBuf filling(ByteBufAllocator alloc, int atLeast) {
            if (filling == null) {
                filling = alloc.directBuffer(Math.max(nextCapacity, atLeast));
            }
            return filling;
        }

        /** Closes the filling buffer off once it reached {@code threshold}. */
        void closeIfFull(int threshold) {
            if (filling.readableBytes() >= threshold) {
                closeFilling(threshold);
            }
        }

        void releaseAll() {
            if (filling != null) {
                filling.release();
                filling = null;
            }
            for (ByteBuf b; (b = ready.poll()) != null; ) {
                b.release();
            }
        }
    }

    public GroupedWriter(Channel channel, WriteMode mode, int threshold, long lingerNanos) {
        this(channel, mode, threshold, lingerNanos, DEFAULT_STRIPES);
    }

    /** As above with {@code stripes} stripes, a power of two (tests use one to make threads meet). */
    GroupedWriter(Channel channel, WriteMode mode, int threshold, long lingerNanos, int stripes) {
        this(channel, mode, threshold, lingerNanos, stripes, channel.eventLoop());
    }

    /**
     * As above, posting drains (without linger) to {@code drains} instead of the event loop: the
     * jcstress tests run them on a thread of their own, racing the writers.
     */
    GroupedWriter(Channel channel, WriteMode mode, int threshold, long lingerNanos, int stripes, Executor drains) {
        if (stripes < 1 || Integer.bitCount(stripes) != 1) {
            throw new IllegalArgumentException(stripes + " stripes is not a power of two");
        }
        if (threshold < FrameLayout.HEADER_SIZE) {
            throw new IllegalArgumentException("grouping threshold " + threshold + " is below one frame header");
        }
        if (lingerNanos < 0) {
            throw new IllegalArgumentException("linger " + lingerNanos + " ns is negative");
        }
        this.channel = channel;
        this.loop = channel.eventLoop();
        this.drains = drains;
        this.mode = mode;
        this.threshold = threshold;
        this.lingerNanos = lingerNanos;
        this.stripes = new AtomicReferenceArray<>(stripes);
        this.stripeMask = stripes - 1;
    }

    /** Numbers threads in the order they first write to any writer. */
    private static final AtomicInteger THREADS = new AtomicInteger();
    private static final ThreadLocal<Integer> THREAD_NUMBER = ThreadLocal.withInitial(THREADS::getAndIncrement);

    /**
     * The calling thread's number, which picks its stripe in every writer: threads are numbered in
     * the order they first write, so the few threads that write to a connection get consecutive
     * numbers and so different stripes. (Thread ids would collide whenever other threads were
     * created in between.)
     */
    static int threadNumber() {
        return THREAD_NUMBER.get();
    }

    /** The calling thread's stripe, created on its first frame. */
    private Stripe stripe() {
        int i = threadNumber() & stripeMask;
        Stripe s = stripes.get(i);
        if (s == null) {
            Stripe created = new Stripe();
            s = stripes.compareAndExchange(i, null, created);
            if (s == null) {
                s = created;
            }
        }
        return s;
    }

    /**
     * Encodes one frame and sends it. A frame expected to be small ({@code sizeHint} below the
     * threshold) joins the filling buffer of the calling thread's stripe: when the stripe's lock is
     * free it is encoded straight into that buffer under the lock (no buffer of its own, no copy);
     * when another thread holds it, it is encoded outside it, into this thread's scratch buffer,
     * and then copied in, so a writer that finds the lock taken encodes meanwhile and waits only
     * for the copy. An encoder must not write to the same writer (the lock is not reentrant: that
     * fails with an {@link IllegalStateException}). A larger frame is encoded into its own buffer
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
        Stripe s = stripe();
        ByteBuf scratch = null;
        if (!s.lock.tryLock()) {
            scratch = encodeAside(encoder);
            try {
                s.lock.lock();
            } catch (RuntimeException e) {
                doneWith(scratch);
                throw e;
            }
        }
        boolean now;
        try {
            if (closed) {
                return false;
            }
            ByteBuf filling = s.filling(channel.alloc(), scratch == null ? 0 : scratch.readableBytes());
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
            s.framesSinceDrain++;
            s.closeIfFull(threshold);
            now = lingerNanos == 0 || !s.ready.isEmpty();
        } finally {
            s.lock.unlock();
            if (scratch != null) {
                doneWith(scratch);
            }
        }
        requestDrain(now);
        return true;
    }

    /** Most bytes a thread's scratch buffer keeps between frames; a larger one is dropped. */
    private static final int SCRATCH_KEEP = 64 * 1024;
    /**
     * Each thread's buffer for frames encoded while another thread holds a stripe's lock (heap
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

    /**
     * Called after a frame was appended (and its stripe's lock released): posts a drain unless one
     * is posted already and has not yet started taking the stripes.
     */
    private void requestDrain(boolean now) {
        if (!drainPosted && DRAIN_POSTED.compareAndSet(this, false, true)) {
            if (now) {
                drains.execute(drainTask);
            } else {
                loop.schedule(drainTask, lingerNanos, TimeUnit.NANOSECONDS);
            }
        }
    }

    /**
     * Sends one encoded frame (ownership passes to the writer): small frames are copied into the
     * filling buffer of the calling thread's stripe, large ones go alone. Returns false, having
     * released the frame, when the writer is closed.
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
        Stripe s = stripe();
        boolean now;
        s.lock.lock();
        try {
            if (closed) {
                return false; // the finally releases the frame (releasing it here too threw)
            }
            s.framesSinceDrain++;
            if (size >= threshold) {
                s.closeFilling(threshold);
                s.ready.add(frame);
                frame = null;
            } else {
                s.filling(channel.alloc(), size).writeBytes(frame);
                s.closeIfFull(threshold);
            }
            now = lingerNanos == 0 || !s.ready.isEmpty();
        } finally {
            s.lock.unlock();
            if (frame != null) {
                frame.release();
            }
        }
        requestDrain(now);
        return true;
    }

    /** Call on the event loop when the channel's writability changed, to resume a stopped drain. */
    public void writabilityChanged() {
        if (channel.isWritable()) {
            drain();
        }
    }

    /**
     * Takes every stripe's queued buffers (and its filling one), each stripe in one turn of its
     * lock, then writes them after any a previous drain could not write, and flushes once. If the
     * channel stops being writable part-way, what is left stays for the next drain, which runs
     * when the channel is writable again ({@link #writabilityChanged()}).
     */
    private void drain() {
        drainPosted = false; // a frame appended from now on may post the next drain
        if (closed) {
            releaseSending();
            return;
        }
        eachStripe(takeStripe);
        int written = 0;
        for (ByteBuf next; (next = sending.peek()) != null; ) {
            if (written > 0 && !channel.isWritable()) {
                // Writers need not post drains while the rest waits: writabilityChanged() resumes.
                drainPosted = true;
                break;
            }
            sending.poll();
            channel.write(next, channel.voidPromise());
            written++;
        }
        if (closed) {
            releaseSending(); // closed while writing: what is left is not sent
        }
        if (written > 0) {
            batches++;
            channel.flush();
        }
    }

    /** Under the stripe's lock, on the event loop: moves what the stripe holds to {@link #sending}. */
    private void take(Stripe s) {
        s.closeFilling(threshold);
        for (ByteBuf b; (b = s.ready.poll()) != null; ) {
            sending.add(b); // after close() this finds nothing: close() released it
        }
        frames += s.framesSinceDrain;
        s.framesSinceDrain = 0;
    }

    /** Runs {@code action} on every stripe created so far, in index order, each under its lock. */
    private void eachStripe(Consumer<Stripe> action) {
        for (int i = 0; i <= stripeMask; i++) {
            Stripe s = stripes.get(i);
            if (s != null) {
                s.lock.lock();
                try {
                    action.accept(s);
                } finally {
                    s.lock.unlock();
                }
            }
        }
    }

    /** On the event loop: releases what drains took but did not write. */
    private void releaseSending() {
        for (ByteBuf b; (b = sending.poll()) != null; ) {
            b.release();
        }
    }

    /**
     * Releases every buffered frame and refuses new ones. Idempotent. Buffers a drain holds are
     * released on the event loop (here when called there, else by a task posted to it).
     */
    public void close() {
        closed = true;
        eachStripe(Stripe::releaseAll);
        if (loop.inEventLoop()) {
            releaseSending();
        } else {
            try {
                loop.execute(this::releaseSending);
            } catch (RejectedExecutionException e) {
                releaseSending(); // the loop has stopped: no drain runs any more
            }
        }
    }

    /** What the writer holds, for a test's failure message (call on the event loop). */
    @Override
    public String toString() {
        StringBuilder b = new StringBuilder("GroupedWriter[drainPosted=").append(drainPosted).append(", closed=")
                .append(closed).append(", writable=").append(channel.isWritable()).append(", sending=")
                .append(sending.size());
        eachStripe(s -> b.append(", stripe: filling=").append(s.filling == null ? 0 : s.filling.readableBytes())
                .append(" ready=").append(s.ready.size()).append(" frames=").append(s.framesSinceDrain));
        return b.append(", batches=").append(batches).append(", frames=").append(frames).append(']').toString();
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
