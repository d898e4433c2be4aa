package io.basalt.bench;

import java.nio.file.Path;
import org.openjdk.jmh.results.format.ResultFormatType;
import org.openjdk.jmh.runner.options.ChainedOptionsBuilder;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;

/**
 * JMH settings for every suite, in one place (benchmark classes carry no iteration or fork
 * annotations). A full run is what {@code docs/benchmarks.md} quotes; a quick run only proves
 * that every implementation and parameter still runs.
 */
final class BenchDefaults {

    static final int FULL_FORKS = 2;
    static final int FULL_WARMUP_ITERATIONS = 5;
    static final TimeValue FULL_WARMUP_TIME = TimeValue.seconds(1);
    static final int FULL_ITERATIONS = 5;
    static final TimeValue FULL_ITERATION_TIME = TimeValue.seconds(1);

    static final int ENGINE_WARMUP_ITERATIONS = 2;
    static final int ENGINE_ITERATIONS = 3;

    static final int MUTATOR_WARMUP_ITERATIONS = 3;
    static final TimeValue MUTATOR_ITERATION_TIME = TimeValue.seconds(2);

    static final int QUICK_FORKS = 1;
    static final int QUICK_WARMUP_ITERATIONS = 1;
    static final TimeValue QUICK_WARMUP_TIME = TimeValue.milliseconds(200);
    static final int QUICK_ITERATIONS = 2;
    static final TimeValue QUICK_ITERATION_TIME = TimeValue.milliseconds(200);

    /**
     * Flags every forked benchmark JVM gets on top of the ones JMH copies from its parent (which
     * the launcher starts with {@code --enable-native-access=ALL-UNNAMED}).
     */
    static final String[] JVM_ARGS = {"-Xms2g", "-Xmx2g"};
    static final int GROUPING_WARMUP_ITERATIONS = 10;
    static final TimeValue GROUPING_WARMUP_TIME = TimeValue.seconds(2);
    static final TimeValue GROUPING_ITERATION_TIME = TimeValue.seconds(3);

    private BenchDefaults() {}

    static ChainedOptionsBuilder options(Suite suite, boolean quick, int threads, Path json) {
        ChainedOptionsBuilder options = new OptionsBuilder()
                .include(suite.includePattern())
                .threads(threads)
                .jvmArgsAppend(JVM_ARGS)
                .shouldFailOnError(true)
                .resultFormat(ResultFormatType.JSON)
                .result(json.toString());
        if (quick) {
            suite.quickParams().forEach(options::param);
            return options.forks(QUICK_FORKS)
                    .warmupIterations(QUICK_WARMUP_ITERATIONS).warmupTime(QUICK_WARMUP_TIME)
                    .measurementIterations(QUICK_ITERATIONS).measurementTime(QUICK_ITERATION_TIME);
        }
        if (suite == Suite.ENGINE) {
            // One load invocation writes a million rows with a force per thousand (tens of
            // seconds), already far past JIT warm-up: fewer, longer iterations keep the full run
            // near ten minutes while keeping two forks.
            return options.forks(FULL_FORKS)
                    .warmupIterations(ENGINE_WARMUP_ITERATIONS).warmupTime(FULL_WARMUP_TIME)
                    .measurementIterations(ENGINE_ITERATIONS).measurementTime(FULL_ITERATION_TIME);
        }
        if (suite == Suite.MUTATOR) {
            // 100 threads on two cores with a 1 ms sleep per batch: a lock holder that loses its
            // core stalls everyone, and short iterations swing widely (the quick run saw 12.5 ms
            // and 0.36 ms per call in two 200 ms iterations). Two-second iterations, fewer in
            // warm-up (the mutate path is warm within one), keep the run near ten minutes.
            return options.forks(FULL_FORKS)
                    .warmupIterations(MUTATOR_WARMUP_ITERATIONS).warmupTime(MUTATOR_ITERATION_TIME)
                    .measurementIterations(FULL_ITERATIONS).measurementTime(MUTATOR_ITERATION_TIME);
        }
        if (suite == Suite.GROUPING || suite == Suite.METRICS || suite == Suite.AUTH) {
            // Five one-second warm-up iterations left Netty's consolidating pipeline short of its
            // steady state: in one full run its throughput at 50 streams climbed from 190k to 310k
            // puts/s across the measured iterations, and with 20 s of warm-up it settled at 355k.
            // Ten two-second warm-up iterations and three-second measurements let every
            // implementation settle before it is measured. Suite metrics runs the same server and
            // client end to end, and compares two settings whose difference should be small, so it
            // gets the same settling time; so does auth, the same loop with checks on and off.
            return options.forks(FULL_FORKS)
                    .warmupIterations(GROUPING_WARMUP_ITERATIONS).warmupTime(GROUPING_WARMUP_TIME)
                    .measurementIterations(FULL_ITERATIONS).measurementTime(GROUPING_ITERATION_TIME);
        }
        return options.forks(FULL_FORKS)
                .warmupIterations(FULL_WARMUP_ITERATIONS).warmupTime(FULL_WARMUP_TIME)
                .measurementIterations(FULL_ITERATIONS).measurementTime(FULL_ITERATION_TIME);
    }
}
