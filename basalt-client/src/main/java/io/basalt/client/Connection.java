package io.basalt.client;

/**
 * A handle on a store, embedded or remote: its tables and its admin. Thread-safe; share one per
 * process and close it when done.
 */
public interface Connection extends AutoCloseable {

    Admin admin();

    /**
     * The table called {@code name}. The table is looked up when an operation runs, so a missing
     * table shows up as a {@link TableNotFoundException} on that operation.
     */
    AsyncTable table(String name);

    /**
     * Starts configuring a buffered mutator for the table called {@code name}. The periodic flushes
     * of every mutator built here run on this connection's one timer thread ({@link ConnectionTimer}),
     * started when first needed and stopped when the connection closes.
     *
     * @throws IllegalStateException when the connection is closed
     */
    BufferedMutator.Builder bufferedMutator(String name);

    /** Where this connection points, for messages: a directory or {@code host:port}. */
    String target();

    /**
     * Closes the connection. For an embedded store this flushes what is buffered, waits for
     * background work to stop and releases the directory.
     */
    @Override
    void close();
}
