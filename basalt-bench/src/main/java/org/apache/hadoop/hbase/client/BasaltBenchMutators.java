package org.apache.hadoop.hbase.client;

/**
 * Builds HBase 2.6.4's {@link AsyncBufferedMutatorImpl}, whose constructor is package-private, for
 * Basalt's {@code mutator} benchmark suite (in this package only for that reason). The class is
 * taken as shipped in {@code org.apache.hbase:hbase-client:2.6.4}; nothing of it is copied.
 */
public final class BasaltBenchMutators {

    private BasaltBenchMutators() {}

    /**
     * The mutator HBase builds for {@code table} with these options and the periodic flush off (so
     * it never touches its timer, which is therefore {@code null}).
     */
    public static AsyncBufferedMutator hbase(AsyncTable<?> table, long writeBufferSize, int maxMutations,
                                             int maxKeyValueSize) {
        return new AsyncBufferedMutatorImpl(null, table, writeBufferSize, 0L, maxKeyValueSize, maxMutations);
    }
}
