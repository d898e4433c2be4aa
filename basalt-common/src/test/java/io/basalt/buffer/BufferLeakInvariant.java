package io.basalt.buffer;

import io.basalt.testkit.TestInvariant;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * After each test: every pooled buffer allocated during the test was released. Registered in
 * {@code META-INF/services/io.basalt.testkit.TestInvariant} of basalt-common's test-jar, so it runs
 * in every module that has that jar on its test class path.
 *
 * <p>Deterministic and cheap, no garbage collection involved: the test build sets
 * {@code basalt.buffer.leakDetection=all}, so the leak detector follows every pooled buffer from
 * allocation to final release, and {@link BufferPool#unreleasedBuffers()} is exactly the set of
 * unreleased ones (usually empty, so the check costs a few microseconds). Before a test the
 * invariant notes which are already outstanding (left by an earlier test that was exempt, or held
 * by a class fixture); after it, anything new that is still unreleased is a leak, reported with
 * its allocation site. This is stricter than the production detector, which only sees a buffer
 * once it is unreachable: a buffer the test still references but never released fails too, and so
 * does one the collector already reported. A test must finish (await) the releases it started on
 * other threads before it returns; there is deliberately no grace period, so the verdict never
 * depends on timing.
 */
public final class BufferLeakInvariant implements TestInvariant {

    /** The name tests give to {@link io.basalt.testkit.IgnoreInvariants}. */
    public static final String NAME = "buffer-leaks";

    static final int SHOWN = 5;
    static final int FRAMES = 8;

    private Set<Long> before = Set.of();

    /** Public for {@link java.util.ServiceLoader}. */
    public BufferLeakInvariant() {}

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public void beforeEach(String testName) {
        Set<Long> outstanding = new HashSet<>();
        for (UnreleasedBuffer buffer : BufferPool.unreleasedBuffers()) {
            outstanding.add(buffer.sequence());
        }
        before = outstanding;
    }

    @Override
    public String violation(String testName) {
        List<UnreleasedBuffer> leaked = BufferPool.unreleasedBuffers().stream()
                .filter(b -> !before.contains(b.sequence())).toList();
        if (leaked.isEmpty()) {
            return null;
        }
        StringBuilder message = new StringBuilder().append(leaked.size())
                .append(leaked.size() == 1 ? " pooled buffer" : " pooled buffers")
                .append(" allocated during the test ").append(leaked.size() == 1 ? "was" : "were")
                .append(" never released (call Buffer.release() once per allocate and retain):");
        for (UnreleasedBuffer buffer : leaked.subList(0, Math.min(SHOWN, leaked.size()))) {
            message.append(System.lineSeparator()).append("    buffer #").append(buffer.sequence()).append(" of ")
                    .append(buffer.size()).append(" bytes from pool '").append(buffer.pool())
                    .append("', allocated by thread '").append(buffer.thread()).append("' at:");
            List<StackTraceElement> site = buffer.allocationSite();
            for (StackTraceElement frame : site.subList(0, Math.min(FRAMES, site.size()))) {
                message.append(System.lineSeparator()).append("        at ").append(frame);
            }
        }
        if (leaked.size() > SHOWN) {
            message.append(System.lineSeparator()).append("    ... and ").append(leaked.size() - SHOWN).append(" more");
        }
        return message.toString();
    }
}
