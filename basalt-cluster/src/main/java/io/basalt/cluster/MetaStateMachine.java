package io.basalt.cluster;

import io.basalt.client.TableDescriptor;
import io.basalt.client.net.Errors;
import io.basalt.client.net.Messages;
import io.basalt.protocol.MalformedFrameException;
import io.basalt.protocol.Status;
import io.basalt.protocol.Wire;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.io.File;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;
import java.util.zip.CRC32C;
import org.apache.ratis.proto.RaftProtos.LogEntryProto;
import org.apache.ratis.protocol.Message;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.server.RaftServer;
import org.apache.ratis.server.protocol.TermIndex;
import org.apache.ratis.server.raftlog.RaftLog;
import org.apache.ratis.server.storage.RaftStorage;
import org.apache.ratis.statemachine.SnapshotInfo;
import org.apache.ratis.statemachine.StateMachineStorage;
import org.apache.ratis.statemachine.TransactionContext;
import org.apache.ratis.statemachine.impl.BaseStateMachine;
import org.apache.ratis.statemachine.impl.SimpleStateMachineStorage;
import org.apache.ratis.statemachine.impl.SingleFileSnapshotInfo;
import org.apache.ratis.util.MD5FileUtil;

/**
 * The metadata group's state machine: applies {@link MetaState} commands in log order and answers
 * queries from the state. Its snapshot is one file: the whole state and a CRC32C.
 *
 * <pre>
 * command := version:u8 kind:u8 body
 *   SET_NODES:     count { node }
 *   CREATE_TABLE:  table splitKeys:(count { bytes }) replication:varint
 *   REGION_ONLINE: table:string region:varlong
 *   DROP_TABLE:    table:string
 *   NODE_STATE:    node:varint alive:bool
 *   MOVE_START:    table:string region:varlong from:varint to:varint
 *   MOVE_DONE:     table:string region:varlong from:varint to:varint
 *   TRUNCATE:      table:string preserveSplits:bool replication:varint  (reply: old regions, new regions)
 * query   := version:u8 kind:u8 { NODES | TABLES | REGIONS table:string | ALL_REGIONS | DEAD_NODES }
 * reply   := status:u8 (OK: the regions a command created or dropped, or the query's answer | error)
 * </pre>
 */
public final class MetaStateMachine extends BaseStateMachine {

    static final int VERSION = 1;
    static final int SET_NODES = 1;
    static final int CREATE_TABLE = 2;
    static final int REGION_ONLINE = 3;
    static final int DROP_TABLE = 4;
    static final int NODE_STATE = 5;
    static final int MOVE_START = 6;
    static final int MOVE_DONE = 7;
    static final int TRUNCATE = 8;
    static final int SPLIT = 9;
    static final int MERGE = 10;
    static final int ABORT_MERGE = 11;

    static final int NODES = 1;
    static final int TABLES = 2;
    static final int REGIONS = 3;
    static final int ALL_REGIONS = 4;
    static final int DEAD_NODES = 5;

    /** The metadata group's id: the same on every node of every cluster. */
    public static final RaftGroupId GROUP_ID =
            RaftGroupId.valueOf(java.util.UUID.nameUUIDFromBytes("basalt-meta".getBytes(java.nio.charset.StandardCharsets.UTF_8)));

    private final SimpleStateMachineStorage storage = new SimpleStateMachineStorage();
    private MetaState state = new MetaState();

    @Override
    public StateMachineStorage getStateMachineStorage() {
        return storage;
    }

    @Override
    public void initialize(RaftServer server, RaftGroupId groupId, RaftStorage raftStorage) throws IOException {
        super.initialize(server, groupId, raftStorage);
        storage.init(raftStorage);
        getLifeCycle().startAndTransition(this::load, IOException.class);
    }

    @Override
    public void reinitialize() throws IOException {
        getLifeCycle().startAndTransition(this::load, IOException.class);
    }

    /** Before Ratis installs a snapshot: {@link #reinitialize} follows once it is in place. */
    @Override
    public void pause() {
        RegionStateMachine.paused(getLifeCycle());
    }

    private void load() throws IOException {
        SingleFileSnapshotInfo latest = storage.loadLatestSnapshot();
        if (latest == null) {
            return;
        }
        File file = latest.getFile().getPath().toFile();
        byte[] all = Files.readAllBytes(file.toPath());
        if (all.length < 4) {
            throw new IOException("metadata snapshot " + file + " is truncated");
        }
        CRC32C crc = new CRC32C();
        crc.update(all, 0, all.length - 4);
        if ((int) crc.getValue() != ByteBuffer.wrap(all, all.length - 4, 4).getInt()) {
            throw new IOException("metadata snapshot " + file + " is corrupt: its checksum does not match its bytes");
        }
        MetaState loaded;
        try {
            loaded = MetaState.readFrom(Unpooled.wrappedBuffer(all, 0, all.length - 4));
        } catch (MalformedFrameException e) {
            throw new IOException("metadata snapshot " + file + " does not decode: " + e.getMessage(), e);
        }
        synchronized (this) {
            state = loaded;
        }
        setLastAppliedTermIndex(latest.getTermIndex());
    }

    @Override
    public long takeSnapshot() throws IOException {
        TermIndex last = getLastAppliedTermIndex();
        if (last == null || last.getIndex() <= 0) {
            return RaftLog.INVALID_LOG_INDEX;
        }
        ByteBuf buf = Unpooled.buffer();
        synchronized (this) {
            state.writeTo(buf);
        }
        byte[] body = new byte[buf.readableBytes()];
        buf.readBytes(body);
        CRC32C crc = new CRC32C();
        crc.update(body);
        File file = storage.getSnapshotFile(last.getTerm(), last.getIndex());
        File tmp = new File(file.getPath() + ".tmp");
        try (FileChannel ch = FileChannel.open(tmp.toPath(), StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                StandardOpenOption.TRUNCATE_EXISTING)) {
            ByteBuffer out = ByteBuffer.allocate(body.length + 4).put(body).putInt((int) crc.getValue()).flip();
            while (out.hasRemaining()) {
                ch.write(out);
            }
            ch.force(true);
        }
        Files.move(tmp.toPath(), file.toPath(), java.nio.file.StandardCopyOption.ATOMIC_MOVE);
        MD5FileUtil.computeAndSaveMd5ForFile(file);
        RegionSnapshots.sync(file.toPath().getParent());
        storage.loadLatestSnapshot();
        return last.getIndex();
    }

    // ------------------------------------------------------------------ commands

    static Message setNodes(List<ClusterPeer> nodes) {
        return command(SET_NODES, buf -> {
            Wire.writeVarint(buf, nodes.size());
            nodes.forEach(n -> MetaState.writeNode(buf, n));
        });
    }

    static Message createTable(TableDescriptor table, List<byte[]> splitKeys, int replication) {
        return command(CREATE_TABLE, buf -> {
            Messages.writeTable(buf, table);
            Wire.writeVarint(buf, splitKeys.size());
            splitKeys.forEach(k -> Wire.writeBytes(buf, k));
            Wire.writeVarint(buf, replication);
        });
    }

    static Message regionOnline(String table, long region) {
        return command(REGION_ONLINE, buf -> {
            Wire.writeString(buf, table);
            Wire.writeVarlong(buf, region);
        });
    }

    static Message dropTable(String table) {
        return command(DROP_TABLE, buf -> Wire.writeString(buf, table));
    }

    static Message nodeState(int node, boolean alive) {
        return command(NODE_STATE, buf -> {
            Wire.writeVarint(buf, node);
            Wire.writeBoolean(buf, alive);
        });
    }

    static Message move(boolean start, MetaState.Region r, int from, int to) {
        return command(start ? MOVE_START : MOVE_DONE, buf -> {
            Wire.writeString(buf, r.table());
            Wire.writeVarlong(buf, r.id());
            Wire.writeVarint(buf, from);
            Wire.writeVarint(buf, to);
        });
    }

    static Message truncate(String table, boolean preserveSplits, int replication) {
        return command(TRUNCATE, buf -> {
            Wire.writeString(buf, table);
            Wire.writeBoolean(buf, preserveSplits);
            Wire.writeVarint(buf, replication);
        });
    }

    static Message split(MetaState.Region parent, RegionCodec.SplitInfo split) {
        return command(SPLIT, buf -> {
            Wire.writeString(buf, parent.table());
            Wire.writeVarlong(buf, parent.id());
            RegionCodec.writeSplit(buf, split);
        });
    }

    /** Makes a merge both of whose halves froze (see {@link MetaState#mergeRegions}). */
    static Message merge(MetaState.Region left, MetaState.Region right, java.util.UUID merged, long seedIndex) {
        return command(MERGE, buf -> {
            Wire.writeString(buf, left.table());
            Wire.writeVarlong(buf, left.id());
            writeUuid(buf, left.group());
            Wire.writeVarlong(buf, right.id());
            writeUuid(buf, right.group());
            writeUuid(buf, merged);
            Wire.writeVarlong(buf, seedIndex);
        });
    }

    static Message abortMerge(java.util.UUID merged) {
        return command(ABORT_MERGE, buf -> writeUuid(buf, merged));
    }

    private static void writeUuid(ByteBuf buf, java.util.UUID u) {
        buf.writeLong(u.getMostSignificantBits()).writeLong(u.getLeastSignificantBits());
    }

    private static java.util.UUID readUuid(ByteBuf buf, String what) {
        return new java.util.UUID(Wire.readLong(buf, what), Wire.readLong(buf, what));
    }

    static Message query(int kind, String table) {
        return command(kind, buf -> {
            if (table != null) {
                Wire.writeString(buf, table);
            }
        });
    }

    private static Message command(int kind, Consumer<ByteBuf> body) {
        ByteBuf buf = Unpooled.buffer();
        buf.writeByte(VERSION).writeByte(kind);
        body.accept(buf);
        return RegionCodec.message(buf);
    }

    @Override
    public CompletableFuture<Message> applyTransaction(TransactionContext trx) {
        LogEntryProto entry = trx.getLogEntry();
        ByteBuf buf = RegionCodec.buffer(entry.getStateMachineLogEntry().getLogData());
        Message reply;
        synchronized (this) {
            reply = answer(() -> {
                int kind = RegionCodec.readKind(buf, "metadata command");
                ByteBuf out = ok();
                switch (kind) {
                    case SET_NODES -> {
                        int count = Wire.readVarint(buf, "node count");
                        List<ClusterPeer> nodes = new ArrayList<>();
                        for (int i = 0; i < count; i++) {
                            nodes.add(MetaState.readNode(buf));
                        }
                        state.setNodes(nodes);
                    }
                    case CREATE_TABLE -> {
                        TableDescriptor table = Messages.readTable(buf);
                        int count = Wire.readVarint(buf, "split key count");
                        List<byte[]> keys = new ArrayList<>();
                        for (int i = 0; i < count; i++) {
                            keys.add(Wire.readBytes(buf, "split key"));
                        }
                        int replication = Wire.readVarint(buf, "replication");
                        writeRegions(out, state.createTable(table, keys, replication, entry.getIndex()));
                    }
                    case REGION_ONLINE -> state.regionOnline(Wire.readString(buf, "table"),
                            Wire.readVarlong(buf, "region"));
                    case DROP_TABLE -> writeRegions(out, state.dropTable(Wire.readString(buf, "table")));
                    case NODE_STATE -> state.nodeState(Wire.readVarint(buf, "node"), Wire.readBoolean(buf, "alive"));
                    case TRUNCATE -> {
                        String table = Wire.readString(buf, "table");
                        boolean preserve = Wire.readBoolean(buf, "preserve splits");
                        int replication = Wire.readVarint(buf, "replication");
                        for (List<MetaState.Region> part : state.truncateTable(table, preserve, replication,
                                entry.getIndex())) {
                            writeRegions(out, part);
                        }
                    }
                    case MOVE_START, MOVE_DONE -> {
                        String table = Wire.readString(buf, "table");
                        long region = Wire.readVarlong(buf, "region");
                        int from = Wire.readVarint(buf, "from");
                        int to = Wire.readVarint(buf, "to");
                        MetaState.Region r = kind == MOVE_START ? state.startMove(table, region, from, to)
                                : state.finishMove(table, region, from, to);
                        writeRegions(out, List.of(r));
                    }
                    case SPLIT -> {
                        String table = Wire.readString(buf, "table");
                        long region = Wire.readVarlong(buf, "region");
                        RegionCodec.SplitInfo split = RegionCodec.readSplit(buf);
                        writeRegions(out, state.splitRegion(table, region, split.parent(), split.row(), split.index(),
                                split.low(), split.high()));
                    }
                    case MERGE -> {
                        String table = Wire.readString(buf, "table");
                        long left = Wire.readVarlong(buf, "left region");
                        java.util.UUID leftGroup = readUuid(buf, "left group");
                        long right = Wire.readVarlong(buf, "right region");
                        java.util.UUID rightGroup = readUuid(buf, "right group");
                        java.util.UUID merged = readUuid(buf, "merged group");
                        long seedIndex = Wire.readVarlong(buf, "seed index");
                        writeRegions(out, state.mergeRegions(table, left, leftGroup, right, rightGroup, merged,
                                seedIndex));
                    }
                    case ABORT_MERGE -> state.abortMerge(readUuid(buf, "merge"));
                    default -> throw new MalformedFrameException("metadata command kind " + kind + " is unknown");
                }
                return out;
            });
        }
        updateLastAppliedTermIndex(entry.getTerm(), entry.getIndex());
        return CompletableFuture.completedFuture(reply);
    }

    @Override
    public CompletableFuture<Message> query(Message request) {
        ByteBuf buf = RegionCodec.buffer(request.getContent());
        synchronized (this) {
            return CompletableFuture.completedFuture(answer(() -> {
                int kind = RegionCodec.readKind(buf, "metadata query");
                ByteBuf out = ok();
                switch (kind) {
                    case NODES -> {
                        List<ClusterPeer> nodes = state.nodes();
                        Wire.writeVarint(out, nodes.size());
                        nodes.forEach(n -> MetaState.writeNode(out, n));
                    }
                    case TABLES -> Messages.writeTables(out, state.tables());
                    case REGIONS -> writeRegions(out, state.regions(Wire.readString(buf, "table")));
                    case ALL_REGIONS -> writeRegions(out, state.allRegions());
                    case DEAD_NODES -> {
                        Wire.writeVarint(out, state.dead().size());
                        state.dead().forEach(id -> Wire.writeVarint(out, id));
                    }
                    default -> throw new MalformedFrameException("metadata query kind " + kind + " is unknown");
                }
                return out;
            }));
        }
    }

    private interface Answer {
        ByteBuf run();
    }

    private static ByteBuf ok() {
        return Unpooled.buffer().writeByte(Status.OK.code());
    }

    /** Runs a command or query; a refusal (unknown table, bad input) is the reply, the same on every member. */
    private static Message answer(Answer answer) {
        try {
            return RegionCodec.message(answer.run());
        } catch (RuntimeException e) {
            return RegionCodec.queryFailed(e);
        }
    }

    static void writeRegions(ByteBuf out, List<MetaState.Region> regions) {
        Wire.writeVarint(out, regions.size());
        regions.forEach(r -> MetaState.writeRegion(out, r));
    }

    // ------------------------------------------------------------------ replies

    /** The body of an OK reply, or the failure it carries, thrown as the exception it stands for. */
    static ByteBuf okBody(Message reply, String what) {
        ByteBuf buf = RegionCodec.buffer(reply.getContent());
        int code = Wire.readUnsignedByte(buf, "metadata reply status");
        if (code != Status.OK.code()) {
            throw Errors.of(what, "the metadata group", Status.of(code), code, Messages.readError(buf));
        }
        return buf;
    }

    static List<MetaState.Region> readRegions(ByteBuf buf) {
        int count = Wire.readVarint(buf, "region count");
        List<MetaState.Region> out = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            out.add(MetaState.readRegion(buf));
        }
        return out;
    }

    static List<ClusterPeer> readNodes(ByteBuf buf) {
        int count = Wire.readVarint(buf, "node count");
        List<ClusterPeer> out = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            out.add(MetaState.readNode(buf));
        }
        return out;
    }

    @Override
    public SnapshotInfo getLatestSnapshot() {
        return storage.getLatestSnapshot();
    }
}
