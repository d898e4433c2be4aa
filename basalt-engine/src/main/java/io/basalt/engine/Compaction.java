package io.basalt.engine;

import io.basalt.bytes.Bytes;
import io.basalt.cell.CellLayout;
import io.basalt.client.FamilyDescriptor;
import io.basalt.client.StoreReadOnlyException;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Merges some SSTables of one family into one, dropping what no reader can see any more:
 * masked and expired cells, versions beyond the family's limit, and (when every file of the family
 * takes part) the delete markers themselves. What is dropped is decided by {@link Visibility} at
 * the smallest read point of any open scanner, so no open scan loses a cell it could still return.
 *
 * <p><b>Why size-tiered.</b> A region flushes whole memtables of its key range, so its files of
 * one family overlap in key range; merging files of similar size (a tier) bounds the
 * write amplification to about log(total/flush size) rewrites of each cell, against leveled
 * compaction's ~10 rewrites per level, at the cost of more files per read, which the bloom
 * filters and the file-count stall bound. Write-heavy wide-column workloads (HBase's default
 * exploring policy is also size-based) favour that trade. Where reads pay for it, because rows
 * updated since the last merge are spread over several files, the gets' own charges start a merge
 * of every file ({@link Region#chargeExtraReads}).
 */
final class Compaction {

    private static final Logger LOG = LoggerFactory.getLogger(Compaction.class);
    /** Files in a tier are within this factor of the tier's smallest. */
    static final double TIER_RATIO = 2.0;
    /** Most files merged at once, so one compaction stays bounded. */
    static final int MAX_INPUTS = 10;

    private final Store store;
    private final Region region;
    private final FamilyDescriptor family;
    private final List<SSTableReader> inputs;
    private final boolean allFiles;

    Compaction(Store store, Region region, FamilyDescriptor family, List<SSTableReader> inputs, boolean allFiles) {
        this.store = store;
        this.region = region;
        this.family = family;
        this.inputs = List.copyOf(inputs);
        this.allFiles = allFiles;
    }

    /**
     * The files to merge, given their {@code sizes} (the bytes of each that the region owns: a
     * file a split shared is only partly its): a run of files <em>adjacent in age</em> (the view
     * lists them newest first) whose sizes are within {@link #TIER_RATIO} of the run's smallest,
     * the longest such run with at least {@code trigger} files; or, when a family has piled up
     * twice the trigger without forming a tier, the run of {@code trigger} to {@link #MAX_INPUTS}
     * adjacent files that costs the fewest bytes per file it takes away.
     *
     * <p>Adjacency is what keeps a partial merge honest: a merge of files around one it leaves
     * out could judge a version surplus because the delete marker that hides a newer version sits
     * in the file in between (HBase's compaction policies only ever pick adjacent files too).
     *
     * <p>Why bytes per file taken away: flush sizes vary (a split flushes its region whatever
     * its memtable holds, and memory pressure flushes memtables early), so eight files often form
     * no tier, and the cheapest run of up to ten used to be every file of the region, its large
     * old ones included: YCSB's load rewrote each region whole about once per split. Merging
     * the small files among themselves takes as many files away for a fraction of the bytes.
     */
    static List<SSTableReader> select(List<SSTableReader> files, long[] sizes, int trigger) {
        int[] run = selectRun(sizes, trigger);
        return run == null ? List.of() : List.copyOf(files.subList(run[0], run[0] + run[1]));
    }

    /** {@link #select}'s choice among files of these sizes: the run's first index and length, or null. */
    static int[] selectRun(long[] sizes, int trigger) {
        int n = sizes.length;
        if (n < trigger) {
            return null;
        }
        int bestStart = 0;
        int bestLength = 0;
        for (int start = 0; start < n; start++) {
            long smallest = Long.MAX_VALUE;
            long largest = 0;
            int end = start;
            while (end < n && end - start < MAX_INPUTS) {
                long size = Math.max(1, sizes[end]);
                long nextSmallest = Math.min(smallest, size);
                long nextLargest = Math.max(largest, size);
                if (nextLargest > nextSmallest * TIER_RATIO) {
                    break;
                }
                smallest = nextSmallest;
                largest = nextLargest;
                end++;
            }
            if (end - start > bestLength) {
                bestStart = start;
                bestLength = end - start;
            }
        }
        if (bestLength >= trigger) {
            return new int[] {bestStart, bestLength};
        }
        if (n < trigger * 2) {
            return null;
        }
        int cheapest = 0;
        int cheapestLength = 0;
        double cheapestCost = Double.MAX_VALUE;
        for (int start = 0; start + trigger <= n; start++) {
            long total = 0;
            for (int end = start; end < n && end - start < MAX_INPUTS; end++) {
                total += Math.max(1, sizes[end]);
                int length = end - start + 1;
                if (length < trigger) {
                    continue;
                }
                double cost = (double) total / (length - 1);
                if (cost < cheapestCost) {
                    cheapestCost = cost;
                    cheapest = start;
                    cheapestLength = length;
                }
            }
        }
        return new int[] {cheapest, cheapestLength};
    }

    /** Lets go of an output that did not commit, deleting its file unless {@code keep}. */
    private void discard(SSTableReader output, Path path, boolean keep, Exception failure) {
        if (output != null) {
            if (!keep) {
                output.markObsolete();
            }
            output.release();
        }
        if (!keep) {
            try {
                store.disk().delete(path);
            } catch (IOException e) {
                if (failure != null) {
                    failure.addSuppressed(e);
                }
            }
        }
    }

    /** Runs the compaction; returns the bytes it wrote (0 when it kept nothing or did not commit). */
    long run() throws IOException {
        for (SSTableReader input : inputs) {
            if (!input.retain()) {
                throw new IllegalStateException(input + " was closed while a compaction selected it");
            }
        }
        long readPoint = store.readPoints().smallest();
        long now = store.clock().getAsLong();
        long expected = inputs.stream().mapToLong(SSTableReader::entries).sum();
        long number = store.manifest().reserveFileNumber();
        Path path = store.sstablePath(region.tableId(), family.name(), number);
        store.ensureDirectory(path.getParent());
        long kept = 0;
        long dropped = 0;
        SSTableReader output = null;
        boolean committed = false;
        boolean keepOutput = false;
        List<InternalIterator> sources = new ArrayList<>();
        inputs.forEach(f -> sources.add(f.newCompactionIterator()));
        try (SSTableWriter writer = new SSTableWriter(path, family, expected, store.disk(), Disk.Purpose.COMPACTION);
             MergingIterator merged = new MergingIterator(sources)) {
            // Only the region's rows: a file a split shared holds its sibling's rows too.
            if (region.start().length > 0) {
                merged.seek(SeekKey.firstOnRow(region.start()));
            }
            Copier copier = new Copier(merged, writer, new Visibility(readPoint, family, now), region.end(), allFiles);
            while (copier.copy(BATCH)) {
                // each call copies one batch; see Copier for why the loop is cut
            }
            kept = copier.kept;
            dropped = copier.dropped;
            List<ManifestEdit.Change> changes = new ArrayList<>();
            if (kept > 0) {
                SSTableWriter.Info info = writer.finish();
                store.disk().syncDirectory(path.getParent());
                output = SSTableReader.open(number, path, store.blockCache(), store.disk());
                changes.add(new ManifestEdit.AddFile(region.id(), family.name(), new ManifestEdit.FileMeta(number,
                        info.fileSize(), info.entries(), info.maxSequence(), info.firstKey(), info.lastKey())));
            }
            for (SSTableReader input : inputs) {
                changes.add(new ManifestEdit.RemoveFile(region.id(), family.name(), input.fileNumber()));
            }
            changes.add(new ManifestEdit.NextFile(store.manifest().nextFileNumber()));
            SSTableReader published = output;
            try {
                committed = store.commitCompaction(region, new ManifestEdit(changes),
                        () -> region.compacted(family.name(), inputs, published));
            } catch (StoreReadOnlyException e) {
                keepOutput = true; // the manifest's state is unknown: the next open may list the output
                throw e;
            }
        } catch (IOException | RuntimeException e) {
            discard(output, path, keepOutput, e);
            throw e;
        } finally {
            inputs.forEach(SSTableReader::release);
        }
        if (!committed) {
            discard(output, path, false, null);
            LOG.debug("Table {} was dropped while compacting {}; discarded the output", region.label(), family.name());
            return 0;
        }
        LOG.debug("Compacted {} files of {}:{} into {} ({} cells kept, {} dropped)", inputs.size(), region.label(),
                family.name(), output == null ? "nothing" : path.getFileName(), kept, dropped);
        return output == null ? 0 : output.fileSize();
    }

    /** Entries a {@link Copier#copy} call handles before it returns. */
    static final int BATCH = 4096;

    /**
     * The merge loop of a compaction, in calls of at most {@link #BATCH} entries.
     *
     * <p>Why cut it: with the loop in {@link #run}, each compaction ran one call of millions of
     * iterations, which the JIT can only compile on stack (OSR), and each time a rare branch of
     * the inlined merge, decoder or writer was taken for the first time the compiled loop was
     * thrown away and compiled again, OSR first and then whole. In YCSB's load, JFR counted seven
     * compilations of {@code run} at 0.3-1.0 s of C2 time each (5.1 s of the load's 17.7 s of
     * compiling, on two cores). A method called per batch is compiled once, normally, and an
     * uncommon trap in it costs one recompilation of the batch, not of the whole compaction.
     */
    private static final class Copier {
        private final MergingIterator merged;
        private final SSTableWriter writer;
        private final Visibility visibility;
        private final byte[] end;
        private final boolean allFiles;
        /** The current row's length field and row: a key's first bytes. */
        private byte[] row = new byte[64];
        private int rowLength = -1;
        /** A key copied out of a source that has no array. */
        private byte[] copied = new byte[0];
        long kept;
        long dropped;

        Copier(MergingIterator merged, SSTableWriter writer, Visibility visibility, byte[] end, boolean allFiles) {
            this.merged = merged;
            this.writer = writer;
            this.visibility = visibility;
            this.end = end.length == 0 ? null : end;
            this.allFiles = allFiles;
        }

        /**
         * Copies up to {@code max} entries from the merge to the writer, by key and value, judged
         * on the key in place (no cell is made of them: see SSTableWriter.add(InternalIterator,
         * ...)); false once the merge is exhausted or past the region's end.
         */
        boolean copy(int max) throws IOException {
            for (int n = 0; n < max; n++) {
                if (!merged.valid()) {
                    return false;
                }
                merged.checkKey();
                byte[] key = merged.keyArray();
                int keyOffset = (int) merged.keyOffset();
                int keyLength = merged.keyLength();
                if (key == null) {
                    if (copied.length < keyLength) {
                        copied = new byte[Math.max(keyLength, copied.length * 2)];
                    }
                    MemorySegment.copy(merged.keySegment(), ValueLayout.JAVA_BYTE, keyOffset, copied, 0, keyLength);
                    key = copied;
                    keyOffset = 0;
                }
                int rowEnd = CellLayout.ROW_LENGTH_SIZE + Bytes.unsignedShortBE(key, keyOffset);
                if (rowLength != rowEnd || !Arrays.equals(row, 0, rowEnd, key, keyOffset, keyOffset + rowEnd)) {
                    if (end != null && Bytes.compare(key, keyOffset + CellLayout.ROW_LENGTH_SIZE,
                            rowEnd - CellLayout.ROW_LENGTH_SIZE, end, 0, end.length) >= 0) {
                        return false;
                    }
                    if (row.length < rowEnd) {
                        row = new byte[Math.max(rowEnd, row.length * 2)];
                    }
                    System.arraycopy(key, keyOffset, row, 0, rowEnd);
                    rowLength = rowEnd;
                    visibility.reset();
                }
                Visibility.Verdict verdict = visibility.judge(key, keyOffset, keyLength, merged.sequence());
                boolean keep = switch (verdict) {
                    case LIVE, FUTURE -> true;
                    case MARKER -> !allFiles;
                    case DROP -> false;
                };
                if (keep) {
                    writer.add(merged, key, keyOffset, keyLength);
                    kept++;
                } else {
                    dropped++;
                }
                merged.next();
            }
            return true;
        }
    }
}
