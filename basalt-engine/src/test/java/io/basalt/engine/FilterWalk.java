package io.basalt.engine;

import io.basalt.bytes.Bytes;
import io.basalt.cell.Cell;
import io.basalt.client.filter.Filter;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.random.RandomGenerator;

/**
 * Basalt's side of the differential tests: {@link ScanFilter}, the evaluator the region reader
 * consults, walked over unfiltered rows cell by cell, each skip honoured by dropping the cells it
 * covers instead of seeking. {@link FilterSeekTest} proves the real reader, with its seeks,
 * returns exactly this; basalt-hbase-compat (through this module's test-jar) compares it with
 * HBase's filters, and checks it again against HBase through an embedded store.
 */
public final class FilterWalk {

    private FilterWalk() {}

    /**
     * The cells of {@code rows} (given in scan order, each row's cells in family, qualifier,
     * newest-first order) that {@code filter} keeps in a scan in the given direction, with
     * {@code random} deciding {@code RandomRowFilter}s.
     */
    public static List<Cell> walk(List<List<Cell>> rows, Filter filter, boolean reversed, RandomGenerator random) {
        return walk(rows, filter, reversed, random, Integer.MAX_VALUE);
    }

    /**
     * The same for a scan that returns at most {@code maxVersions} versions of a column: as the
     * reader does (and HBase), a column's cells are offered to the filter until it keeps one more
     * than that many, which is dropped and ends the column.
     */
    public static List<Cell> walk(List<List<Cell>> rows, Filter filter, boolean reversed, RandomGenerator random,
                                  int maxVersions) {
        return walk(rows, filter, reversed, random, maxVersions, null);
    }

    /**
     * The same over two regions, the second starting at row {@code split} ({@code null}: one
     * region): each region's reader keeps its own families closed by the filter.
     */
    static List<Cell> walk(List<List<Cell>> rows, Filter filter, boolean reversed, RandomGenerator random,
                           int maxVersions, byte[] split) {
        ScanFilter f = ScanFilter.compile(filter, reversed, random);
        List<Cell> out = new ArrayList<>();
        byte[] rowHint = null; // rows a skip's hint passes over are never offered, as the reader seeks past them
        java.util.Set<String> closed = new java.util.HashSet<>(); // families closed by ScanFilter.allRemaining
        // per family, the row a filter's seek sent its reader to (ScanFilter.rowSeekHint): its cells before are hidden
        java.util.Map<String, byte[]> seekRows = new java.util.HashMap<>();
        Boolean region = null;
        for (List<Cell> all : rows) {
            boolean second = split != null && Bytes.compare(all.getFirst().rowBytes(), split) >= 0;
            if (region != null && region != second) {
                closed.clear(); // another region's reader
                seekRows.clear();
            }
            region = second;
            byte[] stored = all.getFirst().rowBytes();
            seekRows.values().removeIf(target -> {
                int c = Bytes.compare(stored, target);
                return reversed ? c <= 0 : c >= 0; // reached (reversed, the target row itself is shown)
            });
            List<Cell> row = all.stream().filter(c -> !closed.contains(family(c)) && !seekRows.containsKey(family(c)))
                    .toList();
            if (row.isEmpty()) {
                continue;
            }
            byte[] key = row.getFirst().rowBytes();
            if (rowHint != null) {
                int c = io.basalt.bytes.Bytes.compare(key, rowHint);
                if (reversed ? c >= 0 : c < 0) {
                    continue;
                }
                rowHint = null;
            }
            int decision = f.startRow(key);
            if (decision == ScanFilter.ROW_STOP) {
                break;
            }
            // A row whose key the filter rejects is still read, its cells shown to the filter and
            // dropped, where the filter can see that, in a forward scan (as RegionScanner.readRejected).
            boolean discard = decision == ScanFilter.ROW_SKIP && !reversed && f.observesRejectedRows();
            if (!discard && (decision == ScanFilter.ROW_SKIP || decision == ScanFilter.ROW_CELLS)) {
                byte[] h = f.rowHint();
                if (h != null && h.length > 0 && (reversed ? io.basalt.bytes.Bytes.compare(h, key) < 0
                        : io.basalt.bytes.Bytes.compare(h, key) > 0)) {
                    rowHint = h;
                }
                continue;
            }
            List<Cell> kept = new ArrayList<>();
            int skipLevel = ScanFilter.SKIP;
            Cell from = null;
            byte[] hint = null;
            boolean closing = false;
            Cell column = null;
            int versions = 0;
            for (Cell cell : row) {
                if (column == null || Bytes.compare(cell.family(), column.family()) != 0
                        || Bytes.compare(cell.qualifier(), column.qualifier()) != 0) {
                    column = cell;
                    versions = 0;
                }
                if (closing || closed.contains(family(cell))) {
                    closed.add(family(cell));
                    continue;
                }
                if (from != null && covered(cell, from, skipLevel, hint)) {
                    continue;
                }
                from = null;
                int code = f.cell(cell);
                if (f.allRemaining()) {
                    closing = true;
                    closed.add(family(cell));
                }
                int level = ScanFilter.level(code);
                if (ScanFilter.included(code)) {
                    if (versions < maxVersions) {
                        kept.add(f.transformCell(cell));
                        versions++;
                    } else { // the scan has its versions of this column: one more kept is dropped and ends it
                        level = level == ScanFilter.NEXT_ROW ? ScanFilter.NEXT_ROW : ScanFilter.NEXT_COLUMN;
                    }
                }
                if (level == ScanFilter.SEEK) {
                    byte[] target = f.rowSeekHint();
                    if (!closing && f.allRemaining()) { // the hint ended the filter: the family ends at its next cell
                        closing = true;
                        closed.add(family(cell));
                    }
                    if (target != null && (reversed ? Bytes.compare(target, key) < 0 : Bytes.compare(target, key) > 0)) {
                        seekRows.put(family(cell), target); // a later row, for this family's reader only
                        level = ScanFilter.NEXT_FAMILY;
                    } else if (reversed || f.columnHint() == null) {
                        level = ScanFilter.SKIP; // the reader steps instead of seeking in a reversed scan, or without a hint
                    }
                }
                if (level == ScanFilter.NEXT_COLUMN && cell.qualifier().byteSize() == 0) {
                    level = ScanFilter.SKIP; // as the reader: from the empty qualifier, "next column" is a step
                }
                if (level == ScanFilter.NEXT_ROW) {
                    level = ScanFilter.NEXT_FAMILY; // as the reader: "next row" ends the row in this family only
                }
                if (level != ScanFilter.SKIP) {
                    from = cell;
                    skipLevel = level;
                    hint = f.columnHint();
                }
            }
            if (discard) {
                kept.clear();
            } else if (!kept.isEmpty()) {
                f.finishRow(kept);
            }
            out.addAll(kept);
            if (f.stopped()) {
                break;
            }
        }
        return out;
    }

    private static String family(Cell cell) {
        return new String(cell.familyBytes(), java.nio.charset.StandardCharsets.ISO_8859_1);
    }

    /** Whether a skip that {@code from} asked for covers {@code cell}. */
    private static boolean covered(Cell cell, Cell from, int level, byte[] hint) {
        boolean sameFamily = Bytes.compare(cell.family(), from.family()) == 0;
        int qualifier = Bytes.compare(cell.qualifier(), from.qualifier());
        return switch (level) {
            case ScanFilter.NEXT_COLUMN -> sameFamily && qualifier == 0;
            case ScanFilter.SEEK -> sameFamily
                    && (qualifier == 0 || Bytes.compare(cell.qualifier(), MemorySegment.ofArray(hint)) < 0);
            case ScanFilter.NEXT_FAMILY -> sameFamily;
            default -> false;
        };
    }
}
