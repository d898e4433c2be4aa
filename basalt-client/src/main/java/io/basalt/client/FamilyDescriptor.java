package io.basalt.client;

import java.time.Duration;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * A column family and its storage options.
 *
 * @param name 1 to 255 characters of {@code [A-Za-z0-9_.-]}
 * @param maxVersions how many versions of a column are kept (default 1); older ones are dropped
 *     by reads and by compaction
 * @param timeToLive how long a cell lives after its timestamp; {@link Duration#ZERO} (the default)
 *     keeps cells forever
 * @param bloomFilter whether SSTables carry a row bloom filter for this family (default on)
 * @param blockSize target size of an SSTable data block before compression (default 8 KiB: a point read
 *     that misses the block cache reads one block, since rows that fit a block are kept whole; at
 *     64 KiB, HBase's default, YCSB's read-only workload ran at half the speed, and 8 KiB ran it a
 *     third faster than 16 KiB with short scans level; see docs/benchmarks.md, "ycsb")
 * @param compression block compression (default {@link Compression#NONE})
 * @param bloomBitsPerKey bits of the bloom filter per row, when there is one: about 0.05% of
 *     reads for a row a file does not hold pass the default 16 bits, 1% pass 10 and 6% pass 6 (the
 *     filter probes {@code bits × ln 2} times), at two bytes of heap a row for 16;
 *     {@value #MIN_BLOOM_BITS_PER_KEY} to {@value #MAX_BLOOM_BITS_PER_KEY} (RocksDB's
 *     {@code bits_per_key}). The default by measurement: with 10 bits YCSB's B and C ran 4-5%
 *     slower, a false positive reading a block into the cache for 3% of gets (docs/benchmarks.md,
 *     "ycsb", twenty-second session). It applies to files written from then on; each file records
 *     its own.
 */
public record FamilyDescriptor(String name, int maxVersions, Duration timeToLive, boolean bloomFilter,
                               int blockSize, Compression compression, int bloomBitsPerKey) {

    public static final int DEFAULT_MAX_VERSIONS = 1;
    public static final int DEFAULT_BLOCK_SIZE = 8 * 1024;
    public static final int MIN_BLOCK_SIZE = 1024;
    public static final int MAX_BLOCK_SIZE = 16 * 1024 * 1024;
    public static final int DEFAULT_BLOOM_BITS_PER_KEY = 16;
    public static final int MIN_BLOOM_BITS_PER_KEY = 2;
    public static final int MAX_BLOOM_BITS_PER_KEY = 32;
    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9_.-]{1,255}");

    public FamilyDescriptor {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(timeToLive, "timeToLive");
        Objects.requireNonNull(compression, "compression");
        if (!NAME.matcher(name).matches() || name.equals(".") || name.equals("..")) {
            throw new IllegalArgumentException("column family name '" + name
                    + "' must be 1 to 255 characters of letters, digits, '_', '.' or '-', and not . or ..");
        }
        if (maxVersions < 1) {
            throw new IllegalArgumentException("family '" + name + "': maxVersions is " + maxVersions
                    + "; it must be at least 1");
        }
        if (timeToLive.isNegative()) {
            throw new IllegalArgumentException("family '" + name + "': timeToLive " + timeToLive + " is negative");
        }
        if (blockSize < MIN_BLOCK_SIZE || blockSize > MAX_BLOCK_SIZE) {
            throw new IllegalArgumentException("family '" + name + "': blockSize " + blockSize + " is outside "
                    + MIN_BLOCK_SIZE + ".." + MAX_BLOCK_SIZE);
        }
        if (bloomBitsPerKey < MIN_BLOOM_BITS_PER_KEY || bloomBitsPerKey > MAX_BLOOM_BITS_PER_KEY) {
            throw new IllegalArgumentException("family '" + name + "': bloomBitsPerKey " + bloomBitsPerKey
                    + " is outside " + MIN_BLOOM_BITS_PER_KEY + ".." + MAX_BLOOM_BITS_PER_KEY);
        }
    }

    /** A family whose bloom filter, if it has one, takes the default bits per row. */
    public FamilyDescriptor(String name, int maxVersions, Duration timeToLive, boolean bloomFilter, int blockSize,
                            Compression compression) {
        this(name, maxVersions, timeToLive, bloomFilter, blockSize, compression, DEFAULT_BLOOM_BITS_PER_KEY);
    }

    /** A family with every option at its default. */
    public static FamilyDescriptor of(String name) {
        return new FamilyDescriptor(name, DEFAULT_MAX_VERSIONS, Duration.ZERO, true, DEFAULT_BLOCK_SIZE,
                Compression.NONE);
    }

    public FamilyDescriptor withMaxVersions(int versions) {
        return new FamilyDescriptor(name, versions, timeToLive, bloomFilter, blockSize, compression, bloomBitsPerKey);
    }

    public FamilyDescriptor withTimeToLive(Duration ttl) {
        return new FamilyDescriptor(name, maxVersions, ttl, bloomFilter, blockSize, compression, bloomBitsPerKey);
    }

    public FamilyDescriptor withBloomFilter(boolean on) {
        return new FamilyDescriptor(name, maxVersions, timeToLive, on, blockSize, compression, bloomBitsPerKey);
    }

    /** Bits of the bloom filter per row (it stays on or off as it was). */
    public FamilyDescriptor withBloomBitsPerKey(int bits) {
        return new FamilyDescriptor(name, maxVersions, timeToLive, bloomFilter, blockSize, compression, bits);
    }

    public FamilyDescriptor withBlockSize(int bytes) {
        return new FamilyDescriptor(name, maxVersions, timeToLive, bloomFilter, bytes, compression, bloomBitsPerKey);
    }

    public FamilyDescriptor withCompression(Compression codec) {
        return new FamilyDescriptor(name, maxVersions, timeToLive, bloomFilter, blockSize, codec, bloomBitsPerKey);
    }

    /**
     * The bloom settings in the one byte that manifests and frames store: 0 for no filter, 1 for
     * a filter of the default bits (what every version before bits were settable wrote for "on",
     * when the default was 10 bits per entry), else the bits per row. A family without a filter
     * does not keep its bits.
     */
    public int bloomCode() {
        return !bloomFilter ? 0 : bloomBitsPerKey == DEFAULT_BLOOM_BITS_PER_KEY ? 1 : bloomBitsPerKey;
    }

    /** The bits per row of a {@link #bloomCode()}; rejects a code no version writes. */
    public static int bloomBitsOf(int code) {
        if (code < 0 || code > MAX_BLOOM_BITS_PER_KEY) {
            throw new IllegalArgumentException("bloom filter code " + code + " is not 0 (none), 1 (default bits) or "
                    + MIN_BLOOM_BITS_PER_KEY + ".." + MAX_BLOOM_BITS_PER_KEY + " bits per row");
        }
        return code <= 1 ? DEFAULT_BLOOM_BITS_PER_KEY : code;
    }

    /** True when cells of this family expire. */
    public boolean expires() {
        return !timeToLive.isZero();
    }
}
