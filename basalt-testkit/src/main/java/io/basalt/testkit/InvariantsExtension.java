package io.basalt.testkit;

import java.util.Set;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Checks every {@link TestInvariant} after each JUnit Jupiter test and fails the test that broke
 * one.
 *
 * <p>Registered for every module automatically: this jar lists it in
 * {@code META-INF/services/org.junit.jupiter.api.extension.Extension} and the parent POM turns on
 * {@code junit.jupiter.extensions.autodetection.enabled} for Surefire and Failsafe. jqwik
 * properties get the same checks through {@link InvariantsPropertyHook}.
 */
public final class InvariantsExtension implements BeforeEachCallback, AfterEachCallback {

    private static final ExtensionContext.Namespace NAMESPACE =
            ExtensionContext.Namespace.create(InvariantsExtension.class);

    /** Public for {@link java.util.ServiceLoader}. */
    public InvariantsExtension() {}

    @Override
    public void beforeEach(ExtensionContext context) {
        Set<String> ignored = Invariants.ignored(context.getRequiredTestClass(), context.getTestMethod().orElse(null));
        context.getStore(NAMESPACE).put(IgnoreInvariants.class, ignored);
        Invariants.before(context.getDisplayName());
    }

    @Override
    public void afterEach(ExtensionContext context) {
        @SuppressWarnings("unchecked")
        Set<String> ignored = (Set<String>) context.getStore(NAMESPACE).get(IgnoreInvariants.class, Set.class);
        if (ignored == null) {
            return;
        }
        String name = context.getRequiredTestClass().getSimpleName() + "." + context.getDisplayName();
        String violations = Invariants.violations(ignored, name);
        if (violations != null) {
            throw new AssertionError(violations);
        }
    }
}
