package io.basalt.client.net;

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
import io.basalt.protocol.MalformedFrameException;
import io.basalt.protocol.Wire;
import io.netty.buffer.ByteBuf;
import java.util.ArrayList;
import java.util.List;

/**
 * The encoding of a {@link Filter} tree in a request: one tag byte per filter, then its fields.
 *
 * <pre>
 * filter     := tag u8 | fields
 *   0 prefix        prefix bytes            12 first key only
 *   1 column prefix prefix bytes            13 inclusive stop   row bytes
 *   2 column prefixes count varint | bytes* 14 timestamps       count varint | i64*
 *   3 column range  min bytes | bool | max bytes | bool
 *   4 row, 5 family, 6 qualifier, 7 value   op u8 | comparator
 *   8 column value, 9 column value exclude  family bytes | qualifier bytes | op u8 | comparator
 *                                           | filterIfMissing bool | latestVersionOnly bool
 *  10 page          size varlong            15 column count     limit varint
 *  11 key only      lengthAsValue bool      16 column page      limit varint | offset varint | column bytes
 *  17 random row    chance f32 bits i32     18 fuzzy row        count varint | (row bytes | mask bytes)*
 *  19 row ranges    count varint | (start bytes | bool | stop bytes | bool)*
 *  20 while match   filter                  21 skip             filter
 *  22 list          operator u8 (0 all, 1 one) | count varint | filter*
 * op         := ordinal of CompareOperator (0 &lt; ... 5 &gt;)
 * comparator := 0 binary bytes | 1 binary prefix bytes | 2 regex pattern string | flags varint
 *               | 3 substring string | 4 null
 * </pre>
 *
 * The decoder counts filters and depth as it goes, so a forged tree fails with a
 * {@link MalformedFrameException} before anything is built, and the records' own checks apply
 * to what is.
 */
final class FilterCodec {

    private FilterCodec() {}

    static void write(ByteBuf buf, Filter filter) {
        switch (filter) {
            case PrefixFilter f -> bytes(buf, 0, f.prefix());
            case ColumnPrefixFilter f -> bytes(buf, 1, f.prefix());
            case MultipleColumnPrefixFilter f -> {
                buf.writeByte(2);
                Wire.writeVarint(buf, f.prefixes().size());
                f.prefixes().forEach(p -> Wire.writeBytes(buf, p));
            }
            case ColumnRangeFilter f -> {
                buf.writeByte(3);
                Wire.writeBytes(buf, f.minColumn());
                Wire.writeBoolean(buf, f.minInclusive());
                Wire.writeBytes(buf, f.maxColumn());
                Wire.writeBoolean(buf, f.maxInclusive());
            }
            case RowFilter f -> compare(buf, 4, f.operator(), f.comparator());
            case FamilyFilter f -> compare(buf, 5, f.operator(), f.comparator());
            case QualifierFilter f -> compare(buf, 6, f.operator(), f.comparator());
            case ValueFilter f -> compare(buf, 7, f.operator(), f.comparator());
            case SingleColumnValueFilter f -> columnValue(buf, 8, f.family(), f.qualifier(), f.operator(), f.comparator(),
                    f.filterIfMissing(), f.latestVersionOnly());
            case SingleColumnValueExcludeFilter f -> columnValue(buf, 9, f.family(), f.qualifier(), f.operator(),
                    f.comparator(), f.filterIfMissing(), f.latestVersionOnly());
            case PageFilter f -> {
                buf.writeByte(10);
                Wire.writeVarlong(buf, f.pageSize());
            }
            case KeyOnlyFilter f -> {
                buf.writeByte(11);
                Wire.writeBoolean(buf, f.lengthAsValue());
            }
            case FirstKeyOnlyFilter f -> buf.writeByte(12);
            case InclusiveStopFilter f -> bytes(buf, 13, f.stopRow());
            case TimestampsFilter f -> {
                buf.writeByte(14);
                Wire.writeVarint(buf, f.timestamps().size());
                f.timestamps().forEach(buf::writeLong);
            }
            case ColumnCountGetFilter f -> {
                buf.writeByte(15);
                Wire.writeVarint(buf, f.limit());
            }
            case ColumnPaginationFilter f -> {
                buf.writeByte(16);
                Wire.writeVarint(buf, f.limit());
                Wire.writeVarint(buf, f.offset());
                Wire.writeBytes(buf, f.columnOffset());
            }
            case RandomRowFilter f -> {
                buf.writeByte(17);
                buf.writeInt(Float.floatToIntBits(f.chance()));
            }
            case FuzzyRowFilter f -> {
                buf.writeByte(18);
                Wire.writeVarint(buf, f.rules().size());
                for (FuzzyRowFilter.Rule rule : f.rules()) {
                    Wire.writeBytes(buf, rule.row());
                    Wire.writeBytes(buf, rule.mask());
                }
            }
            case MultiRowRangeFilter f -> {
                buf.writeByte(19);
                Wire.writeVarint(buf, f.ranges().size());
                for (MultiRowRangeFilter.RowRange r : f.ranges()) {
                    Wire.writeBytes(buf, r.start());
                    Wire.writeBoolean(buf, r.startInclusive());
                    Wire.writeBytes(buf, r.stop());
                    Wire.writeBoolean(buf, r.stopInclusive());
                }
            }
            case WhileMatchFilter f -> {
                buf.writeByte(20);
                write(buf, f.filter());
            }
            case SkipFilter f -> {
                buf.writeByte(21);
                write(buf, f.filter());
            }
            case FilterList f -> {
                buf.writeByte(22);
                buf.writeByte(f.operator().ordinal());
                Wire.writeVarint(buf, f.filters().size());
                f.filters().forEach(child -> write(buf, child));
            }
        }
    }

    private static void bytes(ByteBuf buf, int tag, byte[] bytes) {
        buf.writeByte(tag);
        Wire.writeBytes(buf, bytes);
    }

    private static void compare(ByteBuf buf, int tag, CompareOperator op, ByteArrayComparable comparator) {
        buf.writeByte(tag);
        buf.writeByte(op.ordinal());
        comparator(buf, comparator);
    }

    private static void columnValue(ByteBuf buf, int tag, byte[] family, byte[] qualifier, CompareOperator op,
                                    ByteArrayComparable comparator, boolean ifMissing, boolean latest) {
        buf.writeByte(tag);
        Wire.writeBytes(buf, family);
        Wire.writeBytes(buf, qualifier);
        buf.writeByte(op.ordinal());
        comparator(buf, comparator);
        Wire.writeBoolean(buf, ifMissing);
        Wire.writeBoolean(buf, latest);
    }

    private static void comparator(ByteBuf buf, ByteArrayComparable comparator) {
        switch (comparator) {
            case BinaryComparator c -> bytes(buf, 0, c.operand());
            case BinaryPrefixComparator c -> bytes(buf, 1, c.operand());
            case RegexStringComparator c -> {
                buf.writeByte(2);
                Wire.writeString(buf, c.pattern());
                Wire.writeVarint(buf, c.flags());
            }
            case SubstringComparator c -> {
                buf.writeByte(3);
                Wire.writeString(buf, c.substring());
            }
            case NullComparator c -> buf.writeByte(4);
        }
    }

    // ------------------------------------------------------------------ decoding

    static Filter read(ByteBuf buf) {
        return new Reader(buf).filter(1);
    }

    /** One tree's decoding, counting its filters. */
    private static final class Reader {
        private final ByteBuf buf;
        private int filters;

        Reader(ByteBuf buf) {
            this.buf = buf;
        }

        Filter filter(int depth) {
            if (depth > Filter.MAX_DEPTH) {
                throw new MalformedFrameException("filters nest more than " + Filter.MAX_DEPTH + " deep");
            }
            if (++filters > Filter.MAX_FILTERS) {
                throw new MalformedFrameException("filter tree holds more than " + Filter.MAX_FILTERS + " filters");
            }
            int tag = Wire.readUnsignedByte(buf, "filter type");
            return switch (tag) {
                case 0 -> new PrefixFilter(bytes("prefix"));
                case 1 -> new ColumnPrefixFilter(bytes("column prefix"));
                case 2 -> {
                    int n = count("column prefix count");
                    List<byte[]> prefixes = new ArrayList<>(n);
                    for (int i = 0; i < n; i++) {
                        prefixes.add(bytes("column prefix"));
                    }
                    yield new MultipleColumnPrefixFilter(prefixes);
                }
                case 3 -> new ColumnRangeFilter(bytes("min column"), bool("min inclusive"), bytes("max column"),
                        bool("max inclusive"));
                case 4 -> new RowFilter(op(), comparator());
                case 5 -> new FamilyFilter(op(), comparator());
                case 6 -> new QualifierFilter(op(), comparator());
                case 7 -> new ValueFilter(op(), comparator());
                case 8, 9 -> {
                    byte[] family = bytes("filter family");
                    byte[] qualifier = bytes("filter qualifier");
                    CompareOperator op = op();
                    ByteArrayComparable comparator = comparator();
                    boolean ifMissing = bool("filter if missing");
                    boolean latest = bool("latest version only");
                    yield tag == 8 ? new SingleColumnValueFilter(family, qualifier, op, comparator, ifMissing, latest)
                            : new SingleColumnValueExcludeFilter(family, qualifier, op, comparator, ifMissing, latest);
                }
                case 10 -> new PageFilter(Wire.readVarlong(buf, "page size"));
                case 11 -> new KeyOnlyFilter(bool("length as value"));
                case 12 -> new FirstKeyOnlyFilter();
                case 13 -> new InclusiveStopFilter(bytes("stop row"));
                case 14 -> {
                    int n = count("timestamp count");
                    List<Long> timestamps = new ArrayList<>(n);
                    for (int i = 0; i < n; i++) {
                        timestamps.add(Wire.readLong(buf, "timestamp"));
                    }
                    yield new TimestampsFilter(timestamps);
                }
                case 15 -> new ColumnCountGetFilter(Wire.readVarint(buf, "column limit"));
                case 16 -> new ColumnPaginationFilter(Wire.readVarint(buf, "column limit"),
                        Wire.readVarint(buf, "column offset"), bytes("column offset"));
                case 17 -> {
                    Wire.need(buf, 4, "row chance");
                    yield new RandomRowFilter(Float.intBitsToFloat(buf.readInt()));
                }
                case 18 -> {
                    int n = count("fuzzy rule count");
                    List<FuzzyRowFilter.Rule> rules = new ArrayList<>(n);
                    for (int i = 0; i < n; i++) {
                        rules.add(new FuzzyRowFilter.Rule(bytes("fuzzy row"), bytes("fuzzy mask")));
                    }
                    yield new FuzzyRowFilter(rules);
                }
                case 19 -> {
                    int n = count("row range count");
                    List<MultiRowRangeFilter.RowRange> ranges = new ArrayList<>(n);
                    for (int i = 0; i < n; i++) {
                        ranges.add(new MultiRowRangeFilter.RowRange(bytes("range start"), bool("start inclusive"),
                                bytes("range stop"), bool("stop inclusive")));
                    }
                    yield new MultiRowRangeFilter(ranges);
                }
                case 20 -> new WhileMatchFilter(filter(depth + 1));
                case 21 -> new SkipFilter(filter(depth + 1));
                case 22 -> {
                    int operator = Wire.readUnsignedByte(buf, "filter list operator");
                    if (operator > 1) {
                        throw new MalformedFrameException("filter list operator " + operator + " is not 0 (all) or 1 (one)");
                    }
                    int n = count("filter list size");
                    List<Filter> children = new ArrayList<>(n);
                    for (int i = 0; i < n; i++) {
                        children.add(filter(depth + 1));
                    }
                    yield new FilterList(FilterList.Operator.values()[operator], children);
                }
                default -> throw new MalformedFrameException("filter type " + tag + " is unknown (0 to 22)");
            };
        }

        private byte[] bytes(String what) {
            return Wire.readBytes(buf, what);
        }

        private boolean bool(String what) {
            return Wire.readBoolean(buf, what);
        }

        /** A count of items of at least one byte each, checked against what is left. */
        private int count(String what) {
            int n = Wire.readVarint(buf, what);
            if (n > buf.readableBytes()) {
                throw new MalformedFrameException(what + " " + n + " cannot fit in " + buf.readableBytes() + " bytes");
            }
            return n;
        }

        private CompareOperator op() {
            int op = Wire.readUnsignedByte(buf, "compare operator");
            if (op >= CompareOperator.values().length) {
                throw new MalformedFrameException("compare operator " + op + " is unknown (0 to "
                        + (CompareOperator.values().length - 1) + ")");
            }
            return CompareOperator.values()[op];
        }

        private ByteArrayComparable comparator() {
            int type = Wire.readUnsignedByte(buf, "comparator type");
            return switch (type) {
                case 0 -> new BinaryComparator(bytes("comparator operand"));
                case 1 -> new BinaryPrefixComparator(bytes("comparator operand"));
                case 2 -> new RegexStringComparator(Wire.readString(buf, "regular expression"),
                        Wire.readVarint(buf, "regular expression flags"));
                case 3 -> new SubstringComparator(Wire.readString(buf, "substring"));
                case 4 -> new NullComparator();
                default -> throw new MalformedFrameException("comparator type " + type + " is unknown (0 to 4)");
            };
        }
    }
}
