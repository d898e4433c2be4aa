package io.basalt.client.net;

import io.basalt.bytes.Bytes;
import io.basalt.cell.Cell;
import io.basalt.cell.CellBlock;
import io.basalt.cell.CellType;
import io.basalt.cell.MalformedCellException;
import io.basalt.client.Append;
import io.basalt.client.CheckAndMutate;
import io.basalt.client.ClusterInfo;
import io.basalt.client.Compression;
import io.basalt.client.Consistency;
import io.basalt.client.Delete;
import io.basalt.client.FamilyDescriptor;
import io.basalt.client.Get;
import io.basalt.client.Increment;
import io.basalt.client.Mutation;
import io.basalt.client.Put;
import io.basalt.client.Query;
import io.basalt.client.Result;
import io.basalt.client.Scan;
import io.basalt.client.RegionInfo;
import io.basalt.client.ServerStatus;
import io.basalt.client.TableDescriptor;
import io.basalt.client.TimeRange;
import io.basalt.protocol.MalformedFrameException;
import io.basalt.protocol.Wire;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.NavigableSet;

/**
 * The encoding of the table API's objects in frame bodies, shared by the network client and the
 * server. Built on {@link Wire}'s primitives; every decoder checks what it reads and reports a
 * {@link MalformedFrameException} naming the field, and rebuilds objects through their public
 * constructors so their own validation applies (an {@link IllegalArgumentException} means the
 * request decoded but is invalid).
 *
 * <pre>
 * mutation   := kind u8 (0 put, 1 delete, 2 increment, 3 append) | row bytes | timestamp i64 | cell block
 * selection  := familyCount varint | (family bytes | qualifierCount varint | qualifier bytes*)*
 *               | timeMin i64 | timeMax i64 | maxVersions varint | hasFilter bool | [filter (FilterCodec)]
 * get        := row bytes | selection
 * scan       := selection | startRow bytes | startInclusive bool | stopRow bytes | stopInclusive bool
 *               | reversed bool | limit varlong | caching varint | batch varint
 *               | maxResultSize varlong | allowPartialResults bool | raw bool
 * check      := row bytes | family bytes | qualifier bytes | condition u8 | [condition fields]
 *               | mutationCount varint | mutation*
 *               condition 0: the column is absent; 1: expected bytes (equal); 2: op u8 | value bytes
 *               | timeMin i64 | timeMax i64; 3: filter | timeMin i64 | timeMax i64 (family and
 *               qualifier empty); 4: none (family and qualifier empty). 0 and 1 read as the boolean
 *               "has expected" of versions before 5, so replicated logs written then decode alike.
 * table      := name string | familyCount varint | (name string | maxVersions varint | ttlMillis varlong
 *               | bloom bool | blockSize varint | compression u8)*
 * results    := a row section (Wire.writeRows): count varint | length varint
 *               | (cellCount varint | partial bool | byteLength varint | cells)*
 * error      := message string | argCount varint | arg string*
 * </pre>
 */
public final class Messages {

    private Messages() {}

    private static final int PUT = 0;
    private static final int DELETE = 1;
    private static final int INCREMENT = 2;
    private static final int APPEND = 3;

    // ------------------------------------------------------------------ mutations

    public static void writeMutation(ByteBuf buf, Mutation mutation) {
        int kind = switch (mutation) {
            case Put _ -> PUT;
            case Delete _ -> DELETE;
            case Increment _ -> INCREMENT;
            case Append _ -> APPEND;
        };
        buf.writeByte(kind);
        Wire.writeBytes(buf, mutation.row());
        buf.writeLong(mutation.timestamp());
        Wire.writeCells(buf, mutation.cells());
    }

    public static Mutation readMutation(ByteBuf buf) {
        int kind = Wire.readUnsignedByte(buf, "mutation kind");
        byte[] row = Wire.readBytes(buf, "mutation row");
        long timestamp = Wire.readLong(buf, "mutation timestamp");
        CellBlock block = Wire.readCellBlock(buf, "mutation");
        int other = block.firstNotOfRow(row);
        if (other >= 0) {
            throw new MalformedFrameException("mutation of row " + Bytes.toStringBinary(row)
                    + " carries a cell of row " + Bytes.toStringBinary(block.rowBytes(other)));
        }
        List<Cell> cells = block.cells(0, block.count());
        switch (kind) {
            case PUT -> {
                // The cells as decoded, views over the frame's block: nothing is copied per cell.
                Put put = new Put(row, timestamp);
                for (Cell cell : cells) {
                    requireType(cell, CellType.PUT, "put");
                    put.add(cell);
                }
                return put;
            }
            case DELETE -> {
                Delete delete = new Delete(row, timestamp);
                for (Cell cell : cells) {
                    switch (cell.type()) {
                        case DELETE_FAMILY -> delete.addFamily(cell.familyBytes(), cell.timestamp());
                        case DELETE_COLUMN -> delete.addColumns(cell.familyBytes(), cell.qualifierBytes(), cell.timestamp());
                        case DELETE -> delete.addColumn(cell.familyBytes(), cell.qualifierBytes(), cell.timestamp());
                        default -> throw new MalformedFrameException("delete carries a cell of type " + cell.type());
                    }
                }
                return delete;
            }
            case INCREMENT -> {
                Increment increment = new Increment(row);
                for (Cell cell : cells) {
                    requireType(cell, CellType.PUT, "increment");
                    if (cell.value().byteSize() != 8) {
                        throw new MalformedFrameException("increment amount of " + cell.value().byteSize()
                                + " bytes; amounts are 8 bytes");
                    }
                    increment.addColumn(cell.familyBytes(), cell.qualifierBytes(), Increment.amount(cell));
                }
                return increment;
            }
            case APPEND -> {
                Append append = new Append(row);
                for (Cell cell : cells) {
                    requireType(cell, CellType.PUT, "append");
                    append.addColumn(cell.familyBytes(), cell.qualifierBytes(), cell.valueBytes());
                }
                return append;
            }
            default -> throw new MalformedFrameException("mutation kind " + kind + " is not 0 (put), 1 (delete),"
                    + " 2 (increment) or 3 (append)");
        }
    }

    private static void requireType(Cell cell, CellType type, String what) {
        if (cell.type() != type) {
            throw new MalformedFrameException(what + " carries a cell of type " + cell.type());
        }
    }

    public static void writeMutations(ByteBuf buf, List<? extends Mutation> mutations) {
        Wire.writeVarint(buf, mutations.size());
        for (Mutation m : mutations) {
            writeMutation(buf, m);
        }
    }

    public static List<Mutation> readMutations(ByteBuf buf) {
        int count = Wire.readVarint(buf, "mutation count");
        // A mutation takes at least 13 bytes, so a forged count cannot size the list.
        if (count > buf.readableBytes() / 13 + 1) {
            throw new MalformedFrameException(count + " mutations cannot fit in " + buf.readableBytes() + " bytes");
        }
        List<Mutation> out = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            out.add(readMutation(buf));
        }
        return out;
    }

    // ------------------------------------------------------------------ queries

    private static void writeSelection(ByteBuf buf, Query<?> query) {
        Map<byte[], NavigableSet<byte[]>> columns = query.columns();
        Wire.writeVarint(buf, columns.size());
        for (Map.Entry<byte[], NavigableSet<byte[]>> e : columns.entrySet()) {
            Wire.writeBytes(buf, e.getKey());
            Wire.writeVarint(buf, e.getValue().size());
            for (byte[] q : e.getValue()) {
                Wire.writeBytes(buf, q);
            }
        }
        buf.writeLong(query.timeRange().min());
        buf.writeLong(query.timeRange().max());
        Wire.writeVarint(buf, query.maxVersions());
        Wire.writeBoolean(buf, query.filter() != null);
        if (query.filter() != null) {
            FilterCodec.write(buf, query.filter());
        }
    }

    private static void readSelection(ByteBuf buf, Query<?> query) {
        int families = Wire.readVarint(buf, "family count");
        for (int i = 0; i < families; i++) {
            byte[] family = Wire.readBytes(buf, "family");
            int qualifiers = Wire.readVarint(buf, "qualifier count");
            if (qualifiers == 0) {
                query.addFamily(family);
            }
            for (int j = 0; j < qualifiers; j++) {
                query.addColumn(family, Wire.readBytes(buf, "qualifier"));
            }
        }
        long min = Wire.readLong(buf, "time range min");
        long max = Wire.readLong(buf, "time range max");
        query.setTimeRange(new TimeRange(min, max));
        int versions = Wire.readVarint(buf, "max versions");
        if (versions == Integer.MAX_VALUE) {
            query.readAllVersions();
        } else {
            query.readVersions(versions);
        }
        if (Wire.readBoolean(buf, "has filter")) {
            query.setFilter(FilterCodec.read(buf));
        }
    }

    /**
     * The consistency of a {@code GET} or {@code SCAN_OPEN}, as an optional last byte of the
     * request: absent for {@link Consistency#STRONG} (so requests are what they were before the
     * option), 1 for {@link Consistency#TIMELINE}.
     */
    public static void writeConsistency(ByteBuf buf, Query<?> query) {
        if (query.consistency() == Consistency.TIMELINE) {
            buf.writeByte(1);
        }
    }

    /** Reads what {@link #writeConsistency} wrote, at the end of a request body. */
    public static void readConsistency(ByteBuf buf, Query<?> query) {
        if (!buf.isReadable()) {
            return;
        }
        int code = Wire.readUnsignedByte(buf, "consistency");
        query.setConsistency(switch (code) {
            case 0 -> Consistency.STRONG;
            case 1 -> Consistency.TIMELINE;
            default -> throw new MalformedFrameException("consistency " + code + " is unknown (0 strong, 1 timeline)");
        });
    }

    public static void writeGet(ByteBuf buf, Get get) {
        Wire.writeBytes(buf, get.row());
        writeSelection(buf, get);
    }

    public static Get readGet(ByteBuf buf) {
        Get get = new Get(Wire.readBytes(buf, "get row"));
        readSelection(buf, get);
        return get;
    }

    public static void writeScan(ByteBuf buf, Scan scan) {
        writeSelection(buf, scan);
        Wire.writeBytes(buf, scan.startRow());
        Wire.writeBoolean(buf, scan.startInclusive());
        Wire.writeBytes(buf, scan.stopRow());
        Wire.writeBoolean(buf, scan.stopInclusive());
        Wire.writeBoolean(buf, scan.reversed());
        Wire.writeVarlong(buf, scan.limit());
        Wire.writeVarint(buf, scan.caching());
        Wire.writeVarint(buf, scan.batch());
        Wire.writeVarlong(buf, scan.maxResultSize());
        Wire.writeBoolean(buf, scan.allowPartialResults());
        Wire.writeBoolean(buf, scan.raw());
    }

    public static Scan readScan(ByteBuf buf) {
        Scan scan = new Scan();
        readSelection(buf, scan);
        byte[] start = Wire.readBytes(buf, "start row");
        scan.withStartRow(start, Wire.readBoolean(buf, "start inclusive"));
        byte[] stop = Wire.readBytes(buf, "stop row");
        scan.withStopRow(stop, Wire.readBoolean(buf, "stop inclusive"));
        scan.setReversed(Wire.readBoolean(buf, "reversed"));
        scan.setLimit(Wire.readVarlong(buf, "limit"));
        scan.setCaching(Wire.readVarint(buf, "caching"));
        scan.setBatch(Wire.readVarint(buf, "batch"));
        scan.setMaxResultSize(Wire.readVarlong(buf, "max result size"));
        scan.setAllowPartialResults(Wire.readBoolean(buf, "allow partial results"));
        scan.setRaw(Wire.readBoolean(buf, "raw"));
        return scan;
    }

    public static void writeCheckAndMutate(ByteBuf buf, CheckAndMutate check) {
        Wire.writeBytes(buf, check.row());
        boolean column = check.family() != null;
        Wire.writeBytes(buf, column ? check.family() : Bytes.EMPTY);
        Wire.writeBytes(buf, column ? check.qualifier() : Bytes.EMPTY);
        boolean allTime = check.timeRange().equals(TimeRange.ALL);
        if (check.unconditional()) {
            buf.writeByte(4);
        } else if (check.filter() != null) {
            buf.writeByte(3);
            FilterCodec.write(buf, check.filter());
            buf.writeLong(check.timeRange().min());
            buf.writeLong(check.timeRange().max());
        } else if (check.expected() == null && allTime) {
            buf.writeByte(0);
        } else if (check.operator() == io.basalt.client.filter.CompareOperator.EQUAL && allTime) {
            buf.writeByte(1);
            Wire.writeBytes(buf, check.expected());
        } else {
            buf.writeByte(2);
            buf.writeByte(check.operator() == null ? 0xFF : check.operator().ordinal()); // 0xFF: absent
            Wire.writeBytes(buf, check.expected() == null ? Bytes.EMPTY : check.expected());
            buf.writeLong(check.timeRange().min());
            buf.writeLong(check.timeRange().max());
        }
        writeMutations(buf, check.mutations());
    }

    public static CheckAndMutate readCheckAndMutate(ByteBuf buf) {
        byte[] row = Wire.readBytes(buf, "check row");
        byte[] family = Wire.readBytes(buf, "check family");
        byte[] qualifier = Wire.readBytes(buf, "check qualifier");
        int condition = Wire.readUnsignedByte(buf, "check condition");
        CheckAndMutate.Builder builder = CheckAndMutate.onRow(row);
        switch (condition) {
            case 0 -> builder.ifAbsent(family, qualifier);
            case 1 -> builder.ifEquals(family, qualifier, Wire.readBytes(buf, "check expected"));
            case 2 -> {
                int op = Wire.readUnsignedByte(buf, "check operator");
                byte[] value = Wire.readBytes(buf, "check value");
                if (op == 0xFF) {
                    builder.ifAbsent(family, qualifier);
                } else if (op < io.basalt.client.filter.CompareOperator.values().length) {
                    builder.ifMatches(family, qualifier, io.basalt.client.filter.CompareOperator.values()[op], value);
                } else {
                    throw new MalformedFrameException("check operator " + op + " is unknown");
                }
                builder.timeRange(new TimeRange(Wire.readLong(buf, "check time min"), Wire.readLong(buf, "check time max")));
            }
            case 3 -> {
                builder.ifMatches(FilterCodec.read(buf));
                builder.timeRange(new TimeRange(Wire.readLong(buf, "check time min"), Wire.readLong(buf, "check time max")));
            }
            case 4 -> builder.always();
            default -> throw new MalformedFrameException("check condition " + condition + " is not 0 to 4");
        }
        List<Mutation> mutations = readMutations(buf);
        return builder.then(mutations.toArray(Mutation[]::new));
    }

    // ------------------------------------------------------------------ tables

    public static void writeTable(ByteBuf buf, TableDescriptor table) {
        Wire.writeString(buf, table.name());
        Wire.writeVarint(buf, table.families().size());
        for (FamilyDescriptor f : table.families()) {
            Wire.writeString(buf, f.name());
            Wire.writeVarint(buf, f.maxVersions());
            Wire.writeVarlong(buf, f.timeToLive().toMillis());
            buf.writeByte(f.bloomCode()); // 0 or 1 for no filter or the default bits, as a boolean before
            Wire.writeVarint(buf, f.blockSize());
            buf.writeByte(f.compression().ordinal());
        }
    }

    public static TableDescriptor readTable(ByteBuf buf) {
        String name = Wire.readString(buf, "table name");
        int count = Wire.readVarint(buf, "family count");
        if (count > buf.readableBytes()) {
            throw new MalformedFrameException(count + " families cannot fit in " + buf.readableBytes() + " bytes");
        }
        List<FamilyDescriptor> families = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            String family = Wire.readString(buf, "family name");
            int versions = Wire.readVarint(buf, "max versions");
            long ttl = Wire.readVarlong(buf, "time to live");
            int bloom = Wire.readUnsignedByte(buf, "bloom filter");
            int bloomBits;
            try {
                bloomBits = FamilyDescriptor.bloomBitsOf(bloom);
            } catch (IllegalArgumentException e) {
                throw new MalformedFrameException(e.getMessage());
            }
            int blockSize = Wire.readVarint(buf, "block size");
            int codec = Wire.readUnsignedByte(buf, "compression");
            if (codec >= Compression.values().length) {
                throw new MalformedFrameException("compression " + codec + " is unknown");
            }
            if (ttl < 0) {
                throw new MalformedFrameException("time to live " + Long.toUnsignedString(ttl) + " ms is out of range");
            }
            families.add(new FamilyDescriptor(family, versions, Duration.ofMillis(ttl), bloom != 0, blockSize,
                    Compression.values()[codec], bloomBits));
        }
        return new TableDescriptor(name, families);
    }

    public static void writeTables(ByteBuf buf, List<TableDescriptor> tables) {
        Wire.writeVarint(buf, tables.size());
        for (TableDescriptor t : tables) {
            writeTable(buf, t);
        }
    }

    public static List<TableDescriptor> readTables(ByteBuf buf) {
        int count = Wire.readVarint(buf, "table count");
        if (count > buf.readableBytes()) {
            throw new MalformedFrameException(count + " tables cannot fit in " + buf.readableBytes() + " bytes");
        }
        List<TableDescriptor> out = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            out.add(readTable(buf));
        }
        return out;
    }

    /** A {@code CREATE_TABLE} body: the table, then its split keys when there are any. */
    public static void writeCreateTable(ByteBuf buf, TableDescriptor table, List<byte[]> splitKeys) {
        writeTable(buf, table);
        if (!splitKeys.isEmpty()) {
            Wire.writeVarint(buf, splitKeys.size());
            for (byte[] key : splitKeys) {
                Wire.writeBytes(buf, key);
            }
        }
    }

    /** The split keys after the table in a {@code CREATE_TABLE} body (none when the body ends there). */
    public static List<byte[]> readSplitKeys(ByteBuf buf) {
        if (!buf.isReadable()) {
            return List.of();
        }
        int count = Wire.readVarint(buf, "split key count");
        if (count > buf.readableBytes()) {
            throw new MalformedFrameException(count + " split keys cannot fit in " + buf.readableBytes() + " bytes");
        }
        List<byte[]> keys = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            keys.add(Wire.readBytes(buf, "split key"));
        }
        return keys;
    }

    public static void writeRegion(ByteBuf buf, RegionInfo region) {
        Wire.writeString(buf, region.table());
        Wire.writeVarlong(buf, region.id());
        Wire.writeBytes(buf, region.start());
        Wire.writeBytes(buf, region.end());
        Wire.writeVarlong(buf, region.sizeBytes());
        Wire.writeVarint(buf, region.files());
        Wire.writeVarlong(buf, region.memtableBytes());
        Wire.writeString(buf, region.leader());
        Wire.writeVarint(buf, region.replicas().size());
        region.replicas().forEach(r -> Wire.writeString(buf, r));
    }

    public static RegionInfo readRegion(ByteBuf buf) {
        String table = Wire.readString(buf, "table name");
        long id = Wire.readVarlong(buf, "region id");
        byte[] start = Wire.readBytes(buf, "region start");
        byte[] end = Wire.readBytes(buf, "region end");
        long size = Wire.readVarlong(buf, "region size");
        int files = Wire.readVarint(buf, "region files");
        long memtable = Wire.readVarlong(buf, "region memtable bytes");
        String leader = Wire.readString(buf, "region leader");
        int count = Wire.readVarint(buf, "region replica count");
        if (count > buf.readableBytes()) {
            throw new MalformedFrameException(count + " replicas cannot fit in " + buf.readableBytes() + " bytes");
        }
        List<String> replicas = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            replicas.add(Wire.readString(buf, "region replica"));
        }
        return new RegionInfo(table, id, start, end, size, files, memtable, leader, replicas);
    }

    public static void writeRegions(ByteBuf buf, List<RegionInfo> regions) {
        Wire.writeVarint(buf, regions.size());
        for (RegionInfo r : regions) {
            writeRegion(buf, r);
        }
    }

    public static List<RegionInfo> readRegions(ByteBuf buf) {
        int count = Wire.readVarint(buf, "region count");
        if (count > buf.readableBytes()) {
            throw new MalformedFrameException(count + " regions cannot fit in " + buf.readableBytes() + " bytes");
        }
        List<RegionInfo> out = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            out.add(readRegion(buf));
        }
        return out;
    }

    // ------------------------------------------------------------------ users and grants

    /** A grant: user, table (empty: global), family (empty: the whole table), letters. */
    public static void writePermission(ByteBuf buf, io.basalt.client.security.Permission p) {
        Wire.writeString(buf, p.user());
        Wire.writeString(buf, p.table() == null ? "" : p.table());
        Wire.writeString(buf, p.family() == null ? "" : p.family());
        Wire.writeString(buf, io.basalt.client.security.Action.letters(p.actions()));
    }

    public static io.basalt.client.security.Permission readPermission(ByteBuf buf) {
        String user = Wire.readString(buf, "user");
        String table = Wire.readString(buf, "table");
        String family = Wire.readString(buf, "family");
        String letters = Wire.readString(buf, "permission letters");
        return new io.basalt.client.security.Permission(user, table.isEmpty() ? null : table,
                family.isEmpty() ? null : family, io.basalt.client.security.Action.parse(letters));
    }

    public static void writePermissions(ByteBuf buf, List<io.basalt.client.security.Permission> ps) {
        Wire.writeVarint(buf, ps.size());
        for (io.basalt.client.security.Permission p : ps) {
            writePermission(buf, p);
        }
    }

    public static List<io.basalt.client.security.Permission> readPermissions(ByteBuf buf) {
        int count = Wire.readVarint(buf, "permission count");
        if (count > buf.readableBytes()) {
            throw new MalformedFrameException(count + " permissions cannot fit in " + buf.readableBytes() + " bytes");
        }
        List<io.basalt.client.security.Permission> out = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            out.add(readPermission(buf));
        }
        return out;
    }

    public static void writeStrings(ByteBuf buf, List<String> strings) {
        Wire.writeVarint(buf, strings.size());
        for (String x : strings) {
            Wire.writeString(buf, x);
        }
    }

    public static List<String> readStrings(ByteBuf buf) {
        int count = Wire.readVarint(buf, "string count");
        if (count > buf.readableBytes()) {
            throw new MalformedFrameException(count + " strings cannot fit in " + buf.readableBytes() + " bytes");
        }
        List<String> out = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            out.add(Wire.readString(buf, "string"));
        }
        return out;
    }

    // ------------------------------------------------------------------ results

    public static void writeResult(ByteBuf buf, Result result) {
        writeResults(buf, List.of(result));
    }

    public static Result readResult(ByteBuf buf) {
        List<Result> results = readResults(buf);
        if (results.size() != 1) {
            throw new MalformedFrameException("expected one result, got " + results.size());
        }
        return results.getFirst();
    }

    /** About how many bytes {@link #writeResults} takes for {@code results}: a frame's size hint. */
    public static int resultsSizeHint(List<Result> results) {
        long bytes = 64;
        for (int i = 0, n = results.size(); i < n; i++) {
            bytes += 12 + Wire.encodedLength(results.get(i).cells());
        }
        return (int) Math.min(Integer.MAX_VALUE - 64, bytes);
    }

    /**
     * Writes results as a row section ({@link Wire#writeRows}): each result's cells after a header
     * with their count and byte length, so the reader frames the results without reading cells.
     */
    public static void writeResults(ByteBuf buf, List<Result> results) {
        Wire.writeRows(buf, new Wire.Rows() {
            @Override
            public int count() {
                return results.size();
            }

            @Override
            public List<Cell> cells(int row) {
                return results.get(row).cells();
            }

            @Override
            public boolean partial(int row) {
                return results.get(row).isPartial();
            }
        });
    }

    /**
     * Results as they came off the wire: the row section's bytes (in the frame's own array, or
     * copied out of a pooled frame; see {@link Wire#readRows}), nothing checked yet. {@link #decode} frames the results, on whichever thread will use them (a
     * scanner's caller, not the event loop).
     */
    public static final class EncodedResults {

        private final Wire.RowSection section;

        private EncodedResults(Wire.RowSection section) {
            this.section = section;
        }

        /**
         * The results, each a view of its part of the section, with no per-result or per-cell
         * copy. The headers and each result's first cell (its row) are checked now; the rest of a
         * result's cells when its cell list is first read ({@link CellBlock#rowCells}), so that a
         * caller reading row after row checks each just before reading it, while its bytes are in
         * the cache. A malformed cell then fails that read with a {@link MalformedCellException}
         * that names {@code source}, the cell and the problem; nothing malformed is ever handed
         * out as a cell.
         *
         * @param source where the results came from, for error messages
         * @throws MalformedFrameException naming the problem, when a header or a first cell is
         *     malformed
         */
        public List<Result> decode(String source) {
            byte[] bytes = section.bytes();
            MemorySegment segment = MemorySegment.ofArray(bytes);
            ByteBuf headers = Unpooled.wrappedBuffer(bytes, section.from(), section.to() - section.from());
            int count = section.count();
            List<Result> out = new ArrayList<>(count);
            for (int i = 0; i < count; i++) {
                int cells = Wire.readVarint(headers, "result cell count");
                boolean partial = Wire.readBoolean(headers, "result partial");
                int length = Wire.readVarint(headers, "result length");
                if (length > headers.readableBytes()) {
                    throw new MalformedFrameException("result " + i + " of " + count + " claims " + length
                            + " bytes; " + headers.readableBytes() + " are left");
                }
                int from = section.from() + headers.readerIndex();
                headers.skipBytes(length);
                if (cells == 0) {
                    if (length != 0) {
                        throw new MalformedFrameException("a result of no cells claims " + length + " bytes");
                    }
                    out.add(Result.empty());
                    continue;
                }
                try {
                    byte[] row = CellBlock.firstRow(bytes, from, from + length);
                    out.add(Result.of(row, CellBlock.rowCells(segment, bytes, from, from + length, cells, source),
                            partial));
                } catch (MalformedCellException e) {
                    throw new MalformedFrameException("result " + i + " of " + count + ": " + e.getMessage(), e);
                }
            }
            Wire.end(headers, "results");
            return out;
        }
    }

    /** Reads results without checking their cells; see {@link EncodedResults#decode}. */
    public static EncodedResults readEncodedResults(ByteBuf buf) {
        return new EncodedResults(Wire.readRows(buf, "results"));
    }

    /** Reads results and checks every cell now: for a caller that wants any error at once. */
    public static List<Result> readResults(ByteBuf buf) {
        List<Result> results = readEncodedResults(buf).decode("results");
        try {
            for (int i = 0, n = results.size(); i < n; i++) {
                List<Cell> cells = results.get(i).cells();
                if (!cells.isEmpty()) {
                    cells.getFirst();
                }
            }
        } catch (MalformedCellException e) {
            throw new MalformedFrameException(e.getMessage(), e);
        }
        return results;
    }

    // ------------------------------------------------------------------ cluster status

    public static void writeClusterInfo(ByteBuf buf, ClusterInfo info) {
        Wire.writeVarint(buf, info.nodes().size());
        for (ClusterInfo.Node n : info.nodes()) {
            Wire.writeVarint(buf, n.id());
            Wire.writeString(buf, n.address());
            Wire.writeBoolean(buf, n.up());
            Wire.writeVarint(buf, n.groups());
        }
        Wire.writeVarint(buf, info.regions().size());
        for (ClusterInfo.Region r : info.regions()) {
            Wire.writeString(buf, r.table());
            Wire.writeVarlong(buf, r.id());
            Wire.writeString(buf, r.start());
            Wire.writeString(buf, r.end());
            Wire.writeVarint(buf, r.leader());
            Wire.writeVarint(buf, r.replicas().size());
            for (ClusterInfo.Replica x : r.replicas()) {
                Wire.writeVarint(buf, x.node());
                Wire.writeString(buf, x.role());
                Wire.writeVarlong(buf, x.lag() + 1); // -1 (unknown) as 0
            }
        }
    }

    public static ClusterInfo readClusterInfo(ByteBuf buf) {
        int nodes = Wire.readVarint(buf, "node count");
        if (nodes > buf.readableBytes()) {
            throw new MalformedFrameException(nodes + " nodes cannot fit in " + buf.readableBytes() + " bytes");
        }
        List<ClusterInfo.Node> ns = new ArrayList<>(nodes);
        for (int i = 0; i < nodes; i++) {
            ns.add(new ClusterInfo.Node(Wire.readVarint(buf, "node id"), Wire.readString(buf, "node address"),
                    Wire.readBoolean(buf, "node up"), Wire.readVarint(buf, "node groups")));
        }
        int regions = Wire.readVarint(buf, "region count");
        if (regions > buf.readableBytes()) {
            throw new MalformedFrameException(regions + " regions cannot fit in " + buf.readableBytes() + " bytes");
        }
        List<ClusterInfo.Region> rs = new ArrayList<>(regions);
        for (int i = 0; i < regions; i++) {
            String table = Wire.readString(buf, "region table");
            long id = Wire.readVarlong(buf, "region id");
            String start = Wire.readString(buf, "region start");
            String end = Wire.readString(buf, "region end");
            int leader = Wire.readVarint(buf, "region leader");
            int count = Wire.readVarint(buf, "replica count");
            if (count > buf.readableBytes()) {
                throw new MalformedFrameException(count + " replicas cannot fit in " + buf.readableBytes() + " bytes");
            }
            List<ClusterInfo.Replica> xs = new ArrayList<>(count);
            for (int j = 0; j < count; j++) {
                xs.add(new ClusterInfo.Replica(Wire.readVarint(buf, "replica node"), Wire.readString(buf, "replica role"),
                        Wire.readVarlong(buf, "replica lag") - 1));
            }
            rs.add(new ClusterInfo.Region(table, id, start, end, leader, xs));
        }
        return new ClusterInfo(ns, rs);
    }

    // ------------------------------------------------------------------ server status

    public static void writeServerStatus(ByteBuf buf, ServerStatus status) {
        Wire.writeString(buf, status.node());
        Wire.writeVarlong(buf, status.uptimeMillis());
        Wire.writeVarlong(buf, status.connections() + 1L); // -1 (embedded) as 0
        Wire.writeVarlong(buf, status.requests() + 1);
        Wire.writeBoolean(buf, status.readOnlyReason() != null);
        if (status.readOnlyReason() != null) {
            Wire.writeString(buf, status.readOnlyReason());
        }
        for (long v : new long[] {status.memtableBytes(), status.blockCacheBytes(), status.blockCacheCapacity(),
            status.blockCacheHits(), status.blockCacheMisses(), status.flushes(), status.compactions(),
            status.compactionsRunning(), status.walSyncs(), status.walBytes(), status.stalls()}) {
            Wire.writeVarlong(buf, v);
        }
        Wire.writeVarint(buf, status.tables().size());
        for (ServerStatus.Table t : status.tables()) {
            Wire.writeString(buf, t.name());
            Wire.writeBoolean(buf, t.disabled());
            Wire.writeVarint(buf, t.regions().size());
            for (ServerStatus.Region r : t.regions()) {
                writeRegion(buf, r.info());
                Wire.writeVarlong(buf, r.readRequests());
                Wire.writeVarlong(buf, r.writeRequests());
            }
        }
    }

    public static ServerStatus readServerStatus(ByteBuf buf) {
        String node = Wire.readString(buf, "node");
        long uptime = Wire.readVarlong(buf, "uptime");
        long connections = Wire.readVarlong(buf, "connections") - 1;
        if (connections < -1 || connections > Integer.MAX_VALUE) {
            throw new MalformedFrameException("connections " + connections + " is out of range");
        }
        long requests = Wire.readVarlong(buf, "requests") - 1;
        String readOnly = Wire.readBoolean(buf, "read-only") ? Wire.readString(buf, "read-only reason") : null;
        String[] names = {"memtable bytes", "block cache bytes", "block cache capacity", "block cache hits",
            "block cache misses", "flushes", "compactions", "compactions running", "wal syncs", "wal bytes", "stalls"};
        long[] v = new long[names.length];
        for (int i = 0; i < names.length; i++) {
            v[i] = Wire.readVarlong(buf, names[i]);
        }
        int tables = Wire.readVarint(buf, "table count");
        if (tables > buf.readableBytes()) {
            throw new MalformedFrameException(tables + " tables cannot fit in " + buf.readableBytes() + " bytes");
        }
        List<ServerStatus.Table> ts = new ArrayList<>(tables);
        for (int i = 0; i < tables; i++) {
            String name = Wire.readString(buf, "table name");
            boolean disabled = Wire.readBoolean(buf, "table disabled");
            int regions = Wire.readVarint(buf, "region count");
            if (regions > buf.readableBytes()) {
                throw new MalformedFrameException(regions + " regions cannot fit in " + buf.readableBytes() + " bytes");
            }
            List<ServerStatus.Region> rs = new ArrayList<>(regions);
            for (int j = 0; j < regions; j++) {
                rs.add(new ServerStatus.Region(readRegion(buf), Wire.readVarlong(buf, "region reads"),
                        Wire.readVarlong(buf, "region writes")));
            }
            ts.add(new ServerStatus.Table(name, disabled, rs));
        }
        return new ServerStatus(node, uptime, (int) connections, requests, readOnly, v[0], v[1], v[2], v[3], v[4], v[5],
                v[6], v[7], v[8], v[9], v[10], ts);
    }

    // ------------------------------------------------------------------ errors

    /** An error response body: a message and the values an exception is rebuilt from. */
    public static void writeError(ByteBuf buf, String message, List<String> args) {
        Wire.writeString(buf, message == null ? "" : message);
        Wire.writeVarint(buf, args.size());
        for (String arg : args) {
            Wire.writeString(buf, arg);
        }
    }

    /** The message, then the arguments, of an error body. */
    public static List<String> readError(ByteBuf buf) {
        List<String> out = new ArrayList<>();
        out.add(Wire.readString(buf, "error message"));
        int args = Wire.readVarint(buf, "error argument count");
        if (args > buf.readableBytes()) {
            throw new MalformedFrameException(args + " error arguments cannot fit in " + buf.readableBytes() + " bytes");
        }
        for (int i = 0; i < args; i++) {
            out.add(Wire.readString(buf, "error argument"));
        }
        return out;
    }
}
