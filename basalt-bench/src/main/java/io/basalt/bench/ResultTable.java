package io.basalt.bench;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * Renders a suite's results as a plain-text table with, for each row, how many times faster the
 * baseline implementation ran than that row in the same run (the number the seeds' claims are
 * judged by). The column of implementations is named after the suite's compared parameter, which
 * is {@code impl} but in suite {@code metrics} ({@code metrics}: on, the baseline, or off).
 */
final class ResultTable {

    private ResultTable() {}

    static String render(List<ResultRow> rows, String baseline) {
        return render(rows, "impl", baseline);
    }

    static String render(List<ResultRow> rows, String compared, String baseline) {
        Map<String, ResultRow> baselines = new LinkedHashMap<>();
        for (ResultRow row : rows) {
            if (row.impl().equals(baseline)) {
                baselines.put(row.groupKey(), row);
            }
        }
        List<String[]> lines = new ArrayList<>();
        lines.add(new String[] {"benchmark", "params", "threads", compared, "score", "error", "unit", baseline + " ×"});
        for (ResultRow row : rows) {
            ResultRow base = baselines.get(row.groupKey());
            double speedup = base == null ? Double.NaN : row.baselineSpeedup(base);
            lines.add(new String[] {
                row.method(),
                row.params().isEmpty() ? "-" : row.params().entrySet().stream()
                        .map(e -> e.getKey() + "=" + e.getValue()).collect(Collectors.joining(" ")),
                Integer.toString(row.threads()),
                row.impl(),
                number(row.score()),
                Double.isNaN(row.error()) ? "-" : "± " + number(row.error()),
                row.unit(),
                Double.isNaN(speedup) ? "-" : String.format(Locale.ROOT, "%.2f", speedup)
            });
        }
        int[] widths = new int[lines.get(0).length];
        for (String[] line : lines) {
            for (int i = 0; i < line.length; i++) {
                widths[i] = Math.max(widths[i], line[i].length());
            }
        }
        StringBuilder out = new StringBuilder();
        for (int l = 0; l < lines.size(); l++) {
            String[] line = lines.get(l);
            for (int i = 0; i < line.length; i++) {
                boolean numeric = i == 2 || i == 4 || i == 5 || i == 7;
                String cell = numeric ? pad(line[i], widths[i], true) : pad(line[i], widths[i], false);
                out.append(i == 0 ? "" : "  ").append(cell);
            }
            out.append(System.lineSeparator());
            if (l == 0) {
                out.append("-".repeat(out.length() - System.lineSeparator().length())).append(System.lineSeparator());
            }
        }
        out.append(System.lineSeparator()).append(baseline).append(" × = how many times faster ").append(baseline)
                .append(" ran than the row's ").append(compared.equals("impl") ? "implementation" : compared)
                .append(", same benchmark, parameters and threads, same run.")
                .append(System.lineSeparator());
        return out.toString();
    }

    private static String number(double value) {
        if (Double.isNaN(value)) {
            return "NaN";
        }
        double magnitude = Math.abs(value);
        String pattern = magnitude >= 1000 ? "%,.0f" : magnitude >= 10 ? "%.1f" : magnitude >= 1 ? "%.2f" : "%.4f";
        return String.format(Locale.ROOT, pattern, value);
    }

    private static String pad(String s, int width, boolean right) {
        String spaces = " ".repeat(width - s.length());
        return right ? spaces + s : s + spaces;
    }
}
