package io.basalt.client.filter;

import java.util.List;
import java.util.Objects;

/** What the filter records share: defensive copies, tree bounds, and their filter-language text. */
final class FilterText {

    private FilterText() {}

    static byte[] copy(byte[] bytes, String what) {
        return Objects.requireNonNull(bytes, what).clone();
    }

    /**
     * A quoted literal: quotes doubled, bytes outside printable ASCII as {@code \xHH} (the shell's
     * escapes; the filter language itself reads raw bytes). A backslash stays as it is, so a regular
     * expression's escapes read back unchanged.
     */
    static String quote(byte[] bytes) {
        StringBuilder out = new StringBuilder(bytes.length + 2).append('\'');
        for (byte b : bytes) {
            int c = b & 0xFF;
            if (c == '\'') {
                out.append("''");
            } else if (c >= ' ' && c <= '~') {
                out.append((char) c);
            } else {
                out.append(String.format("\\x%02X", c));
            }
        }
        return out.append('\'').toString();
    }

    static String comparator(String type, byte[] operand) {
        byte[] text = new byte[type.length() + 1 + operand.length];
        System.arraycopy(io.basalt.bytes.Bytes.utf8(type + ":"), 0, text, 0, type.length() + 1);
        System.arraycopy(operand, 0, text, type.length() + 1, operand.length);
        return quote(text);
    }

    static String call(String name, Object... args) {
        StringBuilder out = new StringBuilder(name).append('(');
        for (int i = 0; i < args.length; i++) {
            if (i > 0) {
                out.append(", ");
            }
            Object a = args[i];
            out.append(a instanceof byte[] b ? quote(b) : a instanceof CompareOperator op ? op.symbol() : String.valueOf(a));
        }
        return out.append(')').toString();
    }

    /** Depth of {@code filter}: 1 for a leaf, one more than its deepest child for a list or wrapper. */
    static int depth(Filter filter) {
        return switch (filter) {
            case FilterList list -> 1 + list.filters().stream().mapToInt(FilterText::depth).max().orElse(0);
            case WhileMatchFilter w -> 1 + depth(w.filter());
            case SkipFilter s -> 1 + depth(s.filter());
            default -> 1;
        };
    }

    /** Filters in {@code filter}'s tree, itself included. */
    static int count(Filter filter) {
        return switch (filter) {
            case FilterList list -> 1 + list.filters().stream().mapToInt(FilterText::count).sum();
            case WhileMatchFilter w -> 1 + count(w.filter());
            case SkipFilter s -> 1 + count(s.filter());
            default -> 1;
        };
    }

    /** Fails when a tree with {@code children} under one more node breaks {@link Filter#MAX_DEPTH} or {@link Filter#MAX_FILTERS}. */
    static void checkBounds(List<Filter> children) {
        int depth = 1;
        int count = 1;
        for (Filter child : children) {
            Objects.requireNonNull(child, "filter");
            depth = Math.max(depth, 1 + depth(child));
            count += count(child);
        }
        if (depth > Filter.MAX_DEPTH) {
            throw new IllegalArgumentException("filters nest " + depth + " deep; the limit is " + Filter.MAX_DEPTH);
        }
        if (count > Filter.MAX_FILTERS) {
            throw new IllegalArgumentException("a filter tree of " + count + " filters; the limit is " + Filter.MAX_FILTERS);
        }
    }

    static List<byte[]> copyAll(List<byte[]> list, String what) {
        Objects.requireNonNull(list, what);
        return list.stream().map(b -> copy(b, what)).toList();
    }
}
