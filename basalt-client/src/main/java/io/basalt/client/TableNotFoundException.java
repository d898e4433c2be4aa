package io.basalt.client;

/** An operation named a table that does not exist. */
public final class TableNotFoundException extends BasaltException {

    private static final long serialVersionUID = 1L;

    private final String table;

    public TableNotFoundException(String table) {
        super("table '" + table + "' does not exist");
        this.table = table;
    }

    /** The table's name. */
    public String table() {
        return table;
    }
}
