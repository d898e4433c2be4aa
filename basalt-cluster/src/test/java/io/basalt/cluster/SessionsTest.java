package io.basalt.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The exactly-once table: what it remembers, what it forgets, and its file. */
class SessionsTest {

    @TempDir
    Path dir;

    /** A call of one operation's outcome, at position 0. */
    private static java.util.Map<Integer, byte[]> outcome(int n) {
        return java.util.Map.of(0, new byte[] {(byte) n});
    }

    @Test
    void aRecordedCallIsAnsweredFromTheRecordAndACompletedOneIsRefused() {
        Sessions s = new Sessions();
        assertThat(s.lookup(1, 5, 0, 100)).isNull();
        s.record(1, 5, outcome(5), 100);
        assertThat(s.lookup(1, 5, 0, 100)).isInstanceOfSatisfying(Sessions.Recorded.class,
                r -> assertThat(r.outcomes().get(0)).containsExactly(5));
        assertThat(s.lookup(2, 5, 0, 100)).as("another client's call 5").isNull();
        assertThat(s.lookup(1, 6, 6, 100)).isNull();
        assertThat(s.lookup(1, 5, 6, 100)).as("below the client's completed mark").isInstanceOf(Sessions.Forgotten.class);
    }

    @Test
    void keepsABoundedNumberOfCallsAndRefusesOlderOnes() {
        Sessions s = new Sessions();
        for (int call = 0; call < Sessions.MAX_CALLS_PER_CLIENT + 10; call++) {
            assertThat(s.lookup(1, call, 0, 100)).isNull();
            s.record(1, call, outcome(call), 100);
        }
        assertThat(s.lookup(1, 3, 0, 100)).as("dropped, so refused rather than applied twice")
                .isInstanceOf(Sessions.Forgotten.class);
        assertThat(s.lookup(1, Sessions.MAX_CALLS_PER_CLIENT + 5, 0, 100)).isInstanceOf(Sessions.Recorded.class);
    }

    @Test
    void idleClientsExpireByTheLogsClock() {
        Sessions s = new Sessions();
        s.lookup(1, 1, 0, 1_000);
        s.record(1, 1, outcome(1), 1_000);
        s.expire(1_000 + Sessions.EXPIRY_MILLIS);
        assertThat(s.clients()).isEqualTo(1);
        s.expire(1_000 + Sessions.EXPIRY_MILLIS + 2_000);
        assertThat(s.clients()).isZero();
    }

    @Test
    void theClockNeverGoesBack() {
        Sessions s = new Sessions();
        assertThat(s.advanceClock(500)).isEqualTo(500);
        assertThat(s.advanceClock(400)).as("a new leader whose clock lags").isEqualTo(500);
        assertThat(s.advanceClock(600)).isEqualTo(600);
    }

    @Test
    void theFileRoundTripsAndACorruptOneIsReported() throws IOException {
        Sessions s = new Sessions();
        s.advanceClock(777);
        for (int client = 1; client <= 3; client++) {
            for (int call = 0; call < 5; call++) {
                s.lookup(client, call, 0, 100);
                s.record(client, call, outcome(client * 10 + call), 100);
            }
        }
        Path file = dir.resolve("sessions");
        s.writeTo(file);
        Sessions read = Sessions.readFrom(file);
        assertThat(read.clients()).isEqualTo(3);
        assertThat(read.advanceClock(0)).isEqualTo(777);
        assertThat(read.lookup(2, 3, 0, 100)).isInstanceOfSatisfying(Sessions.Recorded.class,
                r -> assertThat(r.outcomes().get(0)).containsExactly(23));

        byte[] bytes = Files.readAllBytes(file);
        for (int i = 0; i < bytes.length; i += 7) {
            byte[] flipped = bytes.clone();
            flipped[i] ^= 0x10;
            Path bad = dir.resolve("bad" + i);
            Files.write(bad, flipped);
            assertThatThrownBy(() -> Sessions.readFrom(bad)).as("byte %s flipped", i)
                    .isInstanceOf(IOException.class).hasMessageContaining(bad.toString());
        }
        Path truncated = dir.resolve("truncated");
        Files.write(truncated, java.util.Arrays.copyOf(bytes, bytes.length / 2));
        assertThatThrownBy(() -> Sessions.readFrom(truncated)).isInstanceOf(IOException.class);
    }

    /**
     * A merged region's table holds both halves' clients: a call either half recorded is answered
     * from the record, a call below the later completed mark is refused, and the clock is the later.
     */
    @Test
    void mergedTablesAnswerForBothHalves() {
        Sessions left = new Sessions();
        Sessions right = new Sessions();
        left.advanceClock(500);
        right.advanceClock(900);
        left.lookup(1, 10, 3, 100);
        left.record(1, 10, outcome(10), 100);
        right.lookup(1, 11, 8, 200);
        right.record(1, 11, outcome(11), 200);
        right.lookup(2, 4, 0, 200);
        right.record(2, 4, outcome(4), 200);
        left.lookup(1, 5, 3, 100);
        left.record(1, 5, outcome(5), 100);

        Sessions merged = Sessions.merged(left, right);
        assertThat(merged.clients()).isEqualTo(2);
        assertThat(merged.lookup(1, 10, 0, 300)).isInstanceOfSatisfying(Sessions.Recorded.class,
                r -> assertThat(r.outcomes().get(0)).containsExactly(10));
        assertThat(merged.lookup(1, 11, 0, 300)).isInstanceOfSatisfying(Sessions.Recorded.class,
                r -> assertThat(r.outcomes().get(0)).containsExactly(11));
        assertThat(merged.lookup(2, 4, 0, 300)).isInstanceOf(Sessions.Recorded.class);
        assertThat(merged.lookup(1, 5, 0, 300)).as("below the later half's completed mark (8)")
                .isInstanceOf(Sessions.Forgotten.class);
        assertThat(merged.lookup(1, 12, 0, 300)).as("a new call").isNull();
        assertThat(merged.advanceClock(0)).as("the later clock").isEqualTo(900);
    }

    /**
     * Outcomes are kept per operation: a call whose operations went to two regions is recorded
     * by each for its positions, and a merged table answers every position of the call.
     */
    @Test
    void outcomesAreKeptPerOperationOfACall() {
        Sessions a = new Sessions();
        Sessions b = new Sessions();
        a.lookup(7, 3, 0, 100);
        a.record(7, 3, java.util.Map.of(0, new byte[] {10}, 2, new byte[] {12}), 100);
        b.lookup(7, 3, 0, 100);
        b.record(7, 3, java.util.Map.of(1, new byte[] {11}), 100);
        assertThat(a.lookup(7, 3, 0, 100)).isInstanceOfSatisfying(Sessions.Recorded.class,
                r -> assertThat(r.outcomes()).containsOnlyKeys(0, 2));
        Sessions merged = Sessions.merged(a, b);
        assertThat(merged.lookup(7, 3, 0, 100)).isInstanceOfSatisfying(Sessions.Recorded.class,
                r -> assertThat(r.outcomes()).containsOnlyKeys(0, 1, 2));
    }

    /** A file of format 1 (whole calls' outcomes) reads as each call's operations at 0, 1, ... */
    @Test
    void aFileOfTheFirstFormatReadsPerOperation() throws IOException {
        java.io.ByteArrayOutputStream bytes = new java.io.ByteArrayOutputStream();
        try (java.io.DataOutputStream out = new java.io.DataOutputStream(bytes)) {
            out.writeInt(0x42534553);
            out.writeInt(1);
            out.writeLong(0); // last sweep
            out.writeLong(555); // clock
            out.writeInt(1); // clients
            out.writeLong(9); // client id
            out.writeLong(100); // last seen
            out.writeLong(0); // completed below
            out.writeInt(1); // calls
            out.writeLong(4); // call id
            byte[] call = RegionCodec.outcomes(java.util.Arrays.asList(null, Boolean.TRUE));
            out.writeInt(call.length);
            out.write(call);
        }
        byte[] body = bytes.toByteArray();
        java.util.zip.CRC32C crc = new java.util.zip.CRC32C();
        crc.update(body);
        Path file = dir.resolve("format1");
        Files.write(file, java.nio.ByteBuffer.allocate(body.length + 4).put(body).putInt((int) crc.getValue())
                .array());
        Sessions read = Sessions.readFrom(file);
        assertThat(read.advanceClock(0)).isEqualTo(555);
        assertThat(read.lookup(9, 4, 0, 200)).isInstanceOfSatisfying(Sessions.Recorded.class, r -> {
            assertThat(r.outcomes()).containsOnlyKeys(0, 1);
            assertThat(r.outcomes().get(1)).isEqualTo(RegionCodec.outcome(Boolean.TRUE));
        });
    }
}
