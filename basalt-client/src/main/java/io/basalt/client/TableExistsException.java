package io.basalt.client;

/** A table was created under a name that is taken. */
public final class TableExistsException extends BasaltException {

    private static final long serialVersionUID = 1L;

    public TableExistsException(String table) {
        super("table '" + table + "' already exists");
    }
}
