package io.basalt.bench.cells;

import io.basalt.cell.Cell;
import io.basalt.cell.CellLayout;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * Suite {@code cells}: the cost of ordering two encoded cells, the comparison every memtable
 * insert, SSTable search and merge makes. {@code basalt} compares the keys in place
 * ({@code CellComparator.compareEncoded}); {@code naive} decodes both cells into objects with their
 * own arrays first. Cells lie in a heap array or in off-heap memory ({@code memory}).
 *
 * <p>The keys look like real ones: 20-byte rows {@code user0000012345...} that share long
 * prefixes, family {@code f}, qualifiers {@code q0..q9}, timestamps that repeat, 32-byte values.
 * Each pair compares neighbours in sorted order or random cells, so both the long-prefix and the
 * early-exit cases are in the mix.
 *
 * <p>Run: {@code ./basalt bench cells} (or {@code --quick}).
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class CellCompareBenchmark {

    static final int CELLS = 4096;
    static final int PAIRS = 1024;

    @Param({"basalt", "naive"})
    public String impl;

    @Param({"heap", "off-heap"})
    public String memory;

    private Arena arena;
    private MemorySegment data;
    private long[] left;
    private long[] right;
    private KeyComparison comparison;

    @Setup(Level.Trial)
    public void setUp() {
        comparison = KeyComparison.of(impl);
        SplittableRandom random = new SplittableRandom(42);
        List<Cell> cells = new ArrayList<>(CELLS);
        byte[] value = new byte[32];
        for (int i = 0; i < CELLS; i++) {
            String row = String.format("user%016d", random.nextInt(CELLS / 4));
            cells.add(Cell.put(row.getBytes(java.nio.charset.StandardCharsets.US_ASCII), new byte[] {'f'},
                    ("q" + random.nextInt(10)).getBytes(java.nio.charset.StandardCharsets.US_ASCII),
                    1_700_000_000_000L + random.nextInt(4), value));
        }
        cells.sort(io.basalt.cell.CellComparator.INSTANCE);
        long total = cells.stream().mapToLong(CellLayout::encodedLength).sum();
        if (memory.equals("heap")) {
            data = MemorySegment.ofArray(new byte[(int) total]);
        } else {
            arena = Arena.ofShared();
            data = arena.allocate(total, 8);
        }
        long[] offsets = new long[CELLS];
        long at = 0;
        for (int i = 0; i < CELLS; i++) {
            offsets[i] = at;
            at += CellLayout.write(cells.get(i), data, at);
        }
        left = new long[PAIRS];
        right = new long[PAIRS];
        for (int p = 0; p < PAIRS; p++) {
            int i = random.nextInt(CELLS - 1);
            int j = p % 2 == 0 ? i + 1 : random.nextInt(CELLS);
            left[p] = offsets[i];
            right[p] = offsets[j];
        }
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        if (arena != null) {
            arena.close();
        }
    }

    /** Average time of one comparison. */
    @Benchmark
    @OperationsPerInvocation(PAIRS)
    public int compare() {
        int signs = 0;
        for (int p = 0; p < PAIRS; p++) {
            signs += Integer.signum(comparison.compare(data, left[p], right[p]));
        }
        return signs;
    }
}
