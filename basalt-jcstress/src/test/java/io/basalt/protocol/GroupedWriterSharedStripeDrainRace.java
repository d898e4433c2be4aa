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
 * {@link DrainRace} with one stripe: the application thread, the event loop's own write and the
 * drain all take its lock, so a writer that finds it held encodes its frame aside and copies it
 * in afterwards.
 */
@JCStressTest
@Outcome(id = "4, 1", expect = ACCEPTABLE, desc = "every frame went out once, each thread's in order")
@Outcome(expect = FORBIDDEN, desc = "a frame was left behind with no drain to take it, sent twice, or reordered")
@State
public class GroupedWriterSharedStripeDrainRace {

    private final DrainRace race = new DrainRace(1);

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
