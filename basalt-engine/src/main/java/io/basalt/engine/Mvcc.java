package io.basalt.engine;

import java.util.ArrayDeque;

/**
 * Multi-version concurrency control: which writes a new reader may see.
 *
 * <p>Every write has the sequence number the write-ahead log gave it. A write becomes visible once
 * it is both in the memtable and durable; writes finish those two steps in any order, but
 * visibility advances strictly in sequence order: the read point is the highest sequence number
 * below which every write has finished. A reader takes the read point when it starts and ignores
 * every cell with a higher sequence number, so it sees a consistent snapshot and never half a row.
 *
 * <p>{@link #begin} must be called in sequence order (the region calls it under the log's append
 * order); {@link #complete} from any thread.
 */
final class Mvcc {

    /** One write in flight. */
    static final class Write {
        final long sequence;
        boolean done;

        Write(long sequence) {
            this.sequence = sequence;
        }
    }

    private final ArrayDeque<Write> inFlight = new ArrayDeque<>();
    private volatile long readPoint;

    Mvcc(long readPoint) {
        this.readPoint = readPoint;
    }

    /** The sequence number up to which everything is visible. */
    long readPoint() {
        return readPoint;
    }

    /** Registers a write; sequence numbers must arrive in increasing order. */
    synchronized Write begin(long sequence) {
        Write last = inFlight.peekLast();
        if ((last != null && sequence <= last.sequence) || sequence <= readPoint) {
            throw new IllegalStateException("write " + sequence + " began out of order (read point " + readPoint
                    + ", last in flight " + (last == null ? "none" : last.sequence) + ")");
        }
        Write write = new Write(sequence);
        inFlight.addLast(write);
        return write;
    }

    /** Marks a write finished and advances the read point over every finished prefix. */
    synchronized void complete(Write write) {
        write.done = true;
        long point = readPoint;
        while (!inFlight.isEmpty() && inFlight.peekFirst().done) {
            point = inFlight.pollFirst().sequence;
        }
        if (point != readPoint) {
            readPoint = point;
        }
    }
}
