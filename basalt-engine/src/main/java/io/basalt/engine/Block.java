package io.basalt.engine;

import java.lang.foreign.MemorySegment;

/**
 * A data block's content pinned for a reader: valid until {@link #release()}. The block cache
 * never reuses the memory of a block that a reader still holds.
 */
interface Block {

    MemorySegment content();

    /** Lets go of the block; call exactly once. */
    void release();
}
