package io.basalt.hbasecompat;

import io.basalt.cell.Cell;
import io.basalt.client.filter.Filter;
import io.basalt.client.filter.FilterList;
import io.basalt.client.filter.SkipFilter;
import io.basalt.client.filter.WhileMatchFilter;
import io.basalt.engine.FilterWalk;
import io.basalt.hbasecompat.Gen.Case;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.SplittableRandom;

/**
 * Runs one case through both sides and compares them cell for cell; on a difference, shrinks the
 * case (fewer rows, fewer cells, a smaller filter tree) while it still differs and describes the
 * smallest one it finds.
 */
final class Differ {

    private Differ() {}

    /** What each side returned, as text, or the exception one side threw. */
    record Outcome(List<String> hbase, List<String> basalt) {
        boolean agree() {
            return hbase.equals(basalt);
        }
    }

    static Outcome run(Case c) {
        return new Outcome(hbase(c), basalt(c));
    }

    static List<String> hbase(Case c) {
        try {
            return texts(hbaseCells(c));
        } catch (RuntimeException e) {
            return List.of("HBase threw " + e);
        }
    }

    static List<String> basalt(Case c) {
        try {
            return texts(basaltCells(c));
        } catch (RuntimeException e) {
            return List.of("Basalt threw " + e);
        }
    }

    /** What the harness of HBase's scan returns for {@code c}; throws what HBase would. */
    static List<Kv> hbaseCells(Case c) {
        return HBaseScan.scan(c.cells(), ToHBase.filter(c.filter()), c.reversed(), c.maxVersions());
    }

    /** What Basalt's filter, walked over {@code c}'s rows, keeps. */
    static List<Kv> basaltCells(Case c) {
        List<Cell> out = FilterWalk.walk(rows(c.cells(), c.reversed()), c.filter(), c.reversed(),
                new SplittableRandom(1), c.maxVersions()); // only RandomRowFilter(0) and (1) here: its draws do not matter
        return out.stream().map(Kv::of).toList();
    }

    /** {@code cells} (in storage order) as rows in scan order, each row's cells in storage order. */
    static List<List<Cell>> rows(List<Kv> cells, boolean reversed) {
        List<List<Cell>> rows = new ArrayList<>();
        List<Cell> row = null;
        Kv previous = null;
        for (Kv kv : cells) {
            if (previous == null || !previous.sameRow(kv)) {
                row = new ArrayList<>();
                rows.add(row);
            }
            row.add(kv.toBasalt());
            previous = kv;
        }
        if (reversed) {
            java.util.Collections.reverse(rows);
        }
        return rows;
    }

    static List<String> texts(List<Kv> cells) {
        return cells.stream().map(Kv::text).toList();
    }

    /** Fails, with the smallest differing case found, when the sides disagree on {@code c}. */
    static void check(Case c) {
        if (run(c).agree()) {
            return;
        }
        Case small = shrink(c);
        List<String> known = Known.explain(small);
        throw new AssertionError((known.isEmpty() ? "a difference Known does not list" : "known as " + known) + "\n"
                + describe(small) + "\n\noriginal case:\n" + describe(c));
    }

    static String describe(Case c) {
        Outcome o = run(c);
        StringBuilder s = new StringBuilder();
        s.append("filter: ").append(c.filter()).append("\n  shape: ").append(Triage.shape(c.filter())).append(c.reversed() ? "  (reversed scan)" : "  (forward scan)")
                .append(", ").append(c.maxVersions()).append(" version(s)\nrows:\n");
        for (Kv kv : c.cells()) {
            s.append("  ").append(kv.text()).append('\n');
        }
        s.append("HBase:  ").append(o.hbase()).append('\n');
        s.append("Basalt: ").append(o.basalt());
        return s.toString();
    }

    // ------------------------------------------------------------------ shrinking

    static Case shrink(Case c) {
        boolean changed = true;
        while (changed) {
            changed = false;
            for (Case smaller : smaller(c)) {
                if (!run(smaller).agree()) {
                    c = smaller;
                    changed = true;
                    break;
                }
            }
        }
        return c;
    }

    private static List<Case> smaller(Case c) {
        List<Case> out = new ArrayList<>();
        for (Filter f : simpler(c.filter())) {
            out.add(c.with(f));
        }
        List<Kv> cells = c.cells();
        List<List<Kv>> rows = new ArrayList<>();
        for (Kv kv : cells) {
            if (rows.isEmpty() || !rows.getLast().getFirst().sameRow(kv)) {
                rows.add(new ArrayList<>());
            }
            rows.getLast().add(kv);
        }
        if (rows.size() > 1) {
            for (List<Kv> row : rows) {
                List<Kv> without = new ArrayList<>(cells);
                without.removeAll(row);
                out.add(c.with(without));
            }
        }
        if (cells.size() > 1) {
            for (int i = 0; i < cells.size(); i++) {
                List<Kv> without = new ArrayList<>(cells);
                without.remove(i);
                out.add(c.with(without));
            }
        }
        return out;
    }

    /** One-step simplifications of a filter tree: a list or wrapper replaced by a child, a child dropped or simplified. */
    static List<Filter> simpler(Filter f) {
        List<Filter> out = new ArrayList<>();
        switch (f) {
            case FilterList list -> {
                List<Filter> children = list.filters();
                out.addAll(children);
                for (int i = 0; i < children.size(); i++) {
                    List<Filter> without = new ArrayList<>(children);
                    without.remove(i);
                    out.add(new FilterList(list.operator(), without));
                }
                for (int i = 0; i < children.size(); i++) {
                    for (Filter s : simpler(children.get(i))) {
                        List<Filter> replaced = new ArrayList<>(children);
                        replaced.set(i, s);
                        out.add(new FilterList(list.operator(), replaced));
                    }
                }
                if (children.size() == 1 && list.operator() == FilterList.Operator.MUST_PASS_ALL) {
                    // One way only: flipping both ways let a case that differs as either loop forever.
                    out.add(new FilterList(FilterList.Operator.MUST_PASS_ONE, children));
                }
            }
            case WhileMatchFilter w -> {
                out.add(w.filter());
                simpler(w.filter()).forEach(s -> out.add(new WhileMatchFilter(s)));
            }
            case SkipFilter s -> {
                out.add(s.filter());
                simpler(s.filter()).forEach(x -> out.add(new SkipFilter(x)));
            }
            default -> { }
        }
        out.removeIf(Objects::isNull);
        return out;
    }
}
