package io.basalt.engine;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;

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
        /** Runs once the read point covers this write (set by {@link #complete(Write, Runnable)}). */
        Runnable whenVisible;

        Write(long sequence) {
            this.sequence = sequence;
        }
    }

    private final ArrayDeque<Write> inFlight = new ArrayDeque<>();
    private volatile long readPoint;
    /** Threads in {@link #awaitReadPoint}; guarded by this. */
    private int waiting;

    Mvcc(long readPoint) {
        this.readPoint = readPoint;
    }

    /** The sequence number up to which everything is visible. */
    long readPoint() {
        return readPoint;
    }

    /**
     * Waits until every write up to {@code sequence} is visible (so durable), or {@code giveUp}
     * says it never will be. A flush waits so before it writes a memtable out: an SSTable must
     * hold no write whose log record could still fail.
     *
     * @return whether the read point reached {@code sequence}
     */
    boolean awaitReadPoint(long sequence, java.util.function.BooleanSupplier giveUp) {
        boolean interrupted = false;
        try {
            while (readPoint < sequence) {
                if (giveUp.getAsBoolean()) { // outside the monitor: it may take other locks
                    return false;
                }
                synchronized (this) {
                    waiting++;
                    try {
                        if (readPoint < sequence) {
                            wait(50); // timed: giveUp is checked even when nothing completes any more
                        }
                    } catch (InterruptedException e) {
                        interrupted = true;
                    } finally {
                        waiting--;
                    }
                }
            }
            return true;
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /**
     * Moves the read point up to {@code sequence} when no write is in flight: for a replica store
     * that took over files written under another log's sequences (a merge). Never moves it down.
     */
    synchronized void advanceIdle(long sequence) {
        if (!inFlight.isEmpty()) {
            throw new IllegalStateException(inFlight.size() + " writes are in flight; the read point moves only when"
                    + " none is");
        }
        readPoint = Math.max(readPoint, sequence);
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
    void complete(Write write) {
        complete(write, null);
    }

    /**
     * Marks a write finished, advances the read point over every finished prefix, and runs
     * {@code whenVisible} once the read point covers the write: at once when every earlier write
     * has finished, otherwise on the thread that finishes the last of them. A write is
     * acknowledged this way so that a read its writer starts afterwards sees it (an earlier write
     * still finishing would otherwise hold the read point below it). Callbacks run outside this
     * object's monitor, in sequence order.
     */
    void complete(Write write, Runnable whenVisible) {
        List<Runnable> visible = null;
        synchronized (this) {
            write.done = true;
            write.whenVisible = whenVisible;
            long point = readPoint;
            while (!inFlight.isEmpty() && inFlight.peekFirst().done) {
                Write w = inFlight.pollFirst();
                point = w.sequence;
                if (w.whenVisible != null) {
                    if (visible == null) {
                        visible = new ArrayList<>();
                    }
                    visible.add(w.whenVisible);
                    w.whenVisible = null;
                }
            }
            if (point != readPoint) {
                readPoint = point;
                if (waiting > 0) {
                    notifyAll();
                }
            }
        }
        if (visible != null) {
            for (Runnable r : visible) {
                r.run();
            }
        }
    }
}
