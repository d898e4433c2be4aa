package io.basalt.client.filter;

/**
 * Returns each cell without its value: an empty value, or with {@code lengthAsValue} the value's
 * length as a 4-byte big-endian int.
 */
public record KeyOnlyFilter(boolean lengthAsValue) implements Filter {

    public KeyOnlyFilter() {
        this(false);
    }

    @Override
    public String toString() {
        return lengthAsValue ? FilterText.call("KeyOnlyFilter", true) : "KeyOnlyFilter()";
    }
}
