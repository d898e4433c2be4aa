package io.basalt.lock;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.II_Result;

/**
 * Read/write exclusion through the queue ({@code StripeLock}, an AQS): a read and a write of a
 * stripe on a level without reader bias. Outcomes of a {@link Stripes.Pair}:
 * any overlap of the two critical sections shows as {@code (0, 1)}.
 */
@JCStressTest
@Outcome(id = "0, 0", expect = ACCEPTABLE, desc = "the read ran first")
@Outcome(id = "1, 1", expect = ACCEPTABLE, desc = "the write ran first")
@Outcome(id = "0, 1", expect = FORBIDDEN, desc = "the reader was inside while the writer wrote")
@Outcome(id = "1, 0", expect = FORBIDDEN, desc = "the reader saw half a write")
@State
public class QueuedReadVersusWrite {

    private final Stripes.Pair pair = new Stripes.Pair(Stripes.plain());

    @Actor
    public void reader(II_Result r) {
        pair.read(r);
    }

    @Actor
    public void writer() {
        pair.write();
    }
}
