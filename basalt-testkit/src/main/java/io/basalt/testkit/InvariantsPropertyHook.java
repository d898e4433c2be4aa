package io.basalt.testkit;

import java.util.Set;
import net.jqwik.api.lifecycle.AroundPropertyHook;
import net.jqwik.api.lifecycle.PropagationMode;
import net.jqwik.api.lifecycle.PropertyExecutionResult;
import net.jqwik.api.lifecycle.PropertyExecutor;
import net.jqwik.api.lifecycle.PropertyLifecycleContext;

/**
 * The jqwik side of {@link InvariantsExtension}: checks every {@link TestInvariant} once after
 * each property (all its tries), registered globally through
 * {@code META-INF/services/net.jqwik.api.lifecycle.LifecycleHook}.
 */
public final class InvariantsPropertyHook implements AroundPropertyHook {

    /** Public for {@link java.util.ServiceLoader}. */
    public InvariantsPropertyHook() {}

    @Override
    public PropagationMode propagateTo() {
        return PropagationMode.ALL_DESCENDANTS;
    }

    @Override
    public PropertyExecutionResult aroundProperty(PropertyLifecycleContext context, PropertyExecutor property) {
        Set<String> ignored = Invariants.ignored(context.containerClass(), context.targetMethod());
        String name = context.containerClass().getSimpleName() + "." + context.targetMethod().getName();
        Invariants.before(name);
        PropertyExecutionResult result = property.execute();
        String violations = Invariants.violations(ignored, name);
        if (violations == null || result.status() == PropertyExecutionResult.Status.FAILED) {
            if (violations != null && result.throwable().isPresent()) {
                result.throwable().get().addSuppressed(new AssertionError(violations));
            }
            return result;
        }
        return result.mapToFailed(new AssertionError(violations));
    }
}
