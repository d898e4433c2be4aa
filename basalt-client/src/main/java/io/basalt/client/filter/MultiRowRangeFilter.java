package io.basalt.client.filter;

import io.basalt.bytes.Bytes;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * Rows in any of {@code ranges}. The ranges are kept sorted and merged, each as a half-open
 * range {@code [start, stop)} (an empty stop meaning the table's end); the reader seeks from one
 * range to the next and stops after the last.
 */
public record MultiRowRangeFilter(List<RowRange> ranges) implements Filter {

    /**
     * Rows from {@code start} to {@code stop}, each bound inclusive or not; an empty start is the
     * table's first row, an empty stop its last.
     */
    public record RowRange(byte[] start, boolean startInclusive, byte[] stop, boolean stopInclusive) {
        public RowRange {
            start = FilterText.copy(start, "start");
            stop = FilterText.copy(stop, "stop");
        }

        @Override
        public byte[] start() {
            return start.clone();
        }

        @Override
        public byte[] stop() {
            return stop.clone();
        }

        /** The smallest row in the range. */
        byte[] low() {
            return startInclusive || start.length == 0 ? start : afterRow(start);
        }

        /** The smallest row after the range, or empty when it runs to the table's end. */
        byte[] high() {
            return stop.length == 0 ? stop : stopInclusive ? afterRow(stop) : stop;
        }
    }

    public MultiRowRangeFilter {
        List<RowRange> sorted = new ArrayList<>(java.util.Objects.requireNonNull(ranges, "ranges"));
        if (sorted.isEmpty()) {
            throw new IllegalArgumentException("a multi-row range filter needs at least one range");
        }
        for (RowRange r : sorted) {
            byte[] high = r.high();
            if (high.length > 0 && Bytes.compare(r.low(), high) >= 0) {
                throw new IllegalArgumentException("row range from " + Bytes.toStringBinary(r.start) + " to "
                        + Bytes.toStringBinary(r.stop) + " holds no row");
            }
        }
        sorted.sort(Comparator.comparing(RowRange::low, Bytes::compare));
        List<RowRange> merged = new ArrayList<>();
        byte[] low = null;
        byte[] high = null;
        for (RowRange r : sorted) {
            if (low != null && (high.length == 0 || Bytes.compare(r.low(), high) <= 0)) {
                byte[] h = r.high();
                if (high.length > 0 && (h.length == 0 || Bytes.compare(h, high) > 0)) {
                    high = h;
                }
                continue;
            }
            if (low != null) {
                merged.add(new RowRange(low, true, high, false));
            }
            low = r.low();
            high = r.high();
        }
        merged.add(new RowRange(low, true, high, false));
        ranges = List.copyOf(merged);
    }

    private static byte[] afterRow(byte[] row) {
        return java.util.Arrays.copyOf(row, row.length + 1);
    }

    @Override
    public String toString() {
        Object[] args = new Object[ranges.size() * 4];
        for (int i = 0; i < ranges.size(); i++) {
            RowRange r = ranges.get(i);
            // Kept half-open, a bound that ends in a zero byte was most likely written as the row
            // before it with the other inclusiveness: print it that way, which reads back the same.
            boolean startAfter = r.start.length > 0 && r.start[r.start.length - 1] == 0;
            boolean stopAfter = r.stop.length > 0 && r.stop[r.stop.length - 1] == 0;
            args[4 * i] = startAfter ? java.util.Arrays.copyOf(r.start, r.start.length - 1) : r.start;
            args[4 * i + 1] = !startAfter;
            args[4 * i + 2] = stopAfter ? java.util.Arrays.copyOf(r.stop, r.stop.length - 1) : r.stop;
            args[4 * i + 3] = stopAfter;
        }
        return FilterText.call("MultiRowRangeFilter", args);
    }
}
