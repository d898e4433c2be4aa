package io.basalt.cluster;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.apache.ratis.server.protocol.TermIndex;
import org.apache.ratis.server.storage.FileInfo;
import org.apache.ratis.server.storage.RaftStorage;
import org.apache.ratis.statemachine.SnapshotInfo;
import org.apache.ratis.statemachine.SnapshotRetentionPolicy;
import org.apache.ratis.statemachine.StateMachineStorage;
import org.apache.ratis.statemachine.impl.FileListSnapshotInfo;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A region replica's Raft snapshots, in the group's state machine directory ({@code sm/}):
 * {@code snapshot.<term>_<index>/} holding {@code store/} (a checkpoint of the replica store:
 * hard links of its SSTables and a manifest) and {@code sessions} (the exactly-once table). A
 * snapshot is built under a temporary name and renamed whole, so a directory with the final name
 * is complete. Ratis ships the files to a lagging follower, which receives them into a new
 * {@code sm/} replacing its old one.
 */
final class RegionSnapshots implements StateMachineStorage {

    private static final Logger LOG = LoggerFactory.getLogger(RegionSnapshots.class);
    private static final Pattern NAME = Pattern.compile("snapshot\\.(\\d+)_(\\d+)");
    private static final String TMP_PREFIX = ".tmp-";

    /** One complete snapshot on disk. */
    record Snapshot(Path directory, TermIndex termIndex) {
        Path store() {
            return directory.resolve("store");
        }

        Path sessions() {
            return directory.resolve("sessions");
        }
    }

    private volatile Path dir;
    private volatile SnapshotInfo latestInfo;

    @Override
    public void init(RaftStorage raftStorage) throws IOException {
        dir = raftStorage.getStorageDir().getStateMachineDir().toPath();
        Files.createDirectories(dir);
        refresh();
    }

    /** Reads the directory again (after a snapshot was installed into it) and drops unfinished builds. */
    void refresh() throws IOException {
        try (Stream<Path> list = Files.list(dir)) {
            for (Path p : list.toList()) {
                if (p.getFileName().toString().startsWith(TMP_PREFIX)) {
                    deleteTree(p);
                }
            }
        }
        Snapshot latest = latest();
        latestInfo = latest == null ? null : info(latest);
    }

    /** The complete snapshot with the highest index, or {@code null}. */
    Snapshot latest() throws IOException {
        Snapshot best = null;
        try (Stream<Path> list = Files.list(dir)) {
            for (Path p : list.toList()) {
                Matcher m = NAME.matcher(p.getFileName().toString());
                if (m.matches() && Files.isDirectory(p)) {
                    TermIndex ti = TermIndex.valueOf(Long.parseLong(m.group(1)), Long.parseLong(m.group(2)));
                    if (best == null || ti.getIndex() > best.termIndex().getIndex()) {
                        best = new Snapshot(p, ti);
                    }
                }
            }
        }
        return best;
    }

    private static SnapshotInfo info(Snapshot s) throws IOException {
        List<FileInfo> files = new ArrayList<>();
        try (Stream<Path> walk = Files.walk(s.directory())) {
            for (Path p : walk.filter(Files::isRegularFile).sorted().toList()) {
                if (!p.getFileName().toString().endsWith(".md5")) { // digests Ratis wrote on receiving
                    files.add(new FileInfo(p.toAbsolutePath(), null)); // Ratis sizes it, and digests it while sending
                }
            }
        }
        return new FileListSnapshotInfo(files, s.termIndex());
    }

    /** Where a snapshot at {@code ti} is built before {@link #commit}; removed first if left over. */
    Path building(TermIndex ti) throws IOException {
        Path tmp = dir.resolve(TMP_PREFIX + name(ti));
        deleteTree(tmp);
        Files.createDirectories(tmp);
        return tmp;
    }

    /** Publishes a built snapshot under its final name and deletes the older ones. */
    void commit(Path built, TermIndex ti) throws IOException {
        sync(built);
        Path target = dir.resolve(name(ti));
        Files.move(built, target, StandardCopyOption.ATOMIC_MOVE);
        sync(dir);
        Snapshot latest = new Snapshot(target, ti);
        latestInfo = info(latest);
        try (Stream<Path> list = Files.list(dir)) {
            for (Path p : list.toList()) {
                Matcher m = NAME.matcher(p.getFileName().toString());
                if (m.matches() && !p.equals(target) && Long.parseLong(m.group(2)) < ti.getIndex()) {
                    deleteTree(p);
                }
            }
        }
    }

    private static String name(TermIndex ti) {
        return "snapshot." + ti.getTerm() + "_" + ti.getIndex();
    }

    @Override
    public SnapshotInfo getLatestSnapshot() {
        return latestInfo;
    }

    @Override
    public void format() {}

    @Override
    public void cleanupOldSnapshots(SnapshotRetentionPolicy policy) {
        // commit() keeps only the newest: a snapshot is hard links, and one is all a follower needs.
    }

    @Override
    public File getSnapshotDir() {
        return dir.toFile();
    }

    static void sync(Path directory) throws IOException {
        try (FileChannel ch = FileChannel.open(directory, StandardOpenOption.READ)) {
            ch.force(true);
        }
    }

    static void deleteTree(Path root) throws IOException {
        if (!Files.exists(root)) {
            return;
        }
        try (Stream<Path> walk = Files.walk(root)) {
            walk.sorted(Comparator.reverseOrder()).forEach(p -> {
                try {
                    Files.delete(p);
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            });
        } catch (UncheckedIOException e) {
            throw e.getCause();
        }
        LOG.debug("Deleted {}", root);
    }
}
