package io.basalt.client;

import io.basalt.bytes.Bytes;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Objects;

/**
 * Puts and deletes of one row, applied together or not at all ({@link AsyncTable#mutateRow}, or
 * as the action of a {@link CheckAndMutate}). Later mutations see earlier ones: a put after a
 * delete of the same column survives it.
 */
public final class RowMutations {

    private final byte[] row;
    private final List<Mutation> mutations = new ArrayList<>();

    public RowMutations(byte[] row) {
        this.row = Objects.requireNonNull(row, "row");
    }

    /** Adds a put or delete of this row. */
    public RowMutations add(Mutation mutation) {
        Objects.requireNonNull(mutation, "mutation");
        if (!(mutation instanceof Put) && !(mutation instanceof Delete)) {
            throw new IllegalArgumentException("row mutations are puts and deletes, not "
                    + mutation.getClass().getSimpleName().toLowerCase(java.util.Locale.ROOT) + "s");
        }
        if (!Arrays.equals(mutation.row(), row)) {
            throw new IllegalArgumentException("row mutations of row " + Bytes.toStringBinary(row)
                    + " got a mutation of row " + Bytes.toStringBinary(mutation.row()));
        }
        mutations.add(mutation);
        return this;
    }

    public byte[] row() {
        return row;
    }

    public List<Mutation> mutations() {
        return Collections.unmodifiableList(mutations);
    }
}
