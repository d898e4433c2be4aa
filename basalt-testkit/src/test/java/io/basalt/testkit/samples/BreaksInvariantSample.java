package io.basalt.testkit.samples;

import io.basalt.testkit.IgnoreInvariants;
import io.basalt.testkit.SwitchableInvariant;
import org.junit.jupiter.api.Test;

/** Run only through the engine test kit by {@code InvariantsExtensionTest}. */
class BreaksInvariantSample {

    @Test
    void breaksTheInvariant() {
        SwitchableInvariant.breakWith("left 1 buffer unreleased");
    }

    @Test
    void keepsTheInvariant() {}

    @Test
    @IgnoreInvariants(value = "switchable", because = "this sample checks the opt-out")
    void breaksItWithPermission() {
        SwitchableInvariant.breakWith("ignored on purpose");
    }
}
