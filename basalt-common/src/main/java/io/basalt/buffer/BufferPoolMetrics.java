package io.basalt.buffer;

/**
 * A snapshot of one pool's counters. Taken without a lock while other threads allocate, so the
 * chunk counts may be a few chunks apart from each other; they are exact when the pool is quiet.
 *
 * @param chunksInUse chunks handed out and not yet recycled, leaked ones included
 * @param chunksFree chunks of the reserved slabs that are ready to hand out
 * @param chunksMax chunks the pool may hold at its configured maximum memory
 * @param slabs slabs reserved so far (each {@link BufferPoolConfig#slabSize()} bytes)
 * @param allocationFailures requests refused with {@link BufferPoolExhaustedException}
 * @param heapFallbacks requests served from the Java heap because the pool was exhausted
 * @param leaksReported buffers the leak detector found unreachable without release
 */
public record BufferPoolMetrics(int chunksInUse, int chunksFree, int chunksMax, int slabs,
                                long allocationFailures, long heapFallbacks, long leaksReported) {}
