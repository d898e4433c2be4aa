package io.basalt.server;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.JJ_Result;

/**
 * {@link RequestTimes}: two threads finish the same id, recorded once (a client that sent the id
 * twice while the table had room for one). Both may see the slot hold the id; the compare-and-set
 * that empties it decides which one takes the start, and the other gets {@code UNKNOWN}.
 *
 * <p>r1, r2: what each finisher's finish returned.
 *
 * <p>With the compare-and-set replaced by a plain store of EMPTY (2026-11-27, quick mode, 2 cores)
 * this saw the forbidden {@code 100, 100} 13.3 million times in 26.1 million samples.
 */
@JCStressTest
@Outcome(id = {"100, " + RequestTimes.UNKNOWN, RequestTimes.UNKNOWN + ", 100"}, expect = ACCEPTABLE,
        desc = "one finisher took the start, the other found nothing")
@Outcome(id = "100, 100", expect = FORBIDDEN, desc = "both took the one start: the removal is not atomic")
@Outcome(id = RequestTimes.UNKNOWN + ", " + RequestTimes.UNKNOWN, expect = FORBIDDEN,
        desc = "the start was lost")
@Outcome(expect = FORBIDDEN, desc = "a start nobody recorded")
@State
public class RequestTimesDuplicateFinish {

    private static final long A = 1_000;

    private final RequestTimes times = new RequestTimes(1);

    public RequestTimesDuplicateFinish() {
        times.start(A, 100);
    }

    @Actor
    public void first(JJ_Result r) {
        r.r1 = times.finish(A);
    }

    @Actor
    public void second(JJ_Result r) {
        r.r2 = times.finish(A);
    }
}
