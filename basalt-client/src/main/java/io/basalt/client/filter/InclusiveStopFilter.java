package io.basalt.client.filter;

/** Rows up to and including {@code stopRow}, then the scan stops (a reversed scan: down to it). */
public record InclusiveStopFilter(byte[] stopRow) implements Filter {

    public InclusiveStopFilter {
        stopRow = FilterText.copy(stopRow, "stopRow");
    }

    @Override
    public byte[] stopRow() {
        return stopRow.clone();
    }

    @Override
    public String toString() {
        return FilterText.call("InclusiveStopFilter", (Object) stopRow);
    }
}
