package io.basalt.client.net;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.function.BiConsumer;

/**
 * The requests of one connection waiting for their responses, by request id.
 *
 * <p>A connection numbers its requests 1, 2, 3, ... and most are answered long before a few
 * thousand more have been sent. So the table is a ring of slots indexed by the low bits of the
 * id: sending claims the id's slot with one compare-and-set, the response empties it with
 * another, and nothing is allocated or counted. A request still waiting when a later id needs its
 * slot (one that has taken very long) goes to an overflow map instead, and is found there. A
 * {@code ConcurrentHashMap<Long, ...>} in the ring's place cost each request a boxed key, a node
 * and an update of a shared counter, from every sending thread: about a tenth of a sending
 * thread's time in the {@code grouping} suite at 100 streams.
 *
 * <p>Thread safety: any thread may add; any may remove. {@link #forEach} sees every entry present
 * for its whole duration, and may miss or see entries added or removed meanwhile.
 */
final class PendingRequests<V> {

    /** What the table holds: a value with the id it was added under. */
    record Entry<V>(long id, V value) {}

    private final AtomicReferenceArray<Entry<V>> ring;
    private final int mask;
    private final Map<Long, Entry<V>> overflow = new ConcurrentHashMap<>();

    /** A table whose ring has {@code slots} slots, a power of two. */
    PendingRequests(int slots) {
        if (slots < 1 || Integer.bitCount(slots) != 1) {
            throw new IllegalArgumentException("slots " + slots + " is not a positive power of two");
        }
        this.ring = new AtomicReferenceArray<>(slots);
        this.mask = slots - 1;
    }

    /** Adds {@code value} under {@code id}, which must not be in the table already. */
    void put(long id, V value) {
        Entry<V> e = new Entry<>(id, value);
        if (!ring.compareAndSet((int) id & mask, null, e)) {
            overflow.put(id, e);
        }
    }

    /** Removes and returns the value under {@code id}, or null when there is none. */
    V remove(long id) {
        int slot = (int) id & mask;
        Entry<V> e = ring.get(slot);
        if (e != null && e.id == id && ring.compareAndSet(slot, e, null)) {
            return e.value;
        }
        // Not guarded by overflow.isEmpty(): a size read while other ids come and go can be 0
        // with this one present, and its response would be lost.
        Entry<V> o = overflow.remove(id);
        return o == null ? null : o.value;
    }

    /** Removes {@code id} only if it still holds {@code value}; true when it did. */
    boolean remove(long id, V value) {
        int slot = (int) id & mask;
        Entry<V> e = ring.get(slot);
        if (e != null && e.id == id && e.value == value && ring.compareAndSet(slot, e, null)) {
            return true;
        }
        Entry<V> o = overflow.get(id);
        return o != null && o.value == value && overflow.remove(id, o);
    }

    /** Calls {@code action} with each id and value in the table. */
    void forEach(BiConsumer<Long, V> action) {
        for (int i = 0, n = ring.length(); i < n; i++) {
            Entry<V> e = ring.get(i);
            if (e != null) {
                action.accept(e.id, e.value);
            }
        }
        for (Entry<V> e : overflow.values()) {
            action.accept(e.id, e.value);
        }
    }

    /** How many entries there are (a scan: for tests and metrics). */
    int size() {
        int n = overflow.size();
        for (int i = 0, length = ring.length(); i < length; i++) {
            if (ring.get(i) != null) {
                n++;
            }
        }
        return n;
    }
}
