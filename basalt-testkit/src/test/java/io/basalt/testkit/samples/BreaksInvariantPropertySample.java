package io.basalt.testkit.samples;

import io.basalt.testkit.SwitchableInvariant;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;

/** Run only through the engine test kit by {@code InvariantsExtensionTest}. */
class BreaksInvariantPropertySample {

    @Property(tries = 5)
    void breaksTheInvariant(@ForAll int ignored) {
        SwitchableInvariant.breakWith("property left a lock held");
    }

    @Property(tries = 5)
    void keepsTheInvariant(@ForAll int ignored) {}
}
