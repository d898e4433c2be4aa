package io.basalt.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.basalt.buffer.Buffer;
import io.basalt.buffer.BufferPool;
import io.basalt.buffer.BufferPoolConfig;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

class BlockTableTest {

    /**
     * Random puts, uses, removals and evictions on a small table (long probe runs, runs that wrap
     * past the end) against a model: an insertion-ordered map with a used flag per key, evicting
     * by the same second-chance rule. After every step each key the model holds is found with its
     * buffer, no other key is, and the order list matches the model's; so removal's backward shift
     * never loses, duplicates or misplaces an entry, and never breaks the list.
     */
    @Test
    void behavesAsAnInsertionOrderedMapWithSecondChanceEviction() {
        try (BufferPool pool = BufferPool.create(BufferPoolConfig.defaults().withName("table-test")
                .withSizes(64 * 1024, 64, 64L * 1024))) {
            Buffer[] buffers = new Buffer[64];
            for (int i = 0; i < buffers.length; i++) {
                buffers[i] = pool.allocate(64);
            }
            for (int seed = 0; seed < 300; seed++) {
                Random random = new Random(seed);
                BlockTable table = new BlockTable(8 + random.nextInt(24));
                LinkedHashMap<Long, Boolean> used = new LinkedHashMap<>(); // key -> used, oldest first
                Map<Long, Buffer> held = new HashMap<>();
                for (int step = 0; step < 400; step++) {
                    long key = BlockTable.key(1 + random.nextInt(3), random.nextInt(60));
                    int op = random.nextInt(10);
                    if (op < 4) {
                        if (!used.containsKey(key) && !table.full()) {
                            Buffer buffer = buffers[random.nextInt(buffers.length)];
                            table.put(key, buffer);
                            used.put(key, false);
                            held.put(key, buffer);
                        }
                    } else if (op < 6) {
                        int slot = table.find(key);
                        assertThat(slot >= 0).isEqualTo(used.containsKey(key));
                        if (slot >= 0) {
                            assertThat(table.use(slot)).isSameAs(held.get(key));
                            used.put(key, true);
                        }
                    } else if (op < 8) {
                        int slot = table.find(key);
                        if (slot >= 0) {
                            assertThat(table.removeAt(slot)).isSameAs(held.remove(key));
                            used.remove(key);
                        }
                    } else if (!used.isEmpty()) {
                        long expected = modelVictim(used);
                        int slot = table.victim();
                        assertThat(table.keyAt(slot)).isEqualTo(expected);
                        assertThat(table.removeAt(slot)).isSameAs(held.remove(expected));
                        used.remove(expected);
                    }
                    assertThat(table.size()).isEqualTo(used.size());
                    for (Map.Entry<Long, Buffer> e : held.entrySet()) {
                        int slot = table.find(e.getKey());
                        assertThat(slot).as("seed %d step %d key %x", seed, step, e.getKey()).isNotNegative();
                        assertThat(table.buffer(slot)).isSameAs(e.getValue());
                    }
                    assertThat(table.order()).containsExactly(used.keySet().stream().mapToLong(Long::longValue).toArray());
                }
                int file = 1 + random.nextInt(3);
                List<Long> ofFile = new ArrayList<>();
                for (long k : used.keySet()) {
                    if (BlockTable.fileId(k) == file) {
                        ofFile.add(k);
                    }
                }
                assertThat(table.keysOf(file)).containsExactlyInAnyOrder(ofFile.stream().mapToLong(Long::longValue).toArray());
                List<Buffer> drained = new ArrayList<>();
                table.drain(drained::add);
                assertThat(drained).hasSize(held.size());
                assertThat(table.size()).isZero();
                assertThat(table.order()).isEmpty();
            }
            for (Buffer buffer : buffers) {
                buffer.release();
            }
        }
    }

    /** The model's second chance: a used key at the front loses its mark and goes to the back. */
    private static long modelVictim(LinkedHashMap<Long, Boolean> used) {
        while (true) {
            Map.Entry<Long, Boolean> oldest = used.entrySet().iterator().next();
            if (!oldest.getValue()) {
                return oldest.getKey();
            }
            used.remove(oldest.getKey());
            used.put(oldest.getKey(), false);
        }
    }

    @Test
    void refusesAKeyOfZeroAndAnInsertIntoAFullTable() {
        BlockTable table = new BlockTable(16);
        assertThatThrownBy(() -> table.put(0, null)).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("reserved");
        int block = 0;
        while (!table.full()) {
            table.put(BlockTable.key(1, block++), null);
        }
        long next = BlockTable.key(1, block);
        assertThatThrownBy(() -> table.put(next, null)).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("full");
        assertThatThrownBy(() -> new BlockTable(16).victim()).isInstanceOf(IllegalStateException.class);
    }
}
