package io.basalt.lock;

import java.util.Objects;

/**
 * A kind of resource in the lock hierarchy, such as a table or a row; a level's rank fixes the
 * order in which a thread may take locks.
 *
 * <p>A thread takes levels in ascending rank: {@link #NAMESPACE} (10), then {@link #TABLE} (20),
 * then {@link #ROW} (30). Taking a level while holding a lock of a higher rank fails with a
 * {@link LockOrderException}. The built-in ranks leave gaps so that a deployment can slot its own
 * level in between, for instance {@code new LockLevel("region", 25)}. Two levels are the same
 * level when name and rank are equal.
 */
public final class LockLevel {

    /** The highest rank a level may have. */
    public static final int MAX_RANK = 62;

    /** A namespace (a group of tables): the outermost level. */
    public static final LockLevel NAMESPACE = new LockLevel("namespace", 10);
    /** A table: every data operation read-locks its table. */
    public static final LockLevel TABLE = new LockLevel("table", 20);
    /** A row: every mutation write-locks its row. */
    public static final LockLevel ROW = new LockLevel("row", 30);

    private final String name;
    private final int rank;

    /**
     * @param name a short name used in error messages and metrics
     * @param rank the position in the hierarchy, {@code 0..}{@value #MAX_RANK}; lower ranks are
     *     taken first
     */
    public LockLevel(String name, int rank) {
        Objects.requireNonNull(name, "name");
        if (name.isEmpty()) {
            throw new IllegalArgumentException("a lock level needs a name");
        }
        if (rank < 0 || rank > MAX_RANK) {
            throw new IllegalArgumentException("lock level " + name + ": rank " + rank + " is outside 0.." + MAX_RANK);
        }
        this.name = name;
        this.rank = rank;
    }

    public String name() {
        return name;
    }

    public int rank() {
        return rank;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof LockLevel other && rank == other.rank && name.equals(other.name);
    }

    @Override
    public int hashCode() {
        return name.hashCode() * 31 + rank;
    }

    @Override
    public String toString() {
        return name;
    }
}
