package io.basalt.cluster;

import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.zip.CRC32C;

/**
 * What makes a retried call apply once: per client, the outcomes of its recent calls, each
 * operation's under its position in the call ({@link WriteCall#positions()}), kept by the
 * region's state machine. Every replica applies the same entries in the same order, so every one
 * keeps the same table; it is part of the region's snapshot.
 *
 * <p>Bounded, deterministically: a client's calls below its {@code completedBelow} mark are
 * forgotten; at most {@link #MAX_CALLS_PER_CLIENT} outcomes per client are kept (the oldest go);
 * a client not heard from for {@link #EXPIRY_MILLIS} by the log's clock is forgotten whole. A
 * retry of a forgotten call is refused, never applied twice.
 */
final class Sessions {

    static final int MAX_CALLS_PER_CLIENT = 4096;
    static final long EXPIRY_MILLIS = 10 * 60 * 1000L;
    private static final int MAGIC = 0x42534553; // "BSES"
    /** 2: outcomes per operation; 1: per call (read, and split into operations). */
    private static final int FORMAT = 2;

    /** What {@link #lookup} says of a call. */
    sealed interface Seen {}

    /**
     * Operations of the call were applied before: the recorded outcome of each, by position.
     * The call's other operations were not applied here (nor in any region this one was made from).
     */
    record Recorded(Map<Integer, byte[]> outcomes) implements Seen {}

    /** The call was applied before and its outcome forgotten: it must not apply again. */
    record Forgotten(String why) implements Seen {}

    private static final class Session {
        long lastSeen;
        long completedBelow;
        /** Per call, each operation's outcome by its position in the call. */
        final TreeMap<Long, TreeMap<Integer, byte[]>> outcomes = new TreeMap<>();
    }

    private final Map<Long, Session> sessions = new HashMap<>();
    private long lastSweep;
    private long clock;

    /**
     * The time an entry applies at: its leader's clock, or the latest time applied before when that
     * is later. Leaders change and their clocks differ; a new leader whose clock lags must not stamp
     * a write older than one applied before it, or the newer write would hide behind the older.
     */
    long advanceClock(long leaderClock) {
        clock = Math.max(clock, leaderClock);
        return clock;
    }

    int clients() {
        return sessions.size();
    }

    /**
     * What is known of call {@code callId} of {@code clientId} at log time {@code now}: {@code null}
     * when it is new and must be applied. Also forgets what the client says it no longer needs.
     */
    Seen lookup(long clientId, long callId, long completedBelow, long now) {
        Session s = sessions.computeIfAbsent(clientId, _ -> new Session());
        s.lastSeen = Math.max(s.lastSeen, now);
        if (completedBelow > s.completedBelow) {
            s.completedBelow = completedBelow;
            s.outcomes.headMap(completedBelow).clear();
        }
        TreeMap<Integer, byte[]> recorded = s.outcomes.get(callId);
        if (recorded != null) {
            return new Recorded(java.util.Collections.unmodifiableMap(recorded));
        }
        if (callId < s.completedBelow) {
            return new Forgotten("call " + callId + " of client " + Long.toHexString(clientId)
                    + " was completed before; it is not applied again");
        }
        if (s.outcomes.size() >= MAX_CALLS_PER_CLIENT && callId < s.outcomes.firstKey()) {
            return new Forgotten("call " + callId + " of client " + Long.toHexString(clientId) + " is older than the "
                    + MAX_CALLS_PER_CLIENT + " calls remembered per client; it is not applied, in case it was");
        }
        return null;
    }

    /** Records the outcomes of a call's operations just applied, by their positions in the call. */
    void record(long clientId, long callId, Map<Integer, byte[]> outcomes, long now) {
        Session s = sessions.computeIfAbsent(clientId, _ -> new Session());
        s.lastSeen = Math.max(s.lastSeen, now);
        s.outcomes.computeIfAbsent(callId, _ -> new TreeMap<>()).putAll(outcomes);
        while (s.outcomes.size() > MAX_CALLS_PER_CLIENT) {
            s.outcomes.pollFirstEntry();
        }
    }

    /** Forgets clients idle for {@link #EXPIRY_MILLIS}; checks at most once a second of log time. */
    void expire(long now) {
        if (now - lastSweep < 1000) {
            return;
        }
        lastSweep = now;
        for (Iterator<Session> it = sessions.values().iterator(); it.hasNext(); ) {
            if (now - it.next().lastSeen > EXPIRY_MILLIS) {
                it.remove();
            }
        }
    }

    /**
     * The table of a merged region: both halves' clients, each with the outcomes either half
     * recorded (a client's calls are numbered across regions, so they never collide), its latest
     * completed mark and time; the later clock. Deterministic: every replica merges the same two.
     */
    static Sessions merged(Sessions a, Sessions b) {
        Sessions out = new Sessions();
        out.clock = Math.max(a.clock, b.clock);
        out.lastSweep = Math.max(a.lastSweep, b.lastSweep);
        for (Sessions from : List.of(a, b)) {
            for (Map.Entry<Long, Session> e : from.sessions.entrySet()) {
                Session s = out.sessions.computeIfAbsent(e.getKey(), _ -> new Session());
                Session in = e.getValue();
                s.lastSeen = Math.max(s.lastSeen, in.lastSeen);
                s.completedBelow = Math.max(s.completedBelow, in.completedBelow);
                in.outcomes.forEach((call, byPosition) ->
                        s.outcomes.computeIfAbsent(call, _ -> new TreeMap<>()).putAll(byPosition));
            }
        }
        for (Session s : out.sessions.values()) {
            s.outcomes.headMap(s.completedBelow).clear();
            while (s.outcomes.size() > MAX_CALLS_PER_CLIENT) {
                s.outcomes.pollFirstEntry();
            }
        }
        return out;
    }

    // ------------------------------------------------------------------ the snapshot file

    /** Writes the table to {@code file}, forced, with a CRC32C of its bytes last. */
    void writeTo(Path file) throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (DataOutputStream out = new DataOutputStream(bytes)) {
            out.writeInt(MAGIC);
            out.writeInt(FORMAT);
            out.writeLong(lastSweep);
            out.writeLong(clock);
            out.writeInt(sessions.size());
            for (Map.Entry<Long, Session> e : sessions.entrySet()) {
                Session s = e.getValue();
                out.writeLong(e.getKey());
                out.writeLong(s.lastSeen);
                out.writeLong(s.completedBelow);
                out.writeInt(s.outcomes.size());
                for (Map.Entry<Long, TreeMap<Integer, byte[]>> o : s.outcomes.entrySet()) {
                    out.writeLong(o.getKey());
                    out.writeInt(o.getValue().size());
                    for (Map.Entry<Integer, byte[]> op : o.getValue().entrySet()) {
                        out.writeInt(op.getKey());
                        out.writeInt(op.getValue().length);
                        out.write(op.getValue());
                    }
                }
            }
        }
        byte[] body = bytes.toByteArray();
        CRC32C crc = new CRC32C();
        crc.update(body);
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
            ByteBuffer buf = ByteBuffer.allocate(body.length + 4).put(body).putInt((int) crc.getValue()).flip();
            while (buf.hasRemaining()) {
                ch.write(buf);
            }
            ch.force(true);
        }
    }

    /**
     * Reads a table {@link #writeTo} wrote.
     *
     * @throws IOException naming the file when it is truncated or its checksum does not match
     */
    static Sessions readFrom(Path file) throws IOException {
        byte[] all = Files.readAllBytes(file);
        if (all.length < 4) {
            throw new IOException("sessions file " + file + " is truncated (" + all.length + " bytes)");
        }
        CRC32C crc = new CRC32C();
        crc.update(all, 0, all.length - 4);
        int stored = ByteBuffer.wrap(all, all.length - 4, 4).getInt();
        if ((int) crc.getValue() != stored) {
            throw new IOException("sessions file " + file + " is corrupt: its checksum does not match its bytes");
        }
        Sessions out = new Sessions();
        try (DataInputStream in = new DataInputStream(new java.io.ByteArrayInputStream(all, 0, all.length - 4))) {
            int format = in.readInt() == MAGIC ? in.readInt() : -1;
            if (format != 1 && format != FORMAT) {
                throw new IOException("sessions file " + file + " is not a Basalt sessions file of format 1 or "
                        + FORMAT);
            }
            out.lastSweep = in.readLong();
            out.clock = in.readLong();
            int clients = in.readInt();
            for (int i = 0; i < clients; i++) {
                Session s = new Session();
                long id = in.readLong();
                s.lastSeen = in.readLong();
                s.completedBelow = in.readLong();
                int calls = in.readInt();
                for (int j = 0; j < calls; j++) {
                    long call = in.readLong();
                    TreeMap<Integer, byte[]> byPosition = new TreeMap<>();
                    if (format == 1) { // the whole call's outcomes: its operations at 0, 1, ...
                        List<byte[]> each = RegionCodec.split(bytes(in, in.readInt()), "sessions file " + file);
                        for (int p = 0; p < each.size(); p++) {
                            byPosition.put(p, each.get(p));
                        }
                    } else {
                        int ops = in.readInt();
                        for (int k = 0; k < ops; k++) {
                            int position = in.readInt();
                            byPosition.put(position, bytes(in, in.readInt()));
                        }
                    }
                    s.outcomes.put(call, byPosition);
                }
                out.sessions.put(id, s);
            }
        } catch (EOFException e) {
            throw new IOException("sessions file " + file + " ends inside a record", e);
        } catch (RuntimeException e) { // a recorded outcome that does not decode (format 1), a negative length
            throw new IOException("sessions file " + file + " does not decode: " + e.getMessage(), e);
        }
        return out;
    }

    private static byte[] bytes(DataInputStream in, int length) throws IOException {
        if (length < 0 || length > in.available()) {
            throw new IOException("a recorded outcome of " + length + " bytes does not fit in what is left");
        }
        byte[] b = new byte[length];
        in.readFully(b);
        return b;
    }
}
