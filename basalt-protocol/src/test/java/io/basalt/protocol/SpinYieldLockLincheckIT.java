package io.basalt.protocol;

import org.jetbrains.kotlinx.lincheck.LinChecker;
import org.jetbrains.kotlinx.lincheck.annotations.Operation;
import org.jetbrains.kotlinx.lincheck.strategy.stress.StressOptions;
import org.junit.jupiter.api.Test;

/**
 * Lincheck on {@link SpinYieldLock}: a two-field counter updated only under the lock must behave
 * as one atomic counter. Without mutual exclusion two increments can read the same value, or a
 * reader see the fields disagree. Stress mode only: Lincheck's model checker (2.39) does not
 * return from the lock's timed parking phase, so the interleavings are left to this stress run,
 * {@code SpinYieldLockTest}'s many-thread test and the jcstress test
 * {@code SpinYieldLockExclusion} in {@code basalt-jcstress}.
 */
public class SpinYieldLockLincheckIT {

    private final SpinYieldLock lock = new SpinYieldLock();
    private long low;
    private long high;

    /** Adds one to both fields, one at a time, under the lock; returns the new value. */
    @Operation
    public long increment() {
        lock.lock();
        try {
            long v = low + 1;
            low = v;
            high = v;
            return v;
        } finally {
            lock.unlock();
        }
    }

    /** Reads both fields under the lock; -1 if they disagree (a torn update was seen). */
    @Operation
    public long read() {
        lock.lock();
        try {
            return low == high ? low : -1;
        } finally {
            lock.unlock();
        }
    }

    @Test
    void stress() {
        LinChecker.check(SpinYieldLockLincheckIT.class, new StressOptions()
                .iterations(30)
                .invocationsPerIteration(1000)
                .threads(3)
                .actorsPerThread(3));
    }
}
