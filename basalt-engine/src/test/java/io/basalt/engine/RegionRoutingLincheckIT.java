package io.basalt.engine;

import io.basalt.client.Durability;
import io.basalt.client.Get;
import io.basalt.client.Put;
import io.basalt.client.RegionInfo;
import io.basalt.client.Result;
import io.basalt.client.StoreOptions;
import io.basalt.client.TableDescriptor;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.jetbrains.kotlinx.lincheck.LinChecker;
import org.jetbrains.kotlinx.lincheck.annotations.Operation;
import org.jetbrains.kotlinx.lincheck.annotations.Param;
import org.jetbrains.kotlinx.lincheck.annotations.Validate;
import org.jetbrains.kotlinx.lincheck.paramgen.IntGen;
import org.jetbrains.kotlinx.lincheck.strategy.stress.StressOptions;
import org.junit.jupiter.api.Test;

/**
 * Lincheck (stress strategy) on a table whose regions split and merge while its rows are put and
 * read: every history of puts and gets must be linearizable, as if splits and merges were not
 * there (they change no data). A real store each invocation (asynchronous durability, so a put
 * does not wait for a force), pre-split at {@code c}; rows {@code a}..{@code d} lie on both sides
 * of every split point used, so operations race the region swap on the rows it moves.
 *
 * <p>Model checking is left out: the store runs its own background threads (log syncer, flusher,
 * compactor) and does file I/O, which Lincheck's managed strategy cannot schedule.
 */
@Param(name = "row", gen = IntGen.class, conf = "0:3")
@Param(name = "value", gen = IntGen.class, conf = "1:5")
public class RegionRoutingLincheckIT {

    private static final String[] ROWS = {"a", "b", "c", "d"};
    private static final byte[] F = {'f'};
    private static final byte[] Q = {'q'};

    private final Path dir;
    private final EmbeddedConnection connection;

    public RegionRoutingLincheckIT() throws IOException, InterruptedException, ExecutionException {
        dir = Files.createTempDirectory("basalt-lincheck-");
        connection = new EmbeddedConnection(Store.open(dir, StoreOptions.defaults().withDurability(Durability.ASYNC)
                .withRegionSplitSize(0), System::currentTimeMillis, new StripedRegionLocks()));
        connection.admin().createTable(TableDescriptor.of("t", "f"), List.of(new byte[] {'c'})).get();
    }

    private static byte[] row(int i) {
        return ROWS[i].getBytes(StandardCharsets.UTF_8);
    }

    @Operation
    public void put(@Param(name = "row") int row, @Param(name = "value") int value) throws Exception {
        connection.table("t").put(new Put(row(row)).addColumn(F, Q, Integer.toString(value).getBytes(
                StandardCharsets.UTF_8))).get(30, TimeUnit.SECONDS);
    }

    @Operation
    public String get(@Param(name = "row") int row) throws Exception {
        Result r = connection.table("t").get(new Get(row(row))).get(30, TimeUnit.SECONDS);
        return r.isEmpty() ? null : new String(r.value(F, Q), StandardCharsets.UTF_8);
    }

    /** Splits the region holding the row at it; a row where a region already starts is refused (no change). */
    @Operation
    public void split(@Param(name = "row") int row) throws Exception {
        try {
            connection.admin().split("t", row(row)).get(30, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            if (!(e.getCause() instanceof IllegalArgumentException)) {
                throw e;
            }
        }
    }

    /** Merges the first two regions, when there are two. */
    @Operation
    public void merge() throws Exception {
        List<RegionInfo> regions = connection.admin().listRegions("t").get(30, TimeUnit.SECONDS);
        if (regions.size() < 2) {
            return;
        }
        try {
            connection.admin().mergeRegions("t", regions.get(0).name(), regions.get(1).name()).get(30,
                    TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            if (!(e.getCause() instanceof IllegalArgumentException)) { // a concurrent split or merge replaced one
                throw e;
            }
        }
    }

    /** After each invocation: close and delete the store. */
    @Validate
    public void closeStore() {
        connection.close();
        try {
            StoreModelTest.deleteRecursively(dir);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The sequential specification: a map of rows; splits and merges change nothing. */
    public static final class Spec {
        private final java.util.Map<Integer, String> rows = new java.util.HashMap<>();

        public void put(int row, int value) {
            rows.put(row, Integer.toString(value));
        }

        public String get(int row) {
            return rows.get(row);
        }

        public void split(int row) {}

        public void merge() {}
    }

    @Test
    void stress() {
        LinChecker.check(RegionRoutingLincheckIT.class, new StressOptions()
                .sequentialSpecification(Spec.class)
                .iterations(12)
                .invocationsPerIteration(25)
                .threads(3)
                .actorsPerThread(3)
                .actorsBefore(2)
                .actorsAfter(2));
    }
}
