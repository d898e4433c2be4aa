package io.basalt.bench.load;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The bounded nemesis test of {@code ./basalt test} (issue 19): one run of {@link NemesisRun} on
 * three node processes with the default election timeouts (1-2 s), for 60 s, under a leader
 * kill, a split, a pause past an election, a merge, a partition past an election and a restart;
 * the history must be linearizable, and the run must count (at least 1,000 operations on the 7
 * keys, at least 3 faults, a partition, a split and a merge among them). Then the same with the planted
 * stale-read bug, which the checker must catch. {@code ./basalt load nemesis --runs N} runs more.
 */
class NemesisIT {

    @TempDir
    Path dir;

    @Test
    void aRunUnderKillsPausesPartitionsSplitsMergesAndRestartsIsLinearizable() throws Exception {
        NemesisRun.Outcome o = NemesisRun.runOnce(dir, System.nanoTime(), 60, 8, false);
        System.out.println("NemesisIT: " + o.operations() + " operations, " + o.indeterminate() + " indeterminate "
                + o.unknownCauses() + ", faults " + o.faultLog() + ", " + o.check().verdict());
        assertThat(o.check().linearizable()).as("%s on key %s (history %s)", o.check().explanation(), o.check().key(),
                o.history()).isTrue();
        assertThat(o.operations()).as("a run counts with at least 1,000 operations").isGreaterThanOrEqualTo(1000);
        assertThat(o.faults()).as("and at least 3 faults: %s", o.faultLog()).isGreaterThanOrEqualTo(3);
        assertThat(o.faultLog()).as("a partition among them").anyMatch(f -> f.startsWith("partition"));
        assertThat(o.faultLog()).as("and a split").anyMatch(f -> f.startsWith("split at"));
        assertThat(o.faultLog()).as("and a merge").anyMatch(f -> f.startsWith("merge of") && !f.contains("refused"));
    }

    @Test
    void thePlantedStaleReadBugIsCaught() throws Exception {
        NemesisRun.Outcome o = NemesisRun.runOnce(dir.resolve("planted"), 20261125L, 30, 8, true);
        System.out.println("NemesisIT planted: " + o.operations() + " operations, " + o.check().verdict() + ": "
                + o.check().explanation());
        assertThat(o.check().linearizable()).as("reads served from a replica without lease or ReadIndex").isFalse();
        assertThat(o.check().unknown()).isFalse();
    }
}
