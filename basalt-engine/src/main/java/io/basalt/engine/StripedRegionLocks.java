package io.basalt.engine;

import io.basalt.lock.LockHandle;
import io.basalt.lock.LockLevel;
import io.basalt.lock.LockManager;
import io.basalt.lock.LockMode;

/**
 * Region locks on the store's {@link LockManager}: tables on the reader-biased
 * {@link LockLevel#TABLE} stripes (every data operation read-locks its table, so that read path
 * must not bounce one cache line, HDDS-8765), rows on {@link LockLevel#ROW} stripes keyed by table
 * id and row bytes without concatenating them. Nothing is allocated or counted per key.
 */
final class StripedRegionLocks implements RegionLocks {

    private final LockManager locks;

    StripedRegionLocks() {
        this(LockManager.create());
    }

    StripedRegionLocks(LockManager locks) {
        this.locks = locks;
    }

    LockManager manager() {
        return locks;
    }

    /** A table's lock key: its id, four bytes big-endian. */
    private static byte[] tableKey(int tableId) {
        return new byte[] {(byte) (tableId >>> 24), (byte) (tableId >>> 16), (byte) (tableId >>> 8), (byte) tableId};
    }

    @Override
    public Lease lockRow(int tableId, byte[] row) {
        byte[] table = tableKey(tableId);
        LockHandle tableLock = locks.lock(LockLevel.TABLE, table, LockMode.READ);
        LockHandle rowLock;
        try {
            rowLock = locks.lock(LockLevel.ROW, table, row, LockMode.WRITE);
        } catch (RuntimeException e) {
            tableLock.close();
            throw e;
        }
        return () -> {
            rowLock.close();
            tableLock.close();
        };
    }

    @Override
    public Lease lockRows(int tableId, java.util.Collection<byte[]> rows) {
        byte[] table = tableKey(tableId);
        LockHandle tableLock = locks.lock(LockLevel.TABLE, table, LockMode.READ);
        LockHandle rowLocks;
        try {
            rowLocks = locks.lockAll(LockLevel.ROW, table, rows, LockMode.WRITE, LockManager.DEFAULT_TIMEOUT);
        } catch (RuntimeException e) {
            tableLock.close();
            throw e;
        }
        return () -> {
            rowLocks.close();
            tableLock.close();
        };
    }

    @Override
    public Lease lockTableRead(int tableId) {
        return locks.lock(LockLevel.TABLE, tableKey(tableId), LockMode.READ)::close;
    }

    @Override
    public Lease lockTableWrite(int tableId) {
        return locks.lock(LockLevel.TABLE, tableKey(tableId), LockMode.WRITE)::close;
    }

    @Override
    public Lease lockTablesWrite(java.util.Collection<Integer> tableIds) {
        java.util.List<byte[]> keys = tableIds.stream().map(StripedRegionLocks::tableKey).toList();
        return locks.lockAll(LockLevel.TABLE, keys, LockMode.WRITE)::close;
    }
}
