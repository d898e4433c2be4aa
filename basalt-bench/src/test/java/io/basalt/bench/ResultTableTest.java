package io.basalt.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ResultTableTest {

    private static ResultRow time(String impl, double nsPerOp, int threads) {
        return new ResultRow("compare", impl, Map.of("memory", "heap"), threads, nsPerOp, 0.5, "ns/op", false);
    }

    private static ResultRow throughput(String impl, double opsPerSecond) {
        return new ResultRow("hotRead", impl, Map.of(), 2, opsPerSecond, Double.NaN, "ops/s", true);
    }

    @Test
    void speedupForTimePerOperationIsTheirTimeOverOurs() {
        assertThat(time("naive", 30, 1).baselineSpeedup(time("basalt", 10, 1))).isEqualTo(3.0);
    }

    @Test
    void speedupForThroughputIsOurRateOverTheirs() {
        assertThat(throughput("guava-striped", 100).baselineSpeedup(throughput("basalt", 450))).isEqualTo(4.5);
    }

    @Test
    void tableShowsRatiosWithinTheSameParametersAndThreadsOnly() {
        String table = ResultTable.render(List.of(
                time("basalt", 10, 1), time("naive", 25, 1),
                time("basalt", 40, 2), time("naive", 40, 2),
                time("naive", 99, 4)), "basalt");

        assertThat(table.lines().filter(l -> l.startsWith("compare")).toList())
                .hasSize(5)
                .anySatisfy(l -> assertThat(l).contains("naive").contains(" 1 ").endsWith("2.50"))
                .anySatisfy(l -> assertThat(l).contains("naive").contains(" 2 ").endsWith("1.00"))
                .anySatisfy(l -> assertThat(l).contains("naive").contains(" 4 ").endsWith("-"));
        assertThat(table).contains("memory=heap").contains("± 0.5000").contains("basalt ×");
    }

    /** Suite metrics: the column is the setting, and the off row's ratio is on's rate over off's. */
    @Test
    void aSuiteComparingASettingNamesItsColumnAndBaseline() {
        String table = ResultTable.render(List.of(throughput("on", 98_000), throughput("off", 100_000)),
                Suite.METRICS.comparedParam(), Suite.METRICS.baseline());
        assertThat(table.lines().findFirst().orElseThrow()).contains("  metrics  ").endsWith("on ×");
        assertThat(table.lines().filter(l -> l.startsWith("hotRead")).toList())
                .anySatisfy(l -> assertThat(l).contains(" on ").endsWith("1.00"))
                .anySatisfy(l -> assertThat(l).contains(" off ").endsWith("0.98"));
        assertThat(table).contains("than the row's metrics,");
    }
}
