package io.basalt.bench;

import java.util.List;

/** Joins the JSON files of several JMH runs (each a top-level array) into one array. */
final class JmhJson {

    private JmhJson() {}

    static String concat(List<String> arrays) {
        StringBuilder out = new StringBuilder("[");
        boolean first = true;
        for (String array : arrays) {
            String body = array.strip();
            if (!body.startsWith("[") || !body.endsWith("]")) {
                throw new IllegalArgumentException("JMH result is not a JSON array: "
                        + body.substring(0, Math.min(40, body.length())));
            }
            body = body.substring(1, body.length() - 1).strip();
            if (body.isEmpty()) {
                continue;
            }
            out.append(first ? "\n    " : ",\n    ").append(body);
            first = false;
        }
        return out.append("\n]\n").toString();
    }
}
