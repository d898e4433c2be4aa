package io.basalt.testkit.history;

import static org.assertj.core.api.Assertions.assertThat;

import io.basalt.testkit.history.Linearizability.Result;
import io.basalt.testkit.history.Linearizability.Result.Verdict;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * Compares the checker with the definition of linearizability, applied by brute force: every order of the
 * operations over the whole history (not key by key) that respects real time, with indeterminate operations
 * placed anywhere after their invocation or left out.
 */
class LinearizabilityCrossCheckTest {

    private static final String REGISTER = "r";
    private static final String COUNTER = "c";

    @Test
    void agreesWithExhaustiveSearchOnSmallRandomHistories() {
        Random random = new Random(0x5EED_2024L);
        int linearizable = 0;
        int notLinearizable = 0;
        for (int trial = 0; trial < 4_000; trial++) {
            History history = randomHistory(random);
            boolean expected = BruteForce.linearizable(history.entries());

            Result result = Linearizability.check(history);
            int number = trial;

            assertThat(result.verdict())
                    .withFailMessage(() -> "trial " + number + " expected " + expected + " got " + result
                            + "\n" + String.join("\n", history.entries().stream().map(HistoryFormat::line).toList()))
                    .isEqualTo(expected ? Verdict.LINEARIZABLE : Verdict.NOT_LINEARIZABLE);
            if (expected) {
                linearizable++;
            } else {
                notLinearizable++;
            }
        }
        // Both answers must be common, or the comparison proves little.
        assertThat(linearizable).isGreaterThan(800);
        assertThat(notLinearizable).isGreaterThan(800);
    }

    /**
     * Three or four clients run a few operations against a correct atomic model, each taking effect at a random
     * moment inside its interval; then some outputs and outcomes are corrupted, so about half the histories break.
     * Values and deltas come from tiny sets, so identical operations are common; half the histories have a counter
     * that also goes down.
     */
    private static History randomHistory(Random random) {
        History history = new History();
        int total = 3 + random.nextInt(6);
        boolean negativeDeltas = random.nextBoolean();
        String register = null;
        long counter = 0;
        int clients = 3 + random.nextInt(2);
        long[] ids = new long[clients];
        Op[] ops = new Op[clients];
        Object[] outputs = new Object[clients];
        boolean[] applied = new boolean[clients];
        int started = 0;
        int running = 0;
        while (started < total || running > 0) {
            int client = random.nextInt(clients);
            Op op = ops[client];
            if (op == null) {
                if (started == total) {
                    continue;
                }
                op = randomOp(random, negativeDeltas);
                ops[client] = op;
                ids[client] = history.invoke(client, op);
                applied[client] = false;
                started++;
                running++;
            } else if (!applied[client] && random.nextInt(4) != 0) {
                applied[client] = true;
                switch (op) {
                    case Op.Read _ -> outputs[client] = register;
                    case Op.Write write -> register = write.value();
                    case Op.Cas cas -> {
                        boolean applies = Objects.equals(register, cas.expected());
                        register = applies ? cas.newValue() : register;
                        outputs[client] = applies;
                    }
                    case Op.Add add -> outputs[client] = counter += add.delta();
                    case Op.ReadCounter _ -> outputs[client] = counter;
                }
            } else {
                int outcome = random.nextInt(20);
                if (outcome < 3) {
                    history.info(ids[client]);
                } else if (outcome < 5 && (!applied[client] || outcome == 4)) {
                    // Mostly an honest refusal; sometimes a lie about an operation that was applied.
                    history.fail(ids[client]);
                } else if (applied[client]) {
                    history.ok(ids[client], random.nextInt(6) == 0 ? corrupt(op, random) : outputs[client]);
                } else {
                    continue;
                }
                ops[client] = null;
                running--;
            }
        }
        return history;
    }

    private static Op randomOp(Random random, boolean negativeDeltas) {
        String value = random.nextBoolean() ? "a" : "b";
        return switch (random.nextInt(6)) {
            case 0 -> new Op.Read(REGISTER);
            case 1 -> new Op.Write(REGISTER, value);
            case 2 -> new Op.Cas(REGISTER, random.nextBoolean() ? null : (random.nextBoolean() ? "a" : "b"), value);
            case 3, 4 -> new Op.Add(COUNTER, negativeDeltas && random.nextInt(3) == 0 ? -1 : 1 + random.nextInt(2));
            default -> new Op.ReadCounter(COUNTER);
        };
    }

    private static Object corrupt(Op op, Random random) {
        return switch (op) {
            case Op.Read _ -> switch (random.nextInt(3)) {
                case 0 -> null;
                case 1 -> "a";
                default -> "b";
            };
            case Op.Write _ -> null;
            case Op.Cas _ -> random.nextBoolean();
            case Op.Add _, Op.ReadCounter _ -> (long) random.nextInt(5);
        };
    }

    /** The definition, searched exhaustively; only usable for a handful of operations. */
    private static final class BruteForce {

        private record Operation(Op op, long invoked, long completed, boolean determinate, Object output) {}

        private final List<Operation> operations = new ArrayList<>();
        private final boolean[] placed;
        /** Placed operations and state already searched without success; only there to keep the test fast. */
        private final Set<List<Object>> failed = new HashSet<>();

        private BruteForce(List<Entry> entries) {
            Map<Long, Entry> completions = new HashMap<>();
            for (Entry entry : entries) {
                if (!entry.invocation()) {
                    completions.put(entry.id(), entry);
                }
            }
            for (Entry invocation : entries) {
                if (!invocation.invocation()) {
                    continue;
                }
                Entry completion = completions.get(invocation.id());
                if (completion != null && completion.type() == Entry.Type.FAIL) {
                    continue;
                }
                boolean determinate = completion != null && completion.type() == Entry.Type.OK;
                operations.add(new Operation(invocation.op(), invocation.time(),
                        determinate ? completion.time() : Long.MAX_VALUE, determinate,
                        determinate ? completion.output() : null));
            }
            placed = new boolean[operations.size()];
        }

        static boolean linearizable(List<Entry> entries) {
            return new BruteForce(entries).search(null, 0);
        }

        private boolean search(String register, long counter) {
            boolean allDeterminatePlaced = true;
            for (int i = 0; i < operations.size(); i++) {
                allDeterminatePlaced &= placed[i] || !operations.get(i).determinate();
            }
            if (allDeterminatePlaced) {
                return true;
            }
            List<Object> configuration = List.of(Arrays.toString(placed), Objects.toString(register), counter);
            if (failed.contains(configuration)) {
                return false;
            }
            for (int i = 0; i < operations.size(); i++) {
                if (placed[i] || !mayComeNext(operations.get(i))) {
                    continue;
                }
                Operation operation = operations.get(i);
                String nextRegister = register;
                long nextCounter = counter;
                Object result;
                switch (operation.op()) {
                    case Op.Read _ -> result = register;
                    case Op.Write write -> {
                        nextRegister = write.value();
                        result = null;
                    }
                    case Op.Cas cas -> {
                        boolean applies = Objects.equals(register, cas.expected());
                        nextRegister = applies ? cas.newValue() : register;
                        result = applies;
                    }
                    case Op.Add add -> {
                        nextCounter = counter + add.delta();
                        result = nextCounter;
                    }
                    case Op.ReadCounter _ -> result = counter;
                }
                if (operation.determinate() && !Objects.equals(result, operation.output())) {
                    continue;
                }
                placed[i] = true;
                boolean found = search(nextRegister, nextCounter);
                placed[i] = false;
                if (found) {
                    return true;
                }
            }
            failed.add(configuration);
            return false;
        }

        /** Nothing unplaced may have completed before this operation was invoked. */
        private boolean mayComeNext(Operation candidate) {
            for (int j = 0; j < operations.size(); j++) {
                if (!placed[j] && operations.get(j).completed() < candidate.invoked()) {
                    return false;
                }
            }
            return true;
        }
    }
}
