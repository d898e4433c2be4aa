package io.basalt.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.basalt.client.Connection;
import io.basalt.client.Get;
import io.basalt.client.Increment;
import io.basalt.client.Put;
import io.basalt.client.Result;
import io.basalt.client.Scan;
import io.basalt.client.StoreOptions;
import io.basalt.client.TableDescriptor;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Checkpoints: a copy of a store by hard links and a manifest, for backups and Raft snapshots. */
class CheckpointTest {

    @TempDir
    Path dir;

    private final AtomicLong clock = new AtomicLong(1_000_000);

    private static <T> T await(CompletableFuture<T> f) throws Exception {
        return f.get(30, TimeUnit.SECONDS);
    }

    private static List<String> rows(Connection c) throws Exception {
        List<String> out = new ArrayList<>();
        for (Result r : await(c.table("t").scanAll(new Scan().readAllVersions()))) {
            out.add(r.toString());
        }
        return out;
    }

    private Connection open(Path directory, Disk disk) throws Exception {
        return new EmbeddedConnection(Store.open(directory, StoreOptions.defaults().withRegionSplitSize(0), clock::get,
                new StripedRegionLocks(), disk));
    }

    /**
     * The copy holds what was written before it, not after; compacting the store afterwards (which
     * deletes the files the copy shares) leaves the copy whole; and the copy survives a power loss
     * the moment the checkpoint returns.
     */
    @Test
    void aCheckpointIsACopyAsOfItsTimeThatLaterCompactionsAndAPowerLossLeaveWhole() throws Exception {
        FaultyDisk disk = new FaultyDisk();
        Path store = dir.resolve("store");
        Path copy = dir.resolve("copy");
        List<String> before = null;
        try (Connection c = open(store, disk)) {
            await(c.admin().createTable(TableDescriptor.of("t", "f"), List.of("m".getBytes(StandardCharsets.UTF_8))));
            for (int i = 0; i < 50; i++) {
                await(c.table("t").put(Put.of("r" + (i % 30)).addColumn("f", "q", "v" + i)));
                if (i == 20) {
                    await(c.admin().flush("t"));
                }
            }
            await(c.admin().split("t", "r2".getBytes(StandardCharsets.UTF_8))); // a file two regions share
            before = rows(c);
            long held = ((EmbeddedConnection) c).store().checkpoint(copy);
            assertThat(held).isPositive();
            disk.crash(); // the power goes the moment the checkpoint returned
        } catch (RuntimeException e) {
            // closing on a dead disk fails
        }
        assertThat(before).isNotNull();
        disk.loseUnsynced(new SplittableRandom(3));
        try (Connection c = open(store, LocalDisk.INSTANCE)) { // the store goes on, and compacts
            await(c.table("t").put(Put.of("later").addColumn("f", "q", "x")));
            await(c.admin().compact("t"));
            assertThat(rows(c)).hasSize(before.size() + 1);
        }
        try (Stream<Path> files = Files.walk(copy)) {
            assertThat(files.filter(p -> p.toString().endsWith(".wal"))).as("no log in a copy").isEmpty();
        }
        try (Connection c = open(copy, LocalDisk.INSTANCE)) {
            assertThat(rows(c)).as("the copy: what was there at the checkpoint, nothing after").isEqualTo(before);
            assertThat(await(c.admin().listRegions("t"))).hasSize(3);
            await(c.table("t").put(Put.of("own").addColumn("f", "q", "1"))); // a store of its own
        }
        try (Connection c = open(store, LocalDisk.INSTANCE)) {
            assertThat(await(c.table("t").get(Get.of("own"))).isEmpty()).as("the original is apart").isTrue();
        }
    }

    /** A replica's checkpoint opens as a replica at the sequence it holds; the log goes on from there. */
    @Test
    void aReplicasCheckpointIsWhereItsLogResumes() throws Exception {
        List<Object> log = new ArrayList<>();
        for (int i = 0; i < 30; i++) {
            log.add(i % 3 == 0 ? Increment.of("n").addColumn("f".getBytes(StandardCharsets.UTF_8),
                    "c".getBytes(StandardCharsets.UTF_8), 1) : Put.of("r" + (i % 5)).addColumn("f", "q", "v" + i));
        }
        Path copy = dir.resolve("snapshot");
        List<String> all;
        Store leader = Store.openReplica(dir.resolve("leader"), StoreOptions.defaults(), clock::get,
                new StripedRegionLocks(), LocalDisk.INSTANCE);
        try (Connection c = new EmbeddedConnection(leader)) {
            await(c.admin().createTable(TableDescriptor.of("t", "f")));
            for (int i = 0; i < 18; i++) {
                leader.applyLogged("t", i + 1, 100 + i, log.get(i));
            }
            assertThat(leader.checkpoint(copy)).isEqualTo(18);
            for (int i = 18; i < log.size(); i++) {
                leader.applyLogged("t", i + 1, 100 + i, log.get(i));
            }
            all = rows(c);
        }
        Store follower = Store.openReplica(copy, StoreOptions.defaults(), clock::get, new StripedRegionLocks(),
                LocalDisk.INSTANCE);
        try (Connection c = new EmbeddedConnection(follower)) {
            assertThat(follower.appliedSequence()).isEqualTo(18);
            for (int i = 0; i < log.size(); i++) {
                follower.applyLogged("t", i + 1, 100 + i, log.get(i)); // the first 18 are skipped
            }
            assertThat(rows(c)).isEqualTo(all);
        }
    }

    @Test
    void aCheckpointIntoAnExistingDirectoryIsRefused() throws Exception {
        try (Connection c = open(dir.resolve("s"), LocalDisk.INSTANCE)) {
            await(c.admin().createTable(TableDescriptor.of("t", "f")));
            Files.createDirectories(dir.resolve("taken"));
            assertThatThrownBy(() -> ((EmbeddedConnection) c).store().checkpoint(dir.resolve("taken")))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("exists already");
        }
    }
}
