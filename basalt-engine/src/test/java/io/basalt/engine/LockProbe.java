package io.basalt.engine;

import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * Run in a child JVM by tests: tries to take a store directory's lock as another process would.
 * Exits 0 when it got the lock (nobody held it), 3 when it is held.
 */
public final class LockProbe {

    private LockProbe() {}

    public static void main(String[] args) throws Exception {
        try (FileChannel channel = FileChannel.open(Path.of(args[0]).resolve("LOCK"), StandardOpenOption.CREATE,
                StandardOpenOption.WRITE)) {
            FileLock lock = channel.tryLock();
            if (lock == null) {
                System.exit(3);
            }
            lock.release();
        }
        System.exit(0);
    }
}
