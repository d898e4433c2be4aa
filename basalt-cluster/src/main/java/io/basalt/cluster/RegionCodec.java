package io.basalt.cluster;

import io.basalt.client.BasaltException;
import io.basalt.client.CheckAndMutate;
import io.basalt.client.Get;
import io.basalt.client.Mutation;
import io.basalt.client.Result;
import io.basalt.client.Scan;
import io.basalt.client.TableDescriptor;
import io.basalt.client.net.Errors;
import io.basalt.client.net.Messages;
import io.basalt.protocol.MalformedFrameException;
import io.basalt.protocol.Status;
import io.basalt.protocol.Wire;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletionException;
import org.apache.ratis.protocol.Message;
import org.apache.ratis.thirdparty.com.google.protobuf.ByteString;
import org.apache.ratis.thirdparty.com.google.protobuf.UnsafeByteOperations;

/**
 * The bytes of a region's Raft log entries, of their replies, and of read queries. The encodings
 * of mutations, gets, scans, results and errors are the client protocol's ({@link Messages}).
 *
 * <pre>
 * entry  := version:u8 kind:u8 body
 *   CREATE_TABLE: table descriptor
 *   WRITE:        now:i64 table:string calls:varint { clientId:i64 callId:varlong
 *                   completedBelow:varlong ops:varint { OP_MUTATION mutation | OP_CHECK check }
 *                   positions: one varint per op, the op's index in the client's call }
 *                 (entries of format 1, kind 2, have no positions: 0, 1, ... in order)
 * reply  := calls:varint { outcomes:bytes }         (WRITE; CREATE_TABLE: one call of one outcome)
 * outcomes := count:varint { NONE | RESULT result | APPLIED | NOT_APPLIED | FAILED status:u8 error }
 * query  := version:u8 kind:u8 table:string { GET get | SCAN scan limit:varint | FLUSH | COMPACT }
 *           (FLUSH and COMPACT: housekeeping of the one replica asked; they change no data)
 * </pre>
 */
final class RegionCodec {

    static final int VERSION = 1;

    static final int CREATE_TABLE = 1;
    static final int WRITE = 6;
    static final int SPLIT = 3;
    static final int MERGE = 4;
    static final int UNMERGE = 5;
    /** Kind of a WRITE entry written before calls carried positions (read, never written). */
    static final int WRITE_WITHOUT_POSITIONS = 2;

    static final int GET = 1;
    static final int SCAN = 2;
    static final int FLUSH = 3;
    static final int COMPACT = 4;
    static final int MIDDLE_ROW = 5;

    private static final int OP_MUTATION = 1;
    private static final int OP_CHECK = 2;

    private static final int NONE = 0;
    private static final int RESULT = 1;
    private static final int APPLIED = 2;
    private static final int NOT_APPLIED = 3;
    private static final int FAILED = 4;

    private RegionCodec() {}

    static ByteString bytes(ByteBuf buf) {
        byte[] out = new byte[buf.readableBytes()];
        buf.readBytes(out);
        return UnsafeByteOperations.unsafeWrap(out);
    }

    static ByteBuf buffer(ByteString bytes) {
        return Unpooled.wrappedBuffer(bytes.asReadOnlyByteBuffer());
    }

    static Message message(ByteBuf buf) {
        return Message.valueOf(bytes(buf));
    }

    // ------------------------------------------------------------------ entries

    static Message createTable(TableDescriptor table) {
        ByteBuf buf = Unpooled.buffer();
        buf.writeByte(VERSION).writeByte(CREATE_TABLE);
        Messages.writeTable(buf, table);
        return message(buf);
    }

    /** A WRITE entry of calls encoded by {@link #writeCall}. */
    static Message writeEncoded(String table, long now, List<byte[]> calls) {
        ByteBuf buf = Unpooled.buffer();
        buf.writeByte(VERSION).writeByte(WRITE).writeLong(now);
        Wire.writeString(buf, table);
        Wire.writeVarint(buf, calls.size());
        for (byte[] call : calls) {
            buf.writeBytes(call);
        }
        return message(buf);
    }

    static void writeCall(ByteBuf buf, WriteCall call) {
        buf.writeLong(call.clientId());
        Wire.writeVarlong(buf, call.callId());
        Wire.writeVarlong(buf, call.completedBelow());
        Wire.writeVarint(buf, call.operations().size());
        for (Object op : call.operations()) {
            if (op instanceof Mutation m) {
                buf.writeByte(OP_MUTATION);
                Messages.writeMutation(buf, m);
            } else {
                buf.writeByte(OP_CHECK);
                Messages.writeCheckAndMutate(buf, (CheckAndMutate) op);
            }
        }
        for (int position : call.positions()) {
            Wire.writeVarint(buf, position);
        }
    }

    /** Reads the version and kind of an entry or query, failing on a version this code does not know. */
    static int readKind(ByteBuf buf, String what) {
        int version = Wire.readUnsignedByte(buf, what + " version");
        if (version != VERSION) {
            throw new MalformedFrameException(what + " of version " + version + "; this node reads version " + VERSION);
        }
        return Wire.readUnsignedByte(buf, what + " kind");
    }

    static WriteCall readCall(ByteBuf buf, boolean withPositions) {
        long clientId = Wire.readLong(buf, "call client");
        long callId = Wire.readVarlong(buf, "call id");
        long completedBelow = Wire.readVarlong(buf, "call completed-below mark");
        int count = Wire.readVarint(buf, "call operation count");
        if (count > buf.readableBytes()) {
            throw new MalformedFrameException(count + " operations cannot fit in " + buf.readableBytes() + " bytes");
        }
        List<Object> ops = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            int kind = Wire.readUnsignedByte(buf, "operation kind");
            ops.add(switch (kind) {
                case OP_MUTATION -> Messages.readMutation(buf);
                case OP_CHECK -> Messages.readCheckAndMutate(buf);
                default -> throw new MalformedFrameException("operation kind " + kind + " is not 1 (mutation) or 2"
                        + " (check-and-mutate)");
            });
        }
        if (!withPositions) {
            return new WriteCall(clientId, callId, completedBelow, ops);
        }
        List<Integer> positions = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            positions.add(Wire.readVarint(buf, "operation position"));
        }
        try {
            return new WriteCall(clientId, callId, completedBelow, ops, positions);
        } catch (IllegalArgumentException e) {
            throw new MalformedFrameException(e.getMessage());
        }
    }

    // ------------------------------------------------------------------ splits

    /**
     * A split of region group {@code parent} at {@code row}, applied at {@code index} of its log: the daughters' groups are {@code low} ({@code [start, row)}) and
     * {@code high} ({@code [row, end)}), derived from the parent's group and the index, so every
     * replica names the same.
     */
    record SplitInfo(java.util.UUID parent, byte[] row, long index, java.util.UUID low, java.util.UUID high) {
        static SplitInfo of(java.util.UUID parent, byte[] row, long index) {
            return new SplitInfo(parent, row, index, daughter(parent, index, "low"),
                    daughter(parent, index, "high"));
        }

        private static java.util.UUID daughter(java.util.UUID parent, long index, String side) {
            return java.util.UUID.nameUUIDFromBytes((parent + "/split/" + index + "/" + side)
                    .getBytes(java.nio.charset.StandardCharsets.UTF_8));
        }
    }

    /** A SPLIT entry: the region's table and the row its upper daughter starts at. */
    static Message split(String table, byte[] row) {
        ByteBuf buf = Unpooled.buffer();
        buf.writeByte(VERSION).writeByte(SPLIT);
        Wire.writeString(buf, table);
        Wire.writeBytes(buf, row);
        return message(buf);
    }

    static void writeSplit(ByteBuf buf, SplitInfo s) {
        writeUuid(buf, s.parent());
        Wire.writeBytes(buf, s.row());
        Wire.writeVarlong(buf, s.index());
        writeUuid(buf, s.low());
        writeUuid(buf, s.high());
    }

    static SplitInfo readSplit(ByteBuf buf) {
        return new SplitInfo(readUuid(buf, "split parent"), Wire.readBytes(buf, "split row"),
                Wire.readVarlong(buf, "split index"), readUuid(buf, "low daughter"),
                readUuid(buf, "high daughter"));
    }

    private static void writeUuid(ByteBuf buf, java.util.UUID u) {
        buf.writeLong(u.getMostSignificantBits()).writeLong(u.getLeastSignificantBits());
    }

    private static java.util.UUID readUuid(ByteBuf buf, String what) {
        return new java.util.UUID(Wire.readLong(buf, what), Wire.readLong(buf, what));
    }

    /** A SPLIT entry's reply: OK and the split (also when it was split before), or the error. */
    static Message splitReply(SplitInfo split) {
        ByteBuf buf = Unpooled.buffer();
        buf.writeByte(Status.OK.code());
        writeSplit(buf, split);
        return message(buf);
    }

    static SplitInfo readSplitReply(ByteString reply, String where) {
        ByteBuf buf = buffer(reply);
        int code = Wire.readUnsignedByte(buf, "split status");
        if (code != Status.OK.code()) {
            throw Errors.of("split", where, Status.of(code), code, Messages.readError(buf));
        }
        SplitInfo s = readSplit(buf);
        Wire.end(buf, "split reply");
        return s;
    }

    /**
     * A merge of two neighbouring regions, as one of its halves froze for it: the merged region's
     * group, the lower and upper halves' groups, and this half's log index of the MERGE entry.
     */
    record MergeInfo(java.util.UUID merged, java.util.UUID left, java.util.UUID right, long index) {}

    /**
     * A MERGE entry: the half applying it, whose rows are {@code [start, end)} in the region map,
     * freezes for merge {@code merged} of {@code left} and {@code right} (refusing every request
     * from then on) and copies its store, narrowed to that range, for the merged region; unless it
     * split, froze for another merge, or this merge was aborted.
     */
    static Message merge(String table, java.util.UUID merged, java.util.UUID left, java.util.UUID right, byte[] start,
                         byte[] end) {
        ByteBuf buf = Unpooled.buffer();
        buf.writeByte(VERSION).writeByte(MERGE);
        Wire.writeString(buf, table);
        writeUuid(buf, merged);
        writeUuid(buf, left);
        writeUuid(buf, right);
        Wire.writeBytes(buf, start);
        Wire.writeBytes(buf, end);
        return message(buf);
    }

    /** An UNMERGE entry: merge {@code merged} was aborted; a half frozen for it takes requests again. */
    static Message unmerge(String table, java.util.UUID merged) {
        ByteBuf buf = Unpooled.buffer();
        buf.writeByte(VERSION).writeByte(UNMERGE);
        Wire.writeString(buf, table);
        writeUuid(buf, merged);
        return message(buf);
    }

    static void writeMerge(ByteBuf buf, MergeInfo m) {
        writeUuid(buf, m.merged());
        writeUuid(buf, m.left());
        writeUuid(buf, m.right());
        Wire.writeVarlong(buf, m.index());
    }

    static MergeInfo readMerge(ByteBuf buf) {
        return new MergeInfo(readUuid(buf, "merged group"), readUuid(buf, "left group"), readUuid(buf, "right group"),
                Wire.readVarlong(buf, "merge index"));
    }

    /** A MERGE entry's reply: OK and the half's freeze (also when it froze before), or the refusal. */
    static Message mergeReply(MergeInfo merge) {
        ByteBuf buf = Unpooled.buffer();
        buf.writeByte(Status.OK.code());
        writeMerge(buf, merge);
        return message(buf);
    }

    static MergeInfo readMergeReply(ByteString reply, String where) {
        ByteBuf buf = buffer(reply);
        int code = Wire.readUnsignedByte(buf, "merge status");
        if (code != Status.OK.code()) {
            throw Errors.of("merge", where, Status.of(code), code, Messages.readError(buf));
        }
        MergeInfo m = readMerge(buf);
        Wire.end(buf, "merge reply");
        return m;
    }

    /** An UNMERGE entry's reply: OK. */
    static Message done() {
        ByteBuf buf = Unpooled.buffer();
        buf.writeByte(Status.OK.code());
        return message(buf);
    }

    static void readDone(ByteString reply, String where) {
        ByteBuf buf = buffer(reply);
        int code = Wire.readUnsignedByte(buf, "status");
        if (code != Status.OK.code()) {
            throw Errors.of("merge", where, Status.of(code), code, Messages.readError(buf));
        }
        Wire.end(buf, "reply");
    }

    /** A MIDDLE_ROW query's reply: the row that splits the replica's data in two halves (empty: none). */
    static Message middleRowReply(byte[] row) {
        ByteBuf buf = Unpooled.buffer();
        buf.writeByte(Status.OK.code());
        Wire.writeBytes(buf, row == null ? new byte[0] : row);
        return message(buf);
    }

    static byte[] readMiddleRow(ByteString reply, String where) {
        ByteBuf buf = buffer(reply);
        int code = Wire.readUnsignedByte(buf, "middle row status");
        if (code != Status.OK.code()) {
            throw Errors.of("read", where, Status.of(code), code, Messages.readError(buf));
        }
        byte[] row = Wire.readBytes(buf, "middle row");
        return row.length == 0 ? null : row;
    }

    // ------------------------------------------------------------------ outcomes

    /** One call's outcomes, as the state machine records them for a retry and replies with them. */
    static byte[] outcomes(List<Object> outcomes) {
        ByteBuf buf = Unpooled.buffer();
        Wire.writeVarint(buf, outcomes.size());
        for (Object o : outcomes) {
            writeOutcome(buf, o);
        }
        byte[] out = new byte[buf.readableBytes()];
        buf.readBytes(out);
        return out;
    }

    /** One operation's outcome, as {@link #outcomes} writes each. */
    static byte[] outcome(Object o) {
        ByteBuf buf = Unpooled.buffer();
        writeOutcome(buf, o);
        byte[] out = new byte[buf.readableBytes()];
        buf.readBytes(out);
        return out;
    }

    /** A call's outcomes from each operation's ({@link #outcome}), in order: what {@link #outcomes} writes. */
    static byte[] assemble(List<byte[]> each) {
        ByteBuf buf = Unpooled.buffer();
        Wire.writeVarint(buf, each.size());
        each.forEach(buf::writeBytes);
        byte[] out = new byte[buf.readableBytes()];
        buf.readBytes(out);
        return out;
    }

    /** Each operation's outcome bytes of a call's outcomes ({@link #outcomes}), re-encoded one by one. */
    static List<byte[]> split(byte[] outcomes, String where) {
        return readOutcomes(Unpooled.wrappedBuffer(outcomes), where).stream().map(RegionCodec::outcome).toList();
    }

    /** The outcomes of a call that failed as a whole (every one of its operations). */
    static byte[] failed(int operations, Throwable failure) {
        List<Object> out = new ArrayList<>(operations);
        for (int i = 0; i < operations; i++) {
            out.add(failure);
        }
        return outcomes(out);
    }

    private static void writeOutcome(ByteBuf buf, Object o) {
        switch (o) {
            case null -> buf.writeByte(NONE);
            case Result r -> {
                buf.writeByte(RESULT);
                Messages.writeResult(buf, r);
            }
            case Boolean b -> buf.writeByte(b ? APPLIED : NOT_APPLIED);
            case Throwable t -> {
                Throwable cause = t instanceof CompletionException && t.getCause() != null ? t.getCause() : t;
                buf.writeByte(FAILED).writeByte(Errors.statusOf(cause).code());
                Messages.writeError(buf, cause.getMessage() != null ? cause.getMessage() : cause.getClass().getSimpleName(),
                        Errors.argsOf(cause));
            }
            default -> throw new IllegalArgumentException("no encoding for an outcome of " + o.getClass().getName());
        }
    }

    /** Reads one call's outcomes: {@code null}, a {@link Result}, a {@link Boolean} or a {@link BasaltException}. */
    static List<Object> readOutcomes(ByteBuf buf, String where) {
        int count = Wire.readVarint(buf, "outcome count");
        if (count > buf.readableBytes()) {
            throw new MalformedFrameException(count + " outcomes cannot fit in " + buf.readableBytes() + " bytes");
        }
        List<Object> out = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            int kind = Wire.readUnsignedByte(buf, "outcome kind");
            out.add(switch (kind) {
                case NONE -> null;
                case RESULT -> Messages.readResult(buf);
                case APPLIED -> Boolean.TRUE;
                case NOT_APPLIED -> Boolean.FALSE;
                case FAILED -> {
                    int code = Wire.readUnsignedByte(buf, "outcome status");
                    yield Errors.of("write", where, Status.of(code), code, Messages.readError(buf));
                }
                default -> throw new MalformedFrameException("outcome kind " + kind + " is unknown");
            });
        }
        return out;
    }

    static Message reply(List<byte[]> calls) {
        ByteBuf buf = Unpooled.buffer();
        Wire.writeVarint(buf, calls.size());
        for (byte[] call : calls) {
            Wire.writeBytes(buf, call);
        }
        return message(buf);
    }

    /** Each call's outcomes from a WRITE entry's reply. */
    static List<List<Object>> readReply(ByteString reply, String where) {
        ByteBuf buf = buffer(reply);
        int calls = Wire.readVarint(buf, "reply call count");
        List<List<Object>> out = new ArrayList<>(calls);
        for (int i = 0; i < calls; i++) {
            out.add(readOutcomes(Unpooled.wrappedBuffer(Wire.readBytes(buf, "call outcomes")), where));
        }
        Wire.end(buf, "write reply");
        return out;
    }

    // ------------------------------------------------------------------ queries

    static Message get(String table, Get get) {
        ByteBuf buf = Unpooled.buffer();
        buf.writeByte(VERSION).writeByte(GET);
        Wire.writeString(buf, table);
        Messages.writeGet(buf, get);
        return message(buf);
    }

    static Message scan(String table, Scan scan, int limit) {
        ByteBuf buf = Unpooled.buffer();
        buf.writeByte(VERSION).writeByte(SCAN);
        Wire.writeString(buf, table);
        Messages.writeScan(buf, scan);
        Wire.writeVarint(buf, limit);
        return message(buf);
    }

    /** A {@link #FLUSH} or {@link #COMPACT} of one replica's store. */
    static Message housekeeping(String table, int kind) {
        ByteBuf buf = Unpooled.buffer();
        buf.writeByte(VERSION).writeByte(kind);
        Wire.writeString(buf, table);
        return message(buf);
    }

    /** A query's reply: OK and the results, or FAILED and the error. */
    static Message results(List<Result> results, boolean more) {
        ByteBuf buf = Unpooled.buffer();
        buf.writeByte(Status.OK.code());
        Wire.writeBoolean(buf, more);
        Messages.writeResults(buf, results);
        return message(buf);
    }

    static Message queryFailed(Throwable failure) {
        ByteBuf buf = Unpooled.buffer();
        buf.writeByte(Errors.statusOf(failure).code());
        Messages.writeError(buf, failure.getMessage() != null ? failure.getMessage() : failure.getClass().getSimpleName(),
                Errors.argsOf(failure));
        return message(buf);
    }

    /** The rows a query's reply carries, and whether a scan has more; throws the query's failure. */
    record Rows(List<Result> results, boolean more) {}

    static Rows readRows(ByteString reply, String where) {
        ByteBuf buf = buffer(reply);
        int code = Wire.readUnsignedByte(buf, "query status");
        if (code != Status.OK.code()) {
            throw Errors.of("read", where, Status.of(code), code, Messages.readError(buf));
        }
        boolean more = Wire.readBoolean(buf, "more rows");
        return new Rows(Messages.readResults(buf), more);
    }
}
