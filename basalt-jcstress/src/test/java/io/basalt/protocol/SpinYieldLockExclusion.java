package io.basalt.protocol;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.II_Result;

/**
 * {@link SpinYieldLock}, the grouped writer's lock: one thread takes it with {@code lock()}, the
 * other with {@code tryLock()} and, when that fails, {@code lock()} (as a writer that encodes
 * aside does). Each reads a plain counter under the lock, dwells, and stores it plus one. Mutual
 * exclusion, and the release store publishing the first holder's write to the next, mean one
 * read 0 and the other 1.
 */
@JCStressTest
@Outcome(id = {"0, 1", "1, 0"}, expect = ACCEPTABLE, desc = "one critical section after the other")
@Outcome(id = "0, 0", expect = FORBIDDEN, desc = "both were inside at once, or a write was not seen: an update was lost")
@Outcome(expect = FORBIDDEN, desc = "a value nobody wrote")
@State
public class SpinYieldLockExclusion {

    private static final int DWELL_SPINS = 16;

    private final SpinYieldLock lock = new SpinYieldLock();
    private int counter;

    @Actor
    public void locking(II_Result r) {
        lock.lock();
        try {
            r.r1 = increment();
        } finally {
            lock.unlock();
        }
    }

    @Actor
    public void tryingFirst(II_Result r) {
        if (!lock.tryLock()) {
            lock.lock();
        }
        try {
            r.r2 = increment();
        } finally {
            lock.unlock();
        }
    }

    private int increment() {
        int seen = counter;
        for (int i = 0; i < DWELL_SPINS; i++) {
            Thread.onSpinWait();
        }
        counter = seen + 1;
        return seen;
    }
}
