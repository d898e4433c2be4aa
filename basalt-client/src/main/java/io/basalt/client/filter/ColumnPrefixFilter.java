package io.basalt.client.filter;

/** Columns whose qualifier starts with {@code prefix}; the reader seeks to the prefix in each family. */
public record ColumnPrefixFilter(byte[] prefix) implements Filter {

    public ColumnPrefixFilter {
        prefix = FilterText.copy(prefix, "prefix");
    }

    @Override
    public byte[] prefix() {
        return prefix.clone();
    }

    @Override
    public String toString() {
        return FilterText.call("ColumnPrefixFilter", (Object) prefix);
    }
}
