package io.basalt.client;

/** A table was created under a name that is taken. */
public final class TableExistsException extends BasaltException {

    private static final long serialVersionUID = 1L;

    private final String table;

    public TableExistsException(String table) {
        super("table '" + table + "' already exists");
        this.table = table;
    }

    /** The table's name. */
    public String table() {
        return table;
    }
}
