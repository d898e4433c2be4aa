package io.basalt.hbasecompat;

import io.basalt.client.filter.Filter;
import io.basalt.client.filter.FilterList;
import io.basalt.client.filter.SkipFilter;
import io.basalt.client.filter.WhileMatchFilter;
import io.basalt.hbasecompat.Gen.Case;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;

/**
 * A census of differences, for development: generates {@code count} cases ({@code single} or
 * {@code tree}) from seed {@code from} on, shrinks each difference and groups them by what
 * {@link Known#explain} says causes them; "UNEXPLAINED" is a new one. Run with the strict
 * generator to see the settled-not-yet differences, for example:
 *
 * <pre>
 * mvn -o -q -pl basalt-hbase-compat test-compile dependency:build-classpath -Dmdep.outputFile=/tmp/cp.txt
 * java -Dbasalt.hbasecompat.strict=true --add-opens java.base/java.nio=ALL-UNNAMED \
 *      -cp basalt-hbase-compat/target/test-classes:$(cat /tmp/cp.txt) io.basalt.hbasecompat.Triage tree 20000 0
 * </pre>
 */
public final class Triage {
    public static void main(String[] args) {
        String mode = args[0];
        int n = Integer.parseInt(args[1]);
        Map<String, Integer> counts = new TreeMap<>();
        Map<String, String> examples = new TreeMap<>();
        long nonEmpty = 0;
        long cellsOut = 0;
        long cellsIn = 0;
        long from = args.length > 2 ? Long.parseLong(args[2]) : 0;
        for (long seed = from; seed < from + n; seed++) {
            // Mixed: java.util.Random's first draws from consecutive seeds are nearly the same,
            // which made a census of consecutive seeds see far fewer distinct cases than its count.
            Random random = new Random(new java.util.SplittableRandom(seed).nextLong());
            Gen gen = new Gen(random);
            Case c = mode.equals("single") ? gen.singleCase() : gen.treeCase();
            Differ.Outcome o = Differ.run(c);
            cellsIn += c.cells().size();
            cellsOut += o.hbase().size();
            nonEmpty += o.hbase().isEmpty() ? 0 : 1;
            if (o.agree()) {
                continue;
            }
            System.err.println("seed " + seed + " differs; shrinking " + c.cells().size() + " cells, " + c.filter());
            long t0 = System.nanoTime();
            Case small = Differ.shrink(c);
            System.err.println("  shrunk in " + (System.nanoTime() - t0) / 1_000_000 + " ms");
            List<String> why = Known.explain(small);
            String key = why.isEmpty() ? "UNEXPLAINED " + shape(small.filter()) + (small.reversed() ? " R" : " F")
                    : why.getFirst();
            counts.merge(key, 1, Integer::sum);
            examples.putIfAbsent(key, "seed " + seed + "\n" + Differ.describe(small));
        }
        System.out.println("cases " + n + ", non-empty " + nonEmpty + ", cells out " + cellsOut + ", cells in " + cellsIn);
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
