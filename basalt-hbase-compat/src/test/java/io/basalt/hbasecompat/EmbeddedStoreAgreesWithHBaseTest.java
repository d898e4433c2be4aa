package io.basalt.hbasecompat;

import static org.assertj.core.api.Assertions.assertThat;

import io.basalt.client.AsyncTable;
import io.basalt.client.Basalt;
import io.basalt.client.Connection;
import io.basalt.client.FamilyDescriptor;
import io.basalt.client.Put;
import io.basalt.client.Result;
import io.basalt.client.Scan;
import io.basalt.client.TableDescriptor;
import io.basalt.client.filter.Filter;
import io.basalt.hbasecompat.Gen.Case;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.ShrinkingMode;

/**
 * Ties the in-memory walk that stands for Basalt in {@link FiltersAgreeWithHBaseTest} to the real
 * reader: random cells in an embedded store (part flushed to a file, part in the memtable), then
 * filtered scans of every kind, forward and reversed, each compared with HBase's driver over the
 * same cells and with the walk. 50 stores, 8 filters each, both directions: up to 800 scans a run.
 */
class EmbeddedStoreAgreesWithHBaseTest {

    @Property(tries = 50, shrinking = ShrinkingMode.OFF)
    void realReaderAgreesWithHBase(@ForAll long seed) throws Exception {
        Random random = new Random(seed);
        Gen gen = new Gen(random);
        List<Kv> cells = gen.cells(3, new Gen.Shape(1, 4));
        Path dir = Files.createTempDirectory("basalt-hbase-compat");
        try (Connection c = Basalt.open(dir)) {
            c.admin().createTable(new TableDescriptor("t", List.of(FamilyDescriptor.of("f").withMaxVersions(3),
                    FamilyDescriptor.of("g").withMaxVersions(3)))).get(30, TimeUnit.SECONDS);
            AsyncTable table = c.table("t");
            int flushAt = random.nextInt(cells.size() + 1);
            for (int i = 0; i < cells.size(); i++) {
                if (i == flushAt) {
                    c.admin().flush("t").get(30, TimeUnit.SECONDS);
                }
                Kv kv = cells.get(i);
                table.put(new Put(kv.row()).addColumn(kv.family(), kv.qualifier(), kv.ts(), kv.value()))
                        .get(30, TimeUnit.SECONDS);
            }
            for (int i = 0; i < 8; i++) {
                Filter filter = gen.filterFor(cells, i % 2 == 0);
                for (boolean reversed : new boolean[] {false, true}) {
                    Case k = new Case(cells, filter, reversed, 3);
                    if (Known.excluded(k, Gen.STRICT) != null) {
                        continue;
                    }
                    Scan scan = new Scan().readVersions(3).setReversed(reversed).setFilter(filter);
                    List<String> real = Differ.texts(kvs(table.scanAll(scan).get(30, TimeUnit.SECONDS)));
                    assertThat(real).as("real reader against the walk: %s", Differ.describe(k))
                            .containsExactlyElementsOf(Differ.basalt(k));
                    assertThat(real).as("real reader against HBase: %s", Differ.describe(k))
                            .containsExactlyElementsOf(Differ.hbase(k));
                }
            }
        } finally {
            try (var paths = Files.walk(dir)) {
                for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
                    Files.deleteIfExists(p);
                }
            }
        }
    }

    private static List<Kv> kvs(List<Result> results) {
        List<Kv> out = new ArrayList<>();
        for (Result r : results) {
            r.cells().forEach(cell -> out.add(Kv.of(cell)));
        }
        return out;
    }
}
