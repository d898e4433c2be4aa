package io.basalt.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.lang.reflect.Field;
import java.util.Arrays;
import org.junit.jupiter.api.Test;
import org.openjdk.jmh.annotations.Param;

class SuiteTest {

    @Test
    void unknownSuiteErrorListsTheKnownOnes() {
        assertThatThrownBy(() -> Suite.named("nope"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("no benchmark suite 'nope'; known suites: cells");
    }

    @Test
    void everySuiteComparesAgainstTheBaselineThroughItsComparedParam() throws Exception {
        for (Suite suite : Suite.values()) {
            assertThat(Suite.named(suite.suiteName())).isSameAs(suite);
            assertThat(suite.threads()).isNotEmpty();
            for (Class<?> benchmark : suite.benchmarks()) {
                Field compared = benchmark.getField(suite.comparedParam());
                String[] values = compared.getAnnotation(Param.class).value();
                assertThat(values).as(benchmark.getName()).contains(suite.baseline()).hasSizeGreaterThan(1);
                assertThat(benchmark.getName() + ".compare").containsPattern(suite.includePattern());
            }
        }
    }

    @Test
    void includePatternSelectsOnlyTheSuitesClasses() {
        String pattern = Suite.CELLS.includePattern();
        assertThat("io.basalt.bench.cells.CellCompareBenchmark.compare").containsPattern(pattern);
        assertThat("io.basalt.bench.cells.CellCompareBenchmarkOther.compare").doesNotContainPattern(pattern);
        assertThat(Arrays.stream(Suite.values()).map(Suite::suiteName)).doesNotHaveDuplicates();
    }
}
