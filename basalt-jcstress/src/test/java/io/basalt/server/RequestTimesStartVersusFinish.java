package io.basalt.server;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.JJJ_Result;

/**
 * {@link RequestTimes}: the event loop starts request B while another thread finishes B and then
 * A, a request started earlier in a slot of its own. B's slot held B before, at start 50, and was
 * emptied: the insert writes the new start before it publishes the id (release) and the finisher
 * reads the id (acquire) before the start, so a finisher that finds B reads 200, never the 50 left
 * in the slot; and A's start is untouched by B's insert.
 *
 * <p>r1: what the finisher's finish(B) returned (B may not be there yet); r2: its finish(A); r3:
 * what finish(B) returns afterwards.
 *
 * <p>With start publishing the id before writing the start (2026-11-27, quick mode, 2 cores) this
 * saw the forbidden {@code 50, 100, UNKNOWN} 10,959 times in 47.4 million samples. Plain accesses
 * in their right program order (no acquire or release) passed even in tough mode: x86 keeps
 * stores in order and loads in order, and C2 did not swap them here.
 */
@JCStressTest
@Outcome(id = "200, 100, " + RequestTimes.UNKNOWN, expect = ACCEPTABLE, desc = "the finisher found B and took its start")
@Outcome(id = RequestTimes.UNKNOWN + ", 100, 200", expect = ACCEPTABLE, desc = "the finisher looked before B was started")
@Outcome(id = "50, .*", expect = FORBIDDEN,
        desc = "the finisher saw B's id before its start: read the slot's old start")
@Outcome(expect = FORBIDDEN, desc = "a start lost or swapped")
@State
public class RequestTimesStartVersusFinish {

    private static final long A = 1_000;
    private static final long B = 2_000;

    private final RequestTimes times = new RequestTimes(4);

    public RequestTimesStartVersusFinish() {
        times.start(A, 100);
        // B's first slot from its home, left with a stale start: the start below lands there again
        times.start(B, 50);
        times.finish(B);
    }

    @Actor
    public void eventLoop() {
        times.start(B, 200);
    }

    @Actor
    public void finisher(JJJ_Result r) {
        r.r1 = times.finish(B);
        r.r2 = times.finish(A);
    }

    @Arbiter
    public void after(JJJ_Result r) {
        r.r3 = times.finish(B);
    }
}
