package io.basalt.client.filter;

/**
 * Rows whose key starts with {@code prefix}. A scan seeks to the prefix and stops after it, with
 * or without a start row (HBase reads from the table's first row without one, HBASE-14397).
 */
public record PrefixFilter(byte[] prefix) implements Filter {

    public PrefixFilter {
        prefix = FilterText.copy(prefix, "prefix");
    }

    @Override
    public byte[] prefix() {
        return prefix.clone();
    }

    @Override
    public String toString() {
        return FilterText.call("PrefixFilter", (Object) prefix);
    }
}
