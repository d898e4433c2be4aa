package io.basalt.testkit.history;

import io.basalt.testkit.history.Linearizability.Result.Verdict;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The linearizability search for the operations on one key (Wing and Gong's algorithm with Lowe's memoization).
 *
 * <p>The invocations and completions sit in a doubly linked list in time order. An operation may take effect next
 * if its invocation comes before the first completion still in the list, since an operation that completed before
 * another was invoked must take effect first. Placing an operation unlinks both its events; backtracking links them
 * back in reverse order (Knuth's dancing links), so each step is constant time. The search succeeds once every
 * completed operation is placed: indeterminate ones have no completion event, never block anything, and may stay
 * unplaced.
 *
 * <p>Before placing an operation the search looks up the configuration it would reach, the set of placed operations
 * and the model state, and skips it if already explored: from equal configurations the same continuations exist.
 * Among the operations that may come next, those that change nothing are placed first without branching, then the
 * others that completed, then the indeterminate ones (see {@link #OBSERVE}); and moves that other moves dominate are
 * not tried at all (see {@link #mayPlace}).
 *
 * <p>Model states are longs: a counter's value, or for a register the number given to its value (0 for nothing).
 */
final class KeySearch {

    /** One operation on the key: its invocation and, unless the outcome is unknown, its OK completion. */
    record Operation(Entry invocation, Entry completion) {}

    /** The answer for the key, with the operations and states it counted. */
    record Outcome(Verdict verdict, int operations, long states, String explanation) {}

    private static final int READ = 0;
    private static final int WRITE = 1;
    private static final int CAS = 2;
    private static final int ADD = 3;
    private static final int READ_COUNTER = 4;

    /**
     * The search tries the operations that may come next in three phases. First the completed operations whose
     * output shows they changed nothing (reads, failed CAS): if one fits, it is placed and no alternative is ever
     * tried, since any linearization can be reordered to start with it (it sees the current state, and moving it
     * earlier breaks no real-time order because it may come next). Then the other completed operations. Last the
     * indeterminate ones, since a history usually linearizes without most of them.
     */
    private static final int OBSERVE = 0;
    private static final int UPDATE = 1;
    private static final int INDETERMINATE = 2;

    private static final int MAX_LISTED = 8;

    private final String key;
    private final boolean counter;
    private final long maxStates;

    /** How many operations the caller passed, before dropping those that cannot matter. */
    private final int submitted;
    /** The operations, in invocation order; an index here names an operation everywhere below. */
    private final Operation[] ops;
    private final int n;
    private final int[] kind;
    /** Register: the value written, or the expected value of a CAS. Counter: the delta. */
    private final long[] argument;
    /** Register: the new value of a CAS. */
    private final long[] casNewValue;
    /** The recorded output, encoded like the model state (CAS: 1 applied, 0 not). */
    private final long[] output;
    private final boolean[] completed;
    /** Whether the key is a counter and no operation on it adds a negative delta. */
    private final boolean growingCounter;
    /** In which phase the search tries each operation: {@link #OBSERVE}, {@link #UPDATE}, {@link #INDETERMINATE}. */
    private final int[] phaseOf;

    /** For an indeterminate operation, the previous indeterminate one identical to it, or -1. */
    private final int[] previousTwin;

    /** Register values by number, and their numbers. */
    private final List<String> values = new ArrayList<>();
    private final Map<String, Integer> valueNumbers = new HashMap<>();

    /** Each operation's bit: completed and indeterminate operations are numbered apart, see {@link #buildKey}. */
    private final int[] bit;
    private final long[] completedBits;
    private final long[] indeterminateBits;
    private final long[] keyBuffer;

    /** The event list: node i is the invocation of operation i, node n + i its completion. */
    private final int[] next;
    private final int[] prev;
    private final int head;
    private final int end;

    /** The state the last successful {@link #step} produced. */
    private long stepped;

    private int[] bestOrder = new int[0];

    KeySearch(String key, List<Operation> operations, long maxStates) {
        this.key = key;
        this.counter = operations.getFirst().invocation().op().counter();
        this.maxStates = maxStates;
        valueNumbers.put(null, 0);
        values.add(null);

        this.submitted = operations.size();
        this.ops = withoutUselessIndeterminates(operations).stream()
                .sorted(Comparator.comparingLong(op -> op.invocation().time()))
                .toArray(Operation[]::new);
        this.n = ops.length;
        kind = new int[n];
        argument = new long[n];
        casNewValue = new long[n];
        output = new long[n];
        completed = new boolean[n];
        bit = new int[n];
        previousTwin = new int[n];
        Map<Op, Integer> lastIndeterminate = new HashMap<>();
        int completedCount = 0;
        int indeterminateCount = 0;
        for (int i = 0; i < n; i++) {
            encode(i);
            completed[i] = ops[i].completion() != null;
            bit[i] = completed[i] ? completedCount++ : indeterminateCount++;
            Integer twin = completed[i] ? null : lastIndeterminate.put(ops[i].invocation().op(), i);
            previousTwin[i] = twin == null ? -1 : twin;
        }
        boolean growing = counter;
        for (int i = 0; i < n; i++) {
            growing &= kind[i] != ADD || argument[i] >= 0;
        }
        growingCounter = growing;
        phaseOf = new int[n];
        for (int i = 0; i < n; i++) {
            boolean observer = kind[i] == READ || kind[i] == READ_COUNTER || (kind[i] == CAS && output[i] == 0);
            phaseOf[i] = !completed[i] ? INDETERMINATE : observer ? OBSERVE : UPDATE;
        }
        completedBits = new long[(completedCount + 63) >>> 6];
        indeterminateBits = new long[(indeterminateCount + 63) >>> 6];
        keyBuffer = new long[3 + completedBits.length + indeterminateBits.length];

        head = 2 * n;
        end = 2 * n + 1;
        next = new int[2 * n + 2];
        prev = new int[2 * n + 2];
        linkEvents();
    }

    /**
     * Drops indeterminate operations that can never help, which spares the search from trying each of them at every
     * step. On a register, an indeterminate write (or CAS) of a value that no completed read returns and no CAS
     * expects is such an operation, unless a CAS failed: in any linearization that places it, removing it changes
     * only what the operations up to the next overwrite see, and with those conditions none of them can need that
     * value. On a counter, adding 0 changes nothing.
     */
    private static List<Operation> withoutUselessIndeterminates(List<Operation> operations) {
        Set<String> observed = new HashSet<>();
        boolean failedCas = false;
        for (Operation operation : operations) {
            switch (operation.invocation().op()) {
                case Op.Read _ when operation.completion() != null ->
                        observed.add((String) operation.completion().output());
                case Op.Cas cas -> {
                    observed.add(cas.expected());
                    failedCas |= operation.completion() != null
                            && !((Boolean) operation.completion().output());
                }
                default -> { }
            }
        }
        List<Operation> kept = new ArrayList<>(operations.size());
        for (Operation operation : operations) {
            boolean useless = operation.completion() == null && switch (operation.invocation().op()) {
                case Op.Write write -> !failedCas && !observed.contains(write.value());
                case Op.Cas cas -> !failedCas && !observed.contains(cas.newValue());
                case Op.Add add -> add.delta() == 0;
                default -> false;
            };
            if (!useless) {
                kept.add(operation);
            }
        }
        return kept;
    }

    private void encode(int i) {
        Operation operation = ops[i];
        Object out = operation.completion() == null ? null : operation.completion().output();
        switch (operation.invocation().op()) {
            case Op.Read _ -> {
                kind[i] = READ;
                output[i] = valueNumber((String) out);
            }
            case Op.Write write -> {
                kind[i] = WRITE;
                argument[i] = valueNumber(write.value());
            }
            case Op.Cas cas -> {
                kind[i] = CAS;
                argument[i] = valueNumber(cas.expected());
                casNewValue[i] = valueNumber(cas.newValue());
                output[i] = Boolean.TRUE.equals(out) ? 1 : 0;
            }
            case Op.Add add -> {
                kind[i] = ADD;
                argument[i] = add.delta();
                output[i] = out == null ? 0 : (Long) out;
            }
            case Op.ReadCounter _ -> {
                kind[i] = READ_COUNTER;
                output[i] = out == null ? 0 : (Long) out;
            }
        }
    }

    private int valueNumber(String value) {
        return valueNumbers.computeIfAbsent(value, v -> {
            values.add(v);
            return values.size() - 1;
        });
    }

    private void linkEvents() {
        List<Integer> nodes = new ArrayList<>(2 * n);
        for (int i = 0; i < n; i++) {
            nodes.add(i);
            if (completed[i]) {
                nodes.add(n + i);
            }
        }
        // At equal times an invocation goes first: that only makes the operations concurrent, the weaker claim.
        nodes.sort(Comparator.<Integer>comparingLong(this::time).thenComparingInt(node -> node < n ? 0 : 1));
        int last = head;
        for (int node : nodes) {
            next[last] = node;
            prev[node] = last;
            last = node;
        }
        next[last] = end;
        prev[end] = last;
    }

    private long time(int node) {
        return node < n ? ops[node].invocation().time() : ops[node - n].completion().time();
    }

    Outcome run() {
        int remaining = 0;
        int remainingIndeterminate = 0;
        for (int i = 0; i < n; i++) {
            if (completed[i]) {
                remaining++;
            } else {
                remainingIndeterminate++;
            }
        }
        if (remaining == 0) {
            return new Outcome(Verdict.LINEARIZABLE, submitted, 0, "");
        }
        VisitedStates visited = new VisitedStates();
        int[] stackOp = new int[n];
        long[] stackState = new long[n];
        int depth = 0;
        long states = 0;
        long state = 0;
        int phase = OBSERVE;
        long ceiling = Long.MAX_VALUE;
        int entry = next[head];
        while (true) {
            if (entry >= n) {
                // A completion (or the end): operations invoked after it cannot come next. Try the next phase's
                // operations from the start, or when all are tried, backtrack.
                if (phase == OBSERVE || (phase == UPDATE && remainingIndeterminate > 0)) {
                    phase++;
                    entry = next[head];
                    if (phase == INDETERMINATE) {
                        ceiling = counterCeiling();
                    }
                    continue;
                }
                if (depth == 0) {
                    return new Outcome(Verdict.NOT_LINEARIZABLE, submitted, states, explainFailure());
                }
                if (depth > bestOrder.length) {
                    bestOrder = Arrays.copyOf(stackOp, depth);
                }
                depth--;
                int op = stackOp[depth];
                state = stackState[depth];
                flipBit(op);
                relink(op);
                if (completed[op]) {
                    remaining++;
                } else {
                    remainingIndeterminate++;
                }
                if (phaseOf[op] == OBSERVE) {
                    // Nothing else can succeed where an observer failed (see OBSERVE): backtrack further.
                    phase = INDETERMINATE;
                    entry = end;
                } else {
                    phase = phaseOf[op];
                    entry = next[op];
                    if (phase == INDETERMINATE) {
                        ceiling = counterCeiling();
                    }
                }
                continue;
            }
            int op = entry;
            entry = next[entry];
            boolean afterIndeterminate = depth > 0 && !completed[stackOp[depth - 1]];
            if (phaseOf[op] != phase || !mayPlace(op, afterIndeterminate) || !step(op, state)) {
                continue;
            }
            if (!completed[op] && (stepped == state || (kind[op] == ADD && stepped > ceiling))) {
                // Placing an indeterminate operation that changes nothing only removes options; one that takes a
                // counter past the ceiling leaves some waiting operation unable to ever see its value.
                continue;
            }
            flipBit(op);
            if (!visited.add(keyBuffer, buildKey(stepped, !completed[op]))) {
                flipBit(op);
                if (phase == OBSERVE) {
                    // Placing the observer leads to an explored, failed configuration, and so does this one.
                    phase = INDETERMINATE;
                    entry = end;
                }
                continue;
            }
            if (++states > maxStates) {
                return new Outcome(Verdict.UNKNOWN, submitted, states - 1, "key " + HistoryFormat.value(key)
                        + ": gave up after exploring " + maxStates + " states over " + n
                        + " operations; raise the bound or check a shorter history");
            }
            stackOp[depth] = op;
            stackState[depth] = state;
            depth++;
            state = stepped;
            unlink(op);
            if (completed[op]) {
                if (--remaining == 0) {
                    return new Outcome(Verdict.LINEARIZABLE, submitted, states, "");
                }
            } else {
                remainingIndeterminate--;
            }
            phase = OBSERVE;
            entry = next[head];
        }
    }

    /**
     * Prunes moves that some other explored move dominates (both rules keep every history that linearizes at all
     * linearizable, since any linearization can be rewritten into one that obeys them):
     * <ul>
     *   <li>Of several identical indeterminate operations that may come next, only the first invoked is tried:
     *       they are interchangeable, so trying the others only repeats the search under other names.
     *   <li>On a register, nothing that overwrites the value (a write) is placed right after an indeterminate
     *       operation: that operation's effect would be lost unseen, and not placing it at all keeps more options.
     *       Whether the last placed operation was indeterminate is part of the memoized configuration for this.
     * </ul>
     */
    private boolean mayPlace(int op, boolean afterIndeterminate) {
        if (afterIndeterminate && kind[op] == WRITE) {
            return false;
        }
        if (!completed[op]) {
            for (int twin = previousTwin[op]; twin >= 0; twin = previousTwin[twin]) {
                if (!isPlaced(twin)) {
                    return false;
                }
            }
        }
        return true;
    }

    /**
     * For a counter that only ever grows (no negative delta), the largest value it may reach before the next
     * completed operation takes effect: the smallest value that one of the completed operations that may come next
     * needs to see. Placing indeterminate operations does not change which those are, and all must take effect
     * eventually, at a value the counter cannot come back to once past it. Otherwise {@link Long#MAX_VALUE}.
     */
    private long counterCeiling() {
        if (!growingCounter) {
            return Long.MAX_VALUE;
        }
        long ceiling = Long.MAX_VALUE;
        for (int node = next[head]; node < n; node = next[node]) {
            if (completed[node]) {
                ceiling = Math.min(ceiling, kind[node] == ADD ? output[node] - argument[node] : output[node]);
            }
        }
        return ceiling;
    }

    private boolean isPlaced(int op) {
        long[] bits = completed[op] ? completedBits : indeterminateBits;
        return (bits[bit[op] >>> 6] & (1L << bit[op])) != 0;
    }

    /** Applies operation {@code op} to the model in {@code state}; false if the recorded output disagrees. */
    private boolean step(int op, long state) {
        switch (kind[op]) {
            case READ, READ_COUNTER -> {
                stepped = state;
                return state == output[op];
            }
            case WRITE -> {
                stepped = argument[op];
                return true;
            }
            case CAS -> {
                boolean applies = state == argument[op];
                stepped = applies ? casNewValue[op] : state;
                return !completed[op] || applies == (output[op] == 1);
            }
            case ADD -> {
                stepped = state + argument[op];
                return !completed[op] || stepped == output[op];
            }
            default -> throw new IllegalStateException("unknown kind " + kind[op]);
        }
    }

    private void flipBit(int op) {
        long[] bits = completed[op] ? completedBits : indeterminateBits;
        bits[bit[op] >>> 6] ^= 1L << bit[op];
    }

    /**
     * Writes the configuration (model state, placed operations, whether the last one placed was indeterminate) into
     * {@link #keyBuffer} and returns its length.
     * Completed operations are placed roughly in invocation order, so their set is stored as the index of the first
     * unplaced one plus the words from there to the last placed one: a few words however long the history. The
     * indeterminate operations' set is stored whole, without trailing zero words, since most are never placed.
     */
    private int buildKey(long state, boolean afterIndeterminate) {
        keyBuffer[0] = state;
        int word = 0;
        while (word < completedBits.length && completedBits[word] == -1L) {
            word++;
        }
        int lastWord = completedBits.length - 1;
        while (lastWord >= word && completedBits[lastWord] == 0) {
            lastWord--;
        }
        int firstUnplaced = word < completedBits.length
                ? (word << 6) + Long.numberOfTrailingZeros(~completedBits[word])
                : word << 6;
        // Only registers restrict what follows an indeterminate operation, so only they need to tell these apart.
        keyBuffer[1] = 2L * firstUnplaced + (afterIndeterminate && !counter ? 1 : 0);
        keyBuffer[2] = lastWord - word + 1;
        int length = 3;
        for (int w = word; w <= lastWord; w++) {
            keyBuffer[length++] = completedBits[w];
        }
        int lastIndeterminate = indeterminateBits.length - 1;
        while (lastIndeterminate >= 0 && indeterminateBits[lastIndeterminate] == 0) {
            lastIndeterminate--;
        }
        for (int w = 0; w <= lastIndeterminate; w++) {
            keyBuffer[length++] = indeterminateBits[w];
        }
        return length;
    }

    /** Takes operation {@code op}'s events out of the list. */
    private void unlink(int op) {
        unlinkNode(op);
        if (completed[op]) {
            unlinkNode(n + op);
        }
    }

    /** Puts operation {@code op}'s events back, undoing {@link #unlink} in reverse order. */
    private void relink(int op) {
        if (completed[op]) {
            relinkNode(n + op);
        }
        relinkNode(op);
    }

    private void unlinkNode(int node) {
        next[prev[node]] = next[node];
        prev[next[node]] = prev[node];
    }

    private void relinkNode(int node) {
        next[prev[node]] = node;
        prev[next[node]] = node;
    }

    /**
     * Describes the deepest point the search reached: the end of the longest order of operations that explains
     * their outputs, and why none of the operations that could come next fits there.
     */
    private String explainFailure() {
        boolean[] placed = new boolean[n];
        long state = 0;
        for (int op : bestOrder) {
            step(op, state);
            state = stepped;
            placed[op] = true;
        }
        int completedCount = 0;
        long firstCompletion = Long.MAX_VALUE;
        for (int i = 0; i < n; i++) {
            if (completed[i]) {
                completedCount++;
                if (!placed[i]) {
                    firstCompletion = Math.min(firstCompletion, ops[i].completion().time());
                }
            }
        }
        StringBuilder text = new StringBuilder()
                .append("key ").append(HistoryFormat.value(key)).append(": not linearizable. Of ").append(n)
                .append(" operations (").append(completedCount).append(" completed");
        if (submitted > n) {
            text.append("; ").append(submitted - n).append(" indeterminate ones that could not matter left out");
        }
        text.append("), at most ")
                .append(bestOrder.length).append(" can take effect in an order that explains their outputs");
        if (bestOrder.length == 0) {
            text.append(".\n");
        } else {
            text.append(", ending with:\n");
            int from = Math.max(0, bestOrder.length - MAX_LISTED);
            if (from > 0) {
                text.append("  ... ").append(from).append(" earlier\n");
            }
            for (int i = from; i < bestOrder.length; i++) {
                text.append("  ").append(describe(bestOrder[i])).append('\n');
            }
        }
        text.append("Then the ").append(counter ? "counter" : "register").append(" holds ")
                .append(describeState(state)).append(" and none of the operations that may come next fits:");
        int listed = 0;
        int unlisted = 0;
        for (int i = 0; i < n; i++) {
            if (placed[i] || ops[i].invocation().time() >= firstCompletion) {
                continue;
            }
            if (listed == MAX_LISTED) {
                unlisted++;
                continue;
            }
            listed++;
            text.append("\n  ").append(describe(i)).append(": ").append(whyNot(i, state));
        }
        if (unlisted > 0) {
            text.append("\n  ... and ").append(unlisted).append(" more");
        }
        return text.toString();
    }

    private String whyNot(int op, long state) {
        if (step(op, state)) {
            if (!completed[op] && stepped == state) {
                return "would change nothing";
            }
            return "fits, but then the remaining operations cannot all be placed";
        }
        return switch (kind[op]) {
            case CAS -> "would return " + (state == argument[op]);
            case ADD -> "would return " + (state + argument[op]);
            default -> "would return " + describeState(state);
        };
    }

    private String describe(int op) {
        Operation operation = ops[op];
        Entry invocation = operation.invocation();
        StringBuilder text = new StringBuilder()
                .append("[client ").append(invocation.client()).append(", id ").append(invocation.id())
                .append(", time ").append(invocation.time()).append("..");
        if (operation.completion() == null) {
            text.append("?] ").append(HistoryFormat.op(invocation.op())).append(" (outcome unknown)");
        } else {
            text.append(operation.completion().time()).append("] ").append(HistoryFormat.op(invocation.op()));
            if (!(invocation.op() instanceof Op.Write)) {
                text.append(" -> ").append(HistoryFormat.value(operation.completion().output()));
            }
        }
        return text.toString();
    }

    private String describeState(long state) {
        return counter ? Long.toString(state) : HistoryFormat.value(values.get((int) state));
    }
}
