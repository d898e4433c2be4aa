package io.basalt.server;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * When each executing request of one connection started, by request id: what a response needs to
 * record its latency, without allocating per request (a map of boxed longs would) and without a
 * lock (responses are written from whichever thread finishes the request).
 *
 * <p>An open-addressing table with at least twice as many slots as the connection may have
 * requests executing ({@link ServerConfig#maxInFlightPerConnection()}), so it is at most half full.
 * Only the connection's event loop inserts ({@link #start}); any thread removes ({@link #finish}),
 * each request exactly once. An insert takes the first empty slot from the id's home, writes the
 * start and then publishes the id (release); a remove reads the id (acquire), then the start, then
 * empties the slot (release), so an insert that reuses the slot writes its start only after the
 * remover read the old one. Removing leaves no tombstone: a lookup therefore does not stop at an
 * empty slot but goes on until it finds the id (or has seen every slot), which costs little with a
 * table at most half full. A client that sends the same id twice while the first is executing gets
 * two entries; each response takes one, so both are timed, if not each to its own start.
 */
final class RequestTimes {

    /** No id: ids are the client's, so the sentinel is one a well-behaved client never uses first. */
    static final long EMPTY = Long.MIN_VALUE;
    /** What {@link #finish} returns for an id it does not hold. */
    static final long UNKNOWN = Long.MIN_VALUE;

    private static final VarHandle IDS = MethodHandles.arrayElementVarHandle(long[].class);

    private final long[] ids;
    private final long[] starts;
    private final int mask;

    RequestTimes(int maxInFlight) {
        int size = Integer.highestOneBit(Math.max(2, maxInFlight) * 2 - 1) << 1;
        this.ids = new long[size];
        this.starts = new long[size];
        this.mask = size - 1;
        java.util.Arrays.fill(ids, EMPTY);
    }

    private int home(long id) {
        long h = id * 0x9E3779B97F4A7C15L;
        return (int) (h ^ (h >>> 32)) & mask;
    }

    /**
     * Records that request {@code id} started at {@code nanos}. Event loop only; false when the
     * table is full (more requests executing than it was sized for), and the request goes untimed.
     */
    boolean start(long id, long nanos) {
        if (id == EMPTY) {
            return false;
        }
        int i = home(id);
        for (int n = 0; n <= mask; n++, i = (i + 1) & mask) {
            if ((long) IDS.getAcquire(ids, i) == EMPTY) {
                starts[i] = nanos;
                IDS.setRelease(ids, i, id);
                return true;
            }
        }
        return false;
    }

    /** When request {@code id} started, removing it; {@link #UNKNOWN} when it was not recorded. */
    long finish(long id) {
        if (id == EMPTY) {
            return UNKNOWN;
        }
        int i = home(id);
        for (int n = 0; n <= mask; n++, i = (i + 1) & mask) {
            if ((long) IDS.getAcquire(ids, i) == id) {
                long start = starts[i];
                // Another finisher of the same (duplicated) id may have seen this slot too: only the
                // one whose exchange takes it owns its start.
                if (IDS.compareAndSet(ids, i, id, EMPTY)) {
                    return start;
                }
            }
        }
        return UNKNOWN;
    }

    /** The slots (for tests). */
    int capacity() {
        return ids.length;
    }
}
