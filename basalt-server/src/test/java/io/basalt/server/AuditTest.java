package io.basalt.server;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** Issue 23: a quoted audit value stays on its line and inside its quotes, whatever it holds. */
class AuditTest {

    @Test
    void quotesLineBreaksAndBackslashesAreEscaped() {
        assertThat(Audit.quote("t")).isEqualTo("\"t\"");
        assertThat(Audit.quote("a\" outcome=ok\nforged")).isEqualTo("\"a\\\" outcome=ok\\nforged\"")
                .doesNotContain("\n");
        assertThat(Audit.quote("back\\slash\r")).isEqualTo("\"back\\\\slash\\r\"");
        assertThat(Audit.quote(null)).isEqualTo("\"null\"");
    }
}
