package io.basalt.client;

/** An operation named a column family its table does not have. */
public final class NoSuchFamilyException extends BasaltException {

    private static final long serialVersionUID = 1L;

    public NoSuchFamilyException(String table, String family) {
        super("table '" + table + "' has no column family '" + family + "'");
    }
}
