package io.basalt.testkit.history;

import java.util.Objects;

/**
 * An operation a client runs against one key of a key-value store, as recorded in a {@link History}.
 *
 * <p>A key is either a <em>register</em>, holding a string or nothing ({@link Read}, {@link Write}, {@link Cas}),
 * or a <em>counter</em>, holding a long that starts at 0 ({@link Add}, {@link ReadCounter}). One key is never used
 * both ways; the history and the checker reject that with an {@link IllegalArgumentException}.
 */
public sealed interface Op permits Op.Read, Op.Write, Op.Cas, Op.Add, Op.ReadCounter {

    /** The key the operation touches. */
    String key();

    /** Whether the operation works on a counter key rather than on a register key. */
    default boolean counter() {
        return this instanceof Add || this instanceof ReadCounter;
    }

    /** Reads a register. The output is the value, or {@code null} when the key holds nothing. */
    record Read(String key) implements Op {
        public Read {
            Objects.requireNonNull(key, "key");
        }
    }

    /** Sets a register to {@code value}. The output is ignored. */
    record Write(String key, String value) implements Op {
        public Write {
            Objects.requireNonNull(key, "key");
            Objects.requireNonNull(value, "value");
        }
    }

    /**
     * Sets a register to {@code newValue} if it holds {@code expected}, where a {@code null} expected value means
     * "holds nothing". The output is a {@link Boolean}: whether the register was set.
     */
    record Cas(String key, String expected, String newValue) implements Op {
        public Cas {
            Objects.requireNonNull(key, "key");
            Objects.requireNonNull(newValue, "newValue");
        }
    }

    /** Adds {@code delta} to a counter. The output is the counter's new value, a {@link Long}. */
    record Add(String key, long delta) implements Op {
        public Add {
            Objects.requireNonNull(key, "key");
        }
    }

    /** Reads a counter. The output is its value, a {@link Long}; a counter nobody added to reads 0. */
    record ReadCounter(String key) implements Op {
        public ReadCounter {
            Objects.requireNonNull(key, "key");
        }
    }
}
