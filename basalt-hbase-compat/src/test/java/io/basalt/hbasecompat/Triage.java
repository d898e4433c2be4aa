package io.basalt.hbasecompat;

import io.basalt.client.filter.Filter;
import io.basalt.client.filter.FilterList;
import io.basalt.client.filter.SkipFilter;
import io.basalt.client.filter.WhileMatchFilter;
import io.basalt.hbasecompat.Gen.Case;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;

/** Development aid: runs many seeds, shrinks each difference and groups them by the shape of the smallest case. */
public final class Triage {
    public static void main(String[] args) {
        String mode = args[0];
        int n = Integer.parseInt(args[1]);
        Map<String, Integer> counts = new TreeMap<>();
        Map<String, String> examples = new TreeMap<>();
        for (long seed = 0; seed < n; seed++) {
            Random random = new Random(seed);
            Gen gen = new Gen(random);
            int versions = 1 + random.nextInt(3);
            Case c = new Case(gen.cells(versions), mode.equals("single") ? gen.single() : gen.tree(3), random.nextBoolean(), versions);
            if (Differ.run(c).agree()) {
                continue;
            }
            Case small = Differ.shrink(c);
            String key = shape(small.filter()) + (small.reversed() ? " R" : " F");
            counts.merge(key, 1, Integer::sum);
            examples.putIfAbsent(key, "seed " + seed + "\n" + Differ.describe(small));
        }
        counts.forEach((k, v) -> System.out.println("=== " + v + "x " + k + "\n" + examples.get(k) + "\n"));
    }

    static String shape(Filter f) {
        return switch (f) {
            case FilterList l -> (l.operator() == FilterList.Operator.MUST_PASS_ALL ? "AND" : "OR")
                    + l.filters().stream().map(Triage::shape).toList();
            case WhileMatchFilter w -> "WHILE(" + shape(w.filter()) + ")";
            case SkipFilter s -> "SKIP(" + shape(s.filter()) + ")";
            default -> f.getClass().getSimpleName();
        };
    }
}
