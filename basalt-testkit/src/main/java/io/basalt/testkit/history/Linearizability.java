package io.basalt.testkit.history;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Decides whether a {@link History} of key-value operations is linearizable: whether every operation can be given
 * one instant, between its invocation and its completion, at which it took effect atomically, so that the outputs
 * are those of a plain sequential key-value map.
 *
 * <p>Linearizability is local, so each key's operations are checked on their own. For one key the checker runs
 * the search of Wing and Gong with the memoization of Lowe ("Testing for linearizability", 2017): a depth-first
 * search over which not-yet-placed operation takes effect next, backtracking when an output disagrees with the
 * model, and skipping any (placed operations, model state) configuration it has already explored. On top of that it
 * prunes choices that provably cannot matter, such as trying another order after a read fits, which keeps keys
 * with 20 concurrent clients and many timeouts to tens of thousands of states rather than millions.
 *
 * <p>Outcomes: a {@link Entry.Type#FAIL failed} operation is ignored. An {@link Entry.Type#INFO indeterminate} one,
 * or one never completed, may take effect at any time after its invocation or not at all; an indeterminate read
 * constrains nothing and is ignored.
 *
 * <p>The search is exponential in the worst case, so it is bounded: past a number of explored states per key it
 * gives up and answers {@link Result.Verdict#UNKNOWN}. Each explored state takes roughly 50 to 100 bytes of memory
 * until that key is done.
 */
public final class Linearizability {

    /** The default bound on the states explored for one key. */
    public static final long DEFAULT_MAX_STATES_PER_KEY = 10_000_000L;

    private Linearizability() {}

    /**
     * What the checker found.
     *
     * @param verdict        linearizable, not linearizable, or unknown because the search bound was reached
     * @param key            the key whose operations are not linearizable (or could not be decided); null if
     *                       linearizable
     * @param explanation    for people: which operations could not be placed, or why the search gave up; for a
     *                       linearizable history, a one-line summary
     * @param operations     how many operations were checked (failed operations and indeterminate reads excluded);
     *                       keys are checked in order and the check stops at the first one not linearizable
     * @param statesExplored how many search states were explored, over the same keys
     */
    public record Result(Verdict verdict, String key, String explanation, int operations, long statesExplored) {

        /** The three possible answers. */
        public enum Verdict {
            /** Some order of the operations explains every output. */
            LINEARIZABLE,
            /** No order explains every output; the history shows a consistency bug. */
            NOT_LINEARIZABLE,
            /** The search reached its bound before deciding. */
            UNKNOWN
        }

        /** Whether the history was found linearizable. */
        public boolean linearizable() {
            return verdict == Verdict.LINEARIZABLE;
        }

        /** Whether the search gave up before deciding. */
        public boolean unknown() {
            return verdict == Verdict.UNKNOWN;
        }

        @Override
        public String toString() {
            return verdict + " (" + operations + " operations, " + statesExplored + " states): " + explanation;
        }
    }

    /** Checks everything {@code history} recorded so far, with the default search bound. */
    public static Result check(History history) {
        return check(history.entries(), DEFAULT_MAX_STATES_PER_KEY);
    }

    /** Checks {@code entries}, with the default search bound. */
    public static Result check(List<Entry> entries) {
        return check(entries, DEFAULT_MAX_STATES_PER_KEY);
    }

    /**
     * Checks {@code entries}, in any order, exploring at most {@code maxStatesPerKey} search states for each key.
     *
     * @throws IllegalArgumentException if the entries do not form a history: an id invoked twice or completed twice,
     *                                  a completion without an invocation or before it, a completion whose operation
     *                                  differs from the invocation's, or a key used both as register and as counter
     */
    public static Result check(List<Entry> entries, long maxStatesPerKey) {
        if (maxStatesPerKey <= 0) {
            throw new IllegalArgumentException("maxStatesPerKey must be positive, got " + maxStatesPerKey);
        }
        Map<String, List<KeySearch.Operation>> byKey = operationsByKey(entries);
        int operations = 0;
        long states = 0;
        Result undecided = null;
        for (Map.Entry<String, List<KeySearch.Operation>> key : byKey.entrySet()) {
            KeySearch.Outcome outcome = new KeySearch(key.getKey(), key.getValue(), maxStatesPerKey).run();
            operations += outcome.operations();
            states += outcome.states();
            switch (outcome.verdict()) {
                case NOT_LINEARIZABLE -> {
                    return new Result(outcome.verdict(), key.getKey(), outcome.explanation(), operations, states);
                }
                // Keep going: a later key may still prove the history not linearizable, a firmer answer.
                case UNKNOWN -> {
                    if (undecided == null) {
                        undecided = new Result(outcome.verdict(), key.getKey(), outcome.explanation(), 0, 0);
                    }
                }
                case LINEARIZABLE -> { }
            }
        }
        if (undecided != null) {
            return new Result(undecided.verdict(), undecided.key(), undecided.explanation(), operations, states);
        }
        return new Result(Result.Verdict.LINEARIZABLE, null,
                "linearizable: " + operations + " operations on " + byKey.size() + " keys", operations, states);
    }

    /** Pairs invocations with completions, drops what constrains nothing, and groups the rest by key. */
    private static Map<String, List<KeySearch.Operation>> operationsByKey(List<Entry> entries) {
        Map<Long, Entry> invocations = new LinkedHashMap<>();
        Map<Long, Entry> completions = new HashMap<>();
        for (Entry entry : entries) {
            Map<Long, Entry> target = entry.invocation() ? invocations : completions;
            Entry earlier = target.putIfAbsent(entry.id(), entry);
            if (earlier != null) {
                throw new IllegalArgumentException("operation " + entry.id() + " is "
                        + (entry.invocation() ? "invoked" : "completed") + " twice: " + earlier + " and " + entry);
            }
        }
        for (Entry completion : completions.values()) {
            Entry invocation = invocations.get(completion.id());
            if (invocation == null) {
                throw new IllegalArgumentException("completion without invocation: " + completion);
            }
            if (!invocation.op().equals(completion.op())) {
                throw new IllegalArgumentException("completion " + completion + " does not match " + invocation);
            }
            if (completion.time() <= invocation.time()) {
                throw new IllegalArgumentException("completion " + completion + " is not after " + invocation);
            }
        }
        Map<String, Boolean> counterKeys = new HashMap<>();
        Map<String, List<KeySearch.Operation>> byKey = new TreeMap<>();
        for (Entry invocation : invocations.values()) {
            Op op = invocation.op();
            Boolean earlier = counterKeys.putIfAbsent(op.key(), op.counter());
            if (earlier != null && earlier != op.counter()) {
                throw History.mixedKey(op.key());
            }
            Entry completion = completions.get(invocation.id());
            boolean indeterminate = completion == null || completion.type() == Entry.Type.INFO;
            boolean read = op instanceof Op.Read || op instanceof Op.ReadCounter;
            if ((completion != null && completion.type() == Entry.Type.FAIL) || (indeterminate && read)) {
                continue;
            }
            byKey.computeIfAbsent(op.key(), k -> new ArrayList<>())
                    .add(new KeySearch.Operation(invocation, indeterminate ? null : completion));
        }
        return byKey;
    }
}
