package io.basalt.lock;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.II_Result;

/**
 * The race the reader bias must win: the first read of a biased stripe (fast path: increment the
 * slot's indicator, re-check the bias flag) against the first write (take the stripe, lower the
 * flag, drain the indicators). Whatever the interleaving, the writer must not write while the
 * reader is inside, nor the reader enter while the writer is.
 *
 * <p>Outcomes of a {@link Stripes.Pair}: any overlap of the two critical sections shows as
 * {@code (0, 1)}.
 *
 * <p>With the reader's re-check of the flag removed ({@code LevelLocks.acquireRead} returning right
 * after the increment), a writer that lowered the flag and found the reader's counter still zero
 * proceeds while the reader, which read the flag up just before, walks in: this test then saw
 * {@code (0, 1)} 101 times in 1.28 million samples (see {@code docs/locks.md}).
 */
@JCStressTest
@Outcome(id = "0, 0", expect = ACCEPTABLE, desc = "the read ran first")
@Outcome(id = "1, 1", expect = ACCEPTABLE, desc = "the write ran first")
@Outcome(id = "0, 1", expect = FORBIDDEN, desc = "the reader was inside while the writer wrote")
@Outcome(id = "1, 0", expect = FORBIDDEN, desc = "the reader saw half a write")
@State
public class BiasedReadVersusRevokingWrite {

    private final Stripes.Pair pair = new Stripes.Pair(Stripes.biased());

    @Actor
    public void reader(II_Result r) {
        pair.read(r);
    }

    @Actor
    public void writer() {
        pair.write();
    }
}
