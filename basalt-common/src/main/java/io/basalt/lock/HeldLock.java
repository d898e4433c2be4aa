package io.basalt.lock;

/**
 * One stripe a thread holds, as reported by {@link LockManager#held()} for diagnostics.
 *
 * @param level the level of the stripe
 * @param resource the key the stripe was first taken for, printable ({@code \xHH} for other bytes)
 * @param stripe the stripe number within the level
 * @param mode how the stripe is held (WRITE when any nested acquisition is a write)
 * @param count nested acquisitions not yet released
 * @param thread the holding thread's name, marked {@code (ended)} when it ended without releasing
 * @param threadAlive false when the holding thread has ended: the stripe is held forever
 */
public record HeldLock(LockLevel level, String resource, int stripe, LockMode mode, int count, String thread,
                       boolean threadAlive) {

    @Override
    public String toString() {
        return level.name() + " " + resource + " (stripe " + stripe + ") " + mode + "×" + count + " by " + thread;
    }
}
