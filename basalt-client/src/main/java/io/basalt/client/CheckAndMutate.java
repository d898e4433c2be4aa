package io.basalt.client;

import io.basalt.bytes.Bytes;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;

/**
 * A condition on one cell of a row and the mutations of that row to apply, atomically, when it
 * holds: the newest visible value of {@code family:qualifier} equals {@code expected}, or, when
 * {@code expected} is {@code null}, the column has no visible value.
 */
public final class CheckAndMutate {

    private final byte[] row;
    private final byte[] family;
    private final byte[] qualifier;
    private final byte[] expected;
    private final List<Mutation> mutations;

    private CheckAndMutate(byte[] row, byte[] family, byte[] qualifier, byte[] expected, List<Mutation> mutations) {
        this.row = row;
        this.family = family;
        this.qualifier = qualifier;
        this.expected = expected;
        this.mutations = List.copyOf(mutations);
        if (this.mutations.isEmpty()) {
            throw new IllegalArgumentException("check-and-mutate needs at least one mutation");
        }
        for (Mutation mutation : this.mutations) {
            if (mutation instanceof Increment) {
                throw new IllegalArgumentException("check-and-mutate applies puts and deletes, not increments");
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

    public byte[] family() {
        return family;
    }

    public byte[] qualifier() {
        return qualifier;
    }

    /** The value the column must have, or {@code null} when it must have none. */
    public byte[] expected() {
        return expected;
    }

    public List<Mutation> mutations() {
        return mutations;
    }

    /** Builds a {@link CheckAndMutate}. */
    public static final class Builder {
        private final byte[] row;
        private byte[] family;
        private byte[] qualifier;
        private byte[] expected;
        private boolean conditioned;

        private Builder(byte[] row) {
            this.row = row;
        }

        /** The column's newest value must equal {@code value}. */
        public Builder ifEquals(byte[] family, byte[] qualifier, byte[] value) {
            return condition(family, qualifier, Objects.requireNonNull(value, "value"));
        }

        /** The column must have no visible value. */
        public Builder ifAbsent(byte[] family, byte[] qualifier) {
            return condition(family, qualifier, null);
        }

        private Builder condition(byte[] f, byte[] q, byte[] value) {
            this.family = Objects.requireNonNull(f, "family");
            this.qualifier = Objects.requireNonNull(q, "qualifier");
            this.expected = value;
            this.conditioned = true;
            return this;
        }

        /** The mutations to apply when the condition holds. */
        public CheckAndMutate then(Mutation... mutations) {
            if (!conditioned) {
                throw new IllegalStateException("state a condition (ifEquals or ifAbsent) before the mutations");
            }
            return new CheckAndMutate(row, family, qualifier, expected, new ArrayList<>(Arrays.asList(mutations)));
        }
    }
}
