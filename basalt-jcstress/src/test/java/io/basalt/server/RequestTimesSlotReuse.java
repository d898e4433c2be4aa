package io.basalt.server;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.JZJ_Result;

/**
 * {@link RequestTimes}: a finisher removes request A while the event loop starts request B, in a
 * table whose only slot B can take is A's (every other slot holds a request that stays). The
 * remover reads A's start before it empties the slot, and the insert writes B's start only after
 * it saw the slot empty, so the finisher gets A's start, never B's, and B's start stays for B.
 *
 * <p>r1: what finish(A) returned; r2: whether start(B) found a slot (only when A's was already
 * emptied); r3: what finish(B) returns afterwards.
 *
 * <p>With finish reading the start after its compare-and-set (2026-11-27, quick mode, 2 cores)
 * this saw the forbidden {@code 200, true, 200} 189,545 times in 64.6 million samples.
 */
@JCStressTest
@Outcome(id = "100, true, 200", expect = ACCEPTABLE, desc = "A removed, then B took its slot")
@Outcome(id = "100, false, " + RequestTimes.UNKNOWN, expect = ACCEPTABLE,
        desc = "B came while A still held the last slot: table full, B untimed")
@Outcome(id = "200, true, .*", expect = FORBIDDEN,
        desc = "A's finisher read B's start: the slot was emptied before its start was read")
@Outcome(expect = FORBIDDEN, desc = "a start lost or swapped")
@State
public class RequestTimesSlotReuse {

    private static final long A = 1_000;
    private static final long B = 2_000;

    private final RequestTimes times = new RequestTimes(1);

    public RequestTimesSlotReuse() {
        times.start(A, 100);
        for (long other = 1; other < times.capacity(); other++) {
            times.start(other, other);
        }
    }

    @Actor
    public void finisher(JZJ_Result r) {
        r.r1 = times.finish(A);
    }

    @Actor
    public void eventLoop(JZJ_Result r) {
        r.r2 = times.start(B, 200);
    }

    @Arbiter
    public void after(JZJ_Result r) {
        r.r3 = times.finish(B);
    }
}
