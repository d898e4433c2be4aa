package io.basalt.buffer;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.LongAdder;

/**
 * A pool of off-heap memory, reserved in large slabs and handed out as reference-counted
 * {@link Buffer}s made of fixed-size chunks. Safe for any number of threads.
 *
 * <h2>Design</h2>
 * All slabs of a pool come from one shared {@link Arena}: an arena per buffer would make every
 * release a shared-arena close, tens of microseconds each (DESIGN.md §4). Slabs are reserved on
 * demand, under a lock taken only to grow, up to {@link BufferPoolConfig#maxMemory()}; free
 * chunks sit on a lock-free stack ({@code ChunkStack}), so allocating and recycling a chunk is
 * one CAS each. Counters are {@link LongAdder}s, so metrics never serialise allocating threads
 * (Ozone learnt that the hard way, HDDS-9377).
 *
 * <p>A request of up to one chunk takes one chunk and becomes a single-segment buffer, the shape
 * the hot read paths see; a larger request takes several chunks, not necessarily adjacent. Small
 * requests still take a whole chunk: the pool is for blocks and batches, which are chunk-sized.
 *
 * <h2>When the pool is exhausted</h2>
 * Every chunk in use and {@code maxMemory} reached: with {@link BufferPoolConfig.Exhaustion#FAIL}
 * (the default) {@link #allocate} throws {@link BufferPoolExhaustedException} at once, never
 * waits; with {@link BufferPoolConfig.Exhaustion#HEAP_FALLBACK} requests up to
 * {@code heapFallbackMaxSize} bytes get a heap array instead, larger ones still fail. Both are
 * counted in {@link #metrics()}. A several-chunk request that finds too few chunks gives back the
 * ones it took before failing, so it never holds memory it cannot use.
 *
 * <h2>Leaks</h2>
 * Depending on {@link BufferPoolConfig#leakDetection()}, none, a sample or all of the pooled
 * buffers are followed from allocation to final release. A followed buffer that the garbage
 * collector finds unreachable before its release is reported (logged at ERROR with its allocation
 * site, and counted); its chunks are never reused, since a stray segment may still point at them.
 * {@link #unreleasedBuffers()} lists every followed buffer not yet released, in every pool; the
 * test build follows all buffers and fails any test that leaves one behind.
 *
 * <p>{@link #close()} frees all slabs at once. A buffer still held then fails on its next access
 * with {@link IllegalStateException} (the arena is closed); it cannot reach freed memory.
 */
public final class BufferPool implements AutoCloseable {

    private final BufferPoolConfig config;
    private final int chunkSize;
    private final int chunkShift;
    private final int chunksPerSlab;
    private final int maxSlabs;
    private final int trackEvery;
    private final Arena arena = Arena.ofShared();
    /** Slab {@code i} holds chunks {@code i × chunksPerSlab ...}; published by the stack's CAS. */
    private final MemorySegment[] slabs;
    private final ChunkStack free;
    private final Object growLock = new Object();
    private volatile int slabCount;
    private volatile boolean closed;
    private final Recycler recycler = this::recycle;

    private final LongAdder chunksTaken = new LongAdder();
    private final LongAdder chunksReturned = new LongAdder();
    private final LongAdder allocationFailures = new LongAdder();
    private final LongAdder heapFallbacks = new LongAdder();
    private final LongAdder leaksReported = new LongAdder();

    private BufferPool(BufferPoolConfig config) {
        this.config = config;
        this.chunkSize = config.chunkSize();
        this.chunkShift = Integer.numberOfTrailingZeros(chunkSize);
        this.chunksPerSlab = config.chunksPerSlab();
        this.maxSlabs = config.maxSlabs();
        this.slabs = new MemorySegment[maxSlabs];
        this.free = new ChunkStack(config.maxChunks());
        this.trackEvery = switch (config.leakDetection()) {
            case OFF -> 0;
            case SAMPLED -> config.leakSampleInterval();
            case ALL -> 1;
        };
    }

    /** A pool with {@code config}; reserves no memory until the first allocation. */
    public static BufferPool create(BufferPoolConfig config) {
        return new BufferPool(config);
    }

    /** A pool with {@link BufferPoolConfig#defaults()} under the given name. */
    public static BufferPool create(String name) {
        return new BufferPool(BufferPoolConfig.defaults().withName(name));
    }

    public String name() {
        return config.name();
    }

    public BufferPoolConfig config() {
        return config;
    }

    /**
     * A buffer of {@code size} bytes with a reference count of 1; its contents are unspecified.
     * The caller owns it and must {@link Buffer#release()} it.
     *
     * @throws BufferPoolExhaustedException when the pool is exhausted and may not fall back (see
     *     the class comment)
     * @throws IllegalArgumentException when {@code size} is negative
     * @throws IllegalStateException when the pool is closed
     */
    public Buffer allocate(int size) {
        Buffer buffer = tryAllocate(size);
        return buffer != null ? buffer : exhausted(size, (int) ((size + (long) chunkSize - 1) >>> chunkShift));
    }

    /**
     * As {@link #allocate}, but {@code null} when the pool has no room, whatever the exhaustion
     * policy: for a caller that can make room and try again, as a cache does, where building an
     * exception with its message and stack for every try cost more than the try. A {@code null}
     * is not counted among the metrics' allocation failures.
     *
     * @throws IllegalArgumentException when {@code size} is negative
     * @throws IllegalStateException when the pool is closed
     */
    public Buffer tryAllocate(int size) {
        if (size < 0) {
            throw new IllegalArgumentException("buffer size must not be negative, was " + size);
        }
        if (closed) {
            throw new IllegalStateException("buffer pool '" + name() + "' is closed");
        }
        if (size == 0) {
            return new SingleChunkBuffer(MemorySegment.ofArray(new byte[0]), new RefCount(Recycler.HEAP, -1, null));
        }
        int count = (int) ((size + (long) chunkSize - 1) >>> chunkShift);
        if (count > config.maxChunks()) {
            return null; // could never fit: fail before taking, or reserving, anything
        }
        if (count == 1) {
            int chunk = take();
            if (chunk == ChunkStack.EMPTY) {
                return null;
            }
            RefCount refCount = new RefCount(recycler, chunk, null);
            Buffer buffer = new SingleChunkBuffer(chunkSegment(chunk).asSlice(0, size), refCount);
            follow(refCount, size);
            return buffer;
        }
        int[] taken = new int[count];
        for (int i = 0; i < count; i++) {
            taken[i] = take();
            if (taken[i] == ChunkStack.EMPTY) {
                if (i > 0) {
                    giveBack(Arrays.copyOf(taken, i));
                }
                return null;
            }
        }
        MemorySegment[] segments = new MemorySegment[count];
        for (int i = 0; i < count; i++) {
            segments[i] = chunkSegment(taken[i]);
        }
        RefCount refCount = new RefCount(recycler, -1, taken);
        Buffer buffer = new MultiChunkBuffer(segments, 0, size, chunkShift, refCount);
        follow(refCount, size);
        return buffer;
    }

    /** The pool's counters now; also reports any leak the collector found since the last look. */
    public BufferPoolMetrics metrics() {
        LeakDetector.poll();
        int slabsNow = slabCount;
        long inUse = chunksTaken.sum() - chunksReturned.sum();
        int reserved = slabsNow * chunksPerSlab;
        return new BufferPoolMetrics((int) inUse, (int) Math.max(0, reserved - inUse), config.maxChunks(), slabsNow,
                allocationFailures.sum(), heapFallbacks.sum(), leaksReported.sum());
    }

    /**
     * Every pooled buffer, of every pool in this JVM, that the leak detector follows and that was
     * not released yet, oldest first, each with its allocation site. With leak detection
     * {@code ALL} this is every unreleased pooled buffer: what a test checks after it ran, and what
     * to dump when a pool's chunks go missing.
     */
    public static List<UnreleasedBuffer> unreleasedBuffers() {
        LeakDetector.poll();
        return LeakDetector.unreleased();
    }

    /**
     * Frees every slab; idempotent. Later allocations fail; a buffer still held fails on its next
     * access with {@link IllegalStateException}, and releasing it is harmless.
     */
    @Override
    public void close() {
        synchronized (growLock) {
            if (!closed) {
                closed = true;
                arena.close();
            }
        }
    }

    @Override
    public String toString() {
        BufferPoolMetrics m = metrics();
        return "BufferPool[" + name() + ", " + m.chunksInUse() + " of " + m.chunksMax() + " chunks in use]";
    }

    void leakReported() {
        leaksReported.increment();
    }

    private int take() {
        int chunk = free.pop();
        if (chunk != ChunkStack.EMPTY) {
            chunksTaken.increment();
            return chunk;
        }
        return grow();
    }

    /**
     * Reserves a slab and takes its first chunk, or takes a chunk another thread freed or reserved
     * meanwhile; {@link ChunkStack#EMPTY} when the pool may not grow.
     */
    private int grow() {
        synchronized (growLock) {
            int chunk = free.pop();
            if (chunk == ChunkStack.EMPTY) {
                int slab = slabCount;
                if (closed || slab == maxSlabs) {
                    return ChunkStack.EMPTY;
                }
                slabs[slab] = arena.allocate(config.slabSize(), Long.BYTES);
                slabCount = slab + 1;
                chunk = slab * chunksPerSlab;
                if (chunksPerSlab > 1) {
                    free.pushRange(chunk + 1, chunk + chunksPerSlab);
                }
            }
            chunksTaken.increment();
            return chunk;
        }
    }

    private MemorySegment chunkSegment(int chunk) {
        int slab = chunk / chunksPerSlab;
        return slabs[slab].asSlice((long) (chunk - slab * chunksPerSlab) * chunkSize, chunkSize);
    }

    private Buffer exhausted(int size, int count) {
        if (config.onExhaustion() == BufferPoolConfig.Exhaustion.HEAP_FALLBACK && size <= config.heapFallbackMaxSize()
                && !closed) {
            heapFallbacks.increment();
            return new SingleChunkBuffer(MemorySegment.ofArray(new byte[size]), new RefCount(Recycler.HEAP, -1, null));
        }
        if (closed) {
            throw new IllegalStateException("buffer pool '" + name() + "' is closed");
        }
        allocationFailures.increment();
        BufferPoolMetrics m = metrics();
        throw new BufferPoolExhaustedException("buffer pool '" + name() + "' is exhausted: cannot allocate " + size
                + " bytes (" + count + (count == 1 ? " chunk" : " chunks") + " of " + chunkSize + " bytes); "
                + m.chunksInUse() + " of " + m.chunksMax() + " chunks are in use and " + (count > m.chunksMax()
                        ? "the request is larger than maxMemory (" + config.maxMemory() + " bytes)"
                        : "maxMemory (" + config.maxMemory() + " bytes) is reached") + (config.onExhaustion() == BufferPoolConfig.Exhaustion.HEAP_FALLBACK
                        ? " and the request is larger than heapFallbackMaxSize (" + config.heapFallbackMaxSize() + ")"
                        : "")
                + ". Release buffers sooner, raise maxMemory, or choose HEAP_FALLBACK for small requests");
    }

    private void follow(RefCount refCount, int size) {
        if (trackEvery == 1 || (trackEvery > 1 && ThreadLocalRandom.current().nextInt(trackEvery) == 0)) {
            LeakDetector.track(refCount, this, size);
        }
    }

    private void recycle(RefCount refCount) {
        if (refCount.chunks == null) {
            free.push(refCount.chunk);
            chunksReturned.increment();
        } else {
            giveBack(refCount.chunks);
        }
    }

    private void giveBack(int[] chunks) {
        free.pushAll(chunks);
        chunksReturned.add(chunks.length);
    }
}
