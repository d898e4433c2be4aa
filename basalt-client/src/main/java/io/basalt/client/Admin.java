package io.basalt.client;

import java.util.List;
import java.util.concurrent.CompletableFuture;

/** Creates, lists, describes and drops tables, and asks for flushes and compactions. */
public interface Admin {

    /** Fails with {@link TableExistsException} when the name is taken. */
    CompletableFuture<Void> createTable(TableDescriptor table);

    /** The tables, sorted by name. */
    CompletableFuture<List<TableDescriptor>> listTables();

    /** Fails with {@link TableNotFoundException}. */
    CompletableFuture<TableDescriptor> describeTable(String name);

    /** Drops a table and all its data. Fails with {@link TableNotFoundException}. */
    CompletableFuture<Void> dropTable(String name);

    /** Writes the table's in-memory data to disk; completes when it is there. */
    CompletableFuture<Void> flush(String name);

    /** Merges all the table's files into one per family; completes when done. */
    CompletableFuture<Void> compact(String name);
}
