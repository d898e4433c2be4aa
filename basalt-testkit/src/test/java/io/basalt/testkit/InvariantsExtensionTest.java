package io.basalt.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.platform.engine.discovery.DiscoverySelectors.selectMethod;

import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.platform.testkit.engine.EngineTestKit;
import org.junit.platform.testkit.engine.Event;
import org.junit.platform.testkit.engine.Events;

class InvariantsExtensionTest {

    private static final String SAMPLE = "io.basalt.testkit.samples.BreaksInvariantSample";
    private static final String PROPERTY_SAMPLE = "io.basalt.testkit.samples.BreaksInvariantPropertySample";

    private static Events runJupiter(String method) {
        return EngineTestKit.engine("junit-jupiter")
                .configurationParameter("junit.jupiter.extensions.autodetection.enabled", "true")
                .selectors(selectMethod(SAMPLE + "#" + method))
                .execute()
                .testEvents();
    }

    private static Optional<Throwable> failure(Events events) {
        return events.failed().stream().findFirst().flatMap(Event::getPayload)
                .map(p -> ((org.junit.platform.engine.TestExecutionResult) p).getThrowable().orElseThrow());
    }

    @Test
    void testThatBreaksAnInvariantFailsNamingIt() {
        Events events = runJupiter("breaksTheInvariant");

        assertThat(events.failed().count()).isEqualTo(1);
        assertThat(failure(events)).get().isInstanceOf(AssertionError.class)
                .extracting(Throwable::getMessage).asString()
                .contains("[switchable]")
                .contains("left 1 buffer unreleased")
                .contains("breaksTheInvariant");
    }

    @Test
    void testThatKeepsTheInvariantsPasses() {
        Events events = runJupiter("keepsTheInvariant");

        assertThat(events.succeeded().count()).isEqualTo(1);
        assertThat(events.failed().count()).isZero();
    }

    @Test
    void ignoreInvariantsTurnsTheNamedCheckOff() {
        Events events = runJupiter("breaksItWithPermission");

        assertThat(events.succeeded().count()).isEqualTo(1);
        assertThat(events.failed().count()).isZero();
    }

    @Test
    void jqwikPropertyThatBreaksAnInvariantFails() {
        Events events = EngineTestKit.engine("jqwik")
                .selectors(selectMethod(PROPERTY_SAMPLE + "#breaksTheInvariant(int)"))
                .execute()
                .testEvents();

        assertThat(events.failed().count()).isEqualTo(1);
        assertThat(failure(events)).get().extracting(Throwable::getMessage).asString()
                .contains("[switchable]")
                .contains("property left a lock held");
    }

    @Test
    void jqwikPropertyThatKeepsTheInvariantsPasses() {
        Events events = EngineTestKit.engine("jqwik")
                .selectors(selectMethod(PROPERTY_SAMPLE + "#keepsTheInvariant(int)"))
                .execute()
                .testEvents();

        assertThat(events.succeeded().count()).isEqualTo(1);
        assertThat(events.failed().count()).isZero();
    }
}
