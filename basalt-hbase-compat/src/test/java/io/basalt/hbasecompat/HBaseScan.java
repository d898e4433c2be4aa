package io.basalt.hbasecompat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.TreeMap;
import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.CellComparator;
import org.apache.hadoop.hbase.CellUtil;
import org.apache.hadoop.hbase.filter.Filter;
import org.apache.hadoop.hbase.filter.Filter.ReturnCode;

/**
 * HBase's side of the differential tests: a scan of one region that applies an HBase
 * {@link Filter} to given cells calling the filter contract in the order HBase 2.6.4's
 * {@code RegionScannerImpl}, {@code StoreScanner}, {@code UserScanQueryMatcher} and
 * {@code FilterWrapper} do. Written from reading those classes; none of their code is used
 * (hbase-server is not on the class path), only the filters themselves, from hbase-client.
 *
 * <p>What it models, because it changes what filters see:
 * <ul>
 *   <li>One store per family, each its own cursor. A filter's {@code NEXT_ROW} or a seek hint
 *       moves only the store whose cell it judged: the region's other families still offer the
 *       row's cells (HBASE-18368), and a store that seeks into a later row skips its cells of the
 *       rows in between while the other stores still offer theirs.</li>
 *   <li>Per row: {@code filterRowKey} (through the wrapper, so {@code filterAllRemaining} first).
 *       In a forward scan a row filtered by key is still read through by the stores, cell by
 *       cell, with {@code filterCell} called and the result thrown away, as
 *       {@code RegionScannerImpl.nextRow} does; a reversed scan seeks every store to the row
 *       before ({@code ReversedRegionScannerImpl.nextRow}). Then {@code reset}.</li>
 *   <li>Per cell, in its store: {@code filterAllRemaining} (true: the store is closed for the rest
 *       of the scan; asked also of the next row's first cell, which the store reads ahead before
 *       it sees the row has changed, whether it stepped or sought there on a next row),
 *       {@code filterCell}, the return code merged with the column tracker's as
 *       {@code UserScanQueryMatcher.mergeFilterResponse} does (versions kept after the filter
 *       capped at the scan's), {@code transformCell} on what is kept, {@code getNextCellHint} on
 *       {@code SEEK_NEXT_USING_HINT} (a forward scan reseeks when the hint is after the cell, a
 *       reversed one seeks backward, as {@code ReversedKeyValueHeap.backwardSeek}, when it is
 *       before; otherwise the store steps).</li>
 *   <li>At the row's end: {@code filterRowCells} and {@code filterRow} when {@code hasFilterRow},
 *       else {@code filterRow}; an empty row is dropped without asking; then {@code reset}, and
 *       the scan ends when {@code filterAllRemaining}.</li>
 * </ul>
 * The cells given are what the column tracker lets through: visible, selected, in the time range,
 * at most the scan's versions per column. So the tracker never stops a column here and only the
 * filter decides.
 */
final class HBaseScan {

    /** HBase's scan would not end: a store asked to seek where it already is, again and again. */
    static final class DoesNotTerminate extends RuntimeException {
        private static final long serialVersionUID = 1L;

        DoesNotTerminate(String message) {
            super(message);
        }
    }

    private static final CellComparator CELLS = CellComparator.getInstance();

    private final Filter filter;
    private final boolean reversed;
    private final int maxVersions;
    private final List<Store> stores = new ArrayList<>();
    private long budget;

    private HBaseScan(List<Kv> cells, Filter filter, boolean reversed, int maxVersions) {
        this.filter = filter;
        this.reversed = reversed;
        this.maxVersions = maxVersions;
        TreeMap<byte[], List<Cell>> byFamily = new TreeMap<>(Arrays::compareUnsigned);
        for (Kv kv : cells) {
            byFamily.computeIfAbsent(kv.family(), f -> new ArrayList<>()).add(kv.toHBase());
        }
        for (List<Cell> family : byFamily.values()) {
            family.sort(scanOrder());
            stores.add(new Store(family));
        }
        this.budget = 1000L + 50L * cells.size() * Math.max(1, cells.size());
    }

    /**
     * The cells a scan with {@code filter} returns from a region holding {@code cells}, in the
     * order the scan returns them; {@code maxVersions} is the scan's (and the family's) number of
     * versions, which {@code cells} must already respect.
     */
    static List<Kv> scan(List<Kv> cells, Filter filter, boolean reversed, int maxVersions) {
        try {
            if (reversed) {
                filter.setReversed(true); // HRegion.getScanner does this for a reversed scan
            }
            return new HBaseScan(cells, filter, reversed, maxVersions).run();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Forward: storage order. Reversed: rows descending, each row's cells still in storage order. */
    private Comparator<Cell> scanOrder() {
        if (!reversed) {
            return CELLS;
        }
        return (a, b) -> {
            int c = CELLS.compareRows(a, b);
            return c != 0 ? -c : CELLS.compare(a, b);
        };
    }

    // ------------------------------------------------------------------ region

    private List<Kv> run() throws IOException {
        List<Kv> out = new ArrayList<>();
        while (true) {
            Cell current = peek();
            if (current == null) {
                break;
            }
            if (--budget < 0) { // a row the stores do not move past, whatever the filter said
                throw new DoesNotTerminate("HBase's scan makes no progress at row " + Kv.of(current) + " with " + filter);
            }
            // FilterWrapper.filterRowKey: filterAllRemaining first
            if (filter.filterAllRemaining() || filter.filterRowKey(current)) {
                if (filter.filterAllRemaining()) {
                    break;
                }
                nextRow(current);
                continue;
            }
            List<Cell> results = new ArrayList<>();
            readRow(current, results);
            boolean emptyRow = results.isEmpty();
            boolean excluded = false;
            boolean hasFilterRow = filter.hasFilterRow();
            if (hasFilterRow) {
                // FilterWrapper.filterRowCellsWithRet
                filter.filterRowCells(results);
                if (!results.isEmpty() && filter.filterRow()) {
                    results.clear();
                    excluded = true;
                }
            }
            if (emptyRow || excluded || (!hasFilterRow && filter.filterRow()) || results.isEmpty()) {
                nextRow(current);
                continue;
            }
            for (Cell c : results) {
                out.add(Kv.of(c));
            }
            filter.reset(); // RegionScannerImpl.nextRaw, between rows
            if (filter.filterAllRemaining()) {
                break;
            }
        }
        return out;
    }

    /** The store whose next cell comes first in the scan, or {@code null}. */
    private Store top() {
        Store best = null;
        Comparator<Cell> order = scanOrder();
        for (Store s : stores) {
            Cell c = s.peek();
            if (c != null && (best == null || order.compare(c, best.peek()) < 0)) {
                best = s;
            }
        }
        return best;
    }

    private Cell peek() {
        Store s = top();
        return s == null ? null : s.peek();
    }

    /** {@code RegionScannerImpl.populateResult}: each store in turn, while the region's next cell is in the row. */
    private void readRow(Cell rowCell, List<Cell> results) throws IOException {
        Store s;
        while ((s = top()) != null && CellUtil.matchingRows(s.peek(), rowCell)) {
            s.next(results);
        }
    }

    /**
     * {@code RegionScannerImpl.nextRow}: forward, the stores read through the row (filter and
     * all) and the cells are dropped; reversed ({@code ReversedRegionScannerImpl.nextRow}), every
     * store seeks to the row before, unfiltered. Then the filter is reset.
     */
    private void nextRow(Cell rowCell) throws IOException {
        if (reversed) {
            for (Store s : stores) {
                s.seekBefore(rowCell);
            }
        } else {
            readRow(rowCell, new ArrayList<>());
        }
        filter.reset();
    }

    // ------------------------------------------------------------------ store

    /** One family's {@code StoreScanner}, over its cells in scan order. */
    private final class Store {
        private final List<Cell> cells;
        private int pos;
        private boolean closed;
        /** UserScanQueryMatcher's count of versions kept in the current column. */
        private Cell column;
        private int kept;

        Store(List<Cell> cells) {
            this.cells = cells;
        }

        Cell peek() {
            return closed || pos >= cells.size() ? null : cells.get(pos);
        }

        /**
         * ScanWildcardColumnTracker's state: the column and timestamp last checked; reset at each
         * StoreScanner.next call (matcher.setToNewRow).
         */
        private Cell trackedColumn;
        private long trackedTimestamp;

        /** {@code StoreScanner.next}: this store's cells of the current row. */
        void next(List<Cell> results) throws IOException {
            Cell first = peek();
            Cell cell;
            trackedColumn = null;
            while ((cell = peek()) != null) {
                if (--budget < 0) {
                    throw new DoesNotTerminate("HBase's scan makes no progress at " + Kv.of(cell) + " with " + filter);
                }
                // NormalUserScanQueryMatcher.match asks filterAllRemaining before it looks at the
                // row, so also of the first cell of the next row, which StoreScanner.next reads
                // ahead: true there closes the store for the rest of the scan (DONE_SCAN)
                if (filter.filterAllRemaining()) {
                    closed = true;
                    return;
                }
                if (!CellUtil.matchingRows(cell, first)) { // ScanQueryMatcher.preCheck: DONE
                    return;
                }
                // UserScanQueryMatcher.matchColumn -> ScanWildcardColumnTracker.checkVersions, before the
                // filter: a cell met again (a seek that stayed where it was) is SKIPped unasked
                if (trackedColumn != null && CellUtil.matchingQualifier(cell, trackedColumn)) {
                    if (cell.getTimestamp() == trackedTimestamp) { // sameAsPreviousTSAndType
                        pos++;
                        continue;
                    }
                    trackedTimestamp = cell.getTimestamp();
                } else {
                    trackedColumn = cell;
                    trackedTimestamp = cell.getTimestamp();
                }
                ReturnCode rc = filter.filterCell(cell);
                switch (rc) {
                    case INCLUDE, INCLUDE_AND_NEXT_COL, INCLUDE_AND_SEEK_NEXT_ROW -> {
                        boolean nextRow = rc == ReturnCode.INCLUDE_AND_SEEK_NEXT_ROW;
                        boolean nextColumn = rc == ReturnCode.INCLUDE_AND_NEXT_COL;
                        if (column == null || !CellUtil.matchingRowColumn(cell, column)) {
                            column = cell;
                            kept = 0;
                        }
                        kept++;
                        if (kept > maxVersions) { // versionsAfterFilter
                            if (nextRow) {
                                skipRow();
                                continue; // the next row's first cell is met (see below)
                            }
                            skipColumn();
                            continue;
                        }
                        results.add(filter.transformCell(cell));
                        if (nextRow) {
                            skipRow();
                        } else if (nextColumn) {
                            skipColumn();
                        } else {
                            pos++;
                        }
                    }
                    case SKIP -> pos++;
                    case NEXT_COL -> skipColumn();
                    // StoreScanner.next goes on after seeking to the next row: that row's first
                    // cell is matched, filterAllRemaining first, before the row change ends the call
                    case NEXT_ROW -> skipRow();
                    case SEEK_NEXT_USING_HINT -> {
                        Cell hint = filter.getNextCellHint(cell);
                        int difference = hint == null ? 0 : CELLS.compare(hint, cell);
                        if (hint != null && !reversed && difference > 0) {
                            reseek(hint);
                        } else if (hint != null && reversed && difference < 0) {
                            backwardSeek(hint);
                        } else {
                            pos++;
                        }
                    }
                    default -> throw new IllegalStateException("return code " + rc);
                }
            }
        }

        /** Reversed: past every cell of {@code rowCell}'s row and of rows after it. */
        void seekBefore(Cell rowCell) {
            while (pos < cells.size() && CELLS.compareRows(cells.get(pos), rowCell) >= 0) {
                pos++;
            }
        }

        /**
         * {@code SEEK_NEXT_COL}: past the column, except from the empty qualifier, where
         * {@code ScanQueryMatcher.getKeyForNextColumn} (HBASE-18471: family delete markers sort
         * there) gives the key just after the cell, so the store moves to the column's next cell.
         */
        private void skipColumn() {
            Cell from = cells.get(pos);
            if (from.getQualifierLength() == 0) {
                pos++;
                return;
            }
            while (pos < cells.size() && CellUtil.matchingRowColumn(cells.get(pos), from)) {
                pos++;
            }
        }

        private void skipRow() {
            Cell from = cells.get(pos);
            while (pos < cells.size() && CellUtil.matchingRows(cells.get(pos), from)) {
                pos++;
            }
        }

        /** Forward: the first cell at or after {@code key}. */
        private void reseek(Cell key) {
            while (pos < cells.size() && CELLS.compare(cells.get(pos), key) < 0) {
                pos++;
            }
        }

        /**
         * Reversed ({@code ReversedKeyValueHeap.backwardSeek} over one file): stays when the current
         * cell is in {@code key}'s row at or after it, or in a row before it; otherwise moves to the
         * first cell at or after {@code key} in {@code key}'s row, or, if there is none, to the first
         * cell of the row before {@code key}'s.
         */
        private void backwardSeek(Cell key) {
            Cell top = cells.get(pos);
            if ((CellUtil.matchingRows(key, top) && CELLS.compare(key, top) <= 0) || CELLS.compareRows(key, top) > 0) {
                return;
            }
            int target = -1;
            for (int i = 0; i < cells.size(); i++) { // at or after key, in key's row
                Cell c = cells.get(i);
                if (CellUtil.matchingRows(c, key) && CELLS.compare(c, key) >= 0
                        && (target < 0 || CELLS.compare(c, cells.get(target)) < 0)) {
                    target = i;
                }
            }
            if (target < 0) { // the first cell of the greatest row before key's
                for (int i = 0; i < cells.size(); i++) {
                    Cell c = cells.get(i);
                    if (CELLS.compareRows(c, key) >= 0) {
                        continue;
                    }
                    if (target < 0) {
                        target = i;
                        continue;
                    }
                    Cell t = cells.get(target);
                    int rows = CELLS.compareRows(c, t);
                    if (rows > 0 || (rows == 0 && CELLS.compare(c, t) < 0)) {
                        target = i;
                    }
                }
            }
            pos = target < 0 ? cells.size() : target;
        }
    }
}
