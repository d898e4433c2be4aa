package io.basalt.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.basalt.bench.ycsb.YcsbCell;
import java.util.List;
import org.apache.hbase.thirdparty.com.google.gson.JsonArray;
import org.apache.hbase.thirdparty.com.google.gson.JsonObject;
import org.apache.hbase.thirdparty.com.google.gson.JsonParser;
import org.junit.jupiter.api.Test;

class YcsbSuiteTest {

    private static final List<String> CELL_LINES = List.of(
            "result\tbasalt\t8\tload\t1000.0\t0\t900,1000,1100",
            "latency\tbasalt\t8\tload\tINSERT\t3000\t10\t90\t400\t900",
            "result\tbasalt\t8\tE\t50.0\t0\t40,60",
            "latency\tbasalt\t8\tE\tSCAN\t100\t100\t900\t2000\t4000",
            "series\tbasalt\t8\tE\t1\t40\t12\t1048576",
            "storage\tbasalt\t8\t12\t2097152\t3000\t1000\t1048576",
            "result\trocksdb\t8\tload\t2000.0\t0\t2000,2000,2000",
            "result\trocksdb\t8\tE\t100.0\t0\t100,100",
            "storage\trocksdb\t8\t20\t3145728\t-1\t1000\t1048576");

    @Test
    void theResultsAreWrittenInJmhsJsonShape() {
        YcsbSuite.Settings settings = YcsbSuite.Settings.of(true, List.of("records=1000"));
        JsonArray records = JsonParser.parseString(YcsbSuite.Results.parse(CELL_LINES).json(settings)).getAsJsonArray();
        assertThat(records).hasSize(4);
        JsonObject load = records.get(0).getAsJsonObject();
        assertThat(load.get("benchmark").getAsString()).isEqualTo("io.basalt.bench.ycsb.Ycsb.load");
        assertThat(load.get("mode").getAsString()).isEqualTo("thrpt");
        assertThat(load.get("threads").getAsInt()).isEqualTo(8);
        assertThat(load.getAsJsonObject("params").get("impl").getAsString()).isEqualTo("basalt");
        assertThat(load.getAsJsonObject("params").get("records").getAsString()).isEqualTo("1000");
        List<String> jvmArgs = new java.util.ArrayList<>();
        load.getAsJsonArray("jvmArgs").forEach(a -> jvmArgs.add(a.getAsString()));
        assertThat(jvmArgs).as("the cells' JVM flags, as the cells ran").isEqualTo(YcsbCell.JVM_ARGS)
                .contains("-Xmx2g", "-XX:InitiatingHeapOccupancyPercent=30", "-XX:-G1UseAdaptiveIHOP");
        JsonObject primary = load.getAsJsonObject("primaryMetric");
        assertThat(primary.get("score").getAsDouble()).isEqualTo(1000.0);
        assertThat(primary.get("scoreUnit").getAsString()).isEqualTo("ops/s");
        assertThat(primary.get("scoreError").getAsDouble()).isPositive();
        assertThat(primary.getAsJsonArray("rawData").get(0).getAsJsonArray()).hasSize(3);
        assertThat(load.getAsJsonObject("secondaryMetrics").getAsJsonObject("INSERT p99").get("score").getAsDouble())
                .isEqualTo(90.0);
        JsonObject scans = records.get(1).getAsJsonObject().getAsJsonObject("secondaryMetrics");
        assertThat(scans.getAsJsonObject("write amplification").get("score").getAsDouble()).isEqualTo(3.0);
        assertThat(scans.getAsJsonObject("space amplification").get("score").getAsDouble()).isEqualTo(2.0);
        // RocksDB's process I/O unknown (-1): NaN, as JMH writes it, not a made-up number
        JsonObject rocksScans = records.get(3).getAsJsonObject().getAsJsonObject("secondaryMetrics");
        assertThat(rocksScans.getAsJsonObject("write amplification").get("score").getAsString()).isEqualTo("NaN");
    }

    @Test
    void rowsCarryTheRatioAgainstBasalt() {
        List<ResultRow> rows = YcsbSuite.Results.parse(CELL_LINES).rows(YcsbSuite.Settings.of(false, List.of()));
        ResultRow basaltLoad = rows.get(0);
        ResultRow rocksLoad = rows.get(2);
        assertThat(rocksLoad.impl()).isEqualTo("rocksdb");
        assertThat(rocksLoad.groupKey()).isEqualTo(basaltLoad.groupKey());
        assertThat(rocksLoad.baselineSpeedup(basaltLoad)).isEqualTo(0.5);
        assertThat(YcsbSuite.Results.parse(CELL_LINES).seriesCsv())
                .containsExactly("impl,threads,phase,second,ops,files,disk_bytes", "basalt,8,E,1,40,12,1048576");
    }

    @Test
    void settingsRefuseWhatTheSuiteDoesNotTake() {
        assertThat(YcsbSuite.Settings.of(true, List.of()).records()).isEqualTo(50_000);
        assertThat(YcsbSuite.Settings.of(false, List.of()).warmup()).as("a full run warms up long enough for the JIT")
                .isEqualTo(20);
        assertThat(YcsbSuite.Settings.of(true, List.of()).warmup()).isZero();
        assertThat(YcsbSuite.Settings.of(false, List.of("warmup=7")).warmup()).isEqualTo(7);
        assertThat(YcsbSuite.Settings.of(false, List.of("threads=2,4", "impl=rocksdb")).threads()).containsExactly(2, 4);
        assertThatThrownBy(() -> YcsbSuite.Settings.of(false, List.of("rows=5")))
                .hasMessageContaining("no parameter 'rows'");
        assertThatThrownBy(() -> YcsbSuite.Settings.of(true, List.of("records=1000000")))
                .hasMessageContaining("at most 50,000");
        assertThatThrownBy(() -> YcsbSuite.Settings.of(false, List.of("records")))
                .hasMessageContaining("expected NAME=VALUE");
    }

    @Test
    void theErrorIsJmhsConfidenceHalfWidth() {
        assertThat(YcsbSuite.error(new double[] {5})).isNaN();
        assertThat(YcsbSuite.error(new double[] {7, 7, 7})).isZero();
        // n = 2, s = 1.414..: t(0.9995, 1) = 636.62, half-width = 636.62 * 1.414 / 1.414
        assertThat(YcsbSuite.error(new double[] {1, 3})).isCloseTo(636.62, org.assertj.core.data.Offset.offset(0.01));
    }

    @Test
    void theSteadinessTableComparesTheWorstSecondWithTheMedian() {
        List<String> lines = List.of(
                "series\tbasalt\t8\tA\t1\t1000\t10\t1",
                "series\tbasalt\t8\tA\t2\t1100\t12\t1",
                "series\tbasalt\t8\tA\t3\t250\t6\t1",
                "series\tbasalt\t8\tA\t4\t1050\t6\t1",
                "series\tbasalt\t8\tA\t5\t10\t6\t1"); // the last, partial second: left out
        String table = YcsbSuite.Results.parse(lines).steadinessTable(0);
        assertThat(table).contains("basalt", "1,050", "250", "4.2x", "6-12");
    }

    /** Series lines of one phase, a second per count of operations, 5 files throughout. */
    private static List<String> series(String impl, String phase, long... ops) {
        List<String> lines = new java.util.ArrayList<>();
        for (int i = 0; i < ops.length; i++) {
            lines.add("series\t" + impl + "\t8\t" + phase + "\t" + (i + 1) + "\t" + ops[i] + "\t5\t1");
        }
        return lines;
    }

    @Test
    void aWorkloadsWarmUpSecondsAreShownApartFromItsDrop() {
        List<String> lines = series("basalt", "A", 300, 600, 800, 900, 950, 1000, 1020, 600, 1010, 990, 1000, 3);
        String table = YcsbSuite.Results.parse(lines).steadinessTable(5);
        // measured seconds 6-11: median 1,000, worst 600 (second 8); the warm-up's worst was 300
        assertThat(table).contains("1,000", " 600", "1.7x", " 300 ").doesNotContain("3.2x");
        assertThat(YcsbSuite.Results.parse(lines).steadinessTable(0)).as("with no warm-up every second counts")
                .contains("950", "3.2x");
    }

    @Test
    void theLoadsFirstSecondsAreWarmUpNotAStall() {
        List<String> lines = series("server", "load", 40, 300, 700, 900, 950, 1000, 1020, 500, 1010, 990, 1000, 3);
        String table = YcsbSuite.Results.parse(lines).steadinessTable(5);
        // seconds 6-11 count: median 1,000, worst 500 (second 8), not the 40 of the first second
        assertThat(table).contains("1,000", "500", "2.0x").doesNotContain("25.0x");
        assertThat(table).contains("first 5 s");
    }
}
