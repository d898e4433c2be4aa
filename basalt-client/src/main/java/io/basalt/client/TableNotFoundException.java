package io.basalt.client;

/** An operation named a table that does not exist. */
public final class TableNotFoundException extends BasaltException {

    private static final long serialVersionUID = 1L;

    public TableNotFoundException(String table) {
        super("table '" + table + "' does not exist");
    }
}
