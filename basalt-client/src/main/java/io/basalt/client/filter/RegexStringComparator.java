package io.basalt.client.filter;

import com.google.re2j.Pattern;
import com.google.re2j.PatternSyntaxException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;

/**
 * Matches cell bytes in which {@code pattern} finds a match anywhere ({@code 'regexstring:...'});
 * compares as 0 on a match and 1 otherwise. Runs on RE2/J, whose matching time is linear in the
 * input whatever the pattern (no backtracking), so a hostile pattern cannot stall a server; RE2
 * has no back-references or look-around.
 *
 * <p>Matching is over text, as in HBase: the cell's bytes are decoded as UTF-8 (each malformed
 * sequence becomes U+FFFD, as Java decodes) and the pattern matches characters. So a non-ASCII
 * character in a pattern matches its UTF-8 encoding, {@code .} is one character, and
 * {@code \xFF} is the character U+00FF (the bytes C3 BF), never the byte 0xFF. Where RE2 and
 * {@code java.util.regex} differ, this is RE2: case-insensitive matching folds every Unicode
 * letter (HBase's folds ASCII only), and a multi-line {@code ^} matches at the end of the text.
 *
 * <p>A pattern is checked before it is compiled: groups nest at most {@value #MAX_NESTING} deep,
 * a counted repetition repeats at most {@value #MAX_REPEAT} times, and the pattern expands to at
 * most {@value #MAX_PROGRAM} atoms once repetitions are unrolled (RE2/J, unlike RE2, does not
 * bound either: a 43-byte pattern of nested {@code {10}}s compiles to ten million instructions).
 *
 * @param flags {@link #CASE_INSENSITIVE}, {@link #DOTALL} and {@link #MULTILINE}, or 0; the
 *     one-argument constructor and the filter language use {@link #DOTALL}, as HBase does
 */
public record RegexStringComparator(String pattern, int flags) implements ByteArrayComparable {

    public static final int CASE_INSENSITIVE = Pattern.CASE_INSENSITIVE;
    public static final int DOTALL = Pattern.DOTALL;
    public static final int MULTILINE = Pattern.MULTILINE;

    /** Longest pattern, in bytes. */
    public static final int MAX_PATTERN_LENGTH = 16 * 1024;
    /** Deepest nesting of groups. */
    public static final int MAX_NESTING = 100;
    /** Largest count of a counted repetition ({@code {n}}), RE2's limit. */
    public static final int MAX_REPEAT = 1000;
    /** Most atoms a pattern may expand to with its repetitions unrolled. */
    public static final int MAX_PROGRAM = 20_000;

    public RegexStringComparator {
        java.util.Objects.requireNonNull(pattern, "pattern");
        int known = CASE_INSENSITIVE | DOTALL | MULTILINE;
        if ((flags & ~known) != 0) {
            throw new IllegalArgumentException("regular expression flags " + flags
                    + " include unknown bits; use CASE_INSENSITIVE, DOTALL and MULTILINE");
        }
        if (pattern.getBytes(StandardCharsets.UTF_8).length > MAX_PATTERN_LENGTH) {
            throw new IllegalArgumentException("regular expression of " + pattern.length()
                    + " characters; the limit is " + MAX_PATTERN_LENGTH + " bytes");
        }
        checkSize(pattern);
        compile(pattern, flags); // a bad pattern fails here, at the client, with RE2's message
    }

    /** A pattern where {@code .} also matches a line break, as HBase's one-argument constructor makes. */
    public RegexStringComparator(String pattern) {
        this(pattern, DOTALL);
    }

    /**
     * Refuses a pattern that would nest or expand beyond the bounds in the class comment: a walk
     * over its text that counts group depth and, per group, the atoms its sequence expands to
     * (an alternation's branches add up; a counted repetition multiplies what it repeats).
     */
    private static void checkSize(String pattern) {
        java.util.ArrayDeque<long[]> groups = new java.util.ArrayDeque<>(); // {expanded size, size of the last atom}
        long[] top = new long[2];
        int i = 0;
        int n = pattern.length();
        while (i < n) {
            char c = pattern.charAt(i);
            long atom = 1;
            if (c == '(') {
                if (groups.size() >= MAX_NESTING) {
                    throw new IllegalArgumentException("regular expression nests groups more than " + MAX_NESTING + " deep");
                }
                groups.push(top);
                top = new long[2];
                i++;
                continue;
            } else if (c == ')') {
                if (groups.isEmpty()) {
                    i++; // unbalanced: the compiler reports it
                    continue;
                }
                atom = Math.max(1, top[0]);
                top = groups.pop();
                i++;
            } else if (c == '|') {
                top[1] = 0;
                i++;
                continue;
            } else if (c == '\\') {
                i += 2;
                if (i <= n && i - 1 < n && "pPx".indexOf(pattern.charAt(i - 1)) >= 0 && i < n && pattern.charAt(i) == '{') {
                    int close = pattern.indexOf('}', i);
                    i = close < 0 ? n : close + 1;
                }
            } else if (c == '[') {
                i = classEnd(pattern, i);
            } else if (c == '{') {
                int close = pattern.indexOf('}', i);
                String body = close < 0 ? "" : pattern.substring(i + 1, close);
                if (close > 0 && body.matches("\\d+(,\\d*)?")) {
                    String[] parts = body.split(",", -1);
                    String bound = parts.length == 2 && !parts[1].isEmpty() ? parts[1] : parts[0];
                    long count = bound.length() > 6 ? Long.MAX_VALUE : Long.parseLong(bound);
                    if (count > MAX_REPEAT) {
                        throw new IllegalArgumentException("regular expression repeats " + bound + " times; the limit is "
                                + MAX_REPEAT);
                    }
                    top[0] += top[1] * (Math.max(count, 1) - 1);
                    top[1] *= Math.max(count, 1);
                    checkProgram(top);
                    i = close + 1;
                    continue;
                }
                i++;
            } else if (c == '*' || c == '+' || c == '?') {
                i++;
                continue; // a loop, not a copy
            } else {
                i++;
            }
            top[0] += atom;
            top[1] = atom;
            checkProgram(top);
        }
    }

    private static void checkProgram(long[] group) {
        if (group[0] > MAX_PROGRAM || group[1] > MAX_PROGRAM) {
            throw new IllegalArgumentException("regular expression expands to more than " + MAX_PROGRAM
                    + " atoms once its repetitions are unrolled");
        }
    }

    /** The index after the character class starting at {@code start} ({@code [}). */
    private static int classEnd(String pattern, int start) {
        int i = start + 1;
        if (i < pattern.length() && pattern.charAt(i) == '^') {
            i++;
        }
        if (i < pattern.length() && pattern.charAt(i) == ']') {
            i++;
        }
        while (i < pattern.length() && pattern.charAt(i) != ']') {
            i += pattern.charAt(i) == '\\' ? 2 : 1;
        }
        return Math.min(pattern.length(), i + 1);
    }

    /** The compiled pattern, matched against the cell's bytes decoded as UTF-8 (see the class comment). */
    public Pattern compiled() {
        return compile(pattern, flags);
    }

    private static Pattern compile(String pattern, int flags) {
        try {
            return Pattern.compile(pattern, flags);
        } catch (PatternSyntaxException e) {
            throw new IllegalArgumentException("regular expression '" + pattern + "' does not parse: "
                    + e.getMessage(), e);
        }
    }

    @Override
    public int compareTo(MemorySegment bytes) {
        return matches(compiled(), bytes) ? 0 : 1;
    }

    /** Whether {@code compiled} finds a match in {@code bytes}, decoded as UTF-8. */
    public static boolean matches(Pattern compiled, MemorySegment bytes) {
        return compiled.matcher(new String(bytes.toArray(ValueLayout.JAVA_BYTE), StandardCharsets.UTF_8)).find();
    }

    /** The language's form; flags other than the default {@link #DOTALL} become an inline group such as {@code (?i-s)}. */
    @Override
    public String toString() {
        String set = ((flags & CASE_INSENSITIVE) != 0 ? "i" : "") + ((flags & MULTILINE) != 0 ? "m" : "");
        String clear = (flags & DOTALL) == 0 ? "-s" : "";
        String inline = set.isEmpty() && clear.isEmpty() ? "" : "(?" + set + clear + ")";
        return FilterText.comparator("regexstring", io.basalt.bytes.Bytes.utf8(inline + pattern));
    }
}
