package io.basalt.cluster;

import io.basalt.client.CheckAndMutate;
import io.basalt.client.Mutation;
import java.util.List;

/**
 * One client call of writes to one region: its operations ({@link Mutation}s and
 * {@link CheckAndMutate}s) go into one log entry together and apply once.
 *
 * <p>Exactly once: a client that sets {@code clientId} (not 0) numbers its calls and sends a
 * retried call with the same {@code callId}, to whichever node leads by then; the region applies
 * it once and answers a retry with the outcome recorded the first time. {@code completedBelow}
 * says every call of this client numbered below it has been answered, so the region may forget
 * their outcomes. With {@code clientId} 0 the call is applied as often as it is sent.
 *
 * <p>{@code positions} place each operation in the client's whole call: a batch over several
 * regions is one call per region, all under the client's call id, each operation at its index in
 * the batch. Outcomes are recorded per position, so a retry that the region map now groups
 * differently (a region split or merged in between) still finds each operation applied before,
 * wherever it was applied.
 */
public record WriteCall(long clientId, long callId, long completedBelow, List<?> operations, List<Integer> positions) {

    public WriteCall {
        operations = List.copyOf(operations);
        positions = List.copyOf(positions);
        if (operations.isEmpty()) {
            throw new IllegalArgumentException("a write call carries at least one operation");
        }
        for (Object op : operations) {
            if (!(op instanceof Mutation) && !(op instanceof CheckAndMutate)) {
                throw new IllegalArgumentException("a write call carries mutations and check-and-mutates, not "
                        + (op == null ? "null" : op.getClass().getName()));
            }
        }
        if (clientId != 0 && (callId < 0 || completedBelow < 0 || completedBelow > callId)) {
            throw new IllegalArgumentException("call " + callId + " of client " + clientId + " claims calls below "
                    + completedBelow + " completed");
        }
        if (positions.size() != operations.size() || positions.stream().anyMatch(p -> p < 0)
                || positions.stream().distinct().count() != positions.size()) {
            throw new IllegalArgumentException("a write call's positions " + positions + " must be distinct, not"
                    + " negative, and one per operation (" + operations.size() + ")");
        }
    }

    /** A call whose operations are its whole call, at positions 0, 1, ... */
    public WriteCall(long clientId, long callId, long completedBelow, List<?> operations) {
        this(clientId, callId, completedBelow, operations, inOrder(operations.size()));
    }

    static List<Integer> inOrder(int count) {
        return java.util.stream.IntStream.range(0, count).boxed().toList();
    }

    /** A call applied as often as it is sent: no client id. */
    public static WriteCall of(List<?> operations) {
        return new WriteCall(0, 0, 0, operations);
    }

    /** A call of one operation, applied as often as it is sent. */
    public static WriteCall of(Object operation) {
        return of(List.of(operation));
    }
}
