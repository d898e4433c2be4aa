package io.basalt.buffer;

import java.lang.ref.PhantomReference;
import java.lang.ref.ReferenceQueue;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Follows pooled allocations from {@link BufferPool#allocate} to their final release, for every
 * pool of the JVM, and reports those the garbage collector finds unreachable first.
 *
 * <p>A followed allocation gets a {@link Tracker}: a phantom reference to its {@link RefCount}
 * (which every view of the allocation holds, so it becomes unreachable exactly when the last view
 * does) with the allocation site, captured as a {@link Throwable} whose stack trace the JVM only
 * turns into text if someone reads it. The final release removes and clears the tracker. A tracker
 * the collector enqueues was never released: a leak. Pools poll the queue when they follow a new
 * allocation and when asked for metrics; no thread of its own.
 *
 * <p>Reported trackers stay listed as unreleased, marked unreachable: a leaked chunk is never
 * handed out again (someone may still hold a segment of it), so the list stays bounded by the
 * pools' sizes and {@link BufferPool#unreleasedBuffers()} keeps telling where each lost chunk went.
 */
final class LeakDetector {

    private static final System.Logger LOG = System.getLogger(BufferPool.class.getName());
    private static final ReferenceQueue<RefCount> QUEUE = new ReferenceQueue<>();
    private static final Set<Tracker> UNRELEASED = ConcurrentHashMap.newKeySet();
    private static final AtomicLong SEQUENCE = new AtomicLong();

    private LeakDetector() {}

    /** Starts following {@code refCount}, a fresh allocation of {@code size} bytes from {@code pool}. */
    static void track(RefCount refCount, BufferPool pool, int size) {
        poll();
        Tracker tracker = new Tracker(refCount, pool, size, SEQUENCE.incrementAndGet(),
                new AllocationSite(Thread.currentThread().getName()));
        UNRELEASED.add(tracker);
        refCount.tracker = tracker;
    }

    /** Reports every followed allocation the collector found unreachable since the last poll. */
    static void poll() {
        Tracker leaked;
        while ((leaked = (Tracker) QUEUE.poll()) != null) {
            if (UNRELEASED.contains(leaked)) {
                leaked.unreachable = true;
                leaked.pool.leakReported();
                Tracker report = leaked;
                LOG.log(System.Logger.Level.ERROR, () -> "LEAK: " + report.describe()
                        + " became unreachable without release(); its chunks stay out of the pool for good."
                        + " Allocated at:" + render(report.site.getStackTrace()));
            }
        }
    }

    static String render(StackTraceElement[] frames) {
        StringBuilder out = new StringBuilder();
        for (StackTraceElement frame : frames) {
            out.append(System.lineSeparator()).append("\tat ").append(frame);
        }
        return out.toString();
    }

    /** Every followed allocation not released yet, reachable or not, oldest first. */
    static List<UnreleasedBuffer> unreleased() {
        return UNRELEASED.stream()
                .sorted(Comparator.comparingLong(t -> t.sequence))
                .map(t -> new UnreleasedBuffer(t.pool.name(), t.size, t.sequence, t.site.thread, t.unreachable,
                        Arrays.asList(t.site.getStackTrace())))
                .toList();
    }

    /** One followed allocation. */
    static final class Tracker extends PhantomReference<RefCount> {

        final BufferPool pool;
        final int size;
        final long sequence;
        final AllocationSite site;
        volatile boolean unreachable;

        Tracker(RefCount referent, BufferPool pool, int size, long sequence, AllocationSite site) {
            super(referent, QUEUE);
            this.pool = pool;
            this.size = size;
            this.sequence = sequence;
            this.site = site;
        }

        /** The allocation was released: stop following it. */
        void released() {
            UNRELEASED.remove(this);
            clear();
        }

        String describe() {
            return "buffer #" + sequence + " of " + size + " bytes from pool '" + pool.name() + "' (allocated by thread '"
                    + site.thread + "')";
        }
    }

    /**
     * Where an allocation happened. A throwable only for its cheap, lazily rendered stack trace;
     * never thrown. The detector's and the pool's own frames are dropped so that the first frame
     * is the caller of {@link BufferPool#allocate}.
     */
    static final class AllocationSite extends Throwable {

        private static final long serialVersionUID = 1L;

        final String thread;

        AllocationSite(String thread) {
            super("allocation site", null, false, true);
            this.thread = thread;
        }

        @Override
        public StackTraceElement[] getStackTrace() {
            StackTraceElement[] frames = super.getStackTrace();
            int first = 0;
            while (first < frames.length - 1 && isInternal(frames[first].getClassName())) {
                first++;
            }
            return Arrays.copyOfRange(frames, first, frames.length);
        }

        private static boolean isInternal(String className) {
            return className.equals(BufferPool.class.getName()) || className.equals(LeakDetector.class.getName())
                    || className.startsWith(LeakDetector.class.getName() + "$");
        }
    }
}
