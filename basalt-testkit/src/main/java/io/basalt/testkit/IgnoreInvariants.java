package io.basalt.testkit;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Turns named invariants off for one test class or method, for tests that break an invariant on
 * purpose (a test of the leak detector leaks). The reason is mandatory so reviewers see why.
 */
@Retention(RetentionPolicy.RUNTIME)
@Target({ElementType.TYPE, ElementType.METHOD})
public @interface IgnoreInvariants {

    /** Names as returned by {@link TestInvariant#name()}. */
    String[] value();

    /** Why breaking these invariants is the point of the test. */
    String because();
}
