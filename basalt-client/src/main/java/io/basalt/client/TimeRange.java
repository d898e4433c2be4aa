package io.basalt.client;

/**
 * Timestamps from {@code min} (inclusive) to {@code max} (exclusive).
 */
public record TimeRange(long min, long max) {

    /** Every timestamp. */
    public static final TimeRange ALL = new TimeRange(0, Long.MAX_VALUE);

    public TimeRange {
        if (min < 0 || max < min) {
            throw new IllegalArgumentException("time range [" + min + ", " + max + ") is empty or negative");
        }
    }

    /** Exactly one timestamp. */
    public static TimeRange at(long timestamp) {
        return new TimeRange(timestamp, timestamp == Long.MAX_VALUE ? Long.MAX_VALUE : timestamp + 1);
    }

    public boolean includes(long timestamp) {
        return timestamp >= min && (timestamp < max || (max == Long.MAX_VALUE && timestamp == Long.MAX_VALUE));
    }

    public boolean isAll() {
        return min == 0 && max == Long.MAX_VALUE;
    }
}
