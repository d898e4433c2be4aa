package io.basalt.client;

import io.basalt.bytes.Bytes;
import io.basalt.client.filter.Filter;
import java.util.Collections;
import java.util.NavigableMap;
import java.util.NavigableSet;
import java.util.Objects;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * What {@link Get} and {@link Scan} share: which columns, which timestamps, how many versions.
 *
 * @param <Q> the concrete query, so setters chain
 */
public abstract sealed class Query<Q extends Query<Q>> permits Get, Scan {

    private final NavigableMap<byte[], NavigableSet<byte[]>> columns = new TreeMap<>(Bytes::compare);
    private TimeRange timeRange = TimeRange.ALL;
    private int maxVersions = 1;
    private Consistency consistency = Consistency.STRONG;
    private Filter filter;

    abstract Q self();

    /** Reads every column of {@code family}. */
    public Q addFamily(byte[] family) {
        columns.put(Objects.requireNonNull(family, "family"), new TreeSet<>(Bytes::compare));
        return self();
    }

    /** Reads one column. A family that had all its columns selected keeps them all. */
    public Q addColumn(byte[] family, byte[] qualifier) {
        Objects.requireNonNull(qualifier, "qualifier");
        NavigableSet<byte[]> qualifiers = columns.get(Objects.requireNonNull(family, "family"));
        if (qualifiers == null) {
            qualifiers = new TreeSet<>(Bytes::compare);
            qualifiers.add(qualifier);
            columns.put(family, qualifiers);
        } else if (!qualifiers.isEmpty()) {
            qualifiers.add(qualifier);
        }
        return self();
    }

    /** Only cells with timestamps in {@code range}. */
    public Q setTimeRange(TimeRange range) {
        this.timeRange = Objects.requireNonNull(range, "range");
        return self();
    }

    /** Up to {@code versions} newest versions of each column (default 1). */
    public Q readVersions(int versions) {
        if (versions < 1) {
            throw new IllegalArgumentException("versions is " + versions + "; it must be at least 1");
        }
        this.maxVersions = versions;
        return self();
    }

    /** Reads every version the family keeps. */
    public Q readAllVersions() {
        this.maxVersions = Integer.MAX_VALUE;
        return self();
    }

    /**
     * The selected columns: family to qualifiers, an empty qualifier set meaning the whole family,
     * an empty map meaning every family.
     */
    public NavigableMap<byte[], NavigableSet<byte[]>> columns() {
        return Collections.unmodifiableNavigableMap(columns);
    }

    public TimeRange timeRange() {
        return timeRange;
    }

    public int maxVersions() {
        return maxVersions;
    }

    /** What a cluster may answer this query from (default {@link Consistency#STRONG}); see {@link Consistency}. */
    public Q setConsistency(Consistency consistency) {
        this.consistency = Objects.requireNonNull(consistency, "consistency");
        return self();
    }

    public Consistency consistency() {
        return consistency;
    }

    /**
     * Narrows what the query returns with {@code filter}, evaluated where the data is (see
     * {@link Filter}); {@code null} removes it.
     */
    public Q setFilter(Filter filter) {
        this.filter = filter;
        return self();
    }

    /** The query's filter, or {@code null}. */
    public Filter filter() {
        return filter;
    }

    /** Copies the column, time and version selection (and the consistency and filter) of {@code other} into this query. */
    void copySelection(Query<?> other) {
        other.columns.forEach((family, qualifiers) -> {
            NavigableSet<byte[]> copy = new TreeSet<>(Bytes::compare);
            copy.addAll(qualifiers);
            columns.put(family, copy);
        });
        timeRange = other.timeRange;
        maxVersions = other.maxVersions;
        consistency = other.consistency;
        filter = other.filter;
    }
}
