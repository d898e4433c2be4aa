package io.basalt.client.net;

import io.basalt.protocol.CallId;
import java.util.TreeSet;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Numbers a client's calls for exactly-once writes: each {@link #next} call id comes with the
 * mark below which every call of this client has completed (the oldest still outstanding), and
 * {@link #done} retires one. Numbering a call and counting it outstanding is one step: were they
 * two, a call numbered but not yet counted would let a later call claim it completed, and the
 * cluster would refuse it as a replay when it arrived.
 */
public final class CallNumbers {

    private final long clientId;
    private final TreeSet<Long> outstanding = new TreeSet<>();
    private long last;

    public CallNumbers() {
        this(ThreadLocalRandom.current().nextLong() | 1);
    }

    CallNumbers(long clientId) {
        this.clientId = clientId;
    }

    /** The next call's id, counted outstanding until {@link #done}. */
    public synchronized CallId next() {
        long id = ++last;
        outstanding.add(id);
        return new CallId(clientId, id, outstanding.first());
    }

    /** Call {@code id} has its answer (or was given up): later calls may say so. */
    public synchronized void done(long id) {
        outstanding.remove(id);
    }

    /** The oldest call still outstanding, or {@code null}: for tests. */
    synchronized Long oldest() {
        return outstanding.isEmpty() ? null : outstanding.first();
    }
}
