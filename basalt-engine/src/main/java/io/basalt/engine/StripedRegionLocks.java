package io.basalt.engine;

import java.util.Arrays;
import java.util.concurrent.locks.Lock;
import java.util.concurrent.locks.ReentrantReadWriteLock;

/**
 * Region locks on preallocated stripes: table locks by table id, row locks by a hash of table id
 * and row bytes. Nothing is allocated or counted per key.
 */
final class StripedRegionLocks implements RegionLocks {

    private static final int TABLE_STRIPES = 64;
    private static final int ROW_STRIPES = 1024;

    private final ReentrantReadWriteLock[] tables = stripes(TABLE_STRIPES);
    private final ReentrantReadWriteLock[] rows = stripes(ROW_STRIPES);

    private static ReentrantReadWriteLock[] stripes(int n) {
        ReentrantReadWriteLock[] locks = new ReentrantReadWriteLock[n];
        for (int i = 0; i < n; i++) {
            locks[i] = new ReentrantReadWriteLock();
        }
        return locks;
    }

    private ReentrantReadWriteLock table(int tableId) {
        return tables[tableId & (TABLE_STRIPES - 1)];
    }

    private ReentrantReadWriteLock row(int tableId, byte[] row) {
        int h = 31 * tableId + Arrays.hashCode(row);
        h ^= h >>> 16;
        return rows[h & (ROW_STRIPES - 1)];
    }

    @Override
    public Lease lockRow(int tableId, byte[] row) {
        Lock table = table(tableId).readLock();
        Lock write = row(tableId, row).writeLock();
        table.lock();
        try {
            write.lock();
        } catch (RuntimeException e) {
            table.unlock();
            throw e;
        }
        return () -> {
            write.unlock();
            table.unlock();
        };
    }

    @Override
    public Lease lockTableRead(int tableId) {
        Lock lock = table(tableId).readLock();
        lock.lock();
        return lock::unlock;
    }

    @Override
    public Lease lockTableWrite(int tableId) {
        Lock lock = table(tableId).writeLock();
        lock.lock();
        return lock::unlock;
    }
}
