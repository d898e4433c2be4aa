package io.basalt.engine;

import static org.assertj.core.api.Assertions.assertThat;

import io.basalt.client.Basalt;
import io.basalt.client.Connection;
import io.basalt.client.Durability;
import io.basalt.client.Put;
import io.basalt.client.StoreOptions;
import io.basalt.client.TableDescriptor;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A store of many regions, each written a little: its memtables hold little memory, and count
 * what they hold. Before the twenty-sixth session each region's memtable made a 2 MiB slab and a
 * 512 KiB row filter on its first write, counted against nothing: a table of 512 regions on a
 * 2 GiB heap ran out of memory within two seconds of writes spread over it
 * ({@code RegionCountPutBenchmark}), and the store went read-only.
 */
class ManyRegionsMemoryTest {

    private static final int REGIONS = 512;

    @TempDir
    Path dir;

    private static byte[] key(int i) {
        return String.format("k%06d", i).getBytes(StandardCharsets.US_ASCII);
    }

    private static long usedHeapAfterCollecting(MemoryMXBean memory) {
        System.gc();
        return memory.getHeapMemoryUsage().getUsed();
    }

    @Test
    void aRowInEachOfManyRegionsHoldsLittleHeapAndIsCounted() throws Exception {
        MemoryMXBean memory = ManagementFactory.getMemoryMXBean();
        try (Connection c = Basalt.open(dir, StoreOptions.defaults().withDurability(Durability.ASYNC)
                .withRegionSplitSize(0))) {
            List<byte[]> splits = new ArrayList<>();
            for (int i = 1; i < REGIONS; i++) {
                splits.add(key(i * 10));
            }
            c.admin().createTable(TableDescriptor.of("t", "f"), splits).get(60, TimeUnit.SECONDS);
            TableRegions table = ((EmbeddedConnection) c).store().table("t");
            assertThat(table.regions()).hasSize(REGIONS);

            long before = usedHeapAfterCollecting(memory);
            for (int i = 0; i < REGIONS; i++) {
                c.table("t").put(new Put(key(i * 10 + 5)).addColumn("f".getBytes(StandardCharsets.UTF_8),
                        "q".getBytes(StandardCharsets.UTF_8), new byte[100])).get(30, TimeUnit.SECONDS);
            }
            long grown = usedHeapAfterCollecting(memory) - before;

            long counted = 0;
            for (Region region : table.regions()) {
                assertThat(region.view().active().size()).as("one cell in each region").isEqualTo(1);
                counted += region.memtableBytes();
            }
            // 512 regions: a 64 KiB slab and a row filter of the memory limit's share each (64 MiB
            // in all on a 6 GiB heap); the old code held 1.25 GiB.
            assertThat(grown).as("heap the memtables of %d one-row regions hold", REGIONS).isLessThan(256L << 20);
            assertThat(counted).as("what they hold is counted against memtableMemoryLimit")
                    .isGreaterThanOrEqualTo((long) REGIONS * MemTable.FIRST_SLAB_SIZE);
        }
    }
}
