package io.basalt.engine;

import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.LongSupplier;

/**
 * The read points of open scanners: compaction may drop only what none of them can see, so it
 * asks for {@link #smallest()}.
 */
final class ReadPoints {

    private final ConcurrentSkipListMap<Long, AtomicInteger> open = new ConcurrentSkipListMap<>();
    private final LongSupplier current;

    ReadPoints(LongSupplier current) {
        this.current = current;
    }

    /** An open scanner's hold on its read point. */
    final class Registration implements AutoCloseable {
        private final long point;
        private boolean closed;

        private Registration(long point) {
            this.point = point;
        }

        long point() {
            return point;
        }

        @Override
        public void close() {
            if (!closed) {
                closed = true;
                open.computeIfPresent(point, (k, n) -> n.decrementAndGet() == 0 ? null : n);
            }
        }
    }

    /**
     * Takes the current read point and registers it, atomically with respect to
     * {@link #smallest()}: a compaction either sees this registration or computed its bound before
     * this read point existed.
     */
    synchronized Registration registerCurrent() {
        long point = current.getAsLong();
        open.compute(point, (k, n) -> {
            AtomicInteger count = n == null ? new AtomicInteger() : n;
            count.incrementAndGet();
            return count;
        });
        return new Registration(point);
    }

    /** The lowest read point any scanner uses, or the current one when none is open. */
    synchronized long smallest() {
        long now = current.getAsLong();
        var first = open.firstEntry();
        return first == null ? now : Math.min(now, first.getKey());
    }
}
