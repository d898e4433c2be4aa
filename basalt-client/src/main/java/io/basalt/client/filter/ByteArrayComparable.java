package io.basalt.client.filter;

import java.lang.foreign.MemorySegment;

/**
 * The operand of a comparing filter and how it meets a cell's bytes. Written in the filter
 * language as {@code 'binary:abc'}, {@code 'binaryprefix:abc'}, {@code 'regexstring:a.c'},
 * {@code 'substring:abc'} or {@code 'null:'}.
 */
public sealed interface ByteArrayComparable
        permits BinaryComparator, BinaryPrefixComparator, RegexStringComparator, SubstringComparator, NullComparator {

    /**
     * The operand compared with {@code bytes}: negative when the operand sorts before them, zero
     * when they match, positive otherwise.
     */
    int compareTo(MemorySegment bytes);

    /** {@link #compareTo(MemorySegment)} for an array. */
    default int compareTo(byte[] bytes) {
        return compareTo(MemorySegment.ofArray(bytes));
    }
}
