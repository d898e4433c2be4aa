package io.basalt.bench;

import java.util.Map;
import java.util.TreeMap;
import org.openjdk.jmh.results.Result;
import org.openjdk.jmh.results.RunResult;

/**
 * One line of a suite's results: a benchmark method at one implementation, one set of other
 * parameters and one thread count.
 *
 * @param impl the value of the suite's compared parameter ({@link Suite#comparedParam()}, the
 *     implementation in most suites), or "-"
 * @param params the parameters other than the compared one, sorted by name
 * @param higherIsBetter true for throughput scores, false for time per operation
 */
record ResultRow(String method, String impl, Map<String, String> params, int threads,
                 double score, double error, String unit, boolean higherIsBetter) {

    static ResultRow of(RunResult run, String comparedParam) {
        var benchParams = run.getParams();
        String fullName = benchParams.getBenchmark();
        Map<String, String> params = new TreeMap<>();
        String impl = "-";
        for (String key : benchParams.getParamsKeys()) {
            if (key.equals(comparedParam)) {
                impl = benchParams.getParam(key);
            } else {
                params.put(key, benchParams.getParam(key));
            }
        }
        Result<?> primary = run.getPrimaryResult();
        boolean higherIsBetter = benchParams.getMode() == org.openjdk.jmh.annotations.Mode.Throughput;
        return new ResultRow(fullName.substring(fullName.lastIndexOf('.') + 1), impl, params,
                benchParams.getThreads(), primary.getScore(), primary.getScoreError(), primary.getScoreUnit(),
                higherIsBetter);
    }

    /** Everything that identifies the measurement except the implementation. */
    String groupKey() {
        return method + "|" + params + "|" + threads;
    }

    /**
     * How many times faster {@code baseline} is than this row: above 1 means the baseline wins.
     * NaN when either score is not a positive number.
     */
    double baselineSpeedup(ResultRow baseline) {
        if (!(score > 0) || !(baseline.score > 0)) {
            return Double.NaN;
        }
        return higherIsBetter ? baseline.score / score : score / baseline.score;
    }
}
