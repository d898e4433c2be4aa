package io.basalt.client.filter;

import io.basalt.bytes.Bytes;
import java.util.List;
import java.util.TreeSet;

/** Columns whose qualifier starts with any of {@code prefixes} (kept sorted, without duplicates). */
public record MultipleColumnPrefixFilter(List<byte[]> prefixes) implements Filter {

    public MultipleColumnPrefixFilter {
        TreeSet<byte[]> sorted = new TreeSet<>(Bytes::compare);
        sorted.addAll(FilterText.copyAll(prefixes, "prefixes"));
        if (sorted.isEmpty()) {
            throw new IllegalArgumentException("a multiple column prefix filter needs at least one prefix");
        }
        prefixes = List.copyOf(sorted);
    }

    @Override
    public List<byte[]> prefixes() {
        return prefixes.stream().map(byte[]::clone).toList();
    }

    @Override
    public String toString() {
        return FilterText.call("MultipleColumnPrefixFilter", prefixes.toArray());
    }
}
