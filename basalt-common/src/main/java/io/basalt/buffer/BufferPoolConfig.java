package io.basalt.buffer;

import java.util.Arrays;
import java.util.Locale;
import java.util.stream.Collectors;

/**
 * The settings of one {@link BufferPool}, each with one documented default ({@link #defaults()}).
 *
 * <p>Memory is reserved one slab at a time, up to {@code maxMemory}, and handed out in chunks: a
 * request of up to {@code chunkSize} bytes takes one chunk, a larger one several (not contiguous).
 *
 * @param name shows in error messages, metrics and leak reports
 * @param slabSize bytes reserved from the operating system at once; a multiple of
 *     {@code chunkSize} (default 4 MiB)
 * @param chunkSize the unit handed out; a power of two from 16 bytes to 1 GiB (default 64 KiB)
 * @param maxMemory the most the pool ever reserves; a multiple of {@code slabSize}
 *     (default 1 GiB, reserved lazily)
 * @param onExhaustion what {@link BufferPool#allocate} does when every chunk is in use and the
 *     pool is at {@code maxMemory} (default {@link Exhaustion#FAIL})
 * @param heapFallbackMaxSize with {@link Exhaustion#HEAP_FALLBACK}, the largest request served
 *     from the Java heap instead; larger requests still fail (default {@code chunkSize})
 * @param leakDetection which buffers the leak detector follows (default: the system property
 *     {@value #LEAK_DETECTION_PROPERTY} = {@code off|sampled|all}, else {@link LeakDetection#SAMPLED})
 * @param leakSampleInterval with {@link LeakDetection#SAMPLED}, one buffer in this many (on
 *     average) is followed (default 128)
 */
public record BufferPoolConfig(
        String name,
        int slabSize,
        int chunkSize,
        long maxMemory,
        Exhaustion onExhaustion,
        int heapFallbackMaxSize,
        LeakDetection leakDetection,
        int leakSampleInterval) {

    /** The system property that sets the default {@link LeakDetection} level (the test build sets {@code all}). */
    public static final String LEAK_DETECTION_PROPERTY = "basalt.buffer.leakDetection";
    public static final String DEFAULT_NAME = "default";
    public static final int DEFAULT_SLAB_SIZE = 4 << 20;
    public static final int DEFAULT_CHUNK_SIZE = 64 << 10;
    public static final long DEFAULT_MAX_MEMORY = 1L << 30;
    public static final int DEFAULT_LEAK_SAMPLE_INTERVAL = 128;
    /** Smallest chunk: a long and an int still fit in one. */
    public static final int MIN_CHUNK_SIZE = 16;
    /** Largest chunk. */
    public static final int MAX_CHUNK_SIZE = 1 << 30;

    /** What a pool does when it has no free chunk left and may not reserve another slab. */
    public enum Exhaustion {
        /** Throw {@link BufferPoolExhaustedException} at once and count an allocation failure. */
        FAIL,
        /**
         * Serve requests of up to {@code heapFallbackMaxSize} bytes from a fresh heap array
         * (counted as a heap fallback); larger requests fail as with {@link #FAIL}.
         */
        HEAP_FALLBACK
    }

    /** Which pooled buffers the leak detector follows; heap-fallback buffers are never followed. */
    public enum LeakDetection {
        /** None: no cost at all, leaks go unnoticed (their chunks stay in use). */
        OFF,
        /** One in {@code leakSampleInterval} buffers, at random: the production default. */
        SAMPLED,
        /** Every buffer, with its allocation site: for tests and for hunting a leak. */
        ALL;

        /** Parses {@code off}, {@code sampled} or {@code all} (any case). */
        public static LeakDetection parse(String value) {
            for (LeakDetection level : values()) {
                if (level.name().equalsIgnoreCase(value.strip())) {
                    return level;
                }
            }
            throw new IllegalArgumentException("unknown leak detection level '" + value + "'; expected one of "
                    + Arrays.stream(values()).map(l -> l.name().toLowerCase(Locale.ROOT))
                            .collect(Collectors.joining(", ")));
        }
    }

    /**
     * Checks every setting against the others.
     *
     * @throws IllegalArgumentException naming the setting that is wrong
     * @throws NullPointerException when a reference setting is missing
     */
    public BufferPoolConfig {
        if (name == null || onExhaustion == null || leakDetection == null) {
            throw new NullPointerException("name, onExhaustion and leakDetection are required");
        }
        if (name.isBlank()) {
            throw new IllegalArgumentException("name must not be blank");
        }
        if (chunkSize < MIN_CHUNK_SIZE || chunkSize > MAX_CHUNK_SIZE || Integer.bitCount(chunkSize) != 1) {
            throw new IllegalArgumentException("chunkSize must be a power of two from " + MIN_CHUNK_SIZE + " to "
                    + MAX_CHUNK_SIZE + ", was " + chunkSize);
        }
        if (slabSize < chunkSize || slabSize % chunkSize != 0) {
            throw new IllegalArgumentException("slabSize must be a positive multiple of chunkSize (" + chunkSize
                    + "), was " + slabSize);
        }
        if (maxMemory < slabSize || maxMemory % slabSize != 0) {
            throw new IllegalArgumentException("maxMemory must be a positive multiple of slabSize (" + slabSize
                    + "), was " + maxMemory);
        }
        if (maxMemory / chunkSize >= Integer.MAX_VALUE) {
            throw new IllegalArgumentException("maxMemory / chunkSize must stay below 2^31 chunks, was "
                    + maxMemory / chunkSize);
        }
        if (heapFallbackMaxSize < 0) {
            throw new IllegalArgumentException("heapFallbackMaxSize must not be negative, was " + heapFallbackMaxSize);
        }
        if (leakSampleInterval < 1) {
            throw new IllegalArgumentException("leakSampleInterval must be at least 1, was " + leakSampleInterval);
        }
    }

    /**
     * The defaults: 4 MiB slabs, 64 KiB chunks, at most 1 GiB, fail when exhausted, leak
     * detection from {@value #LEAK_DETECTION_PROPERTY} (else sampled, 1 in 128). Components
     * should start from here so that the test build's {@code all} reaches their pools.
     *
     * @throws IllegalArgumentException when the system property holds an unknown level
     */
    public static BufferPoolConfig defaults() {
        String level = System.getProperty(LEAK_DETECTION_PROPERTY);
        return new BufferPoolConfig(DEFAULT_NAME, DEFAULT_SLAB_SIZE, DEFAULT_CHUNK_SIZE, DEFAULT_MAX_MEMORY,
                Exhaustion.FAIL, DEFAULT_CHUNK_SIZE,
                level == null ? LeakDetection.SAMPLED : LeakDetection.parse(level), DEFAULT_LEAK_SAMPLE_INTERVAL);
    }

    public BufferPoolConfig withName(String name) {
        return new BufferPoolConfig(name, slabSize, chunkSize, maxMemory, onExhaustion, heapFallbackMaxSize,
                leakDetection, leakSampleInterval);
    }

    /** Slab and chunk size together, since each constrains the other. */
    public BufferPoolConfig withSizes(int slabSize, int chunkSize, long maxMemory) {
        return new BufferPoolConfig(name, slabSize, chunkSize, maxMemory, onExhaustion, heapFallbackMaxSize,
                leakDetection, leakSampleInterval);
    }

    public BufferPoolConfig withExhaustion(Exhaustion onExhaustion, int heapFallbackMaxSize) {
        return new BufferPoolConfig(name, slabSize, chunkSize, maxMemory, onExhaustion, heapFallbackMaxSize,
                leakDetection, leakSampleInterval);
    }

    public BufferPoolConfig withLeakDetection(LeakDetection leakDetection, int leakSampleInterval) {
        return new BufferPoolConfig(name, slabSize, chunkSize, maxMemory, onExhaustion, heapFallbackMaxSize,
                leakDetection, leakSampleInterval);
    }

    /** Chunks in one slab. */
    int chunksPerSlab() {
        return slabSize / chunkSize;
    }

    /** Slabs the pool may reserve. */
    int maxSlabs() {
        return (int) (maxMemory / slabSize);
    }

    /** Chunks the pool may hand out at once. */
    int maxChunks() {
        return (int) (maxMemory / chunkSize);
    }
}
