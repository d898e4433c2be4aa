package io.basalt.engine;

import static org.assertj.core.api.Assertions.assertThat;

import io.basalt.cell.Cell;
import io.basalt.cell.CellComparator;
import io.basalt.cell.CellLayout;
import io.basalt.cell.CellType;
import io.basalt.cell.EncodedCell;
import io.basalt.client.FamilyDescriptor;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;

/** The two ways of judging a cell: from the cell (reads, flushes) and from its key in place (compaction). */
class VisibilityTest {

    private record Stored(EncodedCell cell, long sequence) {}

    private static final CellType[] TYPES = {CellType.PUT, CellType.PUT, CellType.PUT, CellType.DELETE,
        CellType.DELETE_COLUMN, CellType.DELETE_FAMILY};

    /** Cells of a few rows, two families and qualifiers of one length, in the order sources keep. */
    private static List<Stored> stream(Random random) {
        List<Stored> cells = new ArrayList<>();
        int count = 1 + random.nextInt(200);
        for (int i = 0; i < count; i++) {
            CellType type = TYPES[random.nextInt(TYPES.length)];
            byte[] qualifier = type == CellType.DELETE_FAMILY ? new byte[0] : ("q" + random.nextInt(3)).getBytes();
            Cell cell = Cell.of(("row" + random.nextInt(3)).getBytes(), (random.nextBoolean() ? "a" : "b").getBytes(),
                    qualifier, 100 + random.nextInt(6), type, type == CellType.PUT ? new byte[] {7} : new byte[0]);
            cells.add(new Stored(EncodedCell.decode(CellLayout.encode(cell), 0), 1 + random.nextInt(60)));
        }
        cells.sort((x, y) -> {
            int c = CellComparator.INSTANCE.compare(x.cell, y.cell);
            return c != 0 ? c : Long.compare(y.sequence, x.sequence);
        });
        return cells;
    }

    /** Verdicts of both ways over one stream, resetting at each row and family as compaction does. */
    private static Map<Visibility.Verdict, Integer> judgeBoth(List<Stored> cells, long readPoint, FamilyDescriptor family,
                                                            long now) {
        Visibility byCell = new Visibility(readPoint, family, now);
        Visibility byKey = new Visibility(readPoint, family, now);
        Map<Visibility.Verdict, Integer> seen = new EnumMap<>(Visibility.Verdict.class);
        EncodedCell last = null;
        for (Stored s : cells) {
            if (last == null || !last.sameRow(s.cell) || !last.sameFamily(s.cell)) {
                byCell.reset();
                byKey.reset();
            }
            last = s.cell;
            // The key at an offset inside a larger array, as a merge hands it over.
            byte[] key = CellLayout.keyBytes(s.cell);
            byte[] padded = new byte[key.length + 5];
            System.arraycopy(key, 0, padded, 3, key.length);
            Visibility.Verdict expected = byCell.judge(s.cell, s.sequence);
            Visibility.Verdict actual = byKey.judge(padded, 3, key.length, s.sequence);
            assertThat(actual).as("%s at sequence %d", s.cell, s.sequence).isEqualTo(expected);
            seen.merge(actual, 1, Integer::sum);
        }
        return seen;
    }

    @Property(tries = 400)
    void judgingAKeyInPlaceAgreesWithJudgingItsCell(@ForAll long seed) {
        Random random = new Random(seed);
        FamilyDescriptor family = FamilyDescriptor.of("a").withMaxVersions(1 + random.nextInt(3));
        if (random.nextBoolean()) {
            family = family.withTimeToLive(Duration.ofMillis(3));
        }
        judgeBoth(stream(random), 20 + random.nextInt(50), family, 104);
    }

    /** The property above meets every verdict: it compares the two ways on all their branches. */
    @Example
    void theStreamsMeetEveryVerdict() {
        Map<Visibility.Verdict, Integer> seen = new EnumMap<>(Visibility.Verdict.class);
        Random random = new Random(1);
        for (int i = 0; i < 50; i++) {
            judgeBoth(stream(random), 40, FamilyDescriptor.of("a").withMaxVersions(2), 104)
                    .forEach((verdict, n) -> seen.merge(verdict, n, Integer::sum));
        }
        assertThat(seen.keySet()).containsExactlyInAnyOrder(Visibility.Verdict.values());
    }
}
