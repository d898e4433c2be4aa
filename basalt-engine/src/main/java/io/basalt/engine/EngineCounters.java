package io.basalt.engine;

import java.util.concurrent.atomic.LongAdder;

/**
 * Process-wide counters of the engine's reads, for benchmarks and tests that must show how much a
 * read touched (a filter that seeks against one that reads through). Summed over every store in
 * the process; per-store metrics with names and labels are issue 22's.
 */
public final class EngineCounters {

    /** Bytes of SSTable data blocks handed to readers, from the block cache or the disk. */
    static final LongAdder BLOCK_BYTES = new LongAdder();

    private EngineCounters() {}

    /** Bytes of SSTable data blocks read so far (cache hits included), by every store in the process. */
    public static long blockBytesRead() {
        return BLOCK_BYTES.sum();
    }
}
