package io.basalt.engine;

import static org.assertj.core.api.Assertions.assertThat;

import io.basalt.bytes.Bytes;
import io.basalt.cell.Cell;
import io.basalt.engine.ListSource.Entry;
import io.basalt.cell.CellType;
import io.basalt.client.FamilyDescriptor;
import io.basalt.client.TimeRange;
import java.util.ArrayList;
import java.util.List;
import java.util.NavigableMap;
import java.util.NavigableSet;
import java.util.TreeMap;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/**
 * Reading one row skips the versions of a column it can no longer return, by a seek once a few
 * steps did not leave the column, and still returns exactly what a full pass would.
 */
class ReadRowTest {

    private static final byte[] ROW = Bytes.utf8("row");
    private static final FamilyDescriptor FAMILY = FamilyDescriptor.of("f");

    /** 1,000 writes of q1 (a delete of its newest version among them), 3 of q2, one of q3, and the next row. */
    private static List<Entry> hotRow() {
        List<Entry> entries = new ArrayList<>();
        long sequence = 1;
        for (int ts = 1; ts <= 1000; ts++) {
            entries.add(new Entry(Cell.put("row", "f", "q1", ts, "v" + ts), sequence++));
        }
        entries.add(new Entry(Cell.of(ROW, Bytes.utf8("f"), Bytes.utf8("q1"), 1000, CellType.DELETE, Bytes.EMPTY),
                sequence++));
        for (int ts = 1; ts <= 3; ts++) {
            entries.add(new Entry(Cell.put("row", "f", "q2", ts, "w" + ts), sequence++));
        }
        entries.add(new Entry(Cell.put("row", "f", "q3", 7, "x"), sequence++));
        entries.add(new Entry(Cell.put("rox", "f", "q1", 1, "next row"), sequence++));
        return entries;
    }

    private static List<String> read(ListSource source, NavigableMap<byte[], NavigableSet<byte[]>> columns,
                                     int maxVersions) {
        MergingIterator merged = new MergingIterator(List.of(source));
        merged.seek(SeekKey.firstOnRow(ROW));
        FamilyDescriptor family = FAMILY.withMaxVersions(Math.max(1, maxVersions));
        List<Cell> cells = RegionScanner.readRow(merged, ROW, new byte[][] {Bytes.utf8("f")}, new Visibility[] {new Visibility(Long.MAX_VALUE, family, 0)}, columns,
                TimeRange.ALL, maxVersions, null, null, null, false, false, false);
        return cells.stream().map(c -> new String(c.qualifierBytes()) + "@" + c.timestamp() + "=" + new String(c.valueBytes()))
                .toList();
    }

    @Test
    void theNewestVersionComesBackWithoutSteppingThroughTheRest() {
        ListSource source = new ListSource(hotRow());
        assertThat(read(source, new TreeMap<>(Bytes::compare), 1)).containsExactly("q1@999=v999", "q2@3=w3", "q3@7=x");
        // One seek past each column with versions left after its newest (q1 and q2), none for q3.
        assertThat(source.seeks - 1).as("seeks past q1's and q2's older versions").isEqualTo(2);
        assertThat(source.steps).as("entries stepped over").isLessThan(40);
        assertThat(source.valid() && new String(source.cell().rowBytes()).equals("rox")).as("left on the next row")
                .isTrue();
    }

    @Test
    void severalVersionsAndSelectedColumnsStillComeBackExactly() {
        ListSource source = new ListSource(hotRow());
        assertThat(read(source, new TreeMap<>(Bytes::compare), 3))
                .containsExactly("q1@999=v999", "q1@998=v998", "q1@997=v997", "q2@3=w3", "q2@2=w2", "q2@1=w1", "q3@7=x");
        NavigableMap<byte[], NavigableSet<byte[]>> onlyQ3 = new TreeMap<>(Bytes::compare);
        NavigableSet<byte[]> q3 = new TreeSet<>(Bytes::compare);
        q3.add(Bytes.utf8("q3"));
        onlyQ3.put(Bytes.utf8("f"), q3);
        ListSource selected = new ListSource(hotRow());
        assertThat(read(selected, onlyQ3, 1)).containsExactly("q3@7=x");
        assertThat(selected.steps).as("an unselected column is skipped too").isLessThan(40);
    }

    /** Family markers share the empty qualifier; skipping "that column" would lose the later ones. */
    @Test
    void everyFamilyMarkerIsSeenWhenOnlyOtherColumnsAreSelected() {
        byte[] f = Bytes.utf8("f");
        List<Entry> entries = List.of(
                new Entry(Cell.of(ROW, f, Bytes.EMPTY, 20, CellType.DELETE_FAMILY, Bytes.EMPTY), 5),
                new Entry(Cell.put(ROW, f, Bytes.EMPTY, 15, Bytes.utf8("empty qualifier")), 6),
                new Entry(Cell.of(ROW, f, Bytes.EMPTY, 10, CellType.DELETE_FAMILY, Bytes.EMPTY), 9),
                new Entry(Cell.put("row", "f", "q1", 12, "visible"), 7),
                new Entry(Cell.put("row", "f", "q1", 5, "masked by the second marker"), 8));
        NavigableMap<byte[], NavigableSet<byte[]>> onlyQ1 = new TreeMap<>(Bytes::compare);
        NavigableSet<byte[]> q1 = new TreeSet<>(Bytes::compare);
        q1.add(Bytes.utf8("q1"));
        onlyQ1.put(f, q1);
        assertThat(read(new ListSource(entries), onlyQ1, 2)).containsExactly("q1@12=visible");
        assertThat(read(new ListSource(entries), new TreeMap<>(Bytes::compare), 1))
                .containsExactly("@15=empty qualifier", "q1@12=visible");
    }
}
