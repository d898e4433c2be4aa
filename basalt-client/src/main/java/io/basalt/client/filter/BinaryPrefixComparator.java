package io.basalt.client.filter;

import io.basalt.bytes.Bytes;
import java.lang.foreign.MemorySegment;

/**
 * Orders the first {@code operand.length} bytes of a cell's bytes against {@code operand}
 * ({@code 'binaryprefix:...'}): {@code =} means "starts with".
 */
public record BinaryPrefixComparator(byte[] operand) implements ByteArrayComparable {

    public BinaryPrefixComparator {
        operand = FilterText.copy(operand, "operand");
    }

    @Override
    public byte[] operand() {
        return operand.clone();
    }

    @Override
    public int compareTo(MemorySegment bytes) {
        long length = Math.min(operand.length, bytes.byteSize());
        return Bytes.compare(MemorySegment.ofArray(operand), 0, operand.length, bytes, 0, length);
    }

    @Override
    public String toString() {
        return FilterText.comparator("binaryprefix", operand);
    }
}
