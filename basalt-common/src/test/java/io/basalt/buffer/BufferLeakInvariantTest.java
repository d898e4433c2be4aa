package io.basalt.buffer;

import static org.assertj.core.api.Assertions.assertThat;

import io.basalt.testkit.IgnoreInvariants;
import io.basalt.testkit.TestInvariant;
import java.util.ArrayList;
import java.util.List;
import java.util.ServiceLoader;
import org.junit.jupiter.api.Test;

class BufferLeakInvariantTest {

    @Test
    void isRegisteredForTheInvariantsExtension() {
        List<String> names = new ArrayList<>();
        ServiceLoader.load(TestInvariant.class).forEach(i -> names.add(i.getClass().getName() + ":" + i.name()));
        assertThat(names).contains(BufferLeakInvariant.class.getName() + ":buffer-leaks");
    }

    @Test
    @IgnoreInvariants(value = BufferLeakInvariant.NAME, because = "releases only after consulting the invariant")
    void reportsABufferAllocatedDuringTheTestAndNotReleasedWithWhereItWasAllocated() {
        BufferLeakInvariant invariant = new BufferLeakInvariant();
        try (BufferPool pool = TestPools.pool(64, 8)) {
            invariant.beforeEach("t");
            Buffer leaked = pool.allocate(100);
            String violation = invariant.violation("t");
            assertThat(violation).startsWith("1 pooled buffer allocated during the test was never released"
                    + " (call Buffer.release() once per allocate and retain):");
            assertThat(violation).contains("bytes from pool 'test-64', allocated by thread '"
                    + Thread.currentThread().getName() + "' at:");
            assertThat(violation.lines().skip(2).findFirst().orElseThrow().strip()).startsWith("at "
                    + BufferLeakInvariantTest.class.getName()
                    + ".reportsABufferAllocatedDuringTheTestAndNotReleasedWithWhereItWasAllocated(");
            assertThat(violation.lines().count()).isEqualTo(2 + BufferLeakInvariant.FRAMES);
            leaked.slice(0, 10).retain();
            leaked.release();
            assertThat(invariant.violation("t")).isNotNull();
            leaked.release();
            assertThat(invariant.violation("t")).isNull();
        }
    }

    @Test
    void doesNotBlameATestForBuffersThatWereOutstandingBeforeIt() {
        BufferLeakInvariant invariant = new BufferLeakInvariant();
        try (BufferPool pool = TestPools.pool(64, 8)) {
            Buffer earlier = pool.allocate(10);
            invariant.beforeEach("t");
            pool.allocate(10).release();
            assertThat(invariant.violation("t")).isNull();
            earlier.release();
        }
    }

    @Test
    @IgnoreInvariants(value = BufferLeakInvariant.NAME, because = "releases only after consulting the invariant")
    void listsTheFirstFewLeaksAndCountsTheRest() {
        BufferLeakInvariant invariant = new BufferLeakInvariant();
        try (BufferPool pool = TestPools.pool(64, 8)) {
            invariant.beforeEach("t");
            List<Buffer> leaked = new ArrayList<>();
            for (int i = 0; i < BufferLeakInvariant.SHOWN + 2; i++) {
                leaked.add(pool.allocate(1));
            }
            String violation = invariant.violation("t");
            assertThat(violation).startsWith("7 pooled buffers allocated during the test were never released");
            assertThat(violation.lines().filter(l -> l.startsWith("    buffer #"))).hasSize(BufferLeakInvariant.SHOWN);
            assertThat(violation).endsWith("    ... and 2 more");
            leaked.forEach(Buffer::release);
            assertThat(invariant.violation("t")).isNull();
        }
    }
}
