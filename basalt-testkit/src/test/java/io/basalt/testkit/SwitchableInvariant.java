package io.basalt.testkit;

/** A test invariant that a sample test breaks on purpose, to prove the extension notices. */
public final class SwitchableInvariant implements TestInvariant {

    private static volatile String broken;

    /** Public for {@link java.util.ServiceLoader}. */
    public SwitchableInvariant() {}

    /** Makes the invariant report {@code message} at the end of the current test. */
    public static void breakWith(String message) {
        broken = message;
    }

    @Override
    public String name() {
        return "switchable";
    }

    @Override
    public void beforeEach(String testName) {
        broken = null;
    }

    @Override
    public String violation(String testName) {
        String message = broken;
        broken = null;
        return message;
    }
}
