package io.basalt.engine;

import static org.assertj.core.api.Assertions.assertThat;

import io.basalt.cell.Cell;
import io.basalt.engine.ListSource.Entry;
import io.basalt.cell.CellComparator;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;

/**
 * The merge yields every entry of every source exactly once, in cell order with the newest
 * sequence first among equal cells, from the start and after any seek, whatever the number of
 * sources and however their entries interleave.
 */
class MergingIteratorTest {

    /** Entries spread over {@code sourceCount} sources (each sorted) and all of them sorted. */
    private record Spread(List<List<Entry>> sources, List<Entry> all) {
        static Spread of(Random random, int sourceCount, int rows) {
            List<List<Entry>> sources = new ArrayList<>();
            List<Entry> all = new ArrayList<>();
            for (int s = 0; s < sourceCount; s++) {
                sources.add(new ArrayList<>());
            }
            long sequence = 1;
            for (int n = 0; n < rows * Math.max(1, sourceCount) && sourceCount > 0; n++) {
                // Few distinct rows and columns, so equal cells (same key, other sequences) are
                // common, and runs of one source's entries alternate with interleavings.
                Cell cell = Cell.put(String.format("r%03d", random.nextInt(Math.max(1, rows))), "f",
                        "q" + random.nextInt(3), 1 + random.nextInt(2), "v" + n);
                Entry e = new Entry(cell, sequence++);
                sources.get(random.nextInt(sourceCount)).add(e);
                all.add(e);
            }
            all.sort(ListSource.ORDER);
            return new Spread(sources, all);
        }

        MergingIterator merge() {
            List<InternalIterator> iterators = new ArrayList<>();
            sources.forEach(list -> iterators.add(new ListSource(list)));
            return new MergingIterator(iterators);
        }
    }

    @Property(tries = 300)
    void mergesEverySourceInOrder(@ForAll @IntRange(min = 0, max = 12) int sourceCount,
                                  @ForAll @IntRange(min = 0, max = 60) int rows,
                                  @ForAll long seed) {
        Random random = new Random(seed);
        Spread spread = Spread.of(random, sourceCount, rows);
        List<Entry> all = spread.all();
        try (MergingIterator merged = spread.merge()) {
            assertThat(drain(merged)).isEqualTo(sequences(all));
            if (!all.isEmpty()) {
                Entry from = all.get(random.nextInt(all.size()));
                merged.seek(from.cell());
                List<Entry> expected = all.stream()
                        .filter(e -> CellComparator.INSTANCE.compare(e.cell(), from.cell()) >= 0).toList();
                assertThat(drain(merged)).isEqualTo(sequences(expected));
            }
        }
    }

    @Property(tries = 300)
    void seekingForwardMovesOnlyAheadAndMissesNothing(@ForAll @IntRange(min = 1, max = 8) int sourceCount,
                                                      @ForAll @IntRange(min = 1, max = 40) int rows,
                                                      @ForAll long seed) {
        Random random = new Random(seed);
        Spread spread = Spread.of(random, sourceCount, rows);
        List<Entry> all = spread.all();
        try (MergingIterator merged = spread.merge()) {
            int consumed = random.nextInt(all.size());
            for (int i = 0; i < consumed; i++) {
                merged.next();
            }
            // A target after the current entry's key, as skipping a column makes: just past a column.
            Entry at = all.get(consumed + random.nextInt(all.size() - consumed));
            Cell target = SeekKey.firstOnColumn(at.cell().rowBytes(), at.cell().familyBytes(),
                    (new String(at.cell().qualifierBytes()) + "\0").getBytes());
            merged.seekForward(target);
            List<Entry> expected = all.subList(consumed, all.size()).stream()
                    .filter(e -> CellComparator.INSTANCE.compare(e.cell(), target) >= 0).toList();
            assertThat(drain(merged)).isEqualTo(sequences(expected));
        }
    }

    /**
     * What the merge says of a step (that it stayed in its row) is never wrong, however the
     * sources interleave and take over from each other; after a seek it says nothing.
     */
    @Property(tries = 300)
    void aStepSaidToStayInItsRowDid(@ForAll @IntRange(min = 1, max = 8) int sourceCount,
                                    @ForAll @IntRange(min = 1, max = 30) int rows,
                                    @ForAll long seed) {
        Random random = new Random(seed);
        Spread spread = Spread.of(random, sourceCount, rows);
        try (MergingIterator merged = spread.merge()) {
            byte[] previous = null;
            while (merged.valid()) {
                byte[] row = merged.cell().rowBytes();
                if (merged.sameRowAsPrevious()) {
                    assertThat(row).as("a step said to stay in row %s", new String(previous)).isEqualTo(previous);
                }
                previous = row;
                merged.next();
            }
            if (!spread.all().isEmpty()) {
                merged.seek(spread.all().get(random.nextInt(spread.all().size())).cell());
                assertThat(merged.sameRowAsPrevious()).as("after a seek").isFalse();
            }
        }
    }

    /**
     * A row whose cells all sort before every other source's entry is walked without looking at
     * the other sources again: one comparison finds the other source's row is a later one, and
     * the source's own word that it stayed in the row does the rest.
     */
    @org.junit.jupiter.api.Test
    void aRowAheadOfEveryOtherSourceIsWalkedWithoutComparisons() {
        List<Entry> first = new ArrayList<>();
        List<Entry> second = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            first.add(new Entry(Cell.put("user1", "f", "field" + i, 1, "v"), 1 + i));
            second.add(new Entry(Cell.put("user2", "f", "field" + i, 1, "v"), 11 + i));
        }
        ListSource ahead = new ListSource(first);
        ListSource behind = new ListSource(second);
        try (MergingIterator merged = new MergingIterator(List.of(ahead, behind))) {
            assertThat(merged.valid()).isTrue();
            int before = behind.looks;
            for (int i = 0; i < 9; i++) {
                assertThat(merged.sequence()).isEqualTo(1 + i);
                merged.next();
                assertThat(merged.sameRowAsPrevious()).as("step %d within user1", i).isTrue();
            }
            assertThat(merged.sequence()).isEqualTo(10);
            // one comparison and one row check (three looks each); without the shortcut, nine comparisons
            assertThat(behind.looks - before).isLessThanOrEqualTo(6);
            merged.next(); // from user1's last cell to user2's first
            assertThat(merged.sameRowAsPrevious()).as("into the next row").isFalse();
            List<Long> rest = drain(merged);
            assertThat(rest).containsExactly(11L, 12L, 13L, 14L, 15L, 16L, 17L, 18L, 19L, 20L);
        }
    }

    private static List<Long> drain(MergingIterator merged) {
        List<Long> out = new ArrayList<>();
        while (merged.valid()) {
            out.add(merged.sequence());
            merged.next();
        }
        return out;
    }

    private static List<Long> sequences(List<Entry> entries) {
        return entries.stream().map(Entry::sequence).toList();
    }
}
