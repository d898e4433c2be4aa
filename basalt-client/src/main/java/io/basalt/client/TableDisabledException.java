package io.basalt.client;

/** A read or write named a table that is disabled ({@link Admin#disableTable}); enable it to use it. */
public final class TableDisabledException extends BasaltException {

    private static final long serialVersionUID = 1L;

    private final String table;

    public TableDisabledException(String table) {
        super("table '" + table + "' is disabled; enable it to read or write it");
        this.table = table;
    }

    /** The table's name. */
    public String table() {
        return table;
    }
}
