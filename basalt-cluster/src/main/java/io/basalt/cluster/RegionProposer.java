package io.basalt.cluster;

import io.basalt.client.BasaltException;
import io.basalt.engine.ReplicaStore;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;
import java.util.function.LongSupplier;
import org.apache.ratis.protocol.Message;

/**
 * Groups the write calls a leader receives for one region into log entries: the group commit of
 * cluster mode. A Raft entry costs a round to the followers and a forced log append on each, so
 * one per call would cap a region at about what one disk forces per second (SCALE-OUT measured
 * some 1,300 tiny entries a second per group); one per group of calls does not.
 *
 * <p>Up to {@link #MAX_IN_FLIGHT} entries are proposed at once; calls that arrive while that many
 * are outstanding wait, and the next entry takes all of them (up to {@link #MAX_ENTRY_BYTES} and
 * {@link ReplicaStore#MAX_OPERATIONS_PER_ENTRY}). An idle region proposes a lone call at once:
 * the grouping costs no waiting, it only forms under load, as in the grouped writes on one node.
 */
final class RegionProposer {

    static final int MAX_IN_FLIGHT = 4;
    /** The most bytes of calls one entry carries; a bigger call is refused. */
    static final int MAX_ENTRY_BYTES = 16 << 20;

    private record Pending(String table, byte[] call, int operations, CompletableFuture<List<Object>> outcome) {}

    private final Function<Message, CompletableFuture<List<List<Object>>>> propose;
    private final LongSupplier clock;
    private final ArrayDeque<Pending> queue = new ArrayDeque<>();
    private int inFlight;
    private long entries;
    private long calls;

    /**
     * @param propose submits one entry to the region's Raft group, completing with each call's
     *     outcomes once applied (or failing as a whole: not the leader, a timeout)
     * @param clock the leader's clock, read once per entry: every replica stamps its cells alike
     */
    RegionProposer(Function<Message, CompletableFuture<List<List<Object>>>> propose, LongSupplier clock) {
        this.propose = propose;
        this.clock = clock;
    }

    /** Proposes {@code call} to table {@code table} of the region; completes with its operations' outcomes. */
    CompletableFuture<List<Object>> submit(String table, WriteCall call) {
        ByteBuf buf = Unpooled.buffer();
        RegionCodec.writeCall(buf, call);
        byte[] bytes = new byte[buf.readableBytes()];
        buf.readBytes(bytes);
        if (bytes.length > MAX_ENTRY_BYTES) {
            return CompletableFuture.failedFuture(new IllegalArgumentException("a write call of " + bytes.length
                    + " bytes is larger than the " + MAX_ENTRY_BYTES + " one log entry carries; split it"));
        }
        if (call.operations().size() > ReplicaStore.MAX_OPERATIONS_PER_ENTRY) {
            return CompletableFuture.failedFuture(new IllegalArgumentException("a write call of "
                    + call.operations().size() + " operations is more than the " + ReplicaStore.MAX_OPERATIONS_PER_ENTRY
                    + " one log entry carries; split it"));
        }
        Pending p = new Pending(table, bytes, call.operations().size(), new CompletableFuture<>());
        List<Pending> batch;
        synchronized (this) {
            queue.add(p);
            batch = inFlight < MAX_IN_FLIGHT ? next() : null;
        }
        if (batch != null) {
            send(batch);
        }
        return p.outcome();
    }

    /** Takes the next entry's calls off the queue (under the lock); counts it in flight. */
    private List<Pending> next() {
        if (queue.isEmpty()) {
            return null;
        }
        List<Pending> batch = new ArrayList<>();
        String table = queue.peek().table();
        long bytes = 0;
        int operations = 0;
        for (Pending p; (p = queue.peek()) != null; ) {
            if (!batch.isEmpty() && (!p.table().equals(table) || bytes + p.call().length > MAX_ENTRY_BYTES
                    || operations + p.operations() > ReplicaStore.MAX_OPERATIONS_PER_ENTRY)) {
                break;
            }
            batch.add(queue.poll());
            bytes += p.call().length;
            operations += p.operations();
        }
        inFlight++;
        entries++;
        calls += batch.size();
        return batch;
    }

    private void send(List<Pending> batch) {
        List<byte[]> encoded = new ArrayList<>(batch.size());
        for (Pending p : batch) {
            encoded.add(p.call());
        }
        CompletableFuture<List<List<Object>>> sent;
        try {
            sent = propose.apply(RegionCodec.writeEncoded(batch.getFirst().table(), clock.getAsLong(), encoded));
        } catch (RuntimeException e) {
            sent = CompletableFuture.failedFuture(e);
        }
        sent.whenComplete((outcomes, failure) -> {
            List<Pending> following;
            synchronized (this) {
                inFlight--;
                following = next();
            }
            if (following != null) {
                send(following);
            }
            for (int i = 0; i < batch.size(); i++) {
                CompletableFuture<List<Object>> f = batch.get(i).outcome();
                if (failure != null) {
                    f.completeExceptionally(failure);
                } else if (outcomes.size() != batch.size()) {
                    f.completeExceptionally(new BasaltException("the region could not read the log entry of this call"
                            + " (" + outcomes.size() + " replies for " + batch.size() + " calls); nothing was applied"));
                } else {
                    f.complete(outcomes.get(i));
                }
            }
        });
    }

    /** Entries proposed and calls they carried, for the grouping's measurements. */
    synchronized long[] counts() {
        return new long[] {entries, calls};
    }
}
