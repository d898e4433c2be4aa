package io.basalt.lock;

import org.HdrHistogram.Histogram;

/**
 * The counters and latency histograms of one lock level since its manager was created.
 *
 * <p>Counts are exact once the counting threads are quiet (each thread counts in its own fields,
 * summed on request). {@code waitNanos} records every acquisition that had to wait, from the
 * start of its wait until it got the lock; {@code heldNanos} samples one acquisition in 64 per
 * thread, from acquisition to release, because reading the clock costs as much as an uncontended
 * lock and release.
 *
 * @param level the level
 * @param stripes the number of stripes of the level
 * @param readerBiased whether reads of the level use reader indicators
 * @param acquisitions stripe locks taken (a thread re-taking a stripe it holds is not counted)
 * @param contended acquisitions that could not take the lock at once (they queued, or a writer
 *     waited for biased readers to leave), including those that then timed out or were interrupted
 * @param timeouts waits that ran out of time (the request failed with a {@link LockTimeoutException})
 * @param waitNanos wait time of every contended acquisition that was granted, in nanoseconds
 * @param heldNanos sampled held time, in nanoseconds
 */
public record LockLevelMetrics(LockLevel level, int stripes, boolean readerBiased, long acquisitions, long contended,
                               long timeouts,
                               Histogram waitNanos, Histogram heldNanos) {
}
