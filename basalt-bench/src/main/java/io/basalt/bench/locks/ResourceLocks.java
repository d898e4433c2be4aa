package io.basalt.bench.locks;

import com.google.common.util.concurrent.Striped;
import io.basalt.lock.LockHandle;
import io.basalt.lock.LockLevel;
import io.basalt.lock.LockManager;
import io.basalt.lock.LockMode;
import java.util.Arrays;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.ReadWriteLock;
import java.util.concurrent.locks.ReentrantReadWriteLock;

/**
 * Read/write locks on resources named by byte keys: the adapter per {@code impl} of the
 * {@code locks} suite. {@link #lock} returns a token that {@link #unlock} takes back with the same
 * key and mode, so no adapter allocates anything its implementation would not.
 */
public interface ResourceLocks {

    Object lock(byte[] key, boolean write);

    void unlock(byte[] key, Object token, boolean write);

    /** The adapter for an {@code impl} parameter value, with {@code stripes} stripes where that applies. */
    static ResourceLocks of(String impl, int stripes) {
        return switch (impl) {
            case "basalt" -> new Basalt(stripes);
            case "basalt-plain" -> new Basalt(stripes, false);
            case "dynamic-table" -> new DynamicTable();
            case "guava-striped" -> new GuavaStriped(stripes);
            default -> throw new IllegalArgumentException("unknown impl " + impl);
        };
    }

    /**
     * Basalt's {@link LockManager}: one reader-biased level, as the table level is by default
     * ({@code basalt}); or one plain level, as the row level is ({@code basalt-plain}: every
     * mutation write-locks its rows, so the store keeps bias to the read-mostly levels).
     */
    final class Basalt implements ResourceLocks {

        private final LockManager manager;

        Basalt(int stripes) {
            this(stripes, true);
        }

        Basalt(int stripes, boolean biased) {
            manager = LockManager.builder().level(LockLevel.TABLE, stripes, biased).build();
        }

        LockManager manager() {
            return manager;
        }

        @Override
        public Object lock(byte[] key, boolean write) {
            return manager.lock(LockLevel.TABLE, key, write ? LockMode.WRITE : LockMode.READ);
        }

        @Override
        public void unlock(byte[] key, Object token, boolean write) {
            ((LockHandle) token).close();
        }
    }

    /**
     * Our model of the pre-fix design HDDS-8765 replaced (Ozone's lock table before 2023, and
     * what HBase still does for row locks): a {@link ConcurrentHashMap} from resource to an entry
     * holding a {@link ReentrantReadWriteLock} and a usage count. Acquire creates the entry if
     * absent and counts one more user inside {@code compute}; release unlocks, then counts one
     * less inside {@code computeIfPresent} and removes the entry at zero. Each call wraps the key
     * in a map key object, as Ozone built a resource-name string per call.
     */
    final class DynamicTable implements ResourceLocks {

        private final ConcurrentHashMap<Key, Entry> table = new ConcurrentHashMap<>();

        private static final class Entry {
            final ReentrantReadWriteLock lock = new ReentrantReadWriteLock();
            int users;
        }

        private record Key(byte[] bytes) {
            @Override
            public boolean equals(Object o) {
                return o instanceof Key k && Arrays.equals(bytes, k.bytes);
            }

            @Override
            public int hashCode() {
                return Arrays.hashCode(bytes);
            }
        }

        int size() {
            return table.size();
        }

        @Override
        public Object lock(byte[] key, boolean write) {
            Entry e = table.compute(new Key(key), (k, v) -> {
                Entry entry = v == null ? new Entry() : v;
                entry.users++;
                return entry;
            });
            (write ? e.lock.writeLock() : e.lock.readLock()).lock();
            return e;
        }

        @Override
        public void unlock(byte[] key, Object token, boolean write) {
            Entry e = (Entry) token;
            (write ? e.lock.writeLock() : e.lock.readLock()).unlock();
            table.computeIfPresent(new Key(key), (k, v) -> --v.users == 0 ? null : v);
        }
    }

    /**
     * What Ozone ships since HDDS-8765: Guava's {@code Striped.readWriteLock(n)}, a preallocated
     * array of {@link ReentrantReadWriteLock}s. The stripe is picked from the content hash of the
     * key's bytes, as for Basalt.
     */
    final class GuavaStriped implements ResourceLocks {

        private final Striped<ReadWriteLock> striped;
        private final int shift;

        GuavaStriped(int stripes) {
            striped = Striped.readWriteLock(stripes);
            shift = 32 - Integer.numberOfTrailingZeros(striped.size());
        }

        @Override
        public Object lock(byte[] key, boolean write) {
            ReadWriteLock rw = striped.getAt((Arrays.hashCode(key) * 0x9E3779B9) >>> shift);
            (write ? rw.writeLock() : rw.readLock()).lock();
            return rw;
        }

        @Override
        public void unlock(byte[] key, Object token, boolean write) {
            ReadWriteLock rw = (ReadWriteLock) token;
            (write ? rw.writeLock() : rw.readLock()).unlock();
        }
    }
}
