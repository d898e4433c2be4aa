package io.basalt.server;

import java.net.InetAddress;
import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.Iterator;
import java.util.Map;

/**
 * Failed authentications per client address within a sliding window: an address that failed
 * {@code max} times within the window is refused without a check until its oldest failure leaves
 * it. So guessing passwords from one address runs at {@code max} guesses per window, whatever the
 * number of connections. Synchronized: it is touched only when a connection authenticates.
 *
 * <p>At most {@link #MAX_ADDRESSES} addresses are remembered; past that, those whose failures all
 * left the window are forgotten first, and if none did the new address is not remembered (an
 * attacker with that many addresses is beyond what a per-address limit can stop).
 */
final class AuthFailures {

    static final int MAX_ADDRESSES = 100_000;

    private final int max;
    private final long windowNanos;
    private final Map<InetAddress, ArrayDeque<Long>> failures = new HashMap<>();

    AuthFailures(int max, long windowNanos) {
        this.max = max;
        this.windowNanos = windowNanos;
    }

    /** How long {@code address} must wait before it may try again, in nanoseconds; 0: it may now. */
    synchronized long refusedFor(InetAddress address, long now) {
        ArrayDeque<Long> times = failures.get(address);
        if (times == null) {
            return 0;
        }
        prune(times, now);
        if (times.isEmpty()) {
            failures.remove(address);
            return 0;
        }
        return times.size() >= max ? times.peekFirst() + windowNanos - now : 0;
    }

    /** {@code address} failed to authenticate at {@code now}. */
    synchronized void failed(InetAddress address, long now) {
        ArrayDeque<Long> times = failures.get(address);
        if (times == null) {
            if (failures.size() >= MAX_ADDRESSES) {
                for (Iterator<ArrayDeque<Long>> it = failures.values().iterator(); it.hasNext(); ) {
                    ArrayDeque<Long> t = it.next();
                    prune(t, now);
                    if (t.isEmpty()) {
                        it.remove();
                    }
                }
                if (failures.size() >= MAX_ADDRESSES) {
                    return;
                }
            }
            times = new ArrayDeque<>();
            failures.put(address, times);
        }
        prune(times, now);
        times.addLast(now);
        while (times.size() > max) {
            times.pollFirst();
        }
    }

    private void prune(ArrayDeque<Long> times, long now) {
        while (!times.isEmpty() && now - times.peekFirst() >= windowNanos) {
            times.pollFirst();
        }
    }
}
