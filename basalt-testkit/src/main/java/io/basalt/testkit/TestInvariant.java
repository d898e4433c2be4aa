package io.basalt.testkit;

/**
 * A property of the whole process that must hold after every test, such as "no pooled buffer
 * leaked" or "this thread holds no lock".
 *
 * <p>Implementations are found with {@link java.util.ServiceLoader}: a module that owns an
 * invariant lists its implementation in {@code META-INF/services/io.basalt.testkit.TestInvariant}
 * of its test-jar (or test resources), and {@link InvariantsExtension} runs it after each JUnit
 * test and each jqwik property of every module that has it on the test class path.
 *
 * <p>An invariant is consulted from the thread that ran the test. It must be cheap: it runs
 * thousands of times per build.
 */
public interface TestInvariant {

    /** A short stable name, used in failure messages and by {@link IgnoreInvariants}. */
    String name();

    /** Called before each test; an invariant that counts events resets its baseline here. */
    default void beforeEach(String testName) {}

    /**
     * Called after each test. Returns {@code null} when the invariant holds, otherwise a message
     * that says what is wrong and where it came from (for a leak: where the buffer was allocated).
     */
    String violation(String testName);
}
