package io.basalt.bench.cells;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class KeyComparisonTest {

    @Test
    void bothImplementationsOrderTheBenchmarkDataTheSameWay() throws Exception {
        CellCompareBenchmark basalt = new CellCompareBenchmark();
        basalt.impl = "basalt";
        basalt.memory = "off-heap";
        basalt.setUp();
        CellCompareBenchmark naive = new CellCompareBenchmark();
        naive.impl = "naive";
        naive.memory = "heap";
        naive.setUp();
        try {
            int signs = basalt.compare();
            assertThat(naive.compare()).isEqualTo(signs);
            // Neighbours in sorted order compare <= 0, so the sum is far from zero: the data is
            // really sorted and the comparisons really ran.
            assertThat(signs).isLessThan(-CellCompareBenchmark.PAIRS / 4);
        } finally {
            basalt.tearDown();
            naive.tearDown();
        }
    }
}
