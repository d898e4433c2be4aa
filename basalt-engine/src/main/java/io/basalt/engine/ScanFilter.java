package io.basalt.engine;

import com.google.re2j.Pattern;
import io.basalt.bytes.Bytes;
import io.basalt.cell.Cell;
import io.basalt.client.filter.BinaryComparator;
import io.basalt.client.filter.BinaryPrefixComparator;
import io.basalt.client.filter.ByteArrayComparable;
import io.basalt.client.filter.ColumnCountGetFilter;
import io.basalt.client.filter.ColumnPaginationFilter;
import io.basalt.client.filter.ColumnPrefixFilter;
import io.basalt.client.filter.ColumnRangeFilter;
import io.basalt.client.filter.CompareOperator;
import io.basalt.client.filter.FamilyFilter;
import io.basalt.client.filter.Filter;
import io.basalt.client.filter.FilterList;
import io.basalt.client.filter.FirstKeyOnlyFilter;
import io.basalt.client.filter.FuzzyRowFilter;
import io.basalt.client.filter.InclusiveStopFilter;
import io.basalt.client.filter.KeyOnlyFilter;
import io.basalt.client.filter.MultiRowRangeFilter;
import io.basalt.client.filter.MultipleColumnPrefixFilter;
import io.basalt.client.filter.NullComparator;
import io.basalt.client.filter.PageFilter;
import io.basalt.client.filter.PrefixFilter;
import io.basalt.client.filter.QualifierFilter;
import io.basalt.client.filter.RandomRowFilter;
import io.basalt.client.filter.RegexStringComparator;
import io.basalt.client.filter.RowFilter;
import io.basalt.client.filter.SingleColumnValueExcludeFilter;
import io.basalt.client.filter.SingleColumnValueFilter;
import io.basalt.client.filter.SkipFilter;
import io.basalt.client.filter.SubstringComparator;
import io.basalt.client.filter.TimestampsFilter;
import io.basalt.client.filter.ValueFilter;
import io.basalt.client.filter.WhileMatchFilter;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.ToIntFunction;
import java.util.random.RandomGenerator;

/**
 * A client {@link Filter} compiled for one scan or get: the stateful matcher the region reader
 * consults at each row and at each cell it would return.
 *
 * <p><b>Protocol.</b> For each row (with a visible cell, where {@link #judgesVisibleRowsOnly}),
 * in the scan's order: {@link #startRow} decides from the key alone (include, skip, stop the
 * scan, or {@link #ROW_CELLS}: reject the row cell by cell); for an included row, {@link #cell}
 * judges each cell the unfiltered read would return (so filters see versions after deletes,
 * time range and version limits: see {@link Filter}) and may tell the reader to step, leave the
 * column, seek to a later column, leave the family, leave the row, or send the family's reader
 * on to a later row; then, if cells are left, {@link #finishRow} prunes,
 * judges and rewrites the row in HBase's order. {@link #stopped} says no later row can pass, so
 * the scan ends without reading on.
 *
 * <p><b>Seeking.</b> The reason filters run in the reader and not over finished rows: a skip
 * level becomes a seek in the merge, so a prefix, a row range or a fuzzy rule moves the reader to
 * the next row that can match, and a column prefix or range to the next column that can. HBase
 * users know the cost of the alternative (a PrefixFilter without a start row reads the table from
 * its first row, HBASE-14397). Column skips are hints: a filter asked again about a cell before
 * its hint answers the same way, which is what lets a list that needs only one of its filters to
 * pass seek as far as the nearest hint. A seek to a later row is not only a hint: as in HBase,
 * the family's cells before that row are never shown to any filter, which a list whose other
 * filters have ended can see.
 *
 * <p>Not thread-safe: one per scan, shared by the scan's region scanners in turn, so a page or a
 * while-match spans the regions of one node.
 */
abstract class ScanFilter {

    /** {@link #startRow}: read the row. */
    static final int ROW_INCLUDE = 0;
    /** {@link #startRow}: pass over the row, seeking to {@link #rowHint()} when there is one (a list has one only with {@link #allowKeySkips}). */
    static final int ROW_SKIP = 1;
    /** {@link #startRow}: no row from here on can pass. */
    static final int ROW_STOP = 2;
    /**
     * {@link #startRow}: the key passes in HBase's sense ({@code filterRowKey} is false), but the
     * filter answers each of the row's cells with a seek to {@link #rowSeekHint}, as HBase's
     * prefix, fuzzy and range filters reject rows. Only those filters answer this: alone, the
     * reader takes it for {@link #ROW_SKIP} with {@link #rowHint} (the same rows come back);
     * a list or a wrapper takes it for a pass and lets the cell answers reject the row, so the
     * filters beside it see the row's cells as HBase's do.
     */
    static final int ROW_CELLS = 3;

    /** {@link #cell} skip levels, in increasing reach; {@link #INCLUDE} is or-ed in to keep the cell. */
    static final int SKIP = 0;
    static final int NEXT_COLUMN = 1;
    /** Seek to the column {@link #columnHint()} in the cell's family, or to the row {@link #rowSeekHint()}. */
    static final int SEEK = 2;
    static final int NEXT_FAMILY = 3;
    static final int NEXT_ROW = 4;
    static final int INCLUDE = 8;
    private static final int LEVEL = 7;

    static int level(int code) {
        return code & LEVEL;
    }

    static boolean included(int code) {
        return (code & INCLUDE) != 0;
    }

    /** Starts a row (resetting per-row state) and judges its key; by default every key passes. */
    int startRow(byte[] row) {
        return ROW_INCLUDE;
    }

    /**
     * Starts a row without judging its key, leaving the state HBase's {@code reset()} leaves: what
     * a filter inside a {@code SkipFilter} sees, since HBase's wrapper passes neither
     * {@code filterRowKey} nor row decisions on. Its cells are then answered from that state (a
     * prefix filter that never saw a key answers next row for each; a fuzzy rule judges each
     * cell's row). By default there is nothing to reset.
     */
    void resetRow() {
    }

    private int rowDecision = ROW_INCLUDE;

    /**
     * Whether {@link #startRow} must only see rows with a visible cell: true where judging a key
     * has an effect that outlasts the row (a while-match ends the scan at the first key it
     * rejects; a random row filter draws). Then the reader judges a row's key at its first
     * visible cell, never for a row that has none (a row of delete markers, or of cells outside
     * the query's columns or time range). Otherwise it judges each stored key first, so a key
     * filter seeks past deleted rows without reading them; the answers are the same, since such
     * a filter's key decisions do not depend on the rows before. (The same holds for rows whose
     * every family a row seek has hidden, which HBase never shows a filter: the only key state
     * such filters keep, a prefix's, a range's or a stop row's end, moves forward with the keys.)
     */
    boolean judgesVisibleRowsOnly() {
        return false;
    }

    /**
     * The reader's entry to {@link #startRow} (see {@link #judgesVisibleRowsOnly}); the decision
     * stays readable through {@link #rowDecision()}.
     */
    final int judgeRow(byte[] row) {
        return rowDecision = startRow(row);
    }

    /** The last {@link #judgeRow} decision. */
    final int rowDecision() {
        return rowDecision;
    }

    /**
     * After {@link #ROW_SKIP} or {@link #ROW_CELLS}: where the next row that may pass is, or
     * {@code null}. Forward, the next candidate is at or after it; in a reversed scan, strictly
     * before it.
     */
    byte[] rowHint() {
        return null;
    }

    /**
     * Whether HBase's counterpart is a {@code HintingFilter}, which a MUST_PASS_ALL list asks
     * about a cell even after another filter excluded it (for its seek hint).
     */
    boolean hinting() {
        return false;
    }

    /**
     * Whether reading a row the filter rejects, cell by cell as HBase does, can change what a
     * later row gets: a while-match may end the scan at one of its cells, a column count past
     * its limit closes families for the rest of the region, a fuzzy filter asked for its hint
     * may find no row left and end. A list without any such filter passes over a row it
     * rejects by its key, with the old hint rules, which reads and returns the same rows at the
     * cost of a seek instead of a read.
     */
    boolean observesRejectedRows() {
        return false;
    }

    /**
     * Lets the lists in this tree pass over, by key, rows their filters reject cell by cell
     * (HBase's lists read them): allowed only when nothing in the whole tree {@link
     * #observesRejectedRows}, since a list's key decision is what the filters beside it in a
     * parent list see. By default there is no list below.
     */
    void allowKeySkips(boolean allow) {
    }

    /** Judges the next cell of an included row ({@code cell} is valid only during the call); by default every cell passes. */
    int cell(Cell cell) {
        return INCLUDE;
    }

    /**
     * After {@link #SEEK}: a qualifier of the cell's family, after the cell's, where the next
     * candidate column is; {@code null} for none, and the reader then steps to the next cell (as
     * HBase's scanners do for a seek without a hint).
     */
    byte[] columnHint() {
        return null;
    }

    /**
     * After {@link #SEEK}: a row after the cell's (in the scan's direction; reversed, HBase's
     * backward seek lands at or before it, so the row itself is shown again) where the next
     * candidate is, or {@code null} when the
     * seek is to a column ({@link #columnHint}) or has no hint. As HBase's seek with a hint, it
     * moves one family's reader: the cell's family is left for this row and its cells before
     * the hint are never offered. Asking may end a fuzzy filter (HBase's {@code getNextCellHint}
     * finds no next row), so only the reader and the lists that act on the seek ask, once per
     * answer.
     */
    byte[] rowSeekHint() {
        return null;
    }

    /**
     * At the end of an included row that kept cells (each already {@link #transformCell}ed, as
     * HBase transforms a cell when it is kept): {@link #pruneRow} removes cells (HBase's
     * {@code filterRowCells}); if any are left, {@link #rowExcluded} may drop the row
     * ({@code filterRow}, which a {@code PageFilter} counts in, so a row pruned empty is not
     * counted, as in HBase). {@code cells} is empty afterwards when the row is dropped.
     */
    final void finishRow(List<Cell> cells) {
        pruneRow(cells);
        if (!cells.isEmpty() && rowExcluded()) {
            cells.clear();
        }
    }

    /** Removes cells of a row that kept some (a value filter's tested column), before the row is judged. */
    void pruneRow(List<Cell> cells) {}

    /** At the end of a row that kept cells after {@link #pruneRow}: whether to drop the whole row. */
    boolean rowExcluded() {
        return false;
    }

    /**
     * Rewrites a cell the last {@link #cell} call kept (HBase's {@code transformCell}), right
     * after that call: a list that needs one filter to pass rewrites it only through the filters
     * that kept it. By default the cell is kept as it is.
     */
    Cell transformCell(Cell cell) {
        return cell;
    }

    /** Whether no later row can pass. */
    boolean stopped() {
        return false;
    }

    /**
     * HBase's {@code filterAllRemaining}, asked after each cell the filter judges: while it holds,
     * HBase's store scanners end at the next cell they meet, so the reader closes that cell's
     * family and the families of the row's later cells for the rest of the region's scan (see
     * {@code RegionScanner.readRow}). A {@code ColumnCountGetFilter} past its limit makes it hold
     * in the middle of a row and then not from the next row on; a while-match makes it hold for
     * good, at a cell (it also leaves the row there, so nothing more is read) or at a key; for
     * the other filters it is {@link #stopped}, which changes only where rows start or end.
     */
    boolean allRemaining() {
        return stopped();
    }

    /** Compiles {@code filter} for a scan in the given direction. */
    static ScanFilter compile(Filter filter, boolean reversed) {
        return compile(filter, reversed, RandomGenerator.getDefault());
    }

    static ScanFilter compile(Filter filter, boolean reversed, RandomGenerator random) {
        ScanFilter root = build(filter, reversed, random);
        root.allowKeySkips(!root.observesRejectedRows());
        return root;
    }

    private static ScanFilter build(Filter filter, boolean reversed, RandomGenerator random) {
        return switch (filter) {
            case PrefixFilter f -> new Prefix(f.prefix(), reversed);
            case ColumnPrefixFilter f -> new ColumnPrefixes(List.of(f.prefix()));
            case MultipleColumnPrefixFilter f -> new ColumnPrefixes(f.prefixes());
            case ColumnRangeFilter f -> new ColumnRange(f);
            case RowFilter f -> new RowCompare(f.operator(), comparator(f.comparator()));
            case FamilyFilter f -> new CellCompare(f.operator(), comparator(f.comparator()), Part.FAMILY);
            case QualifierFilter f -> new CellCompare(f.operator(), comparator(f.comparator()), Part.QUALIFIER);
            case ValueFilter f -> new CellCompare(f.operator(), comparator(f.comparator()), Part.VALUE);
            case SingleColumnValueFilter f -> new ColumnValue(f.family(), f.qualifier(), f.operator(),
                    comparator(f.comparator()), f.filterIfMissing(), f.latestVersionOnly(), false);
            case SingleColumnValueExcludeFilter f -> new ColumnValue(f.family(), f.qualifier(), f.operator(),
                    comparator(f.comparator()), f.filterIfMissing(), f.latestVersionOnly(), true);
            case PageFilter f -> new Page(f.pageSize());
            case KeyOnlyFilter f -> new KeyOnly(f.lengthAsValue());
            case FirstKeyOnlyFilter f -> new FirstKeyOnly();
            case InclusiveStopFilter f -> new InclusiveStop(f.stopRow(), reversed);
            case TimestampsFilter f -> new Timestamps(f.timestamps());
            case ColumnCountGetFilter f -> new ColumnPage(f.limit(), 0, Bytes.EMPTY, true);
            case ColumnPaginationFilter f -> new ColumnPage(f.limit(), f.offset(), f.columnOffset(), false);
            case RandomRowFilter f -> new RandomRow(f.chance(), random);
            case FuzzyRowFilter f -> new FuzzyRow(f.rules(), reversed);
            case MultiRowRangeFilter f -> new RowRanges(f.ranges(), reversed);
            case WhileMatchFilter f -> new WhileMatch(build(f.filter(), reversed, random));
            case SkipFilter f -> new SkipRow(build(f.filter(), reversed, random));
            case FilterList f -> {
                List<ScanFilter> children = new ArrayList<>();
                for (Filter child : f.filters()) {
                    children.add(build(child, reversed, random));
                }
                yield f.operator() == FilterList.Operator.MUST_PASS_ALL ? new All(children, reversed)
                        : new One(children, reversed);
            }
        };
    }

    /** The comparator as a function of the cell's bytes; a regular expression is compiled once here. */
    private static ToIntFunction<MemorySegment> comparator(ByteArrayComparable comparator) {
        return switch (comparator) {
            case RegexStringComparator r -> {
                Pattern compiled = r.compiled();
                yield bytes -> RegexStringComparator.matches(compiled, bytes) ? 0 : 1;
            }
            case BinaryComparator b -> b::compareTo;
            case BinaryPrefixComparator b -> b::compareTo;
            case SubstringComparator s -> s::compareTo;
            case NullComparator n -> n::compareTo;
        };
    }

    /** -1, 0 or 1: whether {@code row} sorts before every row starting with {@code prefix}, starts with it, or after. */
    static int comparePrefix(MemorySegment row, byte[] prefix) {
        long n = Math.min(row.byteSize(), prefix.length);
        int c = Bytes.compare(row, 0, n, MemorySegment.ofArray(prefix), 0, n);
        if (c != 0) {
            return c < 0 ? -1 : 1;
        }
        return row.byteSize() >= prefix.length ? 0 : -1;
    }

    /** The smallest key after every key starting with {@code prefix}, or {@code null} when none is (all 0xFF). */
    static byte[] afterPrefix(byte[] prefix) {
        for (int i = prefix.length - 1; i >= 0; i--) {
            if (prefix[i] != (byte) 0xFF) {
                byte[] next = Arrays.copyOf(prefix, i + 1);
                next[i]++;
                return next;
            }
        }
        return null;
    }

    private static boolean sameColumn(Cell cell, byte[] family, byte[] qualifier) {
        return Bytes.compare(cell.qualifier(), MemorySegment.ofArray(qualifier)) == 0
                && Bytes.compare(cell.family(), MemorySegment.ofArray(family)) == 0;
    }

    // ------------------------------------------------------------------ row filters

    /**
     * A filter that judges row keys. It answers the cells of a row whose key it passed with a
     * pass, those of a row whose key it rejected as HBase's filter does after its
     * {@code filterRowKey} (next row, or, for a hinting filter, a seek to the next row that may
     * match: {@link #ROW_CELLS}), and those of a row it was not shown the key of (inside a {@link
     * SkipRow}, see {@link #resetRow}) with {@link #unjudgedCell}. Its row-end answer ({@link
     * #rowExcluded}, HBase's {@code filterRow}) is by default whether it rejected the key: a list
     * that needs one filter to pass asks even the filters that rejected the row's key.
     */
    private abstract static class KeyFilter extends ScanFilter {
        /** Whether HBase's counterpart is a HintingFilter (prefix, fuzzy, range), which rejects rows cell by cell. */
        private final boolean hinting;
        private boolean judged;
        private boolean rejected;
        /** The key was rejected with {@link #ROW_CELLS}: each cell answers a seek to {@link #rowHint}, or next row. */
        private boolean atCells;
        /** A cell of the rejected row was answered. */
        private boolean cellRejected;

        KeyFilter(boolean hinting) {
            this.hinting = hinting;
        }

        @Override
        final boolean hinting() {
            return hinting;
        }

        @Override
        final int startRow(byte[] row) {
            judged = true;
            int decision = judgeKey(row);
            rejected = decision != ROW_INCLUDE;
            atCells = hinting && decision == ROW_SKIP;
            cellRejected = false;
            return atCells ? ROW_CELLS : decision;
        }

        abstract int judgeKey(byte[] row);

        /**
         * After {@link #judgeKey} rejected a row, for a hinting filter: whether its cells answer a
         * seek to {@link #rowHint} (by default) or next row, as HBase's range filter does at a row
         * equal to a range's excluded bound.
         */
        boolean seeksFromRejectedRow() {
            return true;
        }

        /** Whether the cells of the rejected row answer a seek. */
        private boolean seekingCells() {
            return atCells && seeksFromRejectedRow();
        }

        @Override
        final void resetRow() {
            judged = false;
            rejected = false;
            atCells = false;
            cellRejected = false;
        }

        @Override
        final int cell(Cell cell) {
            if (!judged) {
                return unjudgedCell(cell);
            }
            if (!rejected) {
                return INCLUDE;
            }
            cellRejected = true;
            return seekingCells() ? SEEK : NEXT_ROW;
        }

        /** Whether the filter rejected a cell of the current row (it was asked about one). */
        final boolean rejectedACell() {
            return cellRejected;
        }

        @Override
        final byte[] rowSeekHint() {
            return seekingCells() ? rowHint() : null;
        }

        /** What HBase's filter answers for a cell after {@code reset()} without {@code filterRowKey}. */
        int unjudgedCell(Cell cell) {
            return INCLUDE;
        }

        @Override
        boolean rowExcluded() {
            return judged && rejected;
        }
    }

    /** {@link PrefixFilter}: seeks to the prefix, stops after it. */
    private static final class Prefix extends KeyFilter {
        private final byte[] prefix;
        private final boolean reversed;
        private byte[] hint;
        private boolean done;

        Prefix(byte[] prefix, boolean reversed) {
            super(true);
            this.prefix = prefix;
            this.reversed = reversed;
        }

        /** HBase's reset leaves the row filtered until a key matches. */
        @Override
        boolean rowExcluded() {
            return !super.judged || super.rejected;
        }

        @Override
        int unjudgedCell(Cell cell) {
            return NEXT_ROW; // HBase's reset leaves the row filtered until a key is judged
        }

        @Override
        int judgeKey(byte[] row) {
            int c = comparePrefix(MemorySegment.ofArray(row), prefix);
            if (c == 0) {
                return ROW_INCLUDE;
            }
            if ((c < 0) != reversed) { // not there yet
                hint = reversed ? afterPrefix(prefix) : prefix;
                return ROW_SKIP;
            }
            done = true;
            return ROW_STOP;
        }

        @Override
        byte[] rowHint() {
            return hint;
        }

        @Override
        boolean stopped() {
            return done;
        }
    }

    /** {@link InclusiveStopFilter}. */
    private static final class InclusiveStop extends ScanFilter {
        private final byte[] stop;
        private final boolean reversed;
        private boolean done;

        InclusiveStop(byte[] stop, boolean reversed) {
            this.stop = stop;
            this.reversed = reversed;
        }

        @Override
        int startRow(byte[] row) {
            int c = Bytes.compare(row, stop);
            if (reversed ? c < 0 : c > 0) {
                done = true;
                return ROW_STOP;
            }
            return ROW_INCLUDE;
        }

        @Override
        boolean stopped() {
            return done;
        }
    }

    /** {@link RowFilter}. */
    private static final class RowCompare extends KeyFilter {
        private final CompareOperator op;
        private final ToIntFunction<MemorySegment> comparator;

        RowCompare(CompareOperator op, ToIntFunction<MemorySegment> comparator) {
            super(false);
            this.op = op;
            this.comparator = comparator;
        }

        @Override
        int judgeKey(byte[] row) {
            return op.passes(comparator.applyAsInt(MemorySegment.ofArray(row))) ? ROW_INCLUDE : ROW_SKIP;
        }
    }

    /** {@link RandomRowFilter}. */
    private static final class RandomRow extends KeyFilter {
        private final float chance;
        private final RandomGenerator random;

        RandomRow(float chance, RandomGenerator random) {
            super(false);
            this.chance = chance;
            this.random = random;
        }

        @Override
        int judgeKey(byte[] row) {
            return random.nextFloat() < chance ? ROW_INCLUDE : ROW_SKIP;
        }

        @Override
        boolean judgesVisibleRowsOnly() {
            return true; // each judgement draws
        }
    }

    /** {@link PageFilter}: counts the rows it lets through; the next one after the page stops the scan. */
    private static final class Page extends ScanFilter {
        private final long size;
        private long accepted;

        Page(long size) {
            this.size = size;
        }

        @Override
        int startRow(byte[] row) {
            return accepted >= size ? ROW_STOP : ROW_INCLUDE;
        }

        @Override
        boolean rowExcluded() {
            if (accepted >= size) {
                return true;
            }
            accepted++;
            return false;
        }

        @Override
        boolean stopped() {
            return accepted >= size;
        }
    }

    /** {@link FuzzyRowFilter}: forward, seeks to the smallest row after the current one that a rule can match. */
    private static final class FuzzyRow extends KeyFilter {
        /**
         * Whether the row just rejected has no matching row after it. The filter ends the scan
         * only once its next-row hint is taken ({@link #rowHint}), as HBase's ends when its
         * getNextCellHint finds no next row: a list asks for the hint only at the row's cells (an
         * AND at the first, an OR at the second or when it seeks), so where it never does, the
         * filter goes on judging (and rejecting) rows.
         */
        private boolean noNext;

        @Override
        boolean observesRejectedRows() {
            return true;
        }

        private final List<FuzzyRowFilter.Rule> rules;
        private final boolean reversed;
        private byte[] hint;
        private boolean done;

        FuzzyRow(List<FuzzyRowFilter.Rule> rules, boolean reversed) {
            super(true);
            this.rules = rules.stream().map(r -> new FuzzyRowFilter.Rule(r.row(), r.mask())).toList();
            this.reversed = reversed;
        }

        /** HBase's fuzzy filter drops a row at its end only once it answered one of its cells. */
        @Override
        boolean rowExcluded() {
            return super.rowExcluded() && rejectedACell();
        }

        @Override
        int unjudgedCell(Cell cell) { // as HBase's filterCell: the cell's row against the rules
            byte[] row = cell.rowBytes();
            for (FuzzyRowFilter.Rule rule : rules) {
                if (matches(row, rule.row(), rule.mask())) {
                    return INCLUDE;
                }
            }
            return SEEK; // HBase seeks with its next-row hint, which no wrapper passes on: a step
        }

        @Override
        int judgeKey(byte[] row) {
            hint = null;
            noNext = false;
            if (done) {
                return ROW_STOP;
            }
            for (FuzzyRowFilter.Rule rule : rules) {
                if (matches(row, rule.row(), rule.mask())) {
                    return ROW_INCLUDE;
                }
            }
            if (reversed) {
                return ROW_SKIP;
            }
            for (FuzzyRowFilter.Rule rule : rules) {
                byte[] next = next(row, rule.row(), rule.mask());
                if (next != null && (hint == null || Bytes.compare(next, hint) < 0)) {
                    hint = next;
                }
            }
            noNext = hint == null;
            return ROW_SKIP;
        }

        static boolean matches(byte[] row, byte[] pattern, byte[] mask) {
            if (row.length < pattern.length) {
                return false;
            }
            for (int i = 0; i < pattern.length; i++) {
                if (mask[i] == 0 && row[i] != pattern[i]) {
                    return false;
                }
            }
            return true;
        }

        /**
         * The smallest row after {@code row} that the rule matches, or {@code null} when none is:
         * keep {@code row} up to its first wrong fixed byte; if that byte is below the rule's, raise
         * it; if above, carry into the nearest free byte before it that can grow; then fill the
         * rest with the rule's fixed bytes and zeros.
         */
        static byte[] next(byte[] row, byte[] pattern, byte[] mask) {
            int length = pattern.length;
            byte[] out = Arrays.copyOf(row, Math.max(length, Math.min(row.length, length)));
            int from = Math.min(row.length, length); // positions before this come from the row
            for (int i = 0; i < Math.min(row.length, length); i++) {
                if (mask[i] != 0 || row[i] == pattern[i]) {
                    continue;
                }
                if (Byte.toUnsignedInt(row[i]) < Byte.toUnsignedInt(pattern[i])) {
                    out[i] = pattern[i];
                    from = i + 1;
                } else {
                    int j = i - 1;
                    while (j >= 0 && (mask[j] == 0 || out[j] == (byte) 0xFF)) {
                        j--;
                    }
                    if (j < 0) {
                        return null;
                    }
                    out[j]++;
                    from = j + 1;
                }
                break;
            }
            out = Arrays.copyOf(out, length);
            for (int i = from; i < length; i++) {
                out[i] = mask[i] == 0 ? pattern[i] : 0;
            }
            return out;
        }

        /**
         * Its end of the scan outlasts the row: taking its hint at one of a rejected row's cells
         * ends the filter when no row can match; a row with no visible cell (which HBase never
         * shows a filter) must not do that.
         */
        @Override
        boolean judgesVisibleRowsOnly() {
            return true;
        }

        @Override
        byte[] rowHint() {
            if (noNext) {
                done = true;
            }
            return hint;
        }

        @Override
        boolean stopped() {
            return done;
        }
    }

    /** {@link MultiRowRangeFilter} over sorted, disjoint, half-open ranges. */
    private static final class RowRanges extends KeyFilter {
        private final byte[][] lows;
        private final byte[][] highs; // empty: to the end
        private final boolean reversed;
        private byte[] hint;
        private boolean done;
        /** The last row judged equals a range's excluded bound met first (reversed: its stop row). */
        private boolean atExcludedBound;

        RowRanges(List<MultiRowRangeFilter.RowRange> ranges, boolean reversed) {
            super(true);
            this.lows = ranges.stream().map(MultiRowRangeFilter.RowRange::start).toArray(byte[][]::new);
            this.highs = ranges.stream().map(MultiRowRangeFilter.RowRange::stop).toArray(byte[][]::new);
            this.reversed = reversed;
        }

        /** HBase's range filter has no row-end answer of its own: it never drops a row there. */
        @Override
        boolean rowExcluded() {
            return false;
        }

        /**
         * HBase's filter answers a cell it was not shown the row of with no code at all (a
         * NullPointerException in the scan); Basalt's judges the cell's row.
         */
        @Override
        int unjudgedCell(Cell cell) {
            boolean saved = done;
            byte[] savedHint = hint;
            boolean savedBound = atExcludedBound;
            boolean in = judgeKey(cell.rowBytes()) == ROW_INCLUDE;
            done = saved;
            hint = savedHint;
            atExcludedBound = savedBound;
            return in ? INCLUDE : NEXT_ROW;
        }

        /**
         * HBase's range filter answers next row, not a seek, at a row equal to the bound its
         * iteration meets a range at when that bound is excluded: in a reversed scan, a range's
         * stop row (Basalt's ranges start inclusive, so forward there is none).
         */
        @Override
        boolean seeksFromRejectedRow() {
            return !atExcludedBound;
        }

        @Override
        int judgeKey(byte[] row) {
            hint = null;
            atExcludedBound = false;
            if (!reversed) {
                for (int i = 0; i < lows.length; i++) {
                    if (highs[i].length == 0 || Bytes.compare(row, highs[i]) < 0) {
                        if (Bytes.compare(row, lows[i]) >= 0) {
                            return ROW_INCLUDE;
                        }
                        hint = lows[i];
                        return ROW_SKIP;
                    }
                }
            } else {
                for (int i = lows.length - 1; i >= 0; i--) {
                    if (Bytes.compare(row, lows[i]) >= 0) {
                        if (highs[i].length == 0 || Bytes.compare(row, highs[i]) < 0) {
                            return ROW_INCLUDE;
                        }
                        hint = highs[i];
                        atExcludedBound = Bytes.compare(row, highs[i]) == 0;
                        return ROW_SKIP;
                    }
                }
            }
            done = true;
            return ROW_STOP;
        }

        @Override
        byte[] rowHint() {
            return hint;
        }

        @Override
        boolean stopped() {
            return done;
        }
    }

    // ------------------------------------------------------------------ cell filters

    private enum Part { FAMILY, QUALIFIER, VALUE }

    /** {@link FamilyFilter}, {@link QualifierFilter}, {@link ValueFilter}. */
    private static final class CellCompare extends ScanFilter {
        private final CompareOperator op;
        private final ToIntFunction<MemorySegment> comparator;
        private final Part part;

        CellCompare(CompareOperator op, ToIntFunction<MemorySegment> comparator, Part part) {
            this.op = op;
            this.comparator = comparator;
            this.part = part;
        }

        @Override
        int cell(Cell cell) {
            MemorySegment bytes = switch (part) {
                case FAMILY -> cell.family();
                case QUALIFIER -> cell.qualifier();
                case VALUE -> cell.value();
            };
            if (op.passes(comparator.applyAsInt(bytes))) {
                return INCLUDE;
            }
            // HBase's answers: a family leaves it (HBase's NEXT_ROW ends only the family's store
            // scanner), a qualifier or value drops just the cell, so a column's older versions are
            // still shown (lists and wrappers act on the exact answer: a SkipFilter around an OR of
            // this and a column page keeps a row only if the OR answers a plain include).
            return switch (part) {
                case FAMILY -> NEXT_FAMILY;
                case QUALIFIER, VALUE -> SKIP;
            };
        }
    }

    /** {@link ColumnPrefixFilter} and {@link MultipleColumnPrefixFilter} (prefixes sorted). */
    private static final class ColumnPrefixes extends ScanFilter {
        private final List<byte[]> prefixes;
        private byte[] hint;

        ColumnPrefixes(List<byte[]> prefixes) {
            this.prefixes = prefixes;
        }

        @Override
        boolean hinting() {
            return true;
        }

        @Override
        int cell(Cell cell) {
            MemorySegment qualifier = cell.qualifier();
            for (byte[] prefix : prefixes) {
                int c = comparePrefix(qualifier, prefix);
                if (c == 0) {
                    return INCLUDE;
                }
                if (c < 0) {
                    hint = prefix;
                    return SEEK;
                }
            }
            return NEXT_FAMILY;
        }

        @Override
        byte[] columnHint() {
            return hint;
        }
    }

    /** {@link ColumnRangeFilter}. */
    private static final class ColumnRange extends ScanFilter {
        private final byte[] min;
        private final boolean minInclusive;
        private final byte[] max;
        private final boolean maxInclusive;
        private final byte[] hint;

        ColumnRange(ColumnRangeFilter f) {
            this.min = f.minColumn();
            this.minInclusive = f.minInclusive();
            this.max = f.maxColumn();
            this.maxInclusive = f.maxInclusive();
            this.hint = min;
        }

        @Override
        boolean hinting() {
            return true;
        }

        @Override
        int cell(Cell cell) {
            MemorySegment qualifier = cell.qualifier();
            if (min.length > 0) {
                int c = Bytes.compare(qualifier, MemorySegment.ofArray(min));
                if (c < 0) {
                    return SEEK;
                }
                if (c == 0 && !minInclusive) {
                    // As HBase: seek to the minimum, then step over it, so a counting filter in
                    // the same list sees the minimum column as it does there.
                    return NEXT_COLUMN;
                }
            }
            if (max.length > 0) {
                int c = Bytes.compare(qualifier, MemorySegment.ofArray(max));
                if (c > 0 || (c == 0 && !maxInclusive)) {
                    return NEXT_FAMILY;
                }
            }
            return INCLUDE;
        }

        @Override
        byte[] columnHint() {
            return hint;
        }
    }

    /** {@link TimestampsFilter}: versions come newest first, so below the oldest wanted the column is done. */
    private static final class Timestamps extends ScanFilter {
        private final long[] timestamps;

        Timestamps(List<Long> timestamps) {
            this.timestamps = timestamps.stream().mapToLong(Long::longValue).toArray();
        }

        @Override
        boolean hinting() {
            return true;
        }

        @Override
        int cell(Cell cell) {
            long ts = cell.timestamp();
            if (Arrays.binarySearch(timestamps, ts) >= 0) {
                return INCLUDE;
            }
            return timestamps.length == 0 || ts < timestamps[0] ? NEXT_COLUMN : SKIP;
        }
    }

    /** {@link KeyOnlyFilter}. */
    private static final class KeyOnly extends ScanFilter {
        private final boolean lengthAsValue;

        KeyOnly(boolean lengthAsValue) {
            this.lengthAsValue = lengthAsValue;
        }

        @Override
        Cell transformCell(Cell c) {
            byte[] value = Bytes.EMPTY;
            if (lengthAsValue) {
                value = java.nio.ByteBuffer.allocate(4).putInt((int) c.value().byteSize()).array();
            }
            return Cell.of(c.rowBytes(), c.familyBytes(), c.qualifierBytes(), c.timestamp(), c.type(), value);
        }
    }

    /** {@link FirstKeyOnlyFilter}. */
    private static final class FirstKeyOnly extends ScanFilter {
        private boolean seen;

        @Override
        int startRow(byte[] row) {
            seen = false;
            return ROW_INCLUDE;
        }

        @Override
        void resetRow() {
            seen = false;
        }

        @Override
        int cell(Cell cell) {
            if (seen) {
                return NEXT_ROW;
            }
            seen = true;
            // A plain INCLUDE, and NEXT_ROW at the next cell, as HBase answers: a WhileMatchFilter
            // around this one ends the scan only at a row with a second cell, as in HBase.
            return INCLUDE;
        }
    }

    /**
     * {@link ColumnCountGetFilter} (offset 0) and {@link ColumnPaginationFilter}: counts the cells
     * of the row it is asked about (across families), as HBase's do; its answers move to the next
     * column, so it is asked about one version of each column unless something else makes the
     * reader step (a reversed scan's seek, a list). A list that needs one filter to pass does not
     * ask it again about a column it moved on from ({@link One}). A column offset (a qualifier to start from) holds, as in HBase, until the row's first column
     * is counted: a later family's page goes on from its first column. A column count (HBase's
     * {@code ColumnCountGetFilter}, "unsuitable as a Scan filter" by its own account) holds
     * {@link #allRemaining} once a row has more columns than its limit, which closes families.
     */
    private static final class ColumnPage extends ScanFilter {
        private final int limit;
        private final int offset;
        private final byte[] columnOffset;
        private final boolean countOnly;
        private int columns;

        ColumnPage(int limit, int offset, byte[] columnOffset, boolean countOnly) {
            this.limit = limit;
            this.offset = offset;
            this.columnOffset = columnOffset;
            this.countOnly = countOnly;
        }

        @Override
        boolean allRemaining() {
            return countOnly && columns > limit;
        }

        /** A count past its limit closes families for the rest of the region, at any row's cells. */
        @Override
        boolean observesRejectedRows() {
            return countOnly;
        }

        @Override
        int startRow(byte[] row) {
            resetRow();
            return ROW_INCLUDE;
        }

        @Override
        void resetRow() {
            columns = 0;
        }

        @Override
        int cell(Cell cell) {
            if (countOnly) {
                // A column count past its limit answers NEXT_COLUMN, as HBase's does, and closes
                // the rest of the row through allRemaining.
                columns++;
                return columns > limit ? NEXT_COLUMN : INCLUDE | NEXT_COLUMN;
            }
            if (columnOffset.length > 0) {
                if (columns >= limit) {
                    return NEXT_ROW;
                }
                if (columns == 0 && Bytes.compare(cell.qualifier(), MemorySegment.ofArray(columnOffset)) < 0) {
                    return SEEK;
                }
                columns++;
                return INCLUDE | NEXT_COLUMN;
            }
            if (columns >= (long) offset + limit) {
                return NEXT_ROW;
            }
            return columns++ < offset ? NEXT_COLUMN : INCLUDE | NEXT_COLUMN;
        }

        @Override
        byte[] columnHint() {
            return columnOffset;
        }
    }

    /** {@link SingleColumnValueFilter} and {@link SingleColumnValueExcludeFilter}. */
    private static final class ColumnValue extends ScanFilter {
        private final byte[] family;
        private final byte[] qualifier;
        private final CompareOperator op;
        private final ToIntFunction<MemorySegment> comparator;
        private final boolean filterIfMissing;
        private final boolean latestOnly;
        private final boolean exclude;
        private boolean seen;
        private boolean matched;

        ColumnValue(byte[] family, byte[] qualifier, CompareOperator op, ToIntFunction<MemorySegment> comparator,
                    boolean filterIfMissing, boolean latestOnly, boolean exclude) {
            this.family = family;
            this.qualifier = qualifier;
            this.op = op;
            this.comparator = comparator;
            this.filterIfMissing = filterIfMissing;
            this.latestOnly = latestOnly;
            this.exclude = exclude;
        }

        @Override
        int startRow(byte[] row) {
            resetRow();
            return ROW_INCLUDE;
        }

        @Override
        void resetRow() {
            seen = false;
            matched = false;
        }

        /**
         * HBase's answers: every cell passes until the column is found; with latest-version-only,
         * a newest version that fails ends the row (next row for it and every later cell). The
         * row's fate is {@link #rowExcluded}; the codes matter to lists and wrappers around it.
         */
        @Override
        int cell(Cell cell) {
            if (matched) {
                return INCLUDE;
            }
            if (latestOnly && seen) {
                return NEXT_ROW;
            }
            if (!sameColumn(cell, family, qualifier)) {
                return INCLUDE;
            }
            seen = true;
            if (op.passes(comparator.applyAsInt(cell.value()))) {
                matched = true;
                return INCLUDE;
            }
            return latestOnly ? NEXT_ROW : INCLUDE;
        }

        @Override
        boolean rowExcluded() {
            return seen ? !matched : filterIfMissing;
        }

        @Override
        void pruneRow(List<Cell> cells) {
            if (exclude) {
                cells.removeIf(c -> sameColumn(c, family, qualifier));
            }
        }
    }

    // ------------------------------------------------------------------ wrappers and lists

    /**
     * {@link WhileMatchFilter}: the first row the inner filter drops ends the scan, and so does the
     * first cell it does not plainly include, as in HBase: a cell it includes but moves on from (a
     * column count's last) is kept; either way the row ends there, and what it kept so far is
     * returned unless the inner filter drops the row. The inner filter's row pruning does not run
     * (HBase's wrapper does not pass {@code filterRowCells} on), its cell transforms do.
     */
    private static final class WhileMatch extends ScanFilter {
        private final ScanFilter inner;
        private boolean done;

        WhileMatch(ScanFilter inner) {
            this.inner = inner;
        }

        @Override
        void allowKeySkips(boolean allow) {
            inner.allowKeySkips(allow);
        }

        /**
         * A key the inner filter rejects ends the scan; one it rejects cell by cell ({@link
         * #ROW_CELLS}) passes, as HBase's {@code filterRowKey} passed it, and the row's first cell
         * the wrapper is shown ends the scan instead: in a list, that may be never.
         */
        @Override
        int startRow(byte[] row) {
            int decision = done ? ROW_STOP : inner.startRow(row);
            if (decision == ROW_INCLUDE || decision == ROW_CELLS) {
                return ROW_INCLUDE;
            }
            done = true;
            return ROW_STOP;
        }

        @Override
        void resetRow() {
            inner.resetRow();
        }

        /**
         * The inner filter's answer, unchanged, as HBase's: what ends the row and the scan is
         * {@link #allRemaining}, which the reader and the lists act on (a SkipFilter around this
         * one hides it, and then the answer alone counts).
         */
        @Override
        int cell(Cell cell) {
            int code = inner.cell(cell);
            if (code != INCLUDE) {
                done = true;
            }
            return code;
        }

        /** None, as HBase's wrapper gives none (and asking a fuzzy filter inside could end it): a seek is a step. */
        @Override
        byte[] columnHint() {
            return null;
        }

        @Override
        boolean observesRejectedRows() {
            return true;
        }

        @Override
        boolean rowExcluded() {
            if (inner.rowExcluded()) {
                done = true;
                return true;
            }
            return false;
        }

        @Override
        Cell transformCell(Cell cell) {
            return inner.transformCell(cell);
        }

        @Override
        boolean stopped() {
            return done || inner.stopped();
        }

        @Override
        boolean allRemaining() {
            return done || inner.allRemaining();
        }

        @Override
        boolean judgesVisibleRowsOnly() {
            return true;
        }
    }

    /**
     * {@link SkipFilter}: a row is dropped whole when the inner filter answers anything but a plain
     * include for one of its cells (an include that moves on, as a column count's, drops it too).
     * As HBase's wrapper, it passes only cells, their transforms and the row reset to the inner
     * filter: never the row key (so a row filter inside judges from its reset state, see {@link
     * #resetRow}), the row-end decisions, the inner filter's end of the scan, or its seek hints
     * (a seek the inner filter asks for is a step).
     */
    private static final class SkipRow extends ScanFilter {
        private final ScanFilter inner;
        private boolean failed;

        SkipRow(ScanFilter inner) {
            this.inner = inner;
        }

        @Override
        void allowKeySkips(boolean allow) {
            inner.allowKeySkips(allow);
        }

        @Override
        int startRow(byte[] row) {
            resetRow();
            return ROW_INCLUDE;
        }

        @Override
        void resetRow() {
            failed = false;
            inner.resetRow();
        }

        /** The inner filter's answer; a seek comes without a hint (HBase's wrapper gives none), which the reader takes for a step. */
        @Override
        int cell(Cell cell) {
            int code = inner.cell(cell);
            if (code != INCLUDE) {
                failed = true;
            }
            return code;
        }

        @Override
        boolean rowExcluded() {
            return failed;
        }

        @Override
        Cell transformCell(Cell cell) {
            return inner.transformCell(cell);
        }

        @Override
        boolean allRemaining() {
            return false; // HBase's SkipFilter does not pass filterAllRemaining on
        }
    }

    /** Whether {@code test} holds for one of {@code filters} (a loop: asked per cell, no stream). */
    private static boolean any(List<ScanFilter> filters, java.util.function.Predicate<ScanFilter> test) {
        for (ScanFilter f : filters) {
            if (test.test(f)) {
                return true;
            }
        }
        return false;
    }

    /** Whether {@code test} holds for each of {@code filters}. */
    private static boolean every(List<ScanFilter> filters, java.util.function.Predicate<ScanFilter> test) {
        for (ScanFilter f : filters) {
            if (!test.test(f)) {
                return false;
            }
        }
        return true;
    }

    /** Row hints compared in the scan's direction: forward the larger reaches further, reversed the smaller. */
    private static byte[] further(byte[] a, byte[] b, boolean reversed) {
        if (a == null) {
            return b;
        }
        int c = Bytes.compare(a, b);
        return (reversed ? c <= 0 : c >= 0) ? a : b;
    }

    /**
     * What the two lists share: their filters, the scan's direction, whether a filter of theirs
     * {@link #observesRejectedRows}, the row hint of their last key decision, and their seek
     * hints, worked out from their filters' when first asked after a cell (asking may end a
     * fuzzy filter, so only a list whose seek is acted on asks its filters).
     */
    private abstract static class ListFilter extends ScanFilter {
        final List<ScanFilter> children;
        final boolean reversed;
        /** Fixed for the list's life. */
        final boolean observes;
        /** See {@link #allowKeySkips}; set once, after the tree is built. */
        boolean keySkips;
        byte[] rowHint;
        private boolean hintsResolved;
        byte[] columnHint;
        byte[] rowSeekHint;

        ListFilter(List<ScanFilter> children, boolean reversed) {
            this.children = children;
            this.reversed = reversed;
            this.observes = any(children, ScanFilter::observesRejectedRows);
        }

        @Override
        final boolean observesRejectedRows() {
            return observes;
        }

        @Override
        final void allowKeySkips(boolean allow) {
            keySkips = allow;
            for (ScanFilter child : children) {
                child.allowKeySkips(allow);
            }
        }

        @Override
        final byte[] rowHint() {
            return rowHint;
        }

        /** A new cell: the hints are worked out again when asked. */
        final void newCell() {
            hintsResolved = false;
        }

        /** Sets {@link #columnHint} and {@link #rowSeekHint} (both {@code null} on entry) for the current cell. */
        abstract void resolveHints();

        private void resolved() {
            if (!hintsResolved) {
                hintsResolved = true;
                columnHint = null;
                rowSeekHint = null;
                resolveHints();
            }
        }

        @Override
        final byte[] columnHint() {
            resolved();
            return columnHint;
        }

        @Override
        final byte[] rowSeekHint() {
            resolved();
            return rowSeekHint;
        }
    }

    /** {@link FilterList.Operator#MUST_PASS_ALL}: a cell or row passes only if every filter passes it. */
    private static final class All extends ListFilter {
        /** Per filter, whether it answered the current cell with a seek. */
        private final boolean[] seeking;

        All(List<ScanFilter> children, boolean reversed) {
            super(children, reversed);
            this.seeking = new boolean[children.size()];
        }

        /**
         * Every filter starts the row (HBase resets them all); a filter that had already ended
         * stops the list before the rest judge the key (they are only reset), one that ends at
         * this key lets the rest judge it, as HBase's MUST_PASS_ALL does. As HBase's, the list
         * passes over a row by its key only when a filter rejected the key and no hinting filter
         * passed it ({@link #ROW_CELLS} is a pass here): otherwise the row is read, and the
         * rejecting filters' cell answers (next row, or a seek) reject it cell by cell, so the
         * filters before them in the list see its cells. With {@link #allowKeySkips} (nothing in
         * the tree can see the difference) the list passes over such a row by its key instead,
         * as far as the furthest hint of the filters that rejected it (every one must pass).
         */
        @Override
        int startRow(byte[] row) {
            rowHint = null;
            boolean rejected = false;
            boolean hintingPassed = false;
            boolean cellsRejected = false;
            boolean stop = false;
            for (int i = 0; i < children.size(); i++) {
                ScanFilter child = children.get(i);
                if (child.stopped()) {
                    for (int j = i; j < children.size(); j++) {
                        children.get(j).resetRow();
                    }
                    return ROW_STOP;
                }
                int d = child.startRow(row);
                if (d == ROW_STOP || stop) {
                    stop = true;
                    continue;
                }
                if (d == ROW_SKIP) {
                    rejected = true;
                } else if (child.hinting()) {
                    hintingPassed = true;
                }
                if (d == ROW_SKIP || d == ROW_CELLS) {
                    cellsRejected |= d == ROW_CELLS;
                    if (keySkips) {
                        byte[] h = child.rowHint();
                        if (h != null) {
                            rowHint = further(rowHint, h, reversed); // every filter must pass: go as far as any says
                        }
                    }
                }
            }
            if (stop) {
                return ROW_STOP;
            }
            if (rejected && !hintingPassed) {
                return ROW_SKIP; // HBase's filterRowKey (which gives no hint: one here only with key skips)
            }
            if ((rejected || cellsRejected) && keySkips) {
                return ROW_SKIP; // no filter here can tell a read row from a skipped one
            }
            rowHint = null;
            return ROW_INCLUDE;
        }

        @Override
        void resetRow() {
            for (ScanFilter child : children) {
                child.resetRow();
            }
        }

        /**
         * HBase's MUST_PASS_ALL (HBASE-20565): the filters are asked in order, and none after the
         * first whose answer excludes the cell, so a counting filter later in the list does not
         * count it; the filters that can hint a seek ({@link #hinting}) are still asked, and a
         * seek any of them asks for wins, to the furthest hint. A filter that has ended the scan
         * for its part ({@link #allRemaining}) ends the row there. Otherwise the answer is the
         * furthest skip, including the cell only if every filter asked did.
         */
        @Override
        int cell(Cell cell) {
            newCell();
            Arrays.fill(seeking, false);
            boolean seek = false;
            int rc = INCLUDE;
            int n = children.size();
            int i = 0;
            for (; i < n; i++) {
                ScanFilter child = children.get(i);
                if (child.allRemaining() || child.stopped()) {
                    rc = NEXT_ROW;
                    break;
                }
                int code = child.cell(cell);
                if (level(code) == SEEK) {
                    seek = seeking[i] = true;
                    break;
                }
                rc = (included(rc) && included(code) ? INCLUDE : 0) | Math.max(level(rc), level(code));
                if (!included(rc)) {
                    break;
                }
            }
            for (i++; i < n; i++) {
                ScanFilter child = children.get(i);
                if (child.hinting() && level(child.cell(cell)) == SEEK) {
                    seek = seeking[i] = true;
                }
            }
            return seek ? SEEK : rc;
        }

        /**
         * As HBase's list: the furthest of the hints of the filters that asked for the seek and
         * have not ended; a row beyond the cell's is further than any column of it.
         */
        @Override
        void resolveHints() {
            for (int i = 0; i < children.size(); i++) {
                ScanFilter child = children.get(i);
                if (!seeking[i] || child.allRemaining()) {
                    continue;
                }
                byte[] row = child.rowSeekHint();
                if (row != null) {
                    rowSeekHint = further(rowSeekHint, row, reversed);
                    continue;
                }
                byte[] h = child.columnHint();
                if (h != null && (columnHint == null || Bytes.compare(h, columnHint) > 0)) {
                    columnHint = h;
                }
            }
            if (rowSeekHint != null) {
                columnHint = null;
            }
        }

        @Override
        void pruneRow(List<Cell> cells) {
            for (ScanFilter child : children) {
                child.pruneRow(cells);
            }
        }

        @Override
        boolean rowExcluded() {
            for (ScanFilter child : children) {
                if (child.rowExcluded()) {
                    return true;
                }
            }
            return false;
        }

        @Override
        Cell transformCell(Cell cell) {
            for (ScanFilter child : children) {
                cell = child.transformCell(cell);
            }
            return cell;
        }

        @Override
        boolean stopped() {
            return any(children, ScanFilter::stopped);
        }

        @Override
        boolean allRemaining() {
            return any(children, ScanFilter::allRemaining);
        }

        @Override
        boolean judgesVisibleRowsOnly() {
            return any(children, ScanFilter::judgesVisibleRowsOnly);
        }
    }

    /**
     * {@link FilterList.Operator#MUST_PASS_ONE}: a cell or row passes if any filter passes it. As
     * HBase's, the list passes over a row by its key only when every filter rejects the key (a
     * hinting filter's {@link #ROW_CELLS} is a pass); then every filter that has not ended judges
     * the row's cells, those that rejected the key too (they answer next row, or a seek), none is
     * asked again about what its last answer skipped (a filter done with the row is asked again
     * in the row's next family, as HBase's store scanners go on there), and the reader skips only
     * as far as the filter that skips least.
     */
    private static final class One extends ListFilter {
        /**
         * Per child, the cell (its family and qualifier) of its last answer that moved on (next
         * column, next row or a seek), and that answer; {@code null} after an answer that did
         * not. Until the reader passes what that answer skipped, the child is not asked again and
         * is taken to answer the same (HBase's {@code FilterListWithOR} keeps its sub-filters'
         * state right that way: a column count is not asked twice about a column). A seek's reach
         * is the child's hint, asked again each time, as HBase's list asks: a column of the
         * family, or a later row, which covers the rest of the row in every family.
         */
        private final byte[][] lastFamily;
        private final byte[][] lastQualifier;
        private final int[] lastCode;
        /** Per child, whether it kept the last cell asked about: only those rewrite it ({@link #transformCell}). */
        private final boolean[] keptNow;
        /** Per child, whether it was asked (or answered from memory) about the current cell. */
        private final boolean[] asked;
        /** Whether every filter asked about the current cell answered with a seek. */
        private boolean allSeek;
        /** Per child, its key decision for the current row. */
        private final int[] decisions;

        One(List<ScanFilter> children, boolean reversed) {
            super(children, reversed);
            int n = children.size();
            this.lastFamily = new byte[n][];
            this.lastQualifier = new byte[n][];
            this.lastCode = new int[n];
            this.keptNow = new boolean[n];
            this.asked = new boolean[n];
            this.decisions = new int[n];
        }

        /** Forgets the children's last answers: a new row. */
        private void forgetAnswers() {
            java.util.Arrays.fill(lastFamily, null);
        }

        /** The answer child {@code i} gave before that still covers {@code cell}, or -1 to ask it. */
        private int remembered(int i, Cell cell) {
            byte[] family = lastFamily[i];
            if (family == null) {
                return -1;
            }
            boolean sameFamily = Bytes.compare(cell.family(), MemorySegment.ofArray(family)) == 0;
            int code = lastCode[i];
            if (level(code) == SEEK) {
                ScanFilter child = children.get(i);
                byte[] column = child.columnHint();
                if (column != null) {
                    return sameFamily && Bytes.compare(cell.qualifier(), MemorySegment.ofArray(column)) < 0 ? SEEK : -1;
                }
                // A later row: HBase's list asks for it again; a fuzzy filter with no row left
                // ends there (it has no hint) and is asked about the cell.
                return child.rowSeekHint() != null ? SEEK : -1;
            }
            if (!sameFamily) {
                return -1;
            }
            return switch (level(code)) {
                case NEXT_COLUMN -> Bytes.compare(cell.qualifier(), MemorySegment.ofArray(lastQualifier[i])) == 0
                        ? NEXT_COLUMN : -1;
                case NEXT_FAMILY, NEXT_ROW -> level(code);
                default -> -1;
            };
        }

        private void remember(int i, Cell cell, int code) {
            if (level(code) == SKIP) {
                lastFamily[i] = null;
                return;
            }
            lastFamily[i] = cell.familyBytes();
            lastQualifier[i] = cell.qualifierBytes();
            lastCode[i] = code;
        }

        /**
         * With {@link #allowKeySkips} the list also passes over, by its key, a row that only
         * filters rejecting it cell by cell let through, as far as the nearest hint of the
         * filters that rejected it (none when one of them has none).
         */
        @Override
        int startRow(byte[] row) {
            if (children.isEmpty()) {
                return ROW_INCLUDE;
            }
            rowHint = null;
            forgetAnswers();
            boolean any = false;
            boolean passed = false;
            boolean allStop = true;
            for (int i = 0; i < children.size(); i++) {
                ScanFilter child = children.get(i);
                int d;
                if (child.stopped()) {
                    child.resetRow(); // HBase resets every filter each row, and asks no ended one about the key
                    d = ROW_STOP;
                } else {
                    d = child.startRow(row);
                }
                decisions[i] = d;
                any |= d == ROW_INCLUDE || d == ROW_CELLS;
                passed |= d == ROW_INCLUDE;
                allStop &= d == ROW_STOP;
            }
            if (passed || (any && !keySkips)) {
                return ROW_INCLUDE;
            }
            if (allStop) {
                return ROW_STOP;
            }
            if (keySkips) {
                boolean hintless = false;
                for (int i = 0; i < children.size(); i++) {
                    if (decisions[i] == ROW_SKIP || decisions[i] == ROW_CELLS) {
                        byte[] h = children.get(i).rowHint();
                        if (h == null) {
                            hintless = true;
                        } else if (rowHint == null || further(h, rowHint, reversed) == rowHint) {
                            rowHint = h; // any filter may pass: go only as far as the nearest says
                        }
                    }
                }
                if (hintless) {
                    rowHint = null;
                }
            }
            return ROW_SKIP;
        }

        @Override
        void resetRow() {
            forgetAnswers();
            for (ScanFilter child : children) {
                child.resetRow();
            }
        }

        /**
         * HBase's MUST_PASS_ONE: the cell is kept if any filter keeps it, and the list skips as
         * little as any filter asks; a seek ranks below every other skip (with one, the list
         * steps), and only when every filter asked seeks does the list seek, to the nearest hint
         * (see {@link #resolveHints}).
         */
        @Override
        int cell(Cell cell) {
            if (children.isEmpty()) {
                return INCLUDE;
            }
            newCell();
            boolean include = false;
            int level = NEXT_ROW;
            boolean seeks = false;
            boolean others = false;
            for (int i = 0; i < children.size(); i++) {
                ScanFilter child = children.get(i);
                keptNow[i] = false;
                asked[i] = false;
                if (child.allRemaining()) { // HBase's list asks no filter that has ended
                    continue;
                }
                asked[i] = true;
                int code = remembered(i, cell);
                if (code < 0) {
                    code = child.cell(cell);
                    remember(i, cell, code);
                }
                include |= included(code);
                keptNow[i] = included(code);
                int l = level(code);
                if (l != SEEK) {
                    others = true;
                    level = Math.min(level, l);
                } else {
                    seeks = true;
                }
            }
            allSeek = seeks && !others;
            if (seeks) {
                level = others ? SKIP : SEEK;
            }
            return (include ? INCLUDE : 0) | level;
        }

        /**
         * As HBase's list when it seeks: every filter that has not ended gives its hint, in order,
         * and one without a hint means none (the reader steps); otherwise the nearest, a column
         * of the cell's row before any later row.
         */
        @Override
        void resolveHints() {
            if (!allSeek) {
                return;
            }
            for (int i = 0; i < children.size(); i++) {
                ScanFilter child = children.get(i);
                if (!asked[i] || child.allRemaining()) {
                    continue;
                }
                byte[] column = child.columnHint();
                byte[] row = column == null ? child.rowSeekHint() : null;
                if (column == null && row == null) {
                    columnHint = null;
                    rowSeekHint = null;
                    return;
                }
                if (column != null && (columnHint == null || Bytes.compare(column, columnHint) < 0)) {
                    columnHint = column;
                }
                if (row != null && (rowSeekHint == null || further(row, rowSeekHint, reversed) == rowSeekHint)) {
                    rowSeekHint = row; // any filter may pass: go only as far as the nearest says
                }
            }
            if (columnHint != null) {
                rowSeekHint = null;
            }
        }

        /**
         * As HBase's MUST_PASS_ONE: the filters in order, until one keeps the row; so a filter
         * after one that keeps it is not asked (a page does not count the row), and a filter that
         * rejected the row's key answers too (a range or stop filter, which keeps rows at their
         * end, keeps a row a value filter rejected).
         */
        @Override
        boolean rowExcluded() {
            if (children.isEmpty()) {
                return false;
            }
            for (ScanFilter child : children) {
                if (!child.rowExcluded()) {
                    return false;
                }
            }
            return true;
        }

        /** Every filter prunes, even one that rejected the row's key (HBase's list runs them all). */
        @Override
        void pruneRow(List<Cell> cells) {
            for (ScanFilter child : children) {
                child.pruneRow(cells);
            }
        }

        @Override
        Cell transformCell(Cell cell) {
            for (int i = 0; i < children.size(); i++) {
                if (keptNow[i]) {
                    cell = children.get(i).transformCell(cell);
                }
            }
            return cell;
        }

        @Override
        boolean stopped() {
            return !children.isEmpty() && every(children, ScanFilter::stopped);
        }

        @Override
        boolean allRemaining() {
            return !children.isEmpty() && every(children, ScanFilter::allRemaining);
        }

        @Override
        boolean judgesVisibleRowsOnly() {
            return any(children, ScanFilter::judgesVisibleRowsOnly);
        }
    }
}
