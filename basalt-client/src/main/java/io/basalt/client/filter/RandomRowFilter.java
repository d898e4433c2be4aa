package io.basalt.client.filter;

/** Each row with probability {@code chance} (0 to 1), decided independently per row: a sample. */
public record RandomRowFilter(float chance) implements Filter {

    public RandomRowFilter {
        if (!(chance >= 0f && chance <= 1f)) {
            throw new IllegalArgumentException("row chance " + chance + " is not between 0 and 1");
        }
    }

    @Override
    public String toString() {
        return FilterText.call("RandomRowFilter", chance);
    }
}
