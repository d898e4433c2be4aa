package io.basalt.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

class JmhJsonTest {

    @Test
    void concatenatesArraysAndSkipsEmptyOnes() {
        String merged = JmhJson.concat(List.of("[\n {\"a\":1}\n]", "[ ]", "[{\"b\":2},{\"c\":3}]\n"));

        assertThat(merged.replaceAll("\\s", "")).isEqualTo("[{\"a\":1},{\"b\":2},{\"c\":3}]");
    }

    @Test
    void refusesSomethingThatIsNotAnArray() {
        assertThatThrownBy(() -> JmhJson.concat(List.of("{\"a\":1}")))
                .hasMessageStartingWith("JMH result is not a JSON array");
    }
}
