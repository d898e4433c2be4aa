package io.basalt.testkit.history;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.Writer;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The one-line-per-event text form of a history, and the short form of operations and values that failure reports
 * use. Strings are always quoted, so {@code nil} (nothing) and the string {@code "nil"} stay apart.
 */
final class HistoryFormat {

    static final String HEADER = "# time type id client operation [-> output]";

    private HistoryFormat() {}

    static void write(List<Entry> entries, Writer writer) throws IOException {
        writer.write(HEADER);
        writer.write('\n');
        for (Entry entry : entries) {
            writer.write(line(entry));
            writer.write('\n');
        }
    }

    static String line(Entry entry) {
        StringBuilder line = new StringBuilder()
                .append(entry.time()).append(' ')
                .append(entry.type().name().toLowerCase(Locale.ROOT)).append(' ')
                .append(entry.id()).append(' ')
                .append(entry.client()).append(' ')
                .append(op(entry.op()));
        if (entry.type() == Entry.Type.OK && !(entry.op() instanceof Op.Write)) {
            line.append(" -> ").append(value(entry.output()));
        }
        return line.toString();
    }

    /** An operation as {@code cas "k" nil "v"}: its name, then its key and arguments. */
    static String op(Op op) {
        return switch (op) {
            case Op.Read read -> "read " + value(read.key());
            case Op.Write write -> "write " + value(write.key()) + " " + value(write.value());
            case Op.Cas cas -> "cas " + value(cas.key()) + " " + value(cas.expected()) + " " + value(cas.newValue());
            case Op.Add add -> "add " + value(add.key()) + " " + add.delta();
            case Op.ReadCounter read -> "read-counter " + value(read.key());
        };
    }

    /** A value as the text format writes it: {@code nil}, {@code true}, {@code 42} or a quoted string. */
    static String value(Object value) {
        if (value == null) {
            return "nil";
        }
        if (!(value instanceof String string)) {
            return value.toString();
        }
        StringBuilder quoted = new StringBuilder(string.length() + 2).append('"');
        for (int i = 0; i < string.length(); i++) {
            char c = string.charAt(i);
            switch (c) {
                case '"' -> quoted.append("\\\"");
                case '\\' -> quoted.append("\\\\");
                case '\n' -> quoted.append("\\n");
                case '\r' -> quoted.append("\\r");
                case '\t' -> quoted.append("\\t");
                default -> {
                    if (c < 0x20 || c == 0x7f) {
                        quoted.append(String.format(Locale.ROOT, "\\u%04x", (int) c));
                    } else {
                        quoted.append(c);
                    }
                }
            }
        }
        return quoted.append('"').toString();
    }

    static List<Entry> read(BufferedReader reader) throws IOException {
        List<Entry> entries = new ArrayList<>();
        int number = 0;
        for (String line = reader.readLine(); line != null; line = reader.readLine()) {
            number++;
            String trimmed = line.strip();
            if (trimmed.isEmpty() || trimmed.startsWith("#")) {
                continue;
            }
            try {
                entries.add(parse(trimmed));
            } catch (IllegalArgumentException e) {
                throw new IOException("history line " + number + ": " + e.getMessage() + ": " + line, e);
            }
        }
        return entries;
    }

    private static Entry parse(String line) {
        Tokens tokens = new Tokens(tokenize(line));
        long time = tokens.number();
        Entry.Type type = tokens.type();
        long id = tokens.number();
        int client = Math.toIntExact(tokens.number());
        Op op = tokens.op();
        Object output = null;
        if (tokens.hasMore()) {
            tokens.expectWord("->");
            output = tokens.value();
        }
        tokens.expectEnd();
        return new Entry(time, type, id, client, op, output);
    }

    /** A word, or a quoted string with its escapes undone. */
    private record Token(String text, boolean quoted) {}

    private static List<Token> tokenize(String line) {
        List<Token> tokens = new ArrayList<>();
        int i = 0;
        while (i < line.length()) {
            char c = line.charAt(i);
            if (c == ' ' || c == '\t') {
                i++;
            } else if (c == '"') {
                StringBuilder text = new StringBuilder();
                i++;
                while (true) {
                    if (i >= line.length()) {
                        throw new IllegalArgumentException("unterminated string");
                    }
                    char s = line.charAt(i++);
                    if (s == '"') {
                        break;
                    }
                    if (s != '\\') {
                        text.append(s);
                        continue;
                    }
                    if (i >= line.length()) {
                        throw new IllegalArgumentException("unterminated escape");
                    }
                    char escaped = line.charAt(i++);
                    switch (escaped) {
                        case '"', '\\' -> text.append(escaped);
                        case 'n' -> text.append('\n');
                        case 'r' -> text.append('\r');
                        case 't' -> text.append('\t');
                        case 'u' -> {
                            if (i + 4 > line.length()) {
                                throw new IllegalArgumentException("short \\u escape");
                            }
                            text.append((char) Integer.parseInt(line.substring(i, i + 4), 16));
                            i += 4;
                        }
                        default -> throw new IllegalArgumentException("unknown escape \\" + escaped);
                    }
                }
                tokens.add(new Token(text.toString(), true));
            } else {
                int start = i;
                while (i < line.length() && line.charAt(i) != ' ' && line.charAt(i) != '\t') {
                    i++;
                }
                tokens.add(new Token(line.substring(start, i), false));
            }
        }
        return tokens;
    }

    /** Reads the tokens of one line in order. */
    private static final class Tokens {
        private final List<Token> tokens;
        private int next;

        Tokens(List<Token> tokens) {
            this.tokens = tokens;
        }

        boolean hasMore() {
            return next < tokens.size();
        }

        private Token take(String what) {
            if (!hasMore()) {
                throw new IllegalArgumentException("missing " + what);
            }
            return tokens.get(next++);
        }

        private String word(String what) {
            Token token = take(what);
            if (token.quoted()) {
                throw new IllegalArgumentException("expected " + what + ", got a string");
            }
            return token.text();
        }

        void expectWord(String word) {
            String got = word("\"" + word + "\"");
            if (!got.equals(word)) {
                throw new IllegalArgumentException("expected \"" + word + "\", got " + got);
            }
        }

        void expectEnd() {
            if (hasMore()) {
                throw new IllegalArgumentException("unexpected " + tokens.get(next).text());
            }
        }

        long number() {
            String text = word("number");
            try {
                return Long.parseLong(text);
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("expected a number, got " + text, e);
            }
        }

        Entry.Type type() {
            String text = word("event type");
            try {
                return Entry.Type.valueOf(text.toUpperCase(Locale.ROOT));
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("unknown event type " + text, e);
            }
        }

        String string(String what) {
            Token token = take(what);
            if (!token.quoted()) {
                throw new IllegalArgumentException("expected a quoted " + what + ", got " + token.text());
            }
            return token.text();
        }

        String stringOrNil(String what) {
            if (hasMore() && !tokens.get(next).quoted() && tokens.get(next).text().equals("nil")) {
                next++;
                return null;
            }
            return string(what);
        }

        Op op() {
            String name = word("operation");
            return switch (name) {
                case "read" -> new Op.Read(string("key"));
                case "write" -> new Op.Write(string("key"), string("value"));
                case "cas" -> new Op.Cas(string("key"), stringOrNil("expected value"), string("new value"));
                case "add" -> new Op.Add(string("key"), number());
                case "read-counter" -> new Op.ReadCounter(string("key"));
                default -> throw new IllegalArgumentException("unknown operation " + name);
            };
        }

        Object value() {
            Token token = take("output");
            if (token.quoted()) {
                return token.text();
            }
            return switch (token.text()) {
                case "nil" -> null;
                case "true" -> Boolean.TRUE;
                case "false" -> Boolean.FALSE;
                default -> {
                    try {
                        yield Long.parseLong(token.text());
                    } catch (NumberFormatException e) {
                        throw new IllegalArgumentException("unreadable output " + token.text(), e);
                    }
                }
            };
        }
    }
}
