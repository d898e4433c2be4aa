package io.basalt.lock;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.II_Result;

/**
 * Writer/writer exclusion on a fresh reader-biased stripe (the first writer also revokes the
 * bias): two writers each read the counter and store it plus one, non-atomically. Each reports
 * what it read; exclusion means one read 0 and the other 1.
 */
@JCStressTest
@Outcome(id = {"0, 1", "1, 0"}, expect = ACCEPTABLE, desc = "one write after the other")
@Outcome(id = "0, 0", expect = FORBIDDEN, desc = "both writers were inside at once: an update was lost")
@Outcome(expect = FORBIDDEN, desc = "a writer saw a value nobody wrote before it")
@State
public class WriteVersusWrite {

    private final Stripes.Stripe stripe = Stripes.biased();
    private int counter;

    @Actor
    public void first(II_Result r) {
        try (LockHandle _ = stripe.write()) {
            int seen = counter;
            r.r1 = seen;
            Stripes.dwell();
            counter = seen + 1;
        }
    }

    @Actor
    public void second(II_Result r) {
        try (LockHandle _ = stripe.write()) {
            int seen = counter;
            r.r2 = seen;
            Stripes.dwell();
            counter = seen + 1;
        }
    }
}
