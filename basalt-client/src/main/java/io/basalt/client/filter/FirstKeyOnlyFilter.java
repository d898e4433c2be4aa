package io.basalt.client.filter;

/** The first cell of each row only, then on to the next row: the cheapest way to list row keys. */
public record FirstKeyOnlyFilter() implements Filter {

    @Override
    public String toString() {
        return "FirstKeyOnlyFilter()";
    }
}
