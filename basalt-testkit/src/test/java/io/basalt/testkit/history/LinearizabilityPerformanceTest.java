package io.basalt.testkit.history;

import static org.assertj.core.api.Assertions.assertThat;

import io.basalt.testkit.history.Linearizability.Result;
import io.basalt.testkit.history.Linearizability.Result.Verdict;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * Histories of the size nemesis tests produce, from a correct atomic store: they must check as linearizable
 * without hitting the search bound. Nothing is timed here; the printed figures are for people. The generated
 * histories are deterministic, and so is the number of states the search explores: bounds on it, with a wide margin
 * over today's figures, show that each pruning rule of the search does its work on the kind of history it is for.
 */
class LinearizabilityPerformanceTest {

    @Test
    void fiveThousandOperationsOnTenKeysFromSixteenClientsAreLinearizable() {
        History history = new Simulation(42, 10, 3, 16, 5, 0.01).run(5_000);

        Result result = timedCheck("5000 ops, 10 keys, 16 clients", history.entries());

        assertThat(result.verdict()).as("%s", result).isEqualTo(Verdict.LINEARIZABLE);
        assertThat(result.operations()).isGreaterThan(4_500);
    }

    @Test
    void oneHotRegisterWithTwentyClientsAndManyTimeoutsIsLinearizable() {
        History history = new Simulation(7, 1, 0, 20, 4, 0.05).run(2_000);

        Result result = timedCheck("2000 ops, 1 register, 20 clients, 5% timeouts", history.entries());

        assertThat(result.verdict()).as("%s", result).isEqualTo(Verdict.LINEARIZABLE);
        // Without placing reads first unconditionally, or trying one of identical timed-out writes only, or skipping
        // writes right after a timed-out operation, or skipping timed-out writes that change nothing: 100,000 or more.
        assertThat(result.statesExplored()).isLessThan(60_000);
    }

    @Test
    void oneHotRegisterWithUniqueValuesAndManyTimeoutsIsLinearizable() {
        History history = new Simulation(5, 1, 0, 20, 0, 0.1).withUniqueValues().run(2_000);

        Result result = timedCheck("2000 ops, 1 register, unique values, 20 clients, 10% timeouts", history.entries());

        assertThat(result.verdict()).as("%s", result).isEqualTo(Verdict.LINEARIZABLE);
        // Without dropping the timed-out writes nobody read: over 900,000.
        assertThat(result.statesExplored()).isLessThan(300_000);
    }

    @Test
    void oneHotCounterWithTwentyClientsAndManyTimeoutsIsLinearizable() {
        History history = new Simulation(11, 1, 1, 20, 4, 0.05).run(2_000);

        Result result = timedCheck("2000 ops, 1 counter, 20 clients, 5% timeouts", history.entries());

        assertThat(result.verdict()).as("%s", result).isEqualTo(Verdict.LINEARIZABLE);
        // Without the ceiling on timed-out additions: over 1,700,000.
        assertThat(result.statesExplored()).isLessThan(50_000);
    }

    @Test
    void oneCorruptedReadInFiveThousandOperationsIsFound() {
        List<Entry> entries = new ArrayList<>(new Simulation(43, 10, 3, 16, 5, 0.01).run(5_000).entries());
        int victim = -1;
        for (int i = entries.size() * 2 / 3; victim < 0; i++) {
            Entry entry = entries.get(i);
            if (entry.type() == Entry.Type.OK && entry.op() instanceof Op.Read) {
                victim = i;
            }
        }
        Entry read = entries.get(victim);
        entries.set(victim, new Entry(read.time(), read.type(), read.id(), read.client(), read.op(), "corrupted"));

        Result result = timedCheck("5000 ops with one corrupted read", entries);

        assertThat(result.verdict()).as("%s", result).isEqualTo(Verdict.NOT_LINEARIZABLE);
        assertThat(result.key()).isEqualTo(read.op().key());
        assertThat(result.explanation()).contains("-> \"corrupted\"");
    }

    private static Result timedCheck(String name, List<Entry> entries) {
        long start = System.nanoTime();
        Result result = Linearizability.check(entries);
        long millis = (System.nanoTime() - start) / 1_000_000;
        System.out.printf("%s: %s in %d ms, %d states%n", name, result.verdict(), millis, result.statesExplored());
        return result;
    }

    /**
     * Clients, interleaved at random in one thread, run operations against a correct atomic map: each takes
     * effect at one random moment between its invocation and its completion, so intervals overlap at random and
     * the history is linearizable. Some operations time out (indeterminate, applied or not) or are refused.
     */
    private static final class Simulation {
        private final Random random;
        private final int registers;
        private final int keys;
        private final int clients;
        private final int valueChoices;
        private final double timeoutRate;
        private boolean uniqueValues;
        private int written;
        private final Map<String, Object> store = new HashMap<>();
        private final History history = new History();

        Simulation(long seed, int keys, int counters, int clients, int valueChoices, double timeoutRate) {
            this.random = new Random(seed);
            this.keys = keys;
            this.registers = keys - counters;
            this.clients = clients;
            this.valueChoices = valueChoices;
            this.timeoutRate = timeoutRate;
        }

        /** Makes every write's value new, and leaves CAS out, as in a test that must tell all writes apart. */
        Simulation withUniqueValues() {
            uniqueValues = true;
            return this;
        }

        History run(int operations) {
            Op[] pending = new Op[clients];
            long[] ids = new long[clients];
            boolean[] applied = new boolean[clients];
            Object[] outputs = new Object[clients];
            int started = 0;
            int running = 0;
            while (started < operations || running > 0) {
                int client = random.nextInt(clients);
                if (pending[client] == null) {
                    if (started < operations) {
                        pending[client] = randomOp();
                        ids[client] = history.invoke(client, pending[client]);
                        applied[client] = false;
                        started++;
                        running++;
                    }
                    continue;
                }
                double roll = random.nextDouble();
                if (roll < timeoutRate) {
                    // Timed out: maybe applied, maybe not, maybe later; the client never learns which.
                    if (!applied[client] && random.nextBoolean()) {
                        apply(pending[client]);
                    }
                    history.info(ids[client]);
                } else if (!applied[client]) {
                    if (roll < 2 * timeoutRate) {
                        history.fail(ids[client]);
                    } else {
                        outputs[client] = apply(pending[client]);
                        applied[client] = true;
                        continue;
                    }
                } else {
                    history.ok(ids[client], outputs[client]);
                }
                pending[client] = null;
                running--;
            }
            return history;
        }

        private Op randomOp() {
            int k = random.nextInt(keys);
            String key = "k" + k;
            String value = uniqueValues ? "u" + written++ : "v" + random.nextInt(valueChoices);
            if (k >= registers) {
                return random.nextInt(5) < 3 ? new Op.Add(key, 1 + random.nextInt(5)) : new Op.ReadCounter(key);
            }
            return switch (random.nextInt(uniqueValues ? 7 : 10)) {
                case 0, 1, 2, 3 -> new Op.Read(key);
                case 4, 5, 6 -> new Op.Write(key, value);
                default -> new Op.Cas(key, random.nextInt(4) == 0 ? null : "v" + random.nextInt(valueChoices), value);
            };
        }

        private Object apply(Op op) {
            return switch (op) {
                case Op.Read read -> store.get(read.key());
                case Op.Write write -> store.put(write.key(), write.value());
                case Op.Cas cas -> {
                    boolean applies = Objects.equals(store.get(cas.key()), cas.expected());
                    if (applies) {
                        store.put(cas.key(), cas.newValue());
                    }
                    yield applies;
                }
                case Op.Add add -> store.merge(add.key(), add.delta(), (a, b) -> (Long) a + (Long) b);
                case Op.ReadCounter read -> store.getOrDefault(read.key(), 0L);
            };
        }
    }
}
