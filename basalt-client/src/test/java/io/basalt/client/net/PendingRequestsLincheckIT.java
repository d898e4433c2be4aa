package io.basalt.client.net;

import org.jetbrains.kotlinx.lincheck.LinChecker;
import org.jetbrains.kotlinx.lincheck.annotations.Operation;
import org.jetbrains.kotlinx.lincheck.annotations.Param;
import org.jetbrains.kotlinx.lincheck.paramgen.LongGen;
import org.jetbrains.kotlinx.lincheck.strategy.managed.modelchecking.ModelCheckingOptions;
import org.jetbrains.kotlinx.lincheck.strategy.stress.StressOptions;
import org.junit.jupiter.api.Test;

/**
 * Lincheck on {@link PendingRequests} as a connection uses it: requests added under ids 1, 2,
 * 3, ..., removed by id (a response) and by id and value (the deadline sweep), concurrently. The
 * ring has two slots, so ids keep finding their slot taken and going aside.
 *
 * <p>{@link #add} takes the next id and adds it in one step (it is synchronized): in a connection
 * a response can only come for a request whose add has finished, while here a removal may name
 * any id, and one naming an id taken but not yet added would see a state no sequential run has.
 * Adds therefore run one at a time; removals run concurrently with them and with each other.
 * Concurrent adds are covered by {@code PendingRequestsTest}'s stress test.
 */
@Param(name = "id", gen = LongGen.class, conf = "1:6")
public class PendingRequestsLincheckIT {

    private static final Long[] VALUES = {0L, 10L, 20L, 30L, 40L, 50L, 60L, 70L, 80L, 90L, 100L};

    private final PendingRequests<Long> table = new PendingRequests<>(2);
    private long ids;

    /** Sends a request: the next id, added with its value. */
    @Operation
    public synchronized long add() {
        long id = ++ids;
        if (id < VALUES.length) {
            table.put(id, VALUES[(int) id]);
        }
        return id;
    }

    /** A response: takes the request out. */
    @Operation
    public Long remove(@Param(name = "id") long id) {
        return table.remove(id);
    }

    /** The sweep: takes the request out only if it is still the one it saw. */
    @Operation
    public boolean removeIfSame(@Param(name = "id") long id) {
        return table.remove(id, VALUES[(int) id]);
    }

    @Test
    void modelChecking() {
        LinChecker.check(PendingRequestsLincheckIT.class, new ModelCheckingOptions()
                .iterations(20)
                .invocationsPerIteration(200)
                .threads(3)
                .actorsPerThread(3)
                .actorsBefore(2)
                .actorsAfter(1));
    }

    @Test
    void stress() {
        LinChecker.check(PendingRequestsLincheckIT.class, new StressOptions()
                .iterations(20)
                .invocationsPerIteration(1000)
                .threads(3)
                .actorsPerThread(3)
                .actorsBefore(2));
    }
}
