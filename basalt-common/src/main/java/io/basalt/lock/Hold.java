package io.basalt.lock;

/**
 * What one thread holds on one stripe: the read and write counts of its nested acquisitions and
 * how the underlying lock was taken. Owned and touched by that thread only; recycled through its
 * {@link ThreadHolds} so that taking a lock allocates nothing.
 */
final class Hold {

    /** The stripe was read-locked through the level's reader indicators. */
    static final int BIASED_READ = 1;
    /** The stripe was read-locked through the {@link StripeLock} queue. */
    static final int QUEUED_READ = 2;
    /** The stripe is write-locked. */
    static final int WRITE = 3;

    final ThreadHolds owner;
    final Handle read = new Handle(this, false);
    final Handle write = new Handle(this, true);

    LevelLocks level;
    int stripe;
    /** How the stripe lock is held: {@link #BIASED_READ}, {@link #QUEUED_READ} or {@link #WRITE}. */
    int how;
    int reads;
    int writes;
    /** The key (one or two components) of the first acquisition, for diagnostics only. */
    byte[] key;
    byte[] key2;
    /** {@link System#nanoTime()} at acquisition when this hold's held time is sampled, else 0. */
    long sampledAt;
    /** Position in the owner's held array. */
    int index;

    Hold(ThreadHolds owner) {
        this.owner = owner;
    }

    LockMode mode() {
        return how == WRITE ? LockMode.WRITE : LockMode.READ;
    }

    int count() {
        return reads + writes;
    }

    /** The handle returned for one acquisition; closing it undoes one count of its mode. */
    static final class Handle implements LockHandle {

        final Hold hold;
        final boolean write;

        Handle(Hold hold, boolean write) {
            this.hold = hold;
            this.write = write;
        }

        @Override
        public void close() {
            hold.owner.release(hold, write);
        }

        @Override
        public String toString() {
            Hold h = hold;
            LevelLocks level = h.level;
            return level == null ? "released lock handle"
                    : (write ? "WRITE" : "READ") + " handle on " + level.describe(h.key, h.key2, h.stripe);
        }
    }
}
