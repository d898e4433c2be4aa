package io.basalt.lock;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.II_Result;

/**
 * Read/write exclusion on a reader-biased level after a revocation: the bias flag is down, so the
 * read goes through the queue, and the writer finds the flag down and revokes nothing. Outcomes of
 * a {@link Stripes.Pair}: any overlap shows as {@code (0, 1)}.
 */
@JCStressTest
@Outcome(id = "0, 0", expect = ACCEPTABLE, desc = "the read ran first")
@Outcome(id = "1, 1", expect = ACCEPTABLE, desc = "the write ran first")
@Outcome(id = "0, 1", expect = FORBIDDEN, desc = "the reader was inside while the writer wrote")
@Outcome(id = "1, 0", expect = FORBIDDEN, desc = "the reader saw half a write")
@State
public class ReadAfterRevocationVersusWrite {

    private final Stripes.Pair pair = new Stripes.Pair(Stripes.revoked(0));

    @Actor
    public void reader(II_Result r) {
        pair.read(r);
    }

    @Actor
    public void writer() {
        pair.write();
    }
}
