package io.basalt.engine;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/** Forcing directories, so that file creations, renames and deletions survive a crash. */
final class Fsync {

    private Fsync() {}

    /** Forces a directory's entries to disk (a no-op where the platform cannot open directories). */
    static void directory(Path dir) throws IOException {
        try (FileChannel ch = FileChannel.open(dir, StandardOpenOption.READ)) {
            ch.force(true);
        } catch (IOException e) {
            if (!System.getProperty("os.name").toLowerCase(java.util.Locale.ROOT).contains("win")) {
                throw e;
            }
        }
    }
}
