package io.basalt.engine;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** Which files a size-tiered compaction picks ({@link Compaction#selectRun}); sizes newest first, in MB. */
class CompactionSelectTest {

    private static int[] pick(int trigger, long... sizes) {
        return Compaction.selectRun(sizes, trigger);
    }

    @Test
    void fewerFilesThanTheTriggerPickNothing() {
        assertThat(pick(4, 10, 10, 10)).isNull();
    }

    @Test
    void theLongestRunOfSimilarSizesIsATier() {
        // 36, 31, 36, 36 are within twice the smallest; 140 is not
        assertThat(pick(4, 36, 31, 36, 36, 140)).containsExactly(0, 4);
        // the tier may lie behind a newer file that does not belong to it
        assertThat(pick(4, 2, 36, 31, 36, 36, 140)).containsExactly(1, 4);
    }

    @Test
    void aTierNeedsTheTriggersCountOfFiles() {
        assertThat(pick(4, 36, 36, 36, 8, 20, 36, 144)).as("seven files, no tier of four").isNull();
    }

    @Test
    void withoutATierTwiceTheTriggerMergesTheSmallFilesNotTheRegionsLargeOnes() {
        // A split's daughter after a few flushes: its parent's two large files and newer ones of
        // varied sizes. Merging all eight (as the cheapest run of up to ten did) rewrote 456 MB to
        // take seven files away; 36 + 36 + 8 + 20 take three away for 100.
        int[] run = pick(4, 36, 36, 36, 8, 20, 36, 144, 140);
        assertThat(run).containsExactly(1, 4);
    }

    @Test
    void withoutATierTheRunCostingFewestBytesPerFileTakenAwayWins() {
        // Ten small files of varied sizes after three large ones. 4 + 6 + 8 + 3 + 2 takes four
        // files away at 5.75 MB each; all ten would cost 6.6 per file, and any run reaching a
        // large file far more.
        assertThat(pick(4, 5, 9, 3, 12, 4, 6, 8, 3, 2, 7, 300, 100, 900)).containsExactly(4, 5);
    }

    @Test
    void aRunNeverExceedsTheInputLimit() {
        long[] sizes = new long[25];
        java.util.Arrays.fill(sizes, 10);
        assertThat(pick(4, sizes)[1]).isEqualTo(Compaction.MAX_INPUTS);
        for (int i = 0; i < sizes.length; i++) {
            sizes[i] = 1L << (i % 12); // sizes that never form a tier
        }
        int[] run = pick(4, sizes);
        assertThat(run[1]).isBetween(4, Compaction.MAX_INPUTS);
    }
}
