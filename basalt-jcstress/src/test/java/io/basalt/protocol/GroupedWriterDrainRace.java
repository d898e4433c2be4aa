package io.basalt.protocol;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.II_Result;

/**
 * {@link DrainRace} with four stripes: the application thread and the event loop write to
 * stripes of their own (they are numbered one after the other), so a drain takes two stripes, one
 * after the other.
 */
@JCStressTest
@Outcome(id = "4, 1", expect = ACCEPTABLE, desc = "every frame went out once, each thread's in order")
@Outcome(expect = FORBIDDEN, desc = "a frame was left behind with no drain to take it, sent twice, or reordered")
@State
public class GroupedWriterDrainRace {

    private final DrainRace race = new DrainRace(4);

    @Actor
    public void applicationThread() {
        race.applicationThread();
    }

    @Actor
    public void eventLoop() {
        race.eventLoop();
    }

    @Arbiter
    public void settle(II_Result r) {
        race.settle(r);
    }
}
