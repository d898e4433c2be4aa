package io.basalt.protocol;

/** The eight bytes that open a connection, as received (see {@link FrameLayout}). */
public record Handshake(int version, int word) {}
