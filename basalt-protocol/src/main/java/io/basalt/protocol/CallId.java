package io.basalt.protocol;

import io.netty.buffer.ByteBuf;

/**
 * What makes a write apply once however often it is sent: the client's id (random, for the life
 * of its connection object), the call's number among that client's calls (kept across resends,
 * to whichever node), and the number below which every call of the client has been answered, so
 * the cluster may forget those. A request carries one when its frame has
 * {@link FrameLayout#FLAG_CALL} set, in front of its body.
 */
public record CallId(long clientId, long callId, long completedBelow) {

    public CallId {
        if (clientId == 0 || callId < 0 || completedBelow < 0 || completedBelow > callId) {
            throw new IllegalArgumentException("call id " + callId + " of client " + clientId + " with calls below "
                    + completedBelow + " completed is not a valid call id");
        }
    }

    public void write(ByteBuf buf) {
        buf.writeLong(clientId);
        Wire.writeVarlong(buf, callId);
        Wire.writeVarlong(buf, completedBelow);
    }

    /** Reads the call id in front of a body. */
    public static CallId read(ByteBuf buf) {
        long client = Wire.readLong(buf, "call client id");
        long call = Wire.readVarlong(buf, "call id");
        long below = Wire.readVarlong(buf, "call completed-below mark");
        try {
            return new CallId(client, call, below);
        } catch (IllegalArgumentException e) {
            throw new MalformedFrameException(e.getMessage());
        }
    }
}
