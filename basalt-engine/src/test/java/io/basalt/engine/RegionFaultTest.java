package io.basalt.engine;

import static org.assertj.core.api.Assertions.assertThat;

import io.basalt.client.Connection;
import io.basalt.client.Put;
import io.basalt.client.RegionInfo;
import io.basalt.client.Result;
import io.basalt.client.Scan;
import io.basalt.client.StoreOptions;
import io.basalt.client.TableDescriptor;
import io.basalt.engine.FaultyDisk.Fault;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Splits and merges under a fault or a power loss at every step they take on disk. Whatever the
 * step, reopening finds every acknowledged row exactly once, and the table as it was before the
 * operation or as it is after it, never in between; and the operation can be done again.
 *
 * <p>The steps are counted on a clean run first, so the walk follows the code: each flush write,
 * directory sync and manifest edit of the operation is hit once with an I/O error and once with a
 * power loss.
 */
class RegionFaultTest {

    private static final int ROWS = 300;
    private static final byte[] SPLIT_AT = row(150);

    @TempDir
    Path temp;

    private final AtomicLong clock = new AtomicLong(1_000_000);

    private static StoreOptions options() {
        return StoreOptions.defaults().withBackgroundRetries(1, Duration.ofMillis(5)).withRegionSplitSize(0);
    }

    private static byte[] row(int i) {
        return String.format("r%04d", i).getBytes(StandardCharsets.UTF_8);
    }

    private static String value(int i) {
        return "v" + i + "-".repeat(60);
    }

    private Connection open(Path dir, Disk disk) throws Exception {
        return new EmbeddedConnection(Store.open(dir, options(), clock::get, new StripedRegionLocks(), disk));
    }

    private static <T> T await(CompletableFuture<T> f) throws Exception {
        return f.get(30, TimeUnit.SECONDS);
    }

    /**
     * A table of {@link #ROWS} acknowledged rows, the first half in an SSTable, the rest in the
     * memtable (so the operation's own flush has work); {@code splitFirst} splits it at
     * {@link #SPLIT_AT} before anything is armed.
     */
    private Connection populated(Path dir, FaultyDisk disk, boolean splitFirst) throws Exception {
        Connection c = open(dir, disk);
        await(c.admin().createTable(TableDescriptor.of("t", "f")));
        await(c.admin().createTable(TableDescriptor.of("side", "f")));
        for (int i = 0; i < ROWS; i++) {
            await(c.table("t").put(new Put(row(i)).addColumn("f", "q", value(i))));
            if (i == ROWS / 2) {
                await(c.admin().flush("t"));
            }
        }
        if (splitFirst) {
            await(c.admin().split("t", SPLIT_AT));
            for (int i = 0; i < ROWS; i += 7) { // something for the merge's flushes to write
                await(c.table("t").put(new Put(row(i)).addColumn("f", "q", value(i))));
            }
        }
        return c;
    }

    /** Every row once, with its value, in order, forward and backward. */
    private static void checkRows(Connection c, String when) throws Exception {
        List<Result> rows = await(c.table("t").scanAll(new Scan()));
        assertThat(rows).as("rows %s", when).hasSize(ROWS);
        for (int i = 0; i < ROWS; i++) {
            assertThat(rows.get(i).row()).as("row %d %s", i, when).isEqualTo(row(i));
            assertThat(new String(rows.get(i).value("f", "q"), StandardCharsets.UTF_8)).isEqualTo(value(i));
        }
        List<Result> reversed = await(c.table("t").scanAll(new Scan().setReversed(true)));
        assertThat(reversed).as("rows backward %s", when).hasSize(ROWS);
        assertThat(reversed.getFirst().row()).isEqualTo(row(ROWS - 1));
    }

    private static List<String> bounds(Connection c) throws Exception {
        List<String> out = new ArrayList<>();
        for (RegionInfo r : await(c.admin().listRegions("t"))) {
            out.add(new String(r.start(), StandardCharsets.UTF_8) + ".." + new String(r.end(), StandardCharsets.UTF_8));
        }
        return out;
    }

    private static final List<String> WHOLE = List.of("..");
    private static final List<String> HALVES = List.of("..r0150", "r0150..");

    /** The disk operations a clean split (or merge) of the populated table takes. */
    private long stepsOf(boolean merge) throws Exception {
        FaultyDisk disk = new FaultyDisk();
        Path dir = Files.createDirectory(temp.resolve(merge ? "count-merge" : "count-split"));
        try (Connection c = populated(dir, disk, merge)) {
            long before = disk.operationsSoFar();
            operate(c, merge);
            long steps = disk.operationsSoFar() - before;
            assertThat(bounds(c)).isEqualTo(merge ? WHOLE : HALVES);
            return steps;
        }
    }

    private static void operate(Connection c, boolean merge) throws Exception {
        if (merge) {
            List<RegionInfo> regions = await(c.admin().listRegions("t"));
            await(c.admin().mergeRegions("t", regions.get(0).name(), regions.get(1).name()));
        } else {
            await(c.admin().split("t", SPLIT_AT));
        }
    }

    @Test
    void aSplitThatFailsOrLosesPowerAtAnyStepLeavesTheParentOrBothDaughters() throws Exception {
        walk(false);
    }

    @Test
    void aMergeThatFailsOrLosesPowerAtAnyStepLeavesBothRegionsOrTheMergedOne() throws Exception {
        walk(true);
    }

    private void walk(boolean merge) throws Exception {
        long steps = stepsOf(merge);
        assertThat(steps).as("disk operations of a clean %s", merge ? "merge" : "split").isGreaterThanOrEqualTo(3);
        List<String> before = merge ? HALVES : WHOLE;
        List<String> after = merge ? WHOLE : HALVES;
        int endedBefore = 0;
        int endedAfter = 0;
        // One step more than the operation takes: the log append of a write after it, so the walk
        // also loses power just after the operation's last step.
        for (long step = 1; step <= steps + 1; step++) {
            for (Fault fault : new Fault[] {Fault.IO_ERROR, null}) {
                String label = (merge ? "merge" : "split") + ", " + (fault == null ? "power lost" : fault)
                        + " at step " + step + " of " + steps + " (and a write after it)";
                Path dir = Files.createDirectory(temp.resolve((merge ? "merge-" : "split-") + step + "-"
                        + (fault == null ? "crash" : "error")));
                FaultyDisk disk = new FaultyDisk();
                Connection c = populated(dir, disk, merge);
                disk.atOperation(step, fault);
                boolean done;
                try {
                    operate(c, merge);
                    done = true;
                } catch (ExecutionException e) {
                    done = false;
                }
                try {
                    await(c.table("side").put(Put.of("after").addColumn("f", "q", "1")));
                } catch (ExecutionException e) {
                    // the armed step may be this write's
                }
                if (fault != null && done && step <= steps) {
                    // An error the operation survived (a retried flush): it must have finished.
                    assertThat(bounds(c)).as(label).isEqualTo(after);
                }
                if (fault != null && !done && ((EmbeddedConnection) c).store().readOnly() == null) {
                    // Refused cleanly: the store goes on as before, and the operation can be retried.
                    assertThat(bounds(c)).as(label + ", live").isEqualTo(before);
                    checkRows(c, label + ", live");
                }
                try {
                    c.close();
                } catch (RuntimeException e) {
                    // a crashed disk or a read-only store: the log keeps what is not in SSTables
                }
                if (fault == null) {
                    disk.loseUnsynced(new SplittableRandom(step));
                }
                try (Connection reopened = open(dir, LocalDisk.INSTANCE)) {
                    List<String> found = bounds(reopened);
                    assertThat(found).as(label + ": the regions after reopening").isIn(before, after);
                    if (found.equals(before)) {
                        endedBefore++;
                    } else {
                        endedAfter++;
                    }
                    checkRows(reopened, label + ", reopened");
                    if (found.equals(before)) {
                        operate(reopened, merge);
                        assertThat(bounds(reopened)).as(label + ": done again").isEqualTo(after);
                        checkRows(reopened, label + ", done again");
                    }
                }
                try (Connection again = open(dir, LocalDisk.INSTANCE)) {
                    assertThat(bounds(again)).as(label + ": after a second reopening").isEqualTo(after);
                    checkRows(again, label + ", reopened twice");
                }
            }
        }
        // The walk reached both sides of the one manifest edit that decides.
        assertThat(endedBefore).as("steps that left the old regions").isPositive();
        assertThat(endedAfter).as("steps that left the new regions").isPositive();
    }
}
