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
 */
public record WriteCall(long clientId, long callId, long completedBelow, List<?> operations) {

    public WriteCall {
        operations = List.copyOf(operations);
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
