package io.basalt.client.filter;

import io.basalt.bytes.Bytes;
import java.lang.foreign.MemorySegment;

/** Orders a cell's bytes against {@code operand}, unsigned byte by byte ({@code 'binary:...'}). */
public record BinaryComparator(byte[] operand) implements ByteArrayComparable {

    public BinaryComparator {
        operand = FilterText.copy(operand, "operand");
    }

    @Override
    public byte[] operand() {
        return operand.clone();
    }

    @Override
    public int compareTo(MemorySegment bytes) {
        return Bytes.compare(MemorySegment.ofArray(operand), 0, operand.length, bytes, 0, bytes.byteSize());
    }

    @Override
    public String toString() {
        return FilterText.comparator("binary", operand);
    }
}
