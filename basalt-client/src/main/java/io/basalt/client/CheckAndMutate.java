package io.basalt.client;

import io.basalt.bytes.Bytes;
import io.basalt.client.filter.CompareOperator;
import io.basalt.client.filter.Filter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;

/**
 * A condition on one row and the mutations of that row to apply, atomically, when it holds. The
 * condition is one of:
 *
 * <ul>
 *   <li><b>a comparison</b> of a value with the newest visible value of {@code family:qualifier},
 *       read as in HBase with the given value on the left: {@code ifMatches(f, q, GREATER, v)}
 *       holds when {@code v} sorts after the column's value ({@link #ifEquals} is the {@code EQUAL}
 *       case). A column without a value fails every comparison;</li>
 *   <li><b>absence</b>: the column has no visible value ({@link Builder#ifAbsent});</li>
 *   <li><b>a filter</b>: a {@link Get} of the row with the filter finds a cell
 *       ({@link Builder#ifMatches(Filter)});</li>
 *   <li><b>none</b>: the mutations always apply, together ({@link AsyncTable#mutateRow}).</li>
 * </ul>
 *
 * A {@link Builder#timeRange time range} limits what the condition sees to cells in it.
 * The mutations are puts and deletes of the row, applied together or not at all.
 */
public final class CheckAndMutate {

    private final byte[] row;
    private final byte[] family;
    private final byte[] qualifier;
    private final CompareOperator operator;
    private final byte[] value;
    private final Filter filter;
    private final boolean unconditional;
    private final TimeRange timeRange;
    private final List<Mutation> mutations;

    private CheckAndMutate(byte[] row, Builder b, List<Mutation> mutations) {
        this.row = row;
        this.family = b.family;
        this.qualifier = b.qualifier;
        this.operator = b.operator;
        this.value = b.value;
        this.filter = b.filter;
        this.unconditional = b.unconditional;
        this.timeRange = b.timeRange;
        this.mutations = List.copyOf(mutations);
        if (this.mutations.isEmpty()) {
            throw new IllegalArgumentException("check-and-mutate needs at least one mutation");
        }
        for (Mutation mutation : this.mutations) {
            if (mutation instanceof Increment || mutation instanceof Append) {
                throw new IllegalArgumentException("check-and-mutate applies puts and deletes, not "
                        + (mutation instanceof Append ? "appends" : "increments"));
            }
            if (!Arrays.equals(mutation.row(), row)) {
                throw new IllegalArgumentException("check-and-mutate on row " + Bytes.toStringBinary(row)
                        + " got a mutation of row " + Bytes.toStringBinary(mutation.row()));
            }
        }
    }

    /** Starts a check on {@code row}. */
    public static Builder onRow(byte[] row) {
        return new Builder(Objects.requireNonNull(row, "row"));
    }

    public byte[] row() {
        return row;
    }

    /** The column compared or required absent; {@code null} for a filter or no condition. */
    public byte[] family() {
        return family;
    }

    public byte[] qualifier() {
        return qualifier;
    }

    /** The comparison, or {@code null} when the column must be absent (or for a filter, or no condition). */
    public CompareOperator operator() {
        return operator;
    }

    /** The value compared with the column's, or {@code null} when the column must have none. */
    public byte[] expected() {
        return value;
    }

    /** The filter a get of the row must match, or {@code null}. */
    public Filter filter() {
        return filter;
    }

    /** Whether the mutations apply without a condition. */
    public boolean unconditional() {
        return unconditional;
    }

    /** The cells the condition sees: those in this range. */
    public TimeRange timeRange() {
        return timeRange;
    }

    public List<Mutation> mutations() {
        return mutations;
    }

    /** Builds a {@link CheckAndMutate}. */
    public static final class Builder {
        private final byte[] row;
        private byte[] family;
        private byte[] qualifier;
        private CompareOperator operator;
        private byte[] value;
        private Filter filter;
        private boolean unconditional;
        private TimeRange timeRange = TimeRange.ALL;
        private boolean conditioned;

        private Builder(byte[] row) {
            this.row = row;
        }

        /** The column's newest value must equal {@code value}. */
        public Builder ifEquals(byte[] family, byte[] qualifier, byte[] value) {
            return ifMatches(family, qualifier, CompareOperator.EQUAL, value);
        }

        /**
         * {@code value operator columnValue} must hold, the column's newest value on the right (as in
         * HBase: {@code GREATER} holds when {@code value} is greater than what is stored).
         */
        public Builder ifMatches(byte[] family, byte[] qualifier, CompareOperator operator, byte[] value) {
            condition();
            this.family = Objects.requireNonNull(family, "family");
            this.qualifier = Objects.requireNonNull(qualifier, "qualifier");
            this.operator = Objects.requireNonNull(operator, "operator");
            this.value = Objects.requireNonNull(value, "value");
            return this;
        }

        /** The column must have no visible value. */
        public Builder ifAbsent(byte[] family, byte[] qualifier) {
            condition();
            this.family = Objects.requireNonNull(family, "family");
            this.qualifier = Objects.requireNonNull(qualifier, "qualifier");
            return this;
        }

        /** A get of the row with {@code filter} must return at least one cell. */
        public Builder ifMatches(Filter filter) {
            condition();
            this.filter = Objects.requireNonNull(filter, "filter");
            return this;
        }

        /** No condition: the mutations apply together, atomically ({@link AsyncTable#mutateRow}). */
        public Builder always() {
            condition();
            this.unconditional = true;
            return this;
        }

        /** The condition sees only cells with timestamps in {@code range}. */
        public Builder timeRange(TimeRange range) {
            this.timeRange = Objects.requireNonNull(range, "range");
            return this;
        }

        private void condition() {
            if (conditioned) {
                throw new IllegalStateException("a check-and-mutate has one condition");
            }
            conditioned = true;
        }

        /** The mutations to apply when the condition holds. */
        public CheckAndMutate then(Mutation... mutations) {
            if (!conditioned) {
                throw new IllegalStateException("state a condition (ifEquals, ifMatches, ifAbsent or always) before"
                        + " the mutations");
            }
            return new CheckAndMutate(row, this, new ArrayList<>(Arrays.asList(mutations)));
        }

        /** {@link #then(Mutation...)} with the mutations of {@code mutations}, which must be of this row. */
        public CheckAndMutate then(RowMutations mutations) {
            return then(mutations.mutations().toArray(Mutation[]::new));
        }
    }
}
