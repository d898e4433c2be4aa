package io.basalt.engine;

/**
 * The locks a region takes: every data operation read-locks its table, every mutation also
 * write-locks its row, and a memtable swap or a drop write-locks the table.
 */
interface RegionLocks {

    /** A held lock; {@link #close()} releases it. */
    interface Lease extends AutoCloseable {
        @Override
        void close();
    }

    /** The table's read lock and the row's write lock, for one row mutation. */
    Lease lockRow(int tableId, byte[] row);

    /**
     * The table's read lock and the write locks of every row in {@code rows} (duplicates allowed),
     * taken in one request in stripe order, so two batches never deadlock.
     */
    Lease lockRows(int tableId, java.util.Collection<byte[]> rows);

    /** The table's read lock, while a read captures its snapshot. */
    Lease lockTableRead(int tableId);

    /** The table's write lock: no mutation of the table runs while it is held. */
    Lease lockTableWrite(int tableId);

    /** The write locks of several tables (regions) in one request, so two callers never deadlock. */
    Lease lockTablesWrite(java.util.Collection<Integer> tableIds);
}
