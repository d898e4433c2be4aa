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
 */
public record FamilyDescriptor(String name, int maxVersions, Duration timeToLive, boolean bloomFilter,
                               int blockSize, Compression compression) {

    public static final int DEFAULT_MAX_VERSIONS = 1;
    public static final int DEFAULT_BLOCK_SIZE = 8 * 1024;
    public static final int MIN_BLOCK_SIZE = 1024;
    public static final int MAX_BLOCK_SIZE = 16 * 1024 * 1024;
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
    }

    /** A family with every option at its default. */
    public static FamilyDescriptor of(String name) {
        return new FamilyDescriptor(name, DEFAULT_MAX_VERSIONS, Duration.ZERO, true, DEFAULT_BLOCK_SIZE,
                Compression.NONE);
    }

    public FamilyDescriptor withMaxVersions(int versions) {
        return new FamilyDescriptor(name, versions, timeToLive, bloomFilter, blockSize, compression);
    }

    public FamilyDescriptor withTimeToLive(Duration ttl) {
        return new FamilyDescriptor(name, maxVersions, ttl, bloomFilter, blockSize, compression);
    }

    public FamilyDescriptor withBloomFilter(boolean on) {
        return new FamilyDescriptor(name, maxVersions, timeToLive, on, blockSize, compression);
    }

    public FamilyDescriptor withBlockSize(int bytes) {
        return new FamilyDescriptor(name, maxVersions, timeToLive, bloomFilter, bytes, compression);
    }

    public FamilyDescriptor withCompression(Compression codec) {
        return new FamilyDescriptor(name, maxVersions, timeToLive, bloomFilter, blockSize, codec);
    }

    /** True when cells of this family expire. */
    public boolean expires() {
        return !timeToLive.isZero();
    }
}
