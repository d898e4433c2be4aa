package io.basalt.testkit.history;

import java.util.Objects;

/**
 * One event of a {@link History}: an operation's invocation or its completion.
 *
 * <p>Both events of one operation share its {@code id}, {@code client} and {@code op}. The {@code time} is a logical
 * timestamp: an event with a smaller time happened before one with a larger time, which is all the checker needs.
 *
 * @param time   when the event happened, unique and increasing within one history
 * @param type   what the event is
 * @param id     the operation's id, as returned by {@link History#invoke}
 * @param client the client (process, thread) that ran the operation; only used to make reports readable
 * @param op     the operation
 * @param output for an {@link Type#OK} completion, what the operation returned (see {@link Op} for each kind's
 *               type; a {@link Op.Write}'s output is dropped, and counter outputs become {@link Long}); otherwise
 *               {@code null}
 */
public record Entry(long time, Type type, long id, int client, Op op, Object output) {

    /** The kinds of event. */
    public enum Type {
        /** The client started the operation. */
        INVOKE,
        /** The operation completed and returned its output. */
        OK,
        /** The operation definitely did not take effect, for example it was refused before being applied. */
        FAIL,
        /**
         * The outcome is unknown (timeout, lost connection): the operation may have taken effect, at any time after
         * its invocation, or not at all.
         */
        INFO
    }

    /** Checks the fields and brings the output to its canonical type, so equal histories compare equal. */
    public Entry {
        Objects.requireNonNull(type, "type");
        Objects.requireNonNull(op, "op");
        output = type == Type.OK ? canonicalOutput(op, output) : requireNoOutput(type, output);
    }

    /** Whether this is the operation's invocation rather than its completion. */
    public boolean invocation() {
        return type == Type.INVOKE;
    }

    private static Object requireNoOutput(Type type, Object output) {
        if (output != null) {
            throw new IllegalArgumentException("a " + type + " event carries no output, got " + output);
        }
        return null;
    }

    private static Object canonicalOutput(Op op, Object output) {
        return switch (op) {
            case Op.Read _ -> {
                if (output != null && !(output instanceof String)) {
                    throw badOutput(op, "a String or null", output);
                }
                yield output;
            }
            case Op.Write _ -> null;
            case Op.Cas _ -> {
                if (!(output instanceof Boolean)) {
                    throw badOutput(op, "a Boolean", output);
                }
                yield output;
            }
            case Op.Add _ -> counterValue(op, output);
            case Op.ReadCounter _ -> counterValue(op, output);
        };
    }

    private static Long counterValue(Op op, Object output) {
        // Accept any integral box so a client returning an int need not convert; fractions would be a bug.
        if (output instanceof Long value) {
            return value;
        }
        if (output instanceof Integer || output instanceof Short || output instanceof Byte) {
            return ((Number) output).longValue();
        }
        throw badOutput(op, "a Long", output);
    }

    private static IllegalArgumentException badOutput(Op op, String wanted, Object output) {
        String got = output == null ? "null" : output.getClass().getSimpleName() + " " + output;
        return new IllegalArgumentException("the output of " + op + " must be " + wanted + ", got " + got);
    }
}
