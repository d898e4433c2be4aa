package io.basalt.bench.metrics;

import io.basalt.server.ServerConfig;
import org.openjdk.jmh.annotations.Param;

/**
 * Suite {@code metrics} (issue 22): what recording each request in the server's metrics costs,
 * end to end. A server on 127.0.0.1 with the store behind it ({@link Durability#ASYNC}, so the
 * disk does not set the pace) and a client in this JVM; the only difference between the two
 * settings of {@code metrics} is {@link ServerConfig#requestMetrics()}:
 * <ul>
 *   <li>{@code on} (the default, the baseline of the ratios): each request's start time goes into
 *       its connection's {@code RequestTimes}, and its answer records the op's count, errors and
 *       latency ({@code ServerMetrics.requestDone});</li>
 *   <li>{@code off}: neither, no clock read either.</li>
 * </ul>
 * The HTTP endpoint is on in both, as it is by default (on a free port), so with {@code on} its
 * sampler reads the request metrics once a second, as in a running server.
 * The claim is that this recording is allocation-free and takes no shared lock, so the two
 * should measure level, within the error bars, for puts and for gets, at one stream and at many.
 *
 * The loop is {@link LoopbackRequestBenchmark}'s.
 *
 * <p>Not measured here: the store's own counters (flushes, compactions, block cache, locks, the
 * log), which are always on. They are counters the engine keeps for its own work whatever the
 * server does, and a scrape reads them; there is no setting to turn them off, so nothing to
 * compare.
 */
public class MetricsOverheadBenchmark extends LoopbackRequestBenchmark {

    /** {@link ServerConfig#requestMetrics()}: {@code on} or {@code off}. */
    @Param({"on", "off"})
    public String metrics;

    @Override
    protected ServerConfig.Builder server(ServerConfig.Builder defaults) {
        return defaults.requestMetrics(switch (metrics) {
            case "on" -> true;
            case "off" -> false;
            default -> throw new IllegalArgumentException("metrics is on or off, not " + metrics);
        });
    }
}
