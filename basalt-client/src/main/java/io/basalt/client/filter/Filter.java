package io.basalt.client.filter;

/**
 * Narrows what a {@link io.basalt.client.Scan} or {@link io.basalt.client.Get} returns, evaluated
 * where the data is: a cell a filter drops never leaves the server, and where a filter can say
 * where its next match starts (a row prefix, a column prefix or range, a fuzzy row, a set of row
 * ranges, a page, a while-match) the reader seeks there instead of reading through.
 *
 * <p>The filters are HBase's, with the same names, arguments and meaning, so that HBase code and
 * shell filter strings carry over; {@link #parse(String)} reads HBase's filter language. Filters
 * are immutable values: one may be set on many queries and shared between threads.
 *
 * <p><b>What a filter sees.</b> Visible cells (not deleted, not expired) of the selected families
 * and columns in the time range, newest version first, up to the versions the family keeps; as in
 * HBase 2, the query's version count applies to the cells the filter keeps. So a one-version read
 * with a {@link ValueFilter} returns the newest version that matches, and a
 * {@link SingleColumnValueFilter} on a column the query does not select treats it as missing.
 *
 * <p><b>Scope of state.</b> Filters that count ({@link PageFilter}, {@link ColumnCountGetFilter},
 * {@link ColumnPaginationFilter}) or stop ({@link WhileMatchFilter}, {@link InclusiveStopFilter})
 * keep their state for one scan on one node: a scan of regions on several servers gets a page per
 * server, as in HBase, and a scan the client reopens (after a region moved) starts counting again.
 *
 * <p><b>Bounds.</b> A filter tree nests at most {@link #MAX_DEPTH} deep and holds at most
 * {@link #MAX_FILTERS} filters; regular expressions run on RE2/J, in time linear in the input.
 */
public sealed interface Filter
        permits PrefixFilter, ColumnPrefixFilter, MultipleColumnPrefixFilter, ColumnRangeFilter, RowFilter,
        FamilyFilter, QualifierFilter, ValueFilter, SingleColumnValueFilter, SingleColumnValueExcludeFilter,
        PageFilter, KeyOnlyFilter, FirstKeyOnlyFilter, InclusiveStopFilter, TimestampsFilter, ColumnCountGetFilter,
        ColumnPaginationFilter, RandomRowFilter, FuzzyRowFilter, MultiRowRangeFilter, WhileMatchFilter, SkipFilter,
        FilterList {

    /** Deepest nesting of filter lists and wrappers: a filter inside 31 lists is the deepest allowed. */
    int MAX_DEPTH = 32;

    /** Most filters in one tree, lists and wrappers included. */
    int MAX_FILTERS = 1024;

    /**
     * Parses HBase's filter language, for example
     * {@code PrefixFilter('u') AND (QualifierFilter(>=, 'binary:b') OR ValueFilter(=, 'substring:x'))}.
     *
     * @throws IllegalArgumentException naming what does not parse, where, and (for a filter Basalt
     *     does not have) what to use instead
     */
    static Filter parse(String expression) {
        return FilterParser.parse(io.basalt.bytes.Bytes.utf8(expression));
    }

    /** The filter names {@link #parse(String)} reads, sorted. */
    static java.util.List<String> names() {
        return FilterParser.NAMES;
    }

    /** {@link #parse(String)} for an expression whose quoted literals hold raw bytes. */
    static Filter parse(byte[] expression) {
        return FilterParser.parse(expression);
    }
}
