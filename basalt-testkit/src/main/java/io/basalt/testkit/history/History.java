package io.basalt.testkit.history;

import java.io.BufferedReader;
import java.io.BufferedWriter;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A thread-safe record of the operations clients ran concurrently, for {@link Linearizability#check(History)}.
 *
 * <p>Call {@link #invoke} just before sending an operation and one of {@link #ok}, {@link #fail} or {@link #info}
 * just after its outcome is known. Every event is stamped from one shared counter, not from a clock, so when one
 * operation completes before another is invoked, its completion gets the smaller stamp; operations whose events
 * interleave are concurrent, and the checker may order them either way.
 *
 * <p>An operation that is invoked but never completed is treated like one completed with {@link #info}.
 */
public final class History {

    private final AtomicLong clock = new AtomicLong();
    private final AtomicLong ids = new AtomicLong();
    /** Invocations still waiting for their completion, by id. */
    private final Map<Long, Entry> pending = new ConcurrentHashMap<>();
    /** Whether each key seen so far is a counter, to reject a key used both ways as soon as it happens. */
    private final Map<String, Boolean> counterKeys = new ConcurrentHashMap<>();
    private final Queue<Entry> events = new ConcurrentLinkedQueue<>();

    /** Creates an empty history. */
    public History() {}

    /**
     * Records that {@code client} starts {@code op}.
     *
     * @return the operation's id, to pass to {@link #ok}, {@link #fail} or {@link #info}
     * @throws IllegalArgumentException if the key was used before as a register and now as a counter, or the reverse
     */
    public long invoke(int client, Op op) {
        Boolean earlier = counterKeys.putIfAbsent(op.key(), op.counter());
        if (earlier != null && earlier != op.counter()) {
            throw mixedKey(op.key());
        }
        long id = ids.getAndIncrement();
        Entry invocation = new Entry(clock.incrementAndGet(), Entry.Type.INVOKE, id, client, op, null);
        pending.put(id, invocation);
        events.add(invocation);
        return id;
    }

    /**
     * Records that operation {@code id} completed and returned {@code output} (see {@link Op} for each kind's type).
     *
     * @throws IllegalStateException    if no operation with this id is waiting for its completion
     * @throws IllegalArgumentException if the output does not have the type the operation returns
     */
    public void ok(long id, Object output) {
        complete(id, Entry.Type.OK, output);
    }

    /** Records that operation {@code id} definitely did not take effect; the checker then ignores it. */
    public void fail(long id) {
        complete(id, Entry.Type.FAIL, null);
    }

    /**
     * Records that the outcome of operation {@code id} is unknown: it may have taken effect at any time after its
     * invocation, even after this call, or never.
     */
    public void info(long id) {
        complete(id, Entry.Type.INFO, null);
    }

    /** All events recorded so far, in time order. */
    public List<Entry> entries() {
        List<Entry> sorted = new ArrayList<>(events);
        sorted.sort(Comparator.comparingLong(Entry::time));
        return List.copyOf(sorted);
    }

    /**
     * Writes the events to {@code file}, one line each, in a text format meant to be read by people and by
     * {@link #readFrom}. A line looks like {@code 7 ok 3 2 cas "k" nil "v1" -> true}: time, event type, operation id,
     * client, then the operation and, for a completion with an output, {@code ->} and the output.
     */
    public void writeTo(Path file) throws IOException {
        try (BufferedWriter writer = Files.newBufferedWriter(file, StandardCharsets.UTF_8)) {
            HistoryFormat.write(entries(), writer);
        }
    }

    /**
     * Reads a history written by {@link #writeTo}. Lines that are blank or start with {@code #} are skipped.
     *
     * @throws IOException if the file cannot be read or a line is malformed
     */
    public static History readFrom(Path file) throws IOException {
        try (BufferedReader reader = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            return of(HistoryFormat.read(reader));
        }
    }

    /** A history holding {@code entries}, which may still be completed and extended. */
    static History of(List<Entry> entries) {
        History history = new History();
        for (Entry entry : entries) {
            Boolean earlier = history.counterKeys.putIfAbsent(entry.op().key(), entry.op().counter());
            if (earlier != null && earlier != entry.op().counter()) {
                throw mixedKey(entry.op().key());
            }
            if (entry.invocation()) {
                history.pending.put(entry.id(), entry);
            } else {
                history.pending.remove(entry.id());
            }
            history.events.add(entry);
            history.clock.accumulateAndGet(entry.time(), Math::max);
            history.ids.accumulateAndGet(entry.id() + 1, Math::max);
        }
        return history;
    }

    static IllegalArgumentException mixedKey(String key) {
        return new IllegalArgumentException("key \"" + key + "\" is used both as a register and as a counter");
    }

    private void complete(long id, Entry.Type type, Object output) {
        Entry invocation = pending.get(id);
        if (invocation == null) {
            throw new IllegalStateException("operation " + id + " was never invoked or is already completed");
        }
        // Stamp before removing so the entry (and its output check) is built first; a racing second completion of
        // the same id then loses the remove below and is rejected.
        Entry completion = new Entry(clock.incrementAndGet(), type, id, invocation.client(), invocation.op(), output);
        if (!pending.remove(id, invocation)) {
            throw new IllegalStateException("operation " + id + " is already completed");
        }
        events.add(completion);
    }
}
