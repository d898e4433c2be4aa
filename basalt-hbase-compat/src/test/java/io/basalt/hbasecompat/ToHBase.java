package io.basalt.hbasecompat;

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
import java.util.ArrayList;
import java.util.List;
import org.apache.hadoop.hbase.util.Pair;

/**
 * Basalt's filter records as HBase 2.6.4's filter objects: the same class, the same arguments.
 * Where Basalt documents an argument the way HBase's filter language reads it, the translation
 * does the same (an empty column bound of a {@link ColumnRangeFilter} is no bound, as
 * {@code ColumnRangeFilter.createFilterFromArguments} makes it).
 */
final class ToHBase {

    private ToHBase() {}

    /** A fresh HBase filter for {@code filter}: HBase's filters hold scan state, so one per scan. */
    static org.apache.hadoop.hbase.filter.Filter filter(Filter filter) {
        return switch (filter) {
            case PrefixFilter f -> new org.apache.hadoop.hbase.filter.PrefixFilter(f.prefix());
            case ColumnPrefixFilter f -> new org.apache.hadoop.hbase.filter.ColumnPrefixFilter(f.prefix());
            case MultipleColumnPrefixFilter f ->
                    new org.apache.hadoop.hbase.filter.MultipleColumnPrefixFilter(f.prefixes().toArray(byte[][]::new));
            case ColumnRangeFilter f -> new org.apache.hadoop.hbase.filter.ColumnRangeFilter(
                    orNull(f.minColumn()), f.minInclusive(), orNull(f.maxColumn()), f.maxInclusive());
            case RowFilter f -> new org.apache.hadoop.hbase.filter.RowFilter(op(f.operator()), comparator(f.comparator()));
            case FamilyFilter f ->
                    new org.apache.hadoop.hbase.filter.FamilyFilter(op(f.operator()), comparator(f.comparator()));
            case QualifierFilter f ->
                    new org.apache.hadoop.hbase.filter.QualifierFilter(op(f.operator()), comparator(f.comparator()));
            case ValueFilter f -> new org.apache.hadoop.hbase.filter.ValueFilter(op(f.operator()), comparator(f.comparator()));
            case SingleColumnValueFilter f -> {
                var h = new org.apache.hadoop.hbase.filter.SingleColumnValueFilter(f.family(), f.qualifier(),
                        op(f.operator()), comparator(f.comparator()));
                h.setFilterIfMissing(f.filterIfMissing());
                h.setLatestVersionOnly(f.latestVersionOnly());
                yield h;
            }
            case SingleColumnValueExcludeFilter f -> {
                var h = new org.apache.hadoop.hbase.filter.SingleColumnValueExcludeFilter(f.family(), f.qualifier(),
                        op(f.operator()), comparator(f.comparator()));
                h.setFilterIfMissing(f.filterIfMissing());
                h.setLatestVersionOnly(f.latestVersionOnly());
                yield h;
            }
            case PageFilter f -> new org.apache.hadoop.hbase.filter.PageFilter(f.pageSize());
            case KeyOnlyFilter f -> new org.apache.hadoop.hbase.filter.KeyOnlyFilter(f.lengthAsValue());
            case FirstKeyOnlyFilter f -> new org.apache.hadoop.hbase.filter.FirstKeyOnlyFilter();
            case InclusiveStopFilter f -> new org.apache.hadoop.hbase.filter.InclusiveStopFilter(f.stopRow());
            case TimestampsFilter f -> new org.apache.hadoop.hbase.filter.TimestampsFilter(f.timestamps());
            case ColumnCountGetFilter f -> new org.apache.hadoop.hbase.filter.ColumnCountGetFilter(f.limit());
            case ColumnPaginationFilter f -> f.columnOffset().length > 0
                    ? new org.apache.hadoop.hbase.filter.ColumnPaginationFilter(f.limit(), f.columnOffset())
                    : new org.apache.hadoop.hbase.filter.ColumnPaginationFilter(f.limit(), f.offset());
            case RandomRowFilter f -> new org.apache.hadoop.hbase.filter.RandomRowFilter(f.chance());
            case FuzzyRowFilter f -> {
                List<Pair<byte[], byte[]>> rules = new ArrayList<>();
                for (FuzzyRowFilter.Rule r : f.rules()) {
                    rules.add(new Pair<>(r.row(), r.mask()));
                }
                yield new org.apache.hadoop.hbase.filter.FuzzyRowFilter(rules);
            }
            case MultiRowRangeFilter f -> {
                List<org.apache.hadoop.hbase.filter.MultiRowRangeFilter.RowRange> ranges = new ArrayList<>();
                for (MultiRowRangeFilter.RowRange r : f.ranges()) {
                    ranges.add(new org.apache.hadoop.hbase.filter.MultiRowRangeFilter.RowRange(r.start(),
                            r.startInclusive(), r.stop(), r.stopInclusive()));
                }
                yield new org.apache.hadoop.hbase.filter.MultiRowRangeFilter(ranges);
            }
            case WhileMatchFilter f -> new org.apache.hadoop.hbase.filter.WhileMatchFilter(filter(f.filter()));
            case SkipFilter f -> new org.apache.hadoop.hbase.filter.SkipFilter(filter(f.filter()));
            case FilterList f -> {
                List<org.apache.hadoop.hbase.filter.Filter> children = new ArrayList<>();
                for (Filter child : f.filters()) {
                    children.add(filter(child));
                }
                yield new org.apache.hadoop.hbase.filter.FilterList(
                        f.operator() == FilterList.Operator.MUST_PASS_ALL
                                ? org.apache.hadoop.hbase.filter.FilterList.Operator.MUST_PASS_ALL
                                : org.apache.hadoop.hbase.filter.FilterList.Operator.MUST_PASS_ONE,
                        children);
            }
        };
    }

    static org.apache.hadoop.hbase.filter.ByteArrayComparable comparator(ByteArrayComparable comparator) {
        return switch (comparator) {
            case BinaryComparator c -> new org.apache.hadoop.hbase.filter.BinaryComparator(c.operand());
            case BinaryPrefixComparator c -> new org.apache.hadoop.hbase.filter.BinaryPrefixComparator(c.operand());
            case RegexStringComparator c -> new org.apache.hadoop.hbase.filter.RegexStringComparator(c.pattern(),
                    javaFlags(c.flags()));
            case SubstringComparator c -> new org.apache.hadoop.hbase.filter.SubstringComparator(c.substring());
            case NullComparator c -> new org.apache.hadoop.hbase.filter.NullComparator();
        };
    }

    /** RE2/J's flag bits as {@link java.util.regex.Pattern}'s, which HBase's comparator takes. */
    static int javaFlags(int re2jFlags) {
        int flags = 0;
        if ((re2jFlags & RegexStringComparator.CASE_INSENSITIVE) != 0) {
            flags |= java.util.regex.Pattern.CASE_INSENSITIVE;
        }
        if ((re2jFlags & RegexStringComparator.DOTALL) != 0) {
            flags |= java.util.regex.Pattern.DOTALL;
        }
        if ((re2jFlags & RegexStringComparator.MULTILINE) != 0) {
            flags |= java.util.regex.Pattern.MULTILINE;
        }
        return flags;
    }

    static org.apache.hadoop.hbase.CompareOperator op(CompareOperator op) {
        return org.apache.hadoop.hbase.CompareOperator.valueOf(op.name());
    }

    private static byte[] orNull(byte[] bound) {
        return bound.length == 0 ? null : bound;
    }
}
