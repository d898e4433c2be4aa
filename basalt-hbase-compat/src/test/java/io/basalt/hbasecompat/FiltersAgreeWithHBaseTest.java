package io.basalt.hbasecompat;

import io.basalt.hbasecompat.Gen.Case;
import java.util.Random;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.ShrinkingMode;

/**
 * Basalt's filters against HBase 2.6.4's own, over the same random rows: every filter alone, and
 * random filter lists, forward and reversed, compared cell for cell (row, family, qualifier,
 * timestamp, value; order included).
 */
class FiltersAgreeWithHBaseTest {

    @Property(tries = 4000, shrinking = ShrinkingMode.OFF)
    void eachFilterAgreesWithHBase(@ForAll long seed) {
        Random random = new Random(seed);
        Gen gen = new Gen(random);
        int versions = 1 + random.nextInt(3);
        Case c = new Case(gen.cells(versions), gen.single(), random.nextBoolean(), versions);
        Differ.check(c);
    }

    @Property(tries = 6000, shrinking = ShrinkingMode.OFF)
    void filterListTreesAgreeWithHBase(@ForAll long seed) {
        Random random = new Random(seed);
        Gen gen = new Gen(random);
        int versions = 1 + random.nextInt(3);
        Case c = new Case(gen.cells(versions), gen.tree(3), random.nextBoolean(), versions);
        Differ.check(c);
    }
}
