package io.basalt.protocol;

import io.netty.buffer.ByteBuf;

/**
 * One received frame: its header fields and its body, a slice of the receive buffer that the
 * receiver must {@link #release()} once it has decoded it.
 *
 * @param requestId the request id the frame carries
 * @param opCode the op byte as received (it may name no {@link OpCode})
 * @param statusCode the status byte as received
 * @param response whether the response flag is set
 * @param call whether a {@link CallId} precedes the body (a request's {@link FrameLayout#FLAG_CALL})
 * @param body the body, positioned at its first byte
 */
public record Frame(long requestId, int opCode, int statusCode, boolean response, boolean call, ByteBuf body) {

    /** The op, or {@code null} for an unknown code. */
    public OpCode op() {
        return OpCode.of(opCode);
    }

    /** The status, or {@code null} for an unknown code. */
    public Status status() {
        return Status.of(statusCode);
    }

    public void release() {
        body.release();
    }
}
