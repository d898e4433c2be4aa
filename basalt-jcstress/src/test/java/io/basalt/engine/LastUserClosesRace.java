package io.basalt.engine;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import java.util.concurrent.atomic.AtomicInteger;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.II_Result;

/**
 * Two uses of a resource race its close ({@link LastUserCloses}, which guards the descriptor of
 * a file's reads that do not wait). The resource must be released exactly once, and never before
 * a use that began has ended.
 *
 * <p>r1: times released; r2: 1 when a use found the resource already released.
 */
@JCStressTest
@Outcome(id = "1, 0", expect = ACCEPTABLE, desc = "released once, after every use that began")
@Outcome(expect = FORBIDDEN, desc = "released twice, never, or while in use")
@State
public class LastUserClosesRace {

    private final LastUserCloses users = new LastUserCloses();
    private final AtomicInteger releases = new AtomicInteger();
    private volatile boolean released;
    private volatile boolean usedAfterRelease;

    private void release() {
        released = true;
        releases.incrementAndGet();
    }

    private void use() {
        if (users.enter()) {
            if (released) {
                usedAfterRelease = true;
            }
            if (users.exit()) {
                release();
            }
        }
    }

    @Actor
    public void useThenUse() {
        use();
        use();
    }

    @Actor
    public void closeTwice() {
        if (users.close()) {
            release();
        }
        if (users.close()) { // a second close releases nothing
            release();
        }
    }

    @Arbiter
    public void arbiter(II_Result r) {
        r.r1 = releases.get();
        r.r2 = usedAfterRelease ? 1 : 0;
    }
}
