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
 * What makes a retried call apply once: per client, the outcomes of its recent calls, kept by the
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
    private static final int FORMAT = 1;

    /** What {@link #lookup} says of a call. */
    sealed interface Seen {}

    /** The call was applied before: its recorded outcomes. */
    record Recorded(byte[] outcomes) implements Seen {}

    /** The call was applied before and its outcome forgotten: it must not apply again. */
    record Forgotten(String why) implements Seen {}

    private static final class Session {
        long lastSeen;
        long completedBelow;
        final TreeMap<Long, byte[]> outcomes = new TreeMap<>();
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
        byte[] recorded = s.outcomes.get(callId);
        if (recorded != null) {
            return new Recorded(recorded);
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

    /** Records the outcomes of a call just applied. */
    void record(long clientId, long callId, byte[] outcomes, long now) {
        Session s = sessions.computeIfAbsent(clientId, _ -> new Session());
        s.lastSeen = Math.max(s.lastSeen, now);
        s.outcomes.put(callId, outcomes);
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
                s.outcomes.putAll(in.outcomes);
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
                for (Map.Entry<Long, byte[]> o : s.outcomes.entrySet()) {
                    out.writeLong(o.getKey());
                    out.writeInt(o.getValue().length);
                    out.write(o.getValue());
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
            if (in.readInt() != MAGIC || in.readInt() != FORMAT) {
                throw new IOException("sessions file " + file + " is not a Basalt sessions file of format " + FORMAT);
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
                    byte[] outcome = new byte[in.readInt()];
                    in.readFully(outcome);
                    s.outcomes.put(call, outcome);
                }
                out.sessions.put(id, s);
            }
        } catch (EOFException e) {
            throw new IOException("sessions file " + file + " ends inside a record", e);
        }
        return out;
    }
}
