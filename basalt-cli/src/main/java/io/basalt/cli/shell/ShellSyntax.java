package io.basalt.cli.shell;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Parses the HBase shell's command syntax: {@code name arg, arg, ...} where an argument is a
 * quoted string ({@code 'raw'} or {@code "with \x00 escapes"}), a number, {@code true},
 * {@code false}, {@code nil}, a constant name ({@code LIMIT}), an array {@code [a, b]} or a hash
 * {@code {KEY => value, ...}}. Commands are separated by {@code ;} or line breaks outside quotes.
 *
 * <p>Strings parse to {@code byte[]} (UTF-8, with {@code \xHH} giving raw bytes in double quotes,
 * as in HBase), numbers to {@code Long}, arrays to {@code List}, hashes to a {@code Map} keyed by
 * the upper-cased key name.
 */
final class ShellSyntax {

    /** One parsed command. */
    record Command(String name, List<Object> args) {}

    /** A constant name used as a value, like {@code LIMIT} outside a hash key. */
    record Constant(String name) {}

    /** Thrown for input that does not parse; the message says what and where. */
    static final class SyntaxError extends RuntimeException {
        private static final long serialVersionUID = 1L;

        SyntaxError(String message) {
            super(message);
        }
    }

    private final String text;
    private int at;

    private ShellSyntax(String text) {
        this.text = text;
    }

    /** Splits input into commands and parses each; blank commands and {@code #} comments are skipped. */
    static List<Command> parse(String input) {
        List<Command> commands = new ArrayList<>();
        for (String statement : split(input)) {
            String trimmed = statement.strip();
            if (!trimmed.isEmpty() && !trimmed.startsWith("#")) {
                commands.add(new ShellSyntax(trimmed).command());
            }
        }
        return commands;
    }

    /** Splits on {@code ;} and newlines that are outside quotes and brackets. */
    static List<String> split(String input) {
        List<String> out = new ArrayList<>();
        StringBuilder current = new StringBuilder();
        char quote = 0;
        int depth = 0;
        for (int i = 0; i < input.length(); i++) {
            char c = input.charAt(i);
            if (quote != 0) {
                current.append(c);
                if (c == '\\' && quote == '"' && i + 1 < input.length()) {
                    current.append(input.charAt(++i));
                } else if (c == quote) {
                    quote = 0;
                }
            } else if (c == '\'' || c == '"') {
                quote = c;
                current.append(c);
            } else if (c == '{' || c == '[') {
                depth++;
                current.append(c);
            } else if (c == '}' || c == ']') {
                depth--;
                current.append(c);
            } else if ((c == ';' || c == '\n') && depth <= 0) {
                out.add(current.toString());
                current.setLength(0);
            } else {
                current.append(c);
            }
        }
        out.add(current.toString());
        return out;
    }

    /** True when the input ends inside quotes or brackets, so a prompt should read more lines. */
    static boolean incomplete(String input) {
        char quote = 0;
        int depth = 0;
        for (int i = 0; i < input.length(); i++) {
            char c = input.charAt(i);
            if (quote != 0) {
                if (c == '\\' && quote == '"') {
                    i++;
                } else if (c == quote) {
                    quote = 0;
                }
            } else if (c == '\'' || c == '"') {
                quote = c;
            } else if (c == '{' || c == '[') {
                depth++;
            } else if (c == '}' || c == ']') {
                depth--;
            }
        }
        return quote != 0 || depth > 0;
    }

    private Command command() {
        skipSpace();
        int start = at;
        while (at < text.length() && (Character.isLetterOrDigit(text.charAt(at)) || text.charAt(at) == '_')) {
            at++;
        }
        if (start == at) {
            throw new SyntaxError("expected a command name at '" + rest() + "'");
        }
        String name = text.substring(start, at).toLowerCase(java.util.Locale.ROOT);
        List<Object> args = new ArrayList<>();
        skipSpace();
        if (at < text.length()) {
            args.add(argument());
            skipSpace();
            while (at < text.length()) {
                expect(',');
                args.add(argument());
                skipSpace();
            }
        }
        return new Command(name, args);
    }

    /**
     * A command argument: a value, or a hash written without braces as Ruby allows for the last
     * argument ({@code create 't', 'f', SPLITS => ['g', 'n']}), which runs to the end of the command.
     */
    private Object argument() {
        Object value = value();
        skipSpace();
        if (!text.startsWith("=>", at)) {
            return value;
        }
        Map<String, Object> map = new LinkedHashMap<>();
        Object key = value;
        while (true) {
            entry(map, key, " (a hash without braces must be the last argument)");
            skipSpace();
            if (at >= text.length()) {
                return map;
            }
            expect(',');
            key = value();
        }
    }

    /** Reads {@code => value} after {@code key} into {@code map}; {@code hint} follows a missing {@code =>}. */
    private void entry(Map<String, Object> map, Object key, String hint) {
        String name = switch (key) {
            case Constant k -> k.name();
            case byte[] b -> new String(b, StandardCharsets.UTF_8);
            default -> throw new SyntaxError("hash key " + key + " is not a name");
        };
        skipSpace();
        if (!text.startsWith("=>", at)) {
            throw new SyntaxError("expected => after " + name + hint);
        }
        at += 2;
        map.put(name.toUpperCase(java.util.Locale.ROOT), value());
    }

    private Object value() {
        skipSpace();
        if (at >= text.length()) {
            throw new SyntaxError("expected a value at the end of the command");
        }
        char c = text.charAt(at);
        if (c == '\'' || c == '"') {
            return string(c);
        }
        if (c == '{') {
            return hash();
        }
        if (c == '[') {
            return array();
        }
        if (c == '-' || Character.isDigit(c)) {
            int start = at++;
            while (at < text.length() && Character.isDigit(text.charAt(at))) {
                at++;
            }
            try {
                return Long.parseLong(text.substring(start, at));
            } catch (NumberFormatException e) {
                throw new SyntaxError("'" + text.substring(start, at) + "' is not a number");
            }
        }
        if (Character.isLetter(c)) {
            String word = word();
            return switch (word) {
                case "true" -> Boolean.TRUE;
                case "false" -> Boolean.FALSE;
                case "nil" -> null;
                default -> new Constant(word);
            };
        }
        throw new SyntaxError("unexpected '" + c + "' at '" + rest() + "'");
    }

    private String word() {
        int start = at;
        while (at < text.length() && (Character.isLetterOrDigit(text.charAt(at)) || text.charAt(at) == '_'
                || text.charAt(at) == ':' || text.charAt(at) == '.')) {
            at++;
        }
        return text.substring(start, at);
    }

    private byte[] string(char quote) {
        at++;
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        StringBuilder chars = new StringBuilder();
        while (true) {
            if (at >= text.length()) {
                throw new SyntaxError("string is not closed: missing " + quote);
            }
            char c = text.charAt(at++);
            if (c == quote) {
                break;
            }
            if (c == '\\' && at < text.length()) {
                char next = text.charAt(at++);
                if (quote == '\'') {
                    if (next == '\'' || next == '\\') {
                        chars.append(next);
                    } else {
                        chars.append('\\').append(next);
                    }
                    continue;
                }
                switch (next) {
                    case 'x' -> {
                        if (at + 2 > text.length()) {
                            throw new SyntaxError("\\x needs two hex digits");
                        }
                        flush(chars, out);
                        try {
                            out.write(Integer.parseInt(text.substring(at, at + 2), 16));
                        } catch (NumberFormatException e) {
                            throw new SyntaxError("\\x" + text.substring(at, at + 2) + " is not a hex byte");
                        }
                        at += 2;
                    }
                    case 'n' -> chars.append('\n');
                    case 't' -> chars.append('\t');
                    case 'r' -> chars.append('\r');
                    case '0' -> chars.append('\0');
                    default -> chars.append(next);
                }
                continue;
            }
            chars.append(c);
        }
        flush(chars, out);
        return out.toByteArray();
    }

    private static void flush(StringBuilder chars, ByteArrayOutputStream out) {
        out.writeBytes(chars.toString().getBytes(StandardCharsets.UTF_8));
        chars.setLength(0);
    }

    private Map<String, Object> hash() {
        at++;
        Map<String, Object> map = new LinkedHashMap<>();
        skipSpace();
        if (peek() == '}') {
            at++;
            return map;
        }
        while (true) {
            skipSpace();
            entry(map, value(), "");
            skipSpace();
            if (peek() == '}') {
                at++;
                return map;
            }
            expect(',');
        }
    }

    private List<Object> array() {
        at++;
        List<Object> list = new ArrayList<>();
        skipSpace();
        if (peek() == ']') {
            at++;
            return list;
        }
        while (true) {
            list.add(value());
            skipSpace();
            if (peek() == ']') {
                at++;
                return list;
            }
            expect(',');
        }
    }

    private char peek() {
        return at < text.length() ? text.charAt(at) : 0;
    }

    private void expect(char c) {
        skipSpace();
        if (peek() != c) {
            throw new SyntaxError("expected '" + c + "' at '" + rest() + "'");
        }
        at++;
    }

    private void skipSpace() {
        while (at < text.length() && Character.isWhitespace(text.charAt(at))) {
            at++;
        }
    }

    private String rest() {
        String rest = text.substring(Math.min(at, text.length()));
        return rest.length() > 30 ? rest.substring(0, 30) + "…" : rest;
    }
}
