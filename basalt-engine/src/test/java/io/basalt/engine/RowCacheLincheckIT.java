package io.basalt.engine;

import io.basalt.bytes.Bytes;
import io.basalt.client.Delete;
import io.basalt.client.Durability;
import io.basalt.client.Get;
import io.basalt.client.Increment;
import io.basalt.client.Put;
import io.basalt.client.Result;
import io.basalt.client.StoreOptions;
import io.basalt.client.TableDescriptor;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
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
 * Lincheck (stress strategy) on gets answered through the row cache while the rows are put,
 * incremented and deleted and the table flushed: every history must be linearizable, as if
 * there were no cache. A real store each invocation (asynchronous durability), with a row cache
 * of its own. Model checking is left out for the reason {@link
 * RegionRoutingLincheckIT} gives.
 */
@Param(name = "row", gen = IntGen.class, conf = "0:1")
@Param(name = "value", gen = IntGen.class, conf = "1:4")
public class RowCacheLincheckIT {

    private static final byte[] F = {'f'};
    private static final byte[] Q = {'q'};
    private static final byte[] N = {'n'};

    private final Path dir;
    private final EmbeddedConnection connection;

    public RowCacheLincheckIT() throws IOException, InterruptedException, ExecutionException {
        dir = Files.createTempDirectory("basalt-lincheck-");
        connection = new EmbeddedConnection(Store.open(dir, StoreOptions.defaults().withDurability(Durability.ASYNC)
                .withRegionSplitSize(0).withRowCacheSize(64 * 1024), System::currentTimeMillis, new StripedRegionLocks()));
        connection.admin().createTable(TableDescriptor.of("t", "f")).get();
    }

    private static byte[] row(int i) {
        return Bytes.utf8("r" + i);
    }

    @Operation
    public void put(@Param(name = "row") int row, @Param(name = "value") int value) throws Exception {
        connection.table("t").put(new Put(row(row)).addColumn(F, Q, Bytes.utf8(Integer.toString(value))))
                .get(30, TimeUnit.SECONDS);
    }

    @Operation
    public void increment(@Param(name = "row") int row) throws Exception {
        connection.table("t").increment(new Increment(row(row)).addColumn(F, N, 1)).get(30, TimeUnit.SECONDS);
    }

    @Operation
    public void delete(@Param(name = "row") int row) throws Exception {
        connection.table("t").delete(new Delete(row(row))).get(30, TimeUnit.SECONDS);
    }

    /** The row as "value/count": its q column and its n counter, each "-" when absent. */
    @Operation
    public String get(@Param(name = "row") int row) throws Exception {
        Result r = connection.table("t").get(new Get(row(row))).get(30, TimeUnit.SECONDS);
        byte[] q = r.value(F, Q);
        io.basalt.cell.Cell n = r.latest(F, N);
        return (q == null ? "-" : new String(q, java.nio.charset.StandardCharsets.UTF_8)) + "/"
                + (n == null ? "-" : Long.toString(Increment.decode(n.value())));
    }

    @Operation
    public void flush() throws Exception {
        connection.admin().flush("t").get(30, TimeUnit.SECONDS);
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

    /** The sequential specification: per row a value and a counter; a delete clears both. */
    public static final class Spec {
        private final String[] values = new String[2];
        private final long[] counters = new long[2];

        public void put(int row, int value) {
            values[row] = Integer.toString(value);
        }

        public void increment(int row) {
            counters[row]++;
        }

        public void delete(int row) {
            values[row] = null;
            counters[row] = 0;
        }

        public String get(int row) {
            return (values[row] == null ? "-" : values[row]) + "/" + (counters[row] == 0 ? "-" : Long.toString(counters[row]));
        }

        public void flush() {}
    }

    @Test
    void stress() {
        LinChecker.check(RowCacheLincheckIT.class, new StressOptions()
                .sequentialSpecification(Spec.class)
                .iterations(15)
                .invocationsPerIteration(30)
                .threads(3)
                .actorsPerThread(3)
                .actorsBefore(2)
                .actorsAfter(2));
    }
}
