package io.basalt.lock;

import io.basalt.testkit.TestInvariant;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.WeakHashMap;

/**
 * After every test, no {@link LockManager} still reachable holds a lock, in any thread: a test
 * that forgets to close a handle, or leaves a thread blocked holding one, fails.
 *
 * <p>A manager whose leak was reported once is not reported again, so the test that leaked gets
 * the blame and the tests after it do not; the same goes for leaks that a test exempt from this
 * invariant ({@code @IgnoreInvariants("no-lock-held")}) leaves behind on purpose.
 */
public final class NoLockHeldInvariant implements TestInvariant {

    static final String NAME = "no-lock-held";

    private static final Map<LockManager, Boolean> ALREADY_REPORTED = Collections.synchronizedMap(new WeakHashMap<>());

    /** Public for {@link java.util.ServiceLoader}. */
    public NoLockHeldInvariant() {}

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public void beforeEach(String testName) {
        for (LockManager manager : LockManager.instances()) {
            if (!manager.held().isEmpty()) {
                ALREADY_REPORTED.put(manager, Boolean.TRUE);
            }
        }
    }

    @Override
    public String violation(String testName) {
        StringBuilder report = null;
        for (LockManager manager : LockManager.instances()) {
            if (ALREADY_REPORTED.containsKey(manager)) {
                continue;
            }
            List<HeldLock> held = manager.held();
            if (held.isEmpty()) {
                continue;
            }
            ALREADY_REPORTED.put(manager, Boolean.TRUE);
            if (report == null) {
                report = new StringBuilder("locks still held after the test:");
            }
            report.append(' ').append(manager).append(' ').append(held);
        }
        return report == null ? null : report.toString();
    }
}
