package io.basalt.engine;

import io.basalt.bytes.Bytes;
import io.basalt.cell.Cell;
import io.basalt.cell.CellType;
import io.basalt.cell.EncodedCell;
import io.basalt.client.FamilyDescriptor;
import io.basalt.client.Result;
import io.basalt.client.Scan;
import io.basalt.client.TimeRange;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.NavigableMap;
import java.util.NavigableSet;

/**
 * Reads rows of one region at one snapshot: a merge of the view's memtables and SSTables, with
 * {@link Visibility} deciding what is alive and the scan's selection deciding what is returned.
 * Forward scans stream the merge; reversed scans find each previous row, then read it forward.
 *
 * <p>Not thread-safe. Holds references to the snapshot's SSTables and (unless its table's scanner
 * holds it) a registration of its read point (which stops compaction from dropping what it may still need) until closed.
 */
final class RegionScanner implements AutoCloseable {

    private final Scan scan;
    private final View view;
    private final long readPoint;
    private final long now;
    private final ReadPoints.Registration registration;
    private final List<FamilyDescriptor> families;
    private final byte[][] familyNames;
    private final Visibility[] visibility;
    private final List<MemTable> memtables;
    private final List<SSTableReader> files;
    private final MergingIterator merged;
    private final NavigableMap<byte[], NavigableSet<byte[]>> columns;
    /** {@link #columns} for {@link #readRow}: empty when no family names its qualifiers. */
    private final NavigableMap<byte[], NavigableSet<byte[]>> qualifierLimits;
    /** The scan's filter, shared with the other regions' scanners of the same scan; {@code null} without one. */
    private final ScanFilter filter;
    /** Per family read: closed for the rest of this region's scan by the filter ({@link ScanFilter#allRemaining}). */
    private final boolean[] closedFamilies;
    /**
     * Per family read: the row a filter's seek sent this family's reader to ({@link
     * ScanFilter#rowSeekHint}), until the scan reaches it; {@code null} for none.
     */
    private final byte[][] seekRows;
    /** Whether the filter judges each stored row key before the row is read (see {@link ScanFilter#judgesVisibleRowsOnly}). */
    private final boolean keyFirst;
    /**
     * Whether a row the filter's key decision rejects ({@link ScanFilter#ROW_SKIP}) is still read,
     * its cells shown to the filter and dropped: HBase moves past such a row through its store
     * scanners, whose matcher asks the filter about each cell, so a filter that {@link
     * ScanFilter#observesRejectedRows} (a while-match before the rejecting filter in a list, a
     * column count) can end the scan or close families there. Without such a filter, a seek past
     * the row returns the same rows. Forward scans only: a reversed HBase scan seeks its stores
     * to the row before ({@code ReversedRegionScannerImpl.nextRow}) without asking the filter.
     */
    private final boolean readRejected;
    private byte[] reverseBound;
    private boolean started;
    private boolean finished;
    /** Later parts of a row split by {@link Scan#batch()}, served before the next row. */
    private final java.util.ArrayDeque<Result> parts = new java.util.ArrayDeque<>();
    private long returned;
    private boolean closed;

    RegionScanner(Region region, Scan scan, View view, long readPoint, long now, ReadPoints.Registration registration,
                  ScanFilter filter) {
        this.scan = scan;
        this.filter = filter;
        this.view = view;
        this.readPoint = readPoint;
        this.now = now;
        this.registration = registration;
        this.columns = scan.columns();
        this.qualifierLimits = qualifierLimits(columns);
        this.families = new ArrayList<>();
        for (FamilyDescriptor family : region.descriptor().families()) {
            if (columns.isEmpty() || columns.containsKey(Bytes.utf8(family.name()))) {
                families.add(family);
            }
        }
        this.familyNames = new byte[families.size()][];
        this.visibility = new Visibility[families.size()];
        this.closedFamilies = new boolean[families.size()];
        this.seekRows = new byte[families.size()][];
        this.keyFirst = filter != null && (scan.raw() || !filter.judgesVisibleRowsOnly());
        this.readRejected = filter != null && !scan.raw() && !scan.reversed() && filter.observesRejectedRows();
        for (int i = 0; i < families.size(); i++) {
            familyNames[i] = Bytes.utf8(families.get(i).name());
            visibility[i] = new Visibility(readPoint, families.get(i), now);
        }
        this.memtables = new ArrayList<>();
        memtables.add(view.active());
        memtables.addAll(view.flushing());
        this.files = new ArrayList<>();
        boolean singleRow = isSingleRow(scan);
        for (FamilyDescriptor family : families) {
            for (SSTableReader file : view.files().getOrDefault(family.name(), List.of())) {
                if (!singleRow || file.mightContainRow(scan.startRow())) {
                    files.add(file);
                }
            }
        }
        List<InternalIterator> sources = new ArrayList<>();
        memtables.forEach(m -> sources.add(m.newIterator()));
        files.forEach(f -> sources.add(f.newIterator()));
        this.merged = new MergingIterator(sources);
    }

    private static boolean isSingleRow(Scan scan) {
        return scan.startRow().length > 0 && scan.startInclusive() && scan.stopInclusive()
                && java.util.Arrays.equals(scan.startRow(), scan.stopRow());
    }

    long readPoint() {
        return readPoint;
    }

    /**
     * The next row with visible cells, or {@code null} at the end (and every time after). With a
     * {@link Scan#batch()} a wide row comes as several results of at most that many cells, all but
     * the last marked partial.
     */
    Result next() {
        if (!parts.isEmpty()) {
            return parts.poll();
        }
        if (closed || finished || (scan.limit() > 0 && returned >= scan.limit())) {
            return null;
        }
        while (true) {
            byte[] row = scan.reversed() ? previousRow() : nextForwardRow();
            if (row == null) {
                finished = true;
                return null;
            }
            if (keyFirst) { // judge the stored key before reading: a rejected row is sought past unread
                int decision = filter.judgeRow(row);
                if (decision == ScanFilter.ROW_STOP) {
                    finished = true;
                    return null;
                }
                if (decision != ScanFilter.ROW_INCLUDE && !(decision == ScanFilter.ROW_SKIP && readRejected)) {
                    skipRow(row, filter.rowHint());
                    continue;
                }
            }
            List<Cell> cells = readRow(row, keyFirst); // empty for a rejected row read through (readRejected)
            if (cells == null) { // the filter judged the key at the row's first visible cell and passed it over
                if (filter.rowDecision() == ScanFilter.ROW_STOP) {
                    finished = true;
                    return null;
                }
                skipRow(row, filter.rowHint());
                continue;
            }
            if (filter != null) {
                skipSoughtRows(row);
            }
            if (filter != null && !cells.isEmpty()) {
                filter.finishRow(cells);
            }
            if (filter != null && filter.stopped()) {
                finished = true; // this row was the last that can pass
            }
            if (!cells.isEmpty()) {
                returned++;
                int batch = scan.batch();
                if (batch <= 0 || cells.size() <= batch) {
                    return Result.of(cells);
                }
                for (int from = 0; from < cells.size(); from += batch) {
                    int to = Math.min(cells.size(), from + batch);
                    parts.add(Result.of(cells.subList(from, to), to < cells.size()));
                }
                return parts.poll();
            }
            if (finished) {
                return null;
            }
        }
    }

    /**
     * Moves past {@code row} (which the filter skipped, or which was read and sent every family
     * on) to {@code hint} when there is one that lies ahead: forward, the merge seeks there;
     * reversed, the search for the previous row starts below it.
     */
    private void skipRow(byte[] row, byte[] hint) {
        boolean usable = hint != null && hint.length > 0 && hint.length <= Cell.MAX_ROW_LENGTH;
        if (scan.reversed()) {
            if (usable && Bytes.compare(hint, row) < 0) {
                reverseBound = hint;
            }
            return;
        }
        if (usable && Bytes.compare(hint, row) > 0) {
            merged.seekForward(SeekKey.firstOnRow(hint));
        } else if (row.length < Cell.MAX_ROW_LENGTH) {
            merged.seekForward(SeekKey.afterRow(row));
        } else {
            while (merged.valid() && merged.cell().hasRow(row)) {
                merged.next();
            }
        }
    }

    /**
     * After a row: when a filter's seek sent every family's reader to a later row (or the filter
     * closed the family), moves the merge to the nearest of them. (A family whose reader was not
     * sent on shows its rows between, and the reader hides the others' cells there: a family that
     * holds few rows costs a step per row until its own cells are rejected.)
     */
    private void skipSoughtRows(byte[] row) {
        boolean reversed = scan.reversed();
        byte[] nearest = null;
        boolean every = true;
        for (int i = 0; i < seekRows.length; i++) {
            byte[] target = seekRows[i];
            if (target != null && (reversed ? Bytes.compare(target, row) >= 0 : Bytes.compare(target, row) <= 0)) {
                seekRows[i] = target = null; // reached: the family's reader is at the scan's row again
            }
            if (target == null) {
                every &= closedFamilies[i];
            } else if (nearest == null || (reversed ? Bytes.compare(target, nearest) > 0 : Bytes.compare(target, nearest) < 0)) {
                nearest = target;
            }
        }
        if (every && nearest != null) {
            // Reversed, a seek's target row is itself shown (HBase's backward seek lands at or
            // before it), so the bound is just past it.
            skipRow(row, reversed ? SeekKey.afterRowBytes(nearest) : nearest);
        }
    }

    /** Positions the merge on the next row in forward order and returns it, or {@code null}. */
    private byte[] nextForwardRow() {
        if (!started) {
            started = true;
            byte[] start = scan.startRow();
            if (start.length > 0) {
                merged.seek(scan.startInclusive() ? SeekKey.firstOnRow(start) : SeekKey.afterRow(start));
            }
        }
        if (!merged.valid()) {
            return null;
        }
        byte[] row = merged.cell().rowBytes();
        return scan.beforeStop(row) ? row : null;
    }

    /** Finds the row before the last one returned (or the start), seeks the merge to it. */
    private byte[] previousRow() {
        byte[] bound;
        if (!started) {
            started = true;
            byte[] start = scan.startRow();
            bound = start.length == 0 ? null : scan.startInclusive() ? SeekKey.afterRowBytes(start) : start;
        } else {
            bound = reverseBound;
        }
        byte[] best = null;
        for (MemTable memtable : memtables) {
            best = max(best, memtable.rowBefore(bound));
        }
        for (SSTableReader file : files) {
            best = max(best, file.rowBefore(bound));
        }
        if (best == null || !scan.beforeStop(best)) {
            return null;
        }
        reverseBound = best;
        merged.seek(SeekKey.firstOnRow(best));
        return best;
    }

    private static byte[] max(byte[] a, byte[] b) {
        if (a == null) {
            return b;
        }
        if (b == null) {
            return a;
        }
        return Bytes.compare(a, b) >= 0 ? a : b;
    }

    /**
     * Reads the row the merge is positioned on ({@code keyJudged}: the filter has judged its key);
     * leaves the merge after it, or inside it when the filter passes the row over ({@code null}).
     */
    private List<Cell> readRow(byte[] row, boolean keyJudged) {
        if (scan.raw()) {
            return rawRow(row);
        }
        List<Cell> cells = readRow(merged, row, familyNames, visibility, qualifierLimits, scan.timeRange(),
                scan.maxVersions(), filter, closedFamilies, seekRows, scan.reversed(), keyJudged, readRejected);
        if (filter != null && closedFamilies.length > 0 && allClosed()) {
            finished = true; // the filter closed every family: nothing more can come
        }
        return cells;
    }

    /**
     * {@code columns} when a family in it names qualifiers, else an empty map, for {@link
     * #readRow}: a scan or get of whole families (YCSB's) then never looks its family up in the
     * selection's sorted map, which it did at every row (4% of a short-scan workload).
     */
    static NavigableMap<byte[], NavigableSet<byte[]>> qualifierLimits(NavigableMap<byte[], NavigableSet<byte[]>> columns) {
        for (NavigableSet<byte[]> qualifiers : columns.values()) {
            if (!qualifiers.isEmpty()) {
                return columns;
            }
        }
        return java.util.Collections.emptyNavigableMap();
    }

    private boolean allClosed() {
        for (boolean c : closedFamilies) {
            if (!c) {
                return false;
            }
        }
        return true;
    }

    /**
     * Reads the visible, selected cells of {@code row} from a merge positioned on its first cell (or
     * past it); leaves the merge after the row (inside it when it returns {@code null}). Shared by
     * scans and point gets.
     *
     * @param familyNames the names of the families read
     * @param visibility one judge per family read, in the same order
     * @param filter judges the row's key at its first visible cell ({@link ScanFilter#judgeRow}),
     *     then each cell the read would return, and may move the merge past the column, family or
     *     row; {@code null} for none. The rest of its row-level calls are the caller's.
     *     {@code maxVersions} counts what it keeps: as HBase, it is still shown a column's later
     *     versions once the count is reached, and the first of those it keeps is dropped and ends
     *     the column, so a filter with state (a while-match, a skip) sees the versions HBase's does.
     * @param closedFamilies per family read, whether the filter closed it for the rest of the
     *     region's scan: HBase ends a family's store scanner at the first cell it meets while the
     *     filter's {@code filterAllRemaining} holds, which a {@code ColumnCountGetFilter} makes
     *     true within a row that has more columns than its limit. So once {@link
     *     ScanFilter#allRemaining} holds after a cell, that cell's family and every family of a
     *     later visible cell of the row close; a closed family's cells are never offered again.
     *     Ignored without a filter.
     * @param seekRows per family read, the row a filter's seek to a later row ({@link
     *     ScanFilter#rowSeekHint}) sent its reader to: as HBase's seek moves one store scanner,
     *     the family is left for this row and its cells in rows before that one are never
     *     offered (nor returned); reversed, the rows after it, the target itself being shown,
     *     as HBase's backward seek lands at or before it. Ignored without a filter.
     * @param keyJudged whether the caller has had the filter judge the row's key already
     * @param readRejected whether a row whose key the filter rejects ({@link ScanFilter#ROW_SKIP})
     *     is read all the same, every cell it would have been asked about shown to it and none
     *     returned (an empty list), as HBase's region scanner moves past such a row
     * @param reversed whether the scan runs backwards: a filter's column hint is then not sought
     *     to (HBase's reversed scanners step instead, HBASE-26232), so the filter sees each cell
     * @return the cells, or {@code null} when the filter's key decision passed the row over (the
     *     merge is left inside the row; the decision is the filter's {@code rowDecision()}) and
     *     the row is not read through
     */
    static List<Cell> readRow(MergingIterator merged, byte[] row, byte[][] familyNames, Visibility[] visibility,
                              NavigableMap<byte[], NavigableSet<byte[]>> columns, TimeRange timeRange, int maxVersions,
                              ScanFilter filter, boolean[] closedFamilies, byte[][] seekRows, boolean reversed,
                              boolean keyJudged, boolean readRejected) {
        List<Cell> out = new ArrayList<>();
        for (Visibility v : visibility) {
            v.reset();
        }
        int familyIndex = -1;
        EncodedCell familyCell = null;
        EncodedCell columnCell = null;
        NavigableSet<byte[]> qualifiers = null;
        boolean columnSelected = false;
        int returnedVersions = 0;
        FilterSkip skip = null; // the filter's last skip: what it covers is never offered to the filter again
        boolean judged = keyJudged; // whether the filter has judged the row's key
        boolean closing = false; // the filter's allRemaining held after a cell of this row
        boolean sought = false; // the current family's reader was sent past this row by a filter's seek
        // the filter rejected the row's key, and it is read through without returning a cell
        boolean discard = keyJudged && readRejected && filter != null && filter.rowDecision() == ScanFilter.ROW_SKIP;

        boolean first = true;
        while (merged.valid()) {
            EncodedCell cell = merged.cell();
            // After the first cell, a step the merge knows stayed in the row needs no row compare.
            if ((first || !merged.sameRowAsPrevious()) && !cell.hasRow(row)) {
                break;
            }
            first = false;
            if (familyCell == null || !familyCell.sameFamily(cell)) {
                familyCell = cell;
                familyIndex = familyIndex(familyNames, cell);
                columnCell = null;
                qualifiers = familyIndex < 0 || columns.isEmpty() ? null : columns.get(familyNames[familyIndex]);
                sought = false;
                if (filter != null && familyIndex >= 0 && seekRows[familyIndex] != null) {
                    int c = Bytes.compare(row, seekRows[familyIndex]);
                    sought = reversed ? c > 0 : c < 0; // reversed, the target row itself is shown
                    if (!sought) {
                        seekRows[familyIndex] = null;
                    }
                }
            }
            if (sought) {
                leaveFamily(merged, row, cell);
                continue;
            }
            if (familyIndex >= 0) {
                if (columnCell == null || !columnCell.sameQualifier(cell)) {
                    columnCell = cell;
                    returnedVersions = 0;
                    columnSelected = qualifiers == null || qualifiers.isEmpty() || qualifiers.contains(cell.qualifierBytes());
                }
                Visibility.Verdict verdict = visibility[familyIndex].judge(cell, merged.sequence());
                if (verdict == Visibility.Verdict.LIVE && columnSelected
                        && timeRange.includes(cell.timestamp()) && (filter != null || returnedVersions < maxVersions)) {
                    // With a filter, as in HBase, the filter sees every version the family keeps and
                    // the query's version count applies to what the filter keeps: versions past
                    // the count are still offered, until the filter keeps one more (see below).
                    if (filter != null && (closing || closedFamilies[familyIndex])) {
                        closedFamilies[familyIndex] = true;
                        leaveFamily(merged, row, cell);
                        continue;
                    }
                    if (filter != null && !judged) {
                        judged = true;
                        int decision = filter.judgeRow(row);
                        if (decision != ScanFilter.ROW_INCLUDE) {
                            if (decision != ScanFilter.ROW_SKIP || !readRejected) {
                                return null;
                            }
                            discard = true;
                        }
                    }
                    if (filter == null) {
                        returnedVersions++;
                        out.add(cell);
                    } else if (skip == null || !skip.covers(cell)) {
                        skip = null;
                        int code = filter.cell(cell);
                        if (filter.allRemaining()) {
                            closing = true;
                            closedFamilies[familyIndex] = true;
                        }
                        int level = ScanFilter.level(code);
                        if (ScanFilter.included(code)) {
                            if (returnedVersions < maxVersions) {
                                returnedVersions++;
                                Cell kept = filter.transformCell(cell); // HBase rewrites a cell as it is kept
                                if (!discard) {
                                    out.add(kept);
                                }
                            } else {
                                // One more than the query's count: dropped, and the column is done
                                // (HBase's UserScanQueryMatcher, versionsAfterFilter).
                                level = level == ScanFilter.NEXT_ROW ? ScanFilter.NEXT_ROW : ScanFilter.NEXT_COLUMN;
                            }
                        }
                        if (level == ScanFilter.SEEK) {
                            byte[] target = filter.rowSeekHint();
                            if (!closing && filter.allRemaining()) {
                                // Taking the hint ended the filter (a fuzzy rule with no row
                                // left): HBase's store scanner ends at the next cell it meets.
                                closing = true;
                                closedFamilies[familyIndex] = true;
                            }
                            if (target != null && (reversed ? Bytes.compare(target, row) < 0 : Bytes.compare(target, row) > 0)) {
                                // A later row: as HBase's seek, it moves this family's reader only.
                                seekRows[familyIndex] = target;
                                level = ScanFilter.NEXT_FAMILY;
                            } else if (reversed || filter.columnHint() == null) {
                                // As HBase: a reversed scan steps instead of seeking to a column hint,
                                // and so does any scan given a seek without a hint.
                                level = ScanFilter.SKIP;
                            }
                        }
                        if (level == ScanFilter.NEXT_COLUMN && cell.qualifierLength() == 0) {
                            // HBase's seek to the next column from the empty qualifier, where family
                            // delete markers sort, lands on the column's next cell
                            // (ScanQueryMatcher.getKeyForNextColumn, HBASE-18471), which the
                            // filter is asked about again: a step.
                            level = ScanFilter.SKIP;
                        }
                        if (level == ScanFilter.NEXT_ROW) {
                            // As HBase's: a filter's "next row" ends the row in this family's store
                            // scanner only; the row's later families are still read and shown to it
                            // (a value filter may still find its column there).
                            level = ScanFilter.NEXT_FAMILY;
                        }
                        if (level != ScanFilter.SKIP) {
                            skip = new FilterSkip(cell, level, filter.columnHint());
                            if (skipByFilter(merged, row, cell, level, skip.hint)) {
                                continue;
                            }
                        }
                    }
                }
                if ((!columnSelected || (filter == null && returnedVersions >= maxVersions)) && cell.qualifierLength() > 0
                        && cell.type() != CellType.DELETE_FAMILY) {
                    // Nothing more of this column can be returned: its later cells are older
                    // versions and markers that mask only this column. (Not the empty qualifier:
                    // family markers sort there, and each one masks every column after it.)
                    merged.next();
                    skipColumn(merged, row, cell);
                    continue;
                }
            }
            merged.next();
        }
        return out;
    }

    /**
     * What a filter asked to skip from a cell on: the rest of its column, its family up to the
     * column {@code hint}, or the rest of its family. The merge moves past it when it can (a seek);
     * when it cannot (from the empty qualifier, where family markers sort and must still be seen,
     * or a bound too long to seek to), it steps, and the cells it steps over are judged for
     * visibility but not offered to the filter. So a filter sees the same cells however the merge
     * moved, which counting filters inside lists rely on.
     */
    private static final class FilterSkip {
        private final byte[] family;
        private final byte[] qualifier;
        private final int level;
        private final byte[] hint;

        FilterSkip(EncodedCell from, int level, byte[] hint) {
            this.family = from.familyBytes();
            this.qualifier = from.qualifierBytes();
            this.level = level;
            this.hint = hint;
        }

        boolean covers(EncodedCell cell) {
            if (!Bytes.equals(MemorySegment.ofArray(family), 0, family.length, cell.segment(), cell.familyOffset(),
                    cell.familyLength())) {
                return false;
            }
            MemorySegment segment = cell.segment();
            return switch (level) {
                case ScanFilter.NEXT_COLUMN -> Bytes.equals(MemorySegment.ofArray(qualifier), 0, qualifier.length, segment,
                        cell.qualifierOffset(), cell.qualifierLength());
                case ScanFilter.SEEK -> hint == null
                        ? Bytes.equals(MemorySegment.ofArray(qualifier), 0, qualifier.length, segment, cell.qualifierOffset(),
                        cell.qualifierLength())
                        : Bytes.compare(segment, cell.qualifierOffset(), cell.qualifierLength(), MemorySegment.ofArray(hint), 0,
                        hint.length) < 0 || Bytes.equals(MemorySegment.ofArray(qualifier), 0, qualifier.length, segment,
                        cell.qualifierOffset(), cell.qualifierLength());
                case ScanFilter.NEXT_FAMILY -> true;
                default -> false;
            };
        }
    }

    /**
     * Moves the merge past what a filter said to skip from {@code cell} on: the rest of the column,
     * up to a later column of the family, or the rest of the family. False when the merge has not
     * moved (the reader then goes on as without the filter).
     */
    private static boolean skipByFilter(MergingIterator merged, byte[] row, EncodedCell cell, int level, byte[] hint) {
        byte[] family = cell.familyBytes();
        // Family markers sort in the empty qualifier's column and mask every later column, so
        // nothing is sought over from there: the reader steps on instead.
        if (level == ScanFilter.SEEK && hint != null && hint.length <= Cell.MAX_QUALIFIER_LENGTH
                && cell.qualifierLength() > 0
                && Bytes.compare(MemorySegment.ofArray(hint), 0, hint.length, cell.segment(), cell.qualifierOffset(),
                cell.qualifierLength()) > 0) {
            merged.seekForward(SeekKey.firstOnColumn(row, family, hint));
            return true;
        }
        if (level == ScanFilter.NEXT_FAMILY) {
            leaveFamily(merged, row, cell);
            return true;
        }
        if (cell.qualifierLength() > 0) { // the column's later cells only concern this column (see readRow)
            merged.next();
            skipColumn(merged, row, cell);
            return true;
        }
        return false;
    }

    /**
     * Moves the merge past {@code cell} (its current cell) and, when the family goes on in the
     * row, seeks past the family; with a family name too long to seek past it moves one step
     * only, and the caller's skip or closed family steps through the rest.
     *
     * <p>Why one step first: a filter that is done with a row (a value filter whose column
     * failed, a first-key filter) usually answers at one of the row's last cells, and a seek (a
     * key to build, every source moved) cost a value-filter scan twice its time where a step
     * reaches the next row.
     */
    private static void leaveFamily(MergingIterator merged, byte[] row, EncodedCell cell) {
        merged.next();
        if (!merged.valid()) {
            return;
        }
        EncodedCell next = merged.cell();
        if (!next.hasRow(row) || !next.sameFamily(cell)) {
            return;
        }
        byte[] family = cell.familyBytes();
        if (family.length < Cell.MAX_FAMILY_LENGTH) {
            merged.seekForward(SeekKey.firstOnColumn(row, java.util.Arrays.copyOf(family, family.length + 1), Bytes.EMPTY));
        }
    }

    /**
     * A raw scan's row: every stored cell of the selected columns in the snapshot and time range,
     * delete markers included, at most the scan's number of puts per column. Visibility is not
     * consulted: this is what compaction has not yet dropped.
     */
    private List<Cell> rawRow(byte[] row) {
        List<Cell> out = new ArrayList<>();
        EncodedCell columnCell = null;
        int puts = 0;
        while (merged.valid()) {
            EncodedCell cell = merged.cell();
            if (!cell.hasRow(row)) {
                break;
            }
            if (columnCell == null || !cell.sameColumn(columnCell)) {
                columnCell = cell;
                puts = 0;
            }
            int family = familyIndex(familyNames, cell);
            if (merged.sequence() <= readPoint && family >= 0 && scan.timeRange().includes(cell.timestamp())
                    && rawSelected(family, cell)) {
                if (cell.type() != CellType.PUT) {
                    out.add(cell);
                } else if (puts < scan.maxVersions()) {
                    out.add(cell);
                    puts++;
                }
            }
            merged.next();
        }
        return out;
    }

    private boolean rawSelected(int family, EncodedCell cell) {
        if (columns.isEmpty() || cell.type() == CellType.DELETE_FAMILY) {
            return true;
        }
        NavigableSet<byte[]> qualifiers = columns.get(familyNames[family]);
        return qualifiers == null || qualifiers.isEmpty() || qualifiers.contains(cell.qualifierBytes());
    }

    /** Cells of one column stepped over before {@link #skipColumn} seeks instead. */
    static final int STEPS_BEFORE_SEEK = 1;

    /**
     * Moves {@code merged} past the rest of {@code column}'s cells: one step, which is enough when
     * the column has no more versions, then a forward seek to the first key after the column.
     *
     * <p>Why: every write of a column leaves a version in the memtable until a flush, and YCSB's
     * Zipfian keys send a few percent of all updates to one row; stepping through its thousands of
     * versions on every read of it made a read-only workload after an update-heavy one run at a
     * tenth of its speed. The forward seek moves only the sources still on the column, and each
     * of them cheaply: a memtable steps to its next column node, a file steps a few entries before
     * it searches its index ({@link InternalIterator#seekForward}). With those, stepping the merge
     * itself (a heap comparison per step) cost more than it saved: 8 steps gave 72k reads/s in C
     * after A, 1 step 83k.
     */
    private static void skipColumn(MergingIterator merged, byte[] row, EncodedCell column) {
        for (int i = 0; i < STEPS_BEFORE_SEEK; i++) {
            if (!merged.valid() || !merged.cell().sameColumn(column)) {
                return;
            }
            merged.next();
        }
        if (merged.valid() && merged.cell().sameColumn(column)
                && column.qualifierLength() < io.basalt.cell.Cell.MAX_QUALIFIER_LENGTH) {
            byte[] qualifier = column.qualifierBytes();
            merged.seekForward(SeekKey.firstOnColumn(row, column.familyBytes(),
                    java.util.Arrays.copyOf(qualifier, qualifier.length + 1)));
        }
    }

    private static int familyIndex(byte[][] familyNames, EncodedCell cell) {
        for (int i = 0; i < familyNames.length; i++) {
            if (cell.hasFamily(familyNames[i])) {
                return i;
            }
        }
        return -1;
    }

    @Override
    public void close() {
        if (!closed) {
            closed = true;
            merged.close();
            view.release();
            if (registration != null) {
                registration.close();
            }
        }
    }
}
