package io.basalt.client;

/** An operation named a column family its table does not have. */
public final class NoSuchFamilyException extends BasaltException {

    private static final long serialVersionUID = 1L;

    private final String table;
    private final String family;

    public NoSuchFamilyException(String table, String family) {
        super("table '" + table + "' has no column family '" + family + "'");
        this.table = table;
        this.family = family;
    }

    /** The table's name. */
    public String table() {
        return table;
    }

    /** The family it does not have. */
    public String family() {
        return family;
    }
}
