package io.basalt.lock;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.IIII_Result;

/**
 * A revoked stripe coming back to bias, against a writer. The state's stripe had its bias revoked
 * and then 63 queued-path reads, so the reader's first read is the 64th
 * ({@code LevelLocks.REBIAS_AFTER_QUEUED_READS}): it goes through the queue and raises the bias
 * flag while it holds the read lock; its second read takes the fast path (unless the writer has
 * revoked the bias again meanwhile). Each read must see the writer's two stores both or neither,
 * and the second no less than the first.
 */
@JCStressTest
@Outcome(id = "0, 0, 0, 0", expect = ACCEPTABLE, desc = "both reads ran before the write")
@Outcome(id = "0, 0, 1, 1", expect = ACCEPTABLE, desc = "the write ran between the two reads")
@Outcome(id = "1, 1, 1, 1", expect = ACCEPTABLE, desc = "the write ran first")
@Outcome(expect = FORBIDDEN, desc = "a read overlapped the write, or saw it and then did not")
@State
public class RebiasingReadsVersusWrite {

    private final Stripes.Pair pair = new Stripes.Pair(Stripes.revoked(LevelLocks.REBIAS_AFTER_QUEUED_READS - 1));

    @Actor
    public void reader(IIII_Result r) {
        pair.readTwice(r);
    }

    @Actor
    public void writer() {
        pair.write();
    }
}
