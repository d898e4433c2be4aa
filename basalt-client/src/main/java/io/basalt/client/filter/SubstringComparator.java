package io.basalt.client.filter;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.util.Locale;

/**
 * Matches cell bytes that contain {@code substring}, ignoring case as HBase does
 * ({@code 'substring:...'}); compares as 0 on a match and 1 otherwise, so only {@code =} and
 * {@code !=} are useful with it.
 */
public record SubstringComparator(String substring) implements ByteArrayComparable {

    public SubstringComparator {
        substring = java.util.Objects.requireNonNull(substring, "substring").toLowerCase(Locale.ROOT);
    }

    @Override
    public int compareTo(MemorySegment bytes) {
        String text = new String(bytes.toArray(ValueLayout.JAVA_BYTE), StandardCharsets.UTF_8);
        return text.toLowerCase(Locale.ROOT).contains(substring) ? 0 : 1;
    }

    @Override
    public String toString() {
        return FilterText.comparator("substring", io.basalt.bytes.Bytes.utf8(substring));
    }
}
