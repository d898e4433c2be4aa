package io.basalt.client;

/**
 * What a {@link Get} or {@link Scan} may read in a cluster.
 *
 * <ul>
 *   <li>{@link #STRONG} (the default): linearizable. The region's leader answers once it knows it
 *       still leads (its lease, or a round of heartbeats), so the read sees every write
 *       acknowledged before it began.</li>
 *   <li>{@link #TIMELINE}: any replica answers from what it has applied, without asking the
 *       leader: possibly behind the latest writes (by what that replica has yet to apply), never
 *       a write that was not committed, and faster and spread over the replicas. Two timeline
 *       reads in a row may be answered by different replicas, the second older than the first.</li>
 * </ul>
 *
 * One server has one copy of the data: both read it alike.
 */
public enum Consistency {
    STRONG,
    TIMELINE
}
