package io.basalt.testkit.history;

import static org.assertj.core.api.Assertions.assertThat;

import io.basalt.testkit.history.Linearizability.Result;
import io.basalt.testkit.history.Linearizability.Result.Verdict;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Random;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Planted bug: clients on several threads run against a toy replicated register whose reads are served by a
 * follower that copies the leader only every {@link #FOLLOWER_LAG}-th operation, with no lease or read-index
 * check. The checker must call that history not linearizable, and the same workload with reads served by the
 * leader linearizable. Clients yield between recording and running an operation so that intervals overlap.
 * The verdict does not depend on scheduling: values are unique and the follower lags by dozens of operations, so
 * some client always reads, after its own write completed, a value from before it.
 */
class ReplicatedRegisterSimulationTest {

    private static final int THREADS = 4;
    private static final int OPS_PER_THREAD = 300;
    private static final int FOLLOWER_LAG = 50;
    private static final List<String> KEYS = List.of("x", "y");

    /** A leader and one follower. All access is under one lock, so the only bug is the follower's staleness. */
    private static final class ToyReplicatedRegister {
        private final boolean readsFromFollower;
        private final Map<String, String> leader = new HashMap<>();
        private Map<String, String> follower = new HashMap<>();
        private long operations;

        ToyReplicatedRegister(boolean readsFromFollower) {
            this.readsFromFollower = readsFromFollower;
        }

        synchronized String read(String key) {
            tick();
            return readsFromFollower ? follower.get(key) : leader.get(key);
        }

        synchronized void write(String key, String value) {
            tick();
            leader.put(key, value);
        }

        synchronized boolean cas(String key, String expected, String newValue) {
            tick();
            if (!Objects.equals(leader.get(key), expected)) {
                return false;
            }
            leader.put(key, newValue);
            return true;
        }

        /** The follower catches up with the leader only now and then. */
        private void tick() {
            if (++operations % FOLLOWER_LAG == 0) {
                follower = new HashMap<>(leader);
            }
        }
    }

    @Test
    void readsFromALaggingFollowerAreNotLinearizable() throws InterruptedException {
        History history = simulate(new ToyReplicatedRegister(true));

        Result result = Linearizability.check(history);

        assertThat(result.verdict()).as("%s", result).isEqualTo(Verdict.NOT_LINEARIZABLE);
        assertThat(KEYS).contains(result.key());
        assertThat(result.explanation()).contains("none of the operations that may come next fits");
    }

    @Test
    void readsFromTheLeaderAreLinearizable() throws InterruptedException {
        History history = simulate(new ToyReplicatedRegister(false));

        Result result = Linearizability.check(history);

        assertThat(result.verdict()).as("%s", result).isEqualTo(Verdict.LINEARIZABLE);
        assertThat(result.operations()).isGreaterThan(THREADS * OPS_PER_THREAD * 9 / 10);
    }

    /**
     * Runs {@link #THREADS} clients of {@link #OPS_PER_THREAD} operations each. Every write's value is unique.
     * A few writes time out (recorded as indeterminate, applied or not) or are refused before being applied.
     */
    private static History simulate(ToyReplicatedRegister register) throws InterruptedException {
        History history = new History();
        CountDownLatch start = new CountDownLatch(1);
        List<Thread> clients = new ArrayList<>();
        for (int t = 0; t < THREADS; t++) {
            int client = t;
            Random random = new Random(1_000 + client);
            clients.add(Thread.ofPlatform().name("client-" + client).start(() -> {
                awaitQuietly(start);
                Map<String, String> lastSeen = new HashMap<>();
                for (int i = 0; i < OPS_PER_THREAD; i++) {
                    String key = KEYS.get(random.nextInt(KEYS.size()));
                    String value = "c" + client + "-" + i;
                    int choice = random.nextInt(10);
                    if (choice < 4) {
                        long id = history.invoke(client, new Op.Read(key));
                        Thread.yield();
                        String seen = register.read(key);
                        Thread.yield();
                        lastSeen.put(key, seen);
                        history.ok(id, seen);
                    } else if (choice < 8) {
                        long id = history.invoke(client, new Op.Write(key, value));
                        int fault = random.nextInt(20);
                        if (fault == 0) {
                            history.fail(id);
                            continue;
                        }
                        if (fault == 1) {
                            // Timed out before reaching the leader.
                            history.info(id);
                            continue;
                        }
                        Thread.yield();
                        register.write(key, value);
                        Thread.yield();
                        if (fault == 2) {
                            // Applied, but the acknowledgement was lost.
                            history.info(id);
                        } else {
                            history.ok(id, null);
                        }
                    } else {
                        Op.Cas cas = new Op.Cas(key, lastSeen.get(key), value);
                        long id = history.invoke(client, cas);
                        Thread.yield();
                        boolean applied = register.cas(key, cas.expected(), cas.newValue());
                        Thread.yield();
                        history.ok(id, applied);
                    }
                }
            }));
        }
        start.countDown();
        for (Thread client : clients) {
            assertThat(client.join(Duration.ofSeconds(30))).as("client finished").isTrue();
        }
        return history;
    }

    private static void awaitQuietly(CountDownLatch latch) {
        try {
            assertThat(latch.await(30, TimeUnit.SECONDS)).isTrue();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
