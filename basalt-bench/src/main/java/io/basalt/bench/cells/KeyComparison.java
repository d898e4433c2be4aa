package io.basalt.bench.cells;

import io.basalt.cell.Cell;
import io.basalt.cell.CellComparator;
import io.basalt.cell.EncodedCell;
import java.lang.foreign.MemorySegment;

/** One way of ordering two encoded cells: the adapter per {@code impl} of the {@code cells} suite. */
public interface KeyComparison {

    int compare(MemorySegment data, long a, long b);

    /** The adapter for an {@code impl} parameter value. */
    static KeyComparison of(String impl) {
        return switch (impl) {
            case "basalt" -> InPlace.INSTANCE;
            case "naive" -> DecodeFirst.INSTANCE;
            default -> throw new IllegalArgumentException("unknown impl " + impl);
        };
    }

    /** Basalt: compare the encoded keys where they lie. */
    enum InPlace implements KeyComparison {
        INSTANCE;

        @Override
        public int compare(MemorySegment data, long a, long b) {
            return CellComparator.compareEncoded(data, a, data, b);
        }
    }

    /**
     * The naive way: decode each cell into an object with its own arrays (what a codec that hands
     * out {@code KeyValue}-style objects does), then compare the objects.
     */
    enum DecodeFirst implements KeyComparison {
        INSTANCE;

        @Override
        public int compare(MemorySegment data, long a, long b) {
            return CellComparator.INSTANCE.compare(materialize(data, a), materialize(data, b));
        }

        private static Cell materialize(MemorySegment data, long offset) {
            EncodedCell view = EncodedCell.decode(data, offset);
            return Cell.of(view.rowBytes(), view.familyBytes(), view.qualifierBytes(), view.timestamp(), view.type(),
                    view.valueBytes());
        }
    }
}
