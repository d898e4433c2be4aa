package io.basalt.cluster;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.apache.ratis.conf.RaftProperties;
import org.apache.ratis.server.RaftServerConfigKeys;
import org.apache.ratis.util.SizeInBytes;
import org.apache.ratis.util.TimeDuration;

/**
 * The Raft settings a node runs its groups with. The defaults suit a small cluster on ordinary
 * machines: elections after 1 to 2 s without a heartbeat (Ratis's own 150-300 ms would turn a GC
 * pause on a busy 2-core machine into an election), linearizable reads by leader lease with
 * ReadIndex as the fallback, a snapshot every 100,000 entries, and the log purged up to it.
 *
 * <p>The log is always forced to disk before an entry counts as accepted by a peer (Ratis's
 * segmented log forces before it acknowledges; nothing here turns that off).
 *
 * @param electionTimeoutMin shortest time without a leader's heartbeat before a follower stands
 * @param electionTimeoutMax longest such time (each follower picks at random between the two)
 * @param snapshotEveryEntries a snapshot after this many entries applied since the last
 * @param purgeGap log entries purged in steps of at least this many
 * @param leaderLease whether the leader serves linearizable reads on its lease (else ReadIndex always)
 * @param logSegmentBytes the size a log segment is closed at; only closed segments are purged
 * @param deadNodeTimeout how long a node may fail to answer the metadata leader before it is declared
 *     dead and its replicas are re-created on other nodes (default 60 s)
 */
public record RaftTuning(Duration electionTimeoutMin, Duration electionTimeoutMax, long snapshotEveryEntries,
                         int purgeGap, boolean leaderLease, long logSegmentBytes, Duration deadNodeTimeout) {

    public RaftTuning {
        if (electionTimeoutMin.isNegative() || electionTimeoutMin.isZero()
                || electionTimeoutMax.compareTo(electionTimeoutMin) <= 0) {
            throw new IllegalArgumentException("election timeouts must be positive with min < max, not "
                    + electionTimeoutMin + " and " + electionTimeoutMax);
        }
        if (logSegmentBytes < 64 * 1024) {
            throw new IllegalArgumentException("log segments of " + logSegmentBytes + " bytes; at least 64 KiB");
        }
        if (deadNodeTimeout.compareTo(electionTimeoutMax) <= 0) {
            throw new IllegalArgumentException("a dead-node timeout of " + deadNodeTimeout
                    + " must be longer than the longest election timeout, " + electionTimeoutMax);
        }
        if (snapshotEveryEntries < 1 || purgeGap < 1) {
            throw new IllegalArgumentException("snapshotEveryEntries and purgeGap must be at least 1");
        }
    }

    public static RaftTuning defaults() {
        return new RaftTuning(Duration.ofSeconds(1), Duration.ofSeconds(2), 100_000, 1024, true, 8L << 20,
                Duration.ofSeconds(60));
    }

    public RaftTuning withElectionTimeout(Duration min, Duration max) {
        return new RaftTuning(min, max, snapshotEveryEntries, purgeGap, leaderLease, logSegmentBytes, deadNodeTimeout);
    }

    public RaftTuning withSnapshots(long everyEntries, int purgeGap) {
        return new RaftTuning(electionTimeoutMin, electionTimeoutMax, everyEntries, purgeGap, leaderLease,
                logSegmentBytes, deadNodeTimeout);
    }

    public RaftTuning withLeaderLease(boolean enabled) {
        return new RaftTuning(electionTimeoutMin, electionTimeoutMax, snapshotEveryEntries, purgeGap, enabled,
                logSegmentBytes, deadNodeTimeout);
    }

    public RaftTuning withLogSegmentBytes(long bytes) {
        return new RaftTuning(electionTimeoutMin, electionTimeoutMax, snapshotEveryEntries, purgeGap, leaderLease,
                bytes, deadNodeTimeout);
    }

    public RaftTuning withDeadNodeTimeout(Duration timeout) {
        return new RaftTuning(electionTimeoutMin, electionTimeoutMax, snapshotEveryEntries, purgeGap, leaderLease,
                logSegmentBytes, timeout);
    }

    /** The configuration file's cluster-mode keys (after {@code cluster.}) and what they set. */
    public static final java.util.Set<String> KEYS = java.util.Set.of("electionTimeoutMinMillis",
            "electionTimeoutMaxMillis", "snapshotEveryEntries", "purgeGap", "leaderLease", "logSegmentBytes",
            "deadNodeTimeoutMillis", "replication");

    /**
     * These settings with the {@code cluster.*} keys of a configuration file applied over them
     * ({@code cluster.replication} is not a Raft setting: the caller reads it).
     *
     * @throws IllegalArgumentException naming the file and the key, for an unknown key or a bad value
     */
    public RaftTuning withFile(java.util.Properties p, java.nio.file.Path file) {
        RaftTuning t = this;
        Duration min = electionTimeoutMin;
        Duration max = electionTimeoutMax;
        for (String name : new java.util.TreeSet<>(p.stringPropertyNames())) {
            if (!name.startsWith("cluster.")) {
                continue;
            }
            String key = name.substring("cluster.".length());
            String value = p.getProperty(name).trim();
            if (!KEYS.contains(key)) {
                throw new IllegalArgumentException(file + ": unknown key " + name + "; cluster keys are "
                        + new java.util.TreeSet<>(KEYS).stream().map(k -> "cluster." + k).toList());
            }
            try {
                t = switch (key) {
                    case "electionTimeoutMinMillis" -> {
                        min = Duration.ofMillis(Long.parseLong(value));
                        yield t;
                    }
                    case "electionTimeoutMaxMillis" -> {
                        max = Duration.ofMillis(Long.parseLong(value));
                        yield t;
                    }
                    case "snapshotEveryEntries" -> t.withSnapshots(Long.parseLong(value), t.purgeGap());
                    case "purgeGap" -> t.withSnapshots(t.snapshotEveryEntries(), Integer.parseInt(value));
                    case "leaderLease" -> t.withLeaderLease(switch (value.toLowerCase(java.util.Locale.ROOT)) {
                        case "true" -> true;
                        case "false" -> false;
                        default -> throw new IllegalArgumentException("not a boolean (true/false)");
                    });
                    case "logSegmentBytes" -> t.withLogSegmentBytes(Long.parseLong(value));
                    case "deadNodeTimeoutMillis" -> t.withDeadNodeTimeout(Duration.ofMillis(Long.parseLong(value)));
                    default -> t; // replication: the caller's
                };
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException(file + ": " + name + " = '" + value + "': " + e.getMessage(), e);
            }
        }
        try {
            return t.withElectionTimeout(min, max); // both together: either alone may cross the other's default
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(file + ": cluster.electionTimeoutMinMillis and"
                    + " cluster.electionTimeoutMaxMillis: " + e.getMessage(), e);
        }
    }

    /** Writes these settings into Ratis properties. */
    void applyTo(RaftProperties p) {
        RaftServerConfigKeys.Rpc.setTimeoutMin(p, millis(electionTimeoutMin));
        RaftServerConfigKeys.Rpc.setTimeoutMax(p, millis(electionTimeoutMax));
        // Requests to peers must outlive an election, or a slow round is retried into a storm.
        RaftServerConfigKeys.Rpc.setRequestTimeout(p, millis(electionTimeoutMax.multipliedBy(2)));
        RaftServerConfigKeys.Read.setOption(p, RaftServerConfigKeys.Read.Option.LINEARIZABLE);
        RaftServerConfigKeys.Read.setLeaderLeaseEnabled(p, leaderLease);
        RaftServerConfigKeys.Snapshot.setAutoTriggerEnabled(p, true);
        RaftServerConfigKeys.Snapshot.setAutoTriggerThreshold(p, snapshotEveryEntries);
        RaftServerConfigKeys.Log.setPurgeUptoSnapshotIndex(p, true);
        RaftServerConfigKeys.Log.setPurgeGap(p, purgeGap);
        RaftServerConfigKeys.Log.setSegmentSizeMax(p, SizeInBytes.valueOf(logSegmentBytes));
        // One entry carries a group of calls of up to RegionProposer.MAX_ENTRY_BYTES.
        RaftServerConfigKeys.Log.Appender.setBufferByteLimit(p, SizeInBytes.valueOf("32MB"));
        RaftServerConfigKeys.Log.setWriteBufferSize(p, SizeInBytes.valueOf("33MB"));
    }

    private static TimeDuration millis(Duration d) {
        return TimeDuration.valueOf(d.toMillis(), TimeUnit.MILLISECONDS);
    }
}
